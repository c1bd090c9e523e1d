package fabric

import (
	"rocelab/internal/metrics"
	"rocelab/internal/unit"
)

// A PauseSeries is how long received PFC pause held one priority of one
// port, sampled: cumulative, so that two samples give the share of the
// time between them the port was held.
type PauseSeries struct {
	Port *Port
	Prio int
	// Held holds the cumulative held time in picoseconds; it starts at
	// the first sample after the port's first pause on the priority and
	// keeps bounded memory however long the run.
	Held *metrics.Series
}

// A PauseSampler samples, at its domain's sample interval, how long
// received pause has held each priority of its ports (the domain's), for
// the ports and priorities that were ever paused. It visits only the
// ports and priorities the domain lists as ever paused: on a fabric of
// thousands of ports, asking each at every sample had cost a twentieth
// of an incast, and asking each priority of a paused port, where one or
// two are lossless, most of what was left (the 127->1 incast: 9 ports'
// 72 priorities a sample, of which 9 were ever paused).
type PauseSampler struct {
	dom  *Domain       // the ports' domain (nil without ports)
	at   map[*Port]int // each port's index
	seen int           // the domain's paused priorities already in visit
	// visit holds the series of the priorities ever paused, in the
	// order of their first pause.
	visit []*PauseSeries
	every unit.Time      // the interval between the last two samples
	last  unit.Time      // the last sample's time
	n     int            // samples taken
	index []*PauseSeries // by port index × 8 + priority
}

// portPrio is a port and one of its priorities.
type portPrio struct {
	pt   *Port
	prio int8
}

// NewPauseSampler samples ports of one domain, whose sample interval
// starts at every (add it to the domain with AddSampler).
func NewPauseSampler(ports []*Port, every unit.Time) *PauseSampler {
	s := &PauseSampler{at: make(map[*Port]int, len(ports)), every: every, index: make([]*PauseSeries, 8*len(ports))}
	for i, pt := range ports {
		s.at[pt] = i
		s.dom = pt.dom
	}
	return s
}

// Sample implements Sampler; a pause sampler stays on the list.
func (s *PauseSampler) Sample(now unit.Time) bool {
	if s.n > 0 && now > s.last {
		s.every = now - s.last
	}
	s.n++
	s.last = now
	if s.dom == nil {
		return true
	}
	for _, pp := range s.dom.paused[s.seen:] {
		if i, ok := s.at[pp.pt]; ok {
			p := int(pp.prio)
			ser := &PauseSeries{Port: pp.pt, Prio: p, Held: metrics.NewSeries(s.every, metrics.DefaultSeriesCap)}
			s.index[i*8+p] = ser
			s.visit = append(s.visit, ser)
		}
	}
	s.seen = len(s.dom.paused)
	for _, ser := range s.visit {
		ser.Held.Add(now, float64(ser.Port.PauseHeld(ser.Prio, now)))
	}
	return true
}

// Series returns the sampled ports and priorities, by port and priority.
func (s *PauseSampler) Series() []*PauseSeries {
	var out []*PauseSeries
	for _, ser := range s.index {
		if ser != nil {
			out = append(out, ser)
		}
	}
	return out
}
