package nic

import (
	"rocelab/internal/cc"
	"rocelab/internal/metrics"
	"rocelab/internal/unit"
)

// QPSeries is one queue pair's sampled congestion-control state.
type QPSeries struct {
	// Conn is the connection the QP sends for.
	Conn int32
	// Rate is the sending rate in Gb/s; Alpha DCQCN's or DCTCP's α (0 for
	// TIMELY and HPCC).
	Rate, Alpha *metrics.Series
}

// Sample implements fabric.Sampler: the rate and α of the first
// Config.SampleQPs queue pairs with congestion control of this NIC,
// from the moment each is first rate-limited. A queue pair that joined
// the NIC ahead of its connect (see Transport) is not there yet. A NIC
// without congestion control leaves the domain's samplers until a queue
// pair with it joins (ccJoined).
func (n *NIC) Sample(now unit.Time) bool {
	if !n.anyCC {
		n.unsampled = true
		return false
	}
	qps := n.qps
	if n.sampled >= n.cfg.SampleQPs {
		qps = n.sampling // no other queue pair can start a series
	}
	for _, q := range qps {
		if q.cc == nil || q.joined > now {
			continue
		}
		if q.series == nil {
			if n.sampled >= n.cfg.SampleQPs || !q.limited() {
				continue
			}
			n.sampled++
			n.sampling = append(n.sampling, q)
			every := n.dom.SampleInterval()
			q.series = &QPSeries{Conn: int32(q.conn), Rate: metrics.NewSeries(every, 512), Alpha: metrics.NewSeries(every, 512)}
			n.series = append(n.series, q.series)
		}
		q.series.Rate.Add(now, float64(q.cc.Rate())/1e9)
		alpha := 0.0
		switch c := q.cc.(type) {
		case *cc.DCQCN:
			alpha = c.Alpha(now)
		case *cc.DCTCP:
			alpha = c.Alpha()
		}
		q.series.Alpha.Add(now, alpha)
	}
	return true
}

// ccJoined notes that a queue pair with congestion control joined the
// NIC, which a sample then visits: the NIC goes back on its domain's
// samplers if it had left them.
func (n *NIC) ccJoined() {
	n.anyCC = true
	if n.unsampled {
		n.unsampled = false
		n.dom.AddSampler(n)
	}
}

// Series returns the sampled queue pairs of this NIC.
func (n *NIC) Series() []*QPSeries { return n.series }
