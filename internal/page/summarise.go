package page

import (
	"fmt"
	"math"
	"sort"

	"rocelab/internal/metrics"
	"rocelab/internal/unit"
)

// How many series a plot draws one by one; the rest become a band.
const (
	topSeries = 8
	// gridPoints is the time resolution of bands and pause strips.
	gridPoints = 240
)

// A timeScale shows simulated time in a unit that suits the run's
// length.
type timeScale struct {
	unit string
	per  unit.Time
}

// scaleFor picks microseconds or milliseconds for a run that lasted end.
func scaleFor(end unit.Time) timeScale {
	if end >= 10*unit.Millisecond {
		return timeScale{"ms", unit.Millisecond}
	}
	return timeScale{"µs", unit.Microsecond}
}

func (s timeScale) of(t unit.Time) float64 { return float64(t) / float64(s.per) }

// axis is the time axis in this scale.
func (s timeScale) axis() Axis { return Axis{Name: "simulated time", Unit: s.unit} }

// times are the times of a series' points in the scale.
func (s timeScale) times(p metrics.Points) []float64 {
	xs := make([]float64, len(p.Values))
	for i := range xs {
		xs[i] = s.of(p.First + unit.Time(i)*p.Every)
	}
	return xs
}

// grid is n evenly spaced times over [0, end].
func grid(end unit.Time, n int) []unit.Time {
	if end <= 0 || n < 2 {
		return nil
	}
	g := make([]unit.Time, n)
	for i := range g {
		g[i] = unit.Time(float64(end) * float64(i) / float64(n-1))
	}
	return g
}

// at returns a series' value at t: the last point at or before it, before
// the value the series takes before its first point (NaN: unknown), and
// the last point after its end.
func at(p metrics.Points, t unit.Time, before float64) float64 {
	if len(p.Values) == 0 || t < p.First {
		return before
	}
	i := 0
	if p.Every > 0 {
		i = int((t - p.First) / p.Every)
	}
	return p.Values[min(i, len(p.Values)-1)]
}

// interp returns a cumulative series' value at t, linear between points,
// 0 before its first point.
func interp(p metrics.Points, t unit.Time) float64 {
	n := len(p.Values)
	if n == 0 || t <= p.First {
		if n > 0 && t == p.First {
			return p.Values[0]
		}
		return 0
	}
	if p.Every <= 0 {
		return p.Values[n-1]
	}
	f := float64(t-p.First) / float64(p.Every)
	i := int(f)
	if i >= n-1 {
		return p.Values[n-1]
	}
	return p.Values[i] + (f-float64(i))*(p.Values[i+1]-p.Values[i])
}

// A bandOf is the spread of many series over a grid: at each time, the
// 10th, 50th and 90th percentiles of the series that have a value there.
type bandOf struct {
	xs, lo, mid, hi []float64
}

// quantileBand summarises rows (one per series, each over the grid; NaN
// where a series has no value) at every grid time.
func quantileBand(xs []float64, rows [][]float64) bandOf {
	b := bandOf{}
	col := make([]float64, 0, len(rows))
	for i, x := range xs {
		col = col[:0]
		for _, r := range rows {
			if !math.IsNaN(r[i]) {
				col = append(col, r[i])
			}
		}
		if len(col) == 0 {
			continue
		}
		sort.Float64s(col)
		b.xs = append(b.xs, x)
		b.lo = append(b.lo, quantile(col, 0.10))
		b.mid = append(b.mid, quantile(col, 0.50))
		b.hi = append(b.hi, quantile(col, 0.90))
	}
	return b
}

// quantile is the q-quantile of sorted values, linear between ranks.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}

// topN returns the indices of the n items with the largest scores (ties
// by index), and the rest, both in index order.
func topN(scores []float64, n int) (top, rest []int) {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	if n > len(idx) {
		n = len(idx)
	}
	top = append([]int(nil), idx[:n]...)
	rest = append([]int(nil), idx[n:]...)
	sort.Ints(rest)
	return top, rest
}

// summarised says what a plot drew one by one and what as a band.
func summarised(shown, total int, what, rank string) string {
	if total <= shown {
		return ""
	}
	return fmt.Sprintf("Summarised: the %d %s with the highest %s are drawn one by one; the other %d as a band (10th to 90th percentile at each time, dotted line the median).",
		shown, what, rank, total-shown)
}
