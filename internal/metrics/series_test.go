package metrics

import (
	"math/rand/v2"
	"slices"
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

// addSlotBySlot is Series.Add as it was written first, a slot at a time:
// the reference the bulk appends are held to. It halves with Add's own
// halveWhenFull, which TestSeriesDecimates holds to its figures.
func addSlotBySlot(s *Series, t unit.Time, v float64) {
	n := len(s.Values)
	if n == 0 {
		s.First = t
		s.Values = append(s.Values, v)
		return
	}
	last := s.Values[n-1]
	for next := s.First + unit.Time(n)*s.Every; next <= t; next = s.First + unit.Time(n)*s.Every {
		if next+s.Every > t {
			s.Values = append(s.Values, v)
		} else {
			s.Values = append(s.Values, last)
		}
		s.halveWhenFull()
		n = len(s.Values)
	}
}

// TestSeriesBulkAgrees feeds random samples, dense and with long gaps,
// to series of several caps, and holds Add to the slot-by-slot reference.
func TestSeriesBulkAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for c := range 300 {
		max := []int{2, 4, 8, 64, 2048}[c%5]
		every := unit.Time(rng.Int64N(5)+1) * unit.Microsecond
		got, want := NewSeries(every, max), NewSeries(every, max)
		at := unit.Time(rng.Int64N(int64(10 * unit.Microsecond)))
		for i := range 200 {
			switch rng.IntN(4) {
			case 0: // a long gap, up to thousands of slots
				at += unit.Time(rng.Int64N(5000)) * every
			default:
				at += unit.Time(rng.Int64N(int64(3 * every)))
			}
			v := float64(i)
			got.Add(at, v)
			addSlotBySlot(want, at, v)
			if got.First != want.First || got.Every != want.Every || !slices.Equal(got.Values, want.Values) {
				t.Fatalf("case %d, sample %d at %v: first %v every %v %d points, want %v %v %d points",
					c, i, at, got.First, got.Every, len(got.Values), want.First, want.Every, len(want.Values))
			}
		}
	}
}

// A sample long after the last is carried to in one allocation, however
// many slots it fills: the observation's last sample carries every queue
// that emptied early to the end of the run, a thousand slots at once,
// and growing by append doubled the series' memory, all of it garbage a
// run without a collection keeps.
func TestSeriesCarriesInOneAllocation(t *testing.T) {
	allocs := testing.AllocsPerRun(20, func() {
		s := NewSeries(unit.Microsecond, DefaultSeriesCap)
		s.Add(0, 1)
		s.Add(1500*unit.Microsecond, 2)
		if len(s.Values) != 1501 || s.Values[1499] != 1 || s.Values[1500] != 2 {
			t.Fatalf("%d points, last two %v", len(s.Values), s.Values[len(s.Values)-2:])
		}
	})
	// The first point's, and the carry's.
	if allocs != 2 {
		t.Errorf("%v allocations, want 2", allocs)
	}
}

// Points share the series' memory and stay as they were taken while the
// series goes on: appends go past their end, and a halving writes new
// memory instead of the points taken before it.
func TestSeriesPointsStay(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	s := NewSeries(unit.Microsecond, 64)
	var taken []Points
	var copies [][]float64
	at := unit.Time(0)
	for i := range 2000 {
		at += unit.Time(rng.Int64N(int64(3 * unit.Microsecond)))
		s.Add(at, float64(i))
		if rng.IntN(10) == 0 {
			p := s.Points()
			taken, copies = append(taken, p), append(copies, slices.Clone(p.Values))
		}
	}
	for i, p := range taken {
		if !slices.Equal(p.Values, copies[i]) {
			t.Fatalf("points taken %d-th changed after: %v, were %v", i, p.Values, copies[i])
		}
	}
	if a := testing.AllocsPerRun(10, func() { s.Points() }); a != 0 {
		t.Errorf("Points allocates %v times, want 0", a)
	}
}
