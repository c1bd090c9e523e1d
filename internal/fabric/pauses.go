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
// the ports and priorities that were ever paused. Ports never paused cost
// a check per sample.
type PauseSampler struct {
	ports []*Port
	every unit.Time      // the interval between the last two samples
	last  unit.Time      // the last sample's time
	n     int            // samples taken
	index []*PauseSeries // by port index × 8 + priority
}

// NewPauseSampler samples ports of one domain, whose sample interval
// starts at every (add it to the domain with AddSampler).
func NewPauseSampler(ports []*Port, every unit.Time) *PauseSampler {
	return &PauseSampler{ports: ports, every: every, index: make([]*PauseSeries, 8*len(ports))}
}

// Sample implements Sampler.
func (s *PauseSampler) Sample(now unit.Time) {
	if s.n > 0 && now > s.last {
		s.every = now - s.last
	}
	s.n++
	s.last = now
	for i, pt := range s.ports {
		if !pt.everPaused() {
			continue
		}
		for p := 0; p < 8; p++ {
			held, ever := pt.PauseHeld(p, now)
			if !ever {
				continue
			}
			ser := s.index[i*8+p]
			if ser == nil {
				ser = &PauseSeries{Port: pt, Prio: p, Held: metrics.NewSeries(s.every, metrics.DefaultSeriesCap)}
				s.index[i*8+p] = ser
			}
			ser.Held.Add(now, float64(held))
		}
	}
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
