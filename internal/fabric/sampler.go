package fabric

import "rocelab/internal/unit"

// A QueueSeries is the sampled depth of one switch egress queue.
type QueueSeries struct {
	Switch *Switch
	Port   int
	Prio   int
	// First is the index of the first sample in Bytes: samples before it
	// were all zero.
	First int
	Bytes []int64
}

// sampler records queue depths at a fixed interval. A queue's series
// starts at its first non-empty sample, so idle queues cost nothing.
type sampler struct {
	every  unit.Time
	n      int
	series []*QueueSeries
	index  []*QueueSeries // by port id × 8 + priority
}

// SampleQueues records every switch egress queue's depth every d.
func (n *Network) SampleQueues(d unit.Time) {
	n.sampler = sampler{every: d, index: make([]*QueueSeries, 8*len(n.Ports))}
	n.Sched.At(0, n, tagSample)
}

// QueueSeries returns the sampled queues, in the order they first held data.
func (n *Network) QueueSeries() []*QueueSeries { return n.sampler.series }

// SampleInterval returns the queue sampling interval (zero when off).
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
					ser = &QueueSeries{Switch: s, Port: i, Prio: p, First: sm.n}
					sm.index[k] = ser
					sm.series = append(sm.series, ser)
				}
				ser.Bytes = append(ser.Bytes, b)
			}
		}
	}
	sm.n++
	n.Sched.At(now+sm.every, n, tagSample)
}
