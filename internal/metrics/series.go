package metrics

import "rocelab/internal/unit"

// DefaultSeriesCap is the number of points a Series keeps by default.
const DefaultSeriesCap = 2048

// A Series is a time series sampled at a fixed interval in bounded memory:
// when it holds Cap points it drops every second one and doubles its
// interval, so a run of any length keeps between Cap/2 and Cap points over
// its whole span. The result depends only on the samples offered, not on
// when the series was read.
type Series struct {
	// First is the time of the first point; Every the interval between
	// points.
	First, Every unit.Time
	// Values are the points, oldest first.
	Values []float64
	max    int
	// stride counts samples offered per point kept; skip counts down the
	// samples to drop before the next one kept.
	stride, skip int
}

// NewSeries returns an empty series for samples taken every d, keeping at
// most max points (DefaultSeriesCap when max < 2 or odd).
func NewSeries(d unit.Time, max int) *Series {
	if max < 2 || max%2 != 0 {
		max = DefaultSeriesCap
	}
	return &Series{Every: d, max: max, stride: 1}
}

// Add offers the sample taken at t. Samples must come every d, as
// NewSeries was told.
func (s *Series) Add(t unit.Time, v float64) {
	if s.skip > 0 {
		s.skip--
		return
	}
	if len(s.Values) == 0 {
		s.First = t
	}
	s.Values = append(s.Values, v)
	s.skip = s.stride - 1
	if len(s.Values) == s.max {
		kept := s.Values[:0]
		for i := 0; i < len(s.Values); i += 2 {
			kept = append(kept, s.Values[i])
		}
		s.Values = kept
		// The last point dropped was the sample one old stride before the
		// next one to keep.
		s.skip = s.stride - 1
		s.stride *= 2
		s.Every *= 2
	}
}
