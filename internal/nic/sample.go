package nic

import (
	"rocelab/internal/metrics"
	"rocelab/internal/unit"
)

// QPSeries is one queue pair's sampled congestion-control state.
type QPSeries struct {
	// Conn is the connection the QP sends for.
	Conn int32
	// Rate is the sending rate in Gb/s; Alpha DCQCN's α.
	Rate, Alpha *metrics.Series
}

// Sample implements fabric.Sampler: the rate and α of the first
// Config.SampleQPs queue pairs with congestion control of this NIC,
// from the moment each is first rate-limited.
func (n *NIC) Sample(now unit.Time) {
	for _, q := range n.qps {
		if q.cc == nil {
			continue
		}
		if q.series == nil {
			if n.sampled >= n.cfg.SampleQPs || !q.dcqcn.Limited() {
				continue
			}
			n.sampled++
			every := n.dom.SampleInterval()
			q.series = &QPSeries{Conn: int32(q.conn), Rate: metrics.NewSeries(every, 512), Alpha: metrics.NewSeries(every, 512)}
			n.series = append(n.series, q.series)
		}
		q.series.Rate.Add(now, float64(q.cc.Rate())/1e9)
		q.series.Alpha.Add(now, q.dcqcn.Alpha(now))
	}
}

// Series returns the sampled queue pairs of this NIC.
func (n *NIC) Series() []*QPSeries { return n.series }
