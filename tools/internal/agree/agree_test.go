package agree

import "testing"

// The statistics of 1..100: the median is the lower middle value, the
// 99th percentile the nearest rank; Seeds averages them.
func TestSummarise(t *testing.T) {
	x := make([]float64, 100)
	for i := range x {
		x[len(x)-1-i] = float64(i + 1)
	}
	if got, want := Summarise(x), (Summary{Mean: 50.5, P50: 50, P99: 99, Max: 100}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	var s Seeds
	s.Add([]float64{1, 2, 3})
	s.Add([]float64{3, 4, 5})
	if got, want := s.Mean(), (Summary{Mean: 3, P50: 3, P99: 4, Max: 4}); got != want {
		t.Errorf("seeds: got %+v, want %+v", got, want)
	}
	m := Metric{Other: 100, Rocelab: 103, Bound: 0.02}
	if d := m.Diff(); d < 0.0299 || d > 0.0301 || m.Within() {
		t.Errorf("diff %v within %v", d, m.Within())
	}
}
