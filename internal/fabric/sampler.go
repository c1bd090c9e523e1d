package fabric

import (
	"rocelab/internal/metrics"
	"rocelab/internal/unit"
)

// A QueueSeries is the sampled depth of one switch egress queue.
type QueueSeries struct {
	Switch *Switch
	Port   int
	Prio   int
	// Bytes holds the depth samples; it starts at the queue's first
	// non-empty sample and keeps bounded memory however long the run.
	Bytes *metrics.Series
}

// A Sampler is sampled with the queues, at the network's sample interval
// (a NIC sampling its queue pairs' rates).
type Sampler interface {
	Sample(now unit.Time)
}

// sampler records queue depths and calls other samplers, starting at the
// configured interval and doubling it after every DefaultSeriesCap
// samples, so that a run of any length costs O(cap · log(duration))
// sample events and every series stays bounded. A queue's series starts at
// its first non-empty sample, so idle queues cost nothing.
type sampler struct {
	every  unit.Time
	n      int
	series []*QueueSeries
	index  []*QueueSeries // by port id × 8 + priority
	others []Sampler
}

// SampleQueues records every switch egress queue's depth every d, and
// calls the samplers added with AddSampler.
func (n *Network) SampleQueues(d unit.Time) {
	n.sampler.every = d
	n.sampler.index = make([]*QueueSeries, 8*len(n.Ports))
	n.Sched.At(0, n, tagSample)
}

// AddSampler adds s to what is sampled every sample interval.
func (n *Network) AddSampler(s Sampler) { n.sampler.others = append(n.sampler.others, s) }

// QueueSeries returns the sampled queues, in the order they first held data.
func (n *Network) QueueSeries() []*QueueSeries { return n.sampler.series }

// SampleInterval returns the current sampling interval (zero when off);
// it doubles as a run goes on.
func (n *Network) SampleInterval() unit.Time { return n.sampler.every }

func (sm *sampler) sample(n *Network, now unit.Time) {
	for _, s := range n.Switches {
		for i := range s.egress {
			for p := 0; p < 8; p++ {
				b := s.egress[i].q[p].Bytes()
				k := s.ports[i].id*8 + p
				ser := sm.index[k]
				if ser == nil {
					if b == 0 {
						continue
					}
					ser = &QueueSeries{Switch: s, Port: i, Prio: p, Bytes: metrics.NewSeries(sm.every, metrics.DefaultSeriesCap)}
					sm.index[k] = ser
					sm.series = append(sm.series, ser)
				}
				ser.Bytes.Add(now, float64(b))
			}
		}
	}
	for _, o := range sm.others {
		o.Sample(now)
	}
	if sm.n++; sm.n == metrics.DefaultSeriesCap {
		sm.n = 0
		sm.every *= 2
	}
	n.Sched.At(now+sm.every, n, tagSample)
}
