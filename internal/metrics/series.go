package metrics

import (
	"slices"

	"rocelab/internal/unit"
)

// DefaultSeriesCap is the number of points a Series keeps by default.
const DefaultSeriesCap = 2048

// A Series is a gauge's time series in bounded memory: point i is the
// value at First + i·Every. When it holds its cap of points it drops every
// second one and doubles Every, so a run of any length keeps between cap/2
// and cap points over its whole span. Samples may come at any times in
// increasing order; a slot that no sample falls in holds the value before
// it, as a gauge does. The result depends only on the samples offered.
type Series struct {
	// First is the time of the first point; Every the interval between
	// points.
	First, Every unit.Time
	// Values are the points, oldest first.
	Values []float64
	max    int
	shared bool // Points handed out Values: a halving must not write over them
}

// NewSeries returns an empty series with points every d, keeping at most
// max points (DefaultSeriesCap when max is below 2 or odd).
func NewSeries(d unit.Time, max int) *Series {
	if max < 2 || max%2 != 0 {
		max = DefaultSeriesCap
	}
	return &Series{Every: d, max: max}
}

// Add offers the value v sampled at t (not before the last sample).
// The slots between the last point and t's take the last point's value
// in one append each run up to the cap (a queue that emptied long ago is
// carried to the end of the run this way, a thousand slots at once).
func (s *Series) Add(t unit.Time, v float64) {
	if len(s.Values) == 0 {
		s.First = t
		s.Values = append(s.Values, v)
		return
	}
	last := s.Values[len(s.Values)-1]
	for {
		n := len(s.Values)
		next := s.First + unit.Time(n)*s.Every
		if next > t {
			return
		}
		// slots from next to the one t falls in, the last of them t's
		k := int((t-next)/s.Every) + 1
		held := min(k-1, s.max-n)
		if held > 0 {
			s.Values = slices.Grow(s.Values, held+1) // one allocation, not one per doubling
			for range held {
				s.Values = append(s.Values, last) // a slot no sample fell in
			}
		}
		if held == k-1 && len(s.Values) < s.max {
			s.Values = append(s.Values, v) // the slot t falls in
		}
		s.halveWhenFull()
	}
}

// halveWhenFull keeps every other point, at twice the spacing, once the
// series holds its cap.
func (s *Series) halveWhenFull() {
	if len(s.Values) < s.max {
		return
	}
	kept := s.Values[:0]
	if s.shared {
		kept, s.shared = make([]float64, 0, cap(s.Values)), false
	}
	for i := 0; i < len(s.Values); i += 2 {
		kept = append(kept, s.Values[i])
	}
	s.Values = kept
	s.Every *= 2
}

// Points are a series' points as plain data: point i is the value at
// First + i·Every.
type Points struct {
	First  unit.Time `json:"first"`
	Every  unit.Time `json:"every"`
	Values []float64 `json:"values"`
}

// Points returns the series' points as they are now, without a copy
// (an observation takes every series at the end of a run, and the copies
// were a fifth of the incast's observation): they share the series'
// memory, what the series adds later goes past their end, and a halving
// after them writes new memory.
func (s *Series) Points() Points {
	if len(s.Values) == 0 {
		return Points{First: s.First, Every: s.Every}
	}
	s.shared = true
	return Points{First: s.First, Every: s.Every, Values: s.Values[:len(s.Values):len(s.Values)]}
}
