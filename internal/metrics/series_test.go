package metrics

import (
	"testing"

	"rocelab/internal/unit"
)

// A series fed 10,000 samples at 1 us with room for 64 keeps every 256th
// sample (64 → 32 on each halving), at the right times, and never more
// than its cap.
func TestSeriesDecimates(t *testing.T) {
	s := NewSeries(unit.Microsecond, 64)
	for i := 0; i < 10000; i++ {
		s.Add(unit.Time(i)*unit.Microsecond, float64(i))
		if len(s.Values) >= 64 {
			t.Fatalf("%d points after %d samples", len(s.Values), i+1)
		}
	}
	if s.Every != 256*unit.Microsecond {
		t.Fatalf("interval %v, want 256us", s.Every)
	}
	for i, v := range s.Values {
		if want := float64(i * 256); v != want {
			t.Fatalf("point %d = %v, want sample %v", i, v, want)
		}
	}
	if len(s.Values) < 32 {
		t.Errorf("%d points: fewer than half the cap", len(s.Values))
	}
}

// Samples coarser than the series' interval fill the slots between them
// with the value before (a gauge holds), and the value sampled lands in
// the slot its time falls in.
func TestSeriesHolds(t *testing.T) {
	s := NewSeries(10*unit.Microsecond, 64)
	s.Add(0, 1)
	s.Add(40*unit.Microsecond, 5)
	s.Add(45*unit.Microsecond, 6) // same slot as 40 us: not a new point
	s.Add(60*unit.Microsecond, 7)
	want := []float64{1, 1, 1, 1, 5, 5, 7}
	if len(s.Values) != len(want) {
		t.Fatalf("values %v, want %v", s.Values, want)
	}
	for i := range want {
		if s.Values[i] != want[i] {
			t.Fatalf("values %v, want %v", s.Values, want)
		}
	}
}
