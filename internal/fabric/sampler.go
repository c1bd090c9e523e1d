package fabric

import (
	"cmp"
	"slices"

	"rocelab/internal/metrics"
	"rocelab/internal/sim"
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

	first unit.Time // the first sample's time
	pid   int       // the port's id in the network
}

// A Sampler is sampled with the queues, at the network's sample interval
// (a NIC sampling its queue pairs' rates). Sample reports whether the
// sampler is to be sampled again: one that has nothing to sample leaves
// the domain's list until it is added again with AddSampler (a NIC with no
// queue pair under congestion control, when one joins), so that a sample
// does not call every NIC of a fabric to find nothing to do.
type Sampler interface {
	Sample(now unit.Time) bool
}

// sampler records a domain's queue depths and calls its other samplers,
// starting at the configured interval and doubling it after every
// DefaultSeriesCap samples, so that a run of any length costs
// O(cap · log(duration)) sample events and every series stays bounded. A
// queue's series starts at its first non-empty sample, so idle queues cost
// nothing. Every domain samples at the same times, before any of its
// nodes' events at that time (its events have the control side's key), so
// the samples do not depend on the partitioning.
//
// A sample visits only the queues that held data since they were last
// seen empty: a queue joins the list when a packet enters it, and leaves
// it once a sample found it empty (after recording that). A queue off the
// list is empty, so its series would only repeat its last value, zero,
// which the series does by itself when the next sample is added (and
// finish adds it to every series at the last sample). On a fabric of
// thousands of ports, visiting every queue every 10 us had cost a fifth
// of a run.
type sampler struct {
	every  unit.Time
	n      int
	last   unit.Time // the last sample's time
	taken  bool      // a sample was taken
	series []*QueueSeries
	index  [][]*QueueSeries // by switch of the domain, then port × 8 + priority
	active []watched
	others []Sampler
	events uint64 // samples taken
}

// watched is a queue the sampler visits.
type watched struct {
	e    *switchEgress
	prio int8
}

// tagSample is the domain's sampling event, and sampleKey its key: node 0,
// the control side, so that a sample comes before every node's events at
// its time.
const (
	tagSample uint64  = 0
	sampleKey sim.Key = 0
)

// SampleQueues records every switch egress queue's depth every d, and
// calls the samplers added with AddSampler.
func (n *Network) SampleQueues(d unit.Time) {
	for _, dom := range n.Domains {
		sm := &dom.sampler
		sm.every = d
		sm.index = make([][]*QueueSeries, len(dom.switches))
		for i, s := range dom.switches {
			sm.index[i] = make([]*QueueSeries, 8*len(s.port))
		}
		dom.Sched.Send(0, sampleKey, dom, tagSample)
	}
}

// watch puts a queue that has just taken a packet on the list to visit.
func (sm *sampler) watch(e *switchEgress, prio int) {
	if sm.index == nil {
		return
	}
	e.watched |= 1 << prio
	sm.active = append(sm.active, watched{e, int8(prio)})
}

// AddSampler adds s to what the domain samples every sample interval.
func (d *Domain) AddSampler(s Sampler) { d.sampler.others = append(d.sampler.others, s) }

// Handle serves the domain's events.
func (d *Domain) Handle(now unit.Time, tag uint64) {
	if tag == tagSample {
		d.sampler.sample(d, now)
	}
}

// QueueSeries returns the sampled queues, in the order they first held
// data (queues that first did at the same sample in the order of their
// ports' ids and priorities), each carried to the last sample.
func (n *Network) QueueSeries() []*QueueSeries {
	var all []*QueueSeries
	for _, d := range n.Domains {
		d.sampler.finish()
		all = append(all, d.sampler.series...)
	}
	slices.SortFunc(all, func(a, b *QueueSeries) int {
		return cmp.Or(cmp.Compare(a.first, b.first), cmp.Compare(a.pid, b.pid), cmp.Compare(a.Prio, b.Prio))
	})
	return all
}

// finish carries the series of the queues off the list, empty since they
// left it, to the last sample: what sampling them every time would have
// recorded. Adding samples changes nothing a later sample would not.
func (sm *sampler) finish() {
	if !sm.taken {
		return
	}
	for _, ser := range sm.series {
		ser.Bytes.Add(sm.last, 0)
	}
}

// SampleInterval returns the current sampling interval (zero when off);
// it doubles as a run goes on.
func (d *Domain) SampleInterval() unit.Time { return d.sampler.every }

// SampleInterval returns the current sampling interval of the network,
// which every domain shares.
func (n *Network) SampleInterval() unit.Time { return n.Domains[0].sampler.every }

func (sm *sampler) sample(d *Domain, now unit.Time) {
	sm.events++
	sm.last, sm.taken = now, true
	kept := sm.active[:0]
	for _, w := range sm.active {
		e, p := w.e, int(w.prio)
		b := e.cls[p].q.Bytes()
		k := int(e.port)*8 + p
		idx := sm.index[e.sw.domIdx]
		ser := idx[k]
		if ser == nil && b > 0 {
			s := e.sw
			ser = &QueueSeries{Switch: s, Port: int(e.port), Prio: p, Bytes: metrics.NewSeries(sm.every, metrics.DefaultSeriesCap), first: now, pid: s.port[e.port].id}
			idx[k] = ser
			sm.series = append(sm.series, ser)
		}
		if ser != nil {
			ser.Bytes.Add(now, float64(b))
		}
		if b == 0 {
			e.watched &^= 1 << p
			continue
		}
		kept = append(kept, w)
	}
	clear(sm.active[len(kept):])
	sm.active = kept
	on := sm.others[:0]
	for _, o := range sm.others {
		if o.Sample(now) {
			on = append(on, o)
		}
	}
	clear(sm.others[len(on):])
	sm.others = on
	if sm.n++; sm.n == metrics.DefaultSeriesCap {
		sm.n = 0
		sm.every *= 2
	}
	d.Sched.Send(now+sm.every, sampleKey, d, tagSample)
}
