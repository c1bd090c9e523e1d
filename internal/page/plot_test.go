package page

import (
	"math"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/metrics"
	"rocelab/internal/unit"
)

// Tick labels read as numbers, never in exponent form below a billion.
func TestShortLabels(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 0.5: "0.5", 8000: "8000", 12000: "12k", 2.5e6: "2.5M", 1.5e9: "1.5G", -4000: "-4000", 0.001: "0.001"} {
		if got := short(v); got != want {
			t.Errorf("short(%v) = %q, want %q", v, got, want)
		}
	}
	for n, want := range map[int64]string{1024: "1K", 128 << 20: "128M", 8 << 30: "8G", 3000: "3000"} {
		if got := sizeName(n); got != want {
			t.Errorf("sizeName(%d) = %q, want %q", n, got, want)
		}
	}
}

// Decimation keeps every bucket's extremes, in order: a one-point spike
// among 100,000 points survives, and the result is bounded.
func TestDecimateKeepsPeaks(t *testing.T) {
	n := 100000
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i], ys[i] = float64(i), math.Sin(float64(i)/1000)
	}
	ys[54321], ys[77777] = 50, -50
	dx, dy := decimate(xs, ys, maxPoints)
	if len(dx) > maxPoints || len(dx) < maxPoints/2 {
		t.Fatalf("%d points kept of %d, bound %d", len(dx), n, maxPoints)
	}
	if !slices.IsSorted(dx) || !slices.Contains(dy, 50.0) || !slices.Contains(dy, -50.0) || dx[0] != 0 || dx[len(dx)-1] != float64(n-1) {
		t.Errorf("decimation lost a peak, an end or the order")
	}
}

// Quantiles and the band match their definitions on known values.
func TestQuantileBand(t *testing.T) {
	if q := quantile([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0.10); q != 2 {
		t.Errorf("p10 of 1..11 = %v, want 2", q)
	}
	if q := quantile([]float64{0, 10}, 0.5); q != 5 {
		t.Errorf("median of 0, 10 = %v, want 5", q)
	}
	rows := make([][]float64, 101)
	for k := range rows {
		rows[k] = []float64{float64(k), math.NaN()}
	}
	b := quantileBand([]float64{0, 1}, rows)
	if len(b.xs) != 1 || b.lo[0] != 10 || b.mid[0] != 50 || b.hi[0] != 90 {
		t.Errorf("band of 0..100 at one time, nothing at the other: %+v", b)
	}
}

// A cumulative series interpolates linearly and is 0 before it starts;
// a gauge holds its last value.
func TestSeriesAt(t *testing.T) {
	p := metrics.Points{First: 10 * unit.Microsecond, Every: 10 * unit.Microsecond, Values: []float64{100, 300}}
	for _, c := range []struct {
		t    unit.Time
		want float64
	}{{0, 0}, {10 * unit.Microsecond, 100}, {15 * unit.Microsecond, 200}, {50 * unit.Microsecond, 300}} {
		if got := interp(p, c.t); got != c.want {
			t.Errorf("interp at %v = %v, want %v", c.t, got, c.want)
		}
	}
	if got := at(p, 19*unit.Microsecond, -1); got != 100 {
		t.Errorf("at 19 µs = %v, want 100", got)
	}
	if got := at(p, 5*unit.Microsecond, -1); got != -1 {
		t.Errorf("before the first point = %v, want the default", got)
	}
}

// The diff is a shortest edit script: one changed line among many is one
// removal and one addition, in a hunk with its context.
func TestDiffLines(t *testing.T) {
	a := strings.Split("a\nb\nc\nd\ne\nf\ng\nh", "\n")
	b := strings.Split("a\nb\nc\nd\nE\nf\ng\nh\ni", "\n")
	var ops []byte
	for _, e := range diffLines(a, b) {
		ops = append(ops, e.op)
	}
	if string(ops) != "    -+   +" {
		t.Errorf("edit script %q", ops)
	}
	html := diffHTML("x: 1\ny: 2\n", "x: 1\ny: 3\n", "a", "b")
	for _, want := range []string{`<span class="del">- y: 2</span>`, `<span class="add">+ y: 3</span>`, "@@ -1,2 +1,2 @@"} {
		if !strings.Contains(html, want) {
			t.Errorf("diff lacks %q:\n%s", want, html)
		}
	}
}

// The completion-time CDF climbs from 0 to 1 in steps at the values.
func TestCDF(t *testing.T) {
	xs, ys, step := cdf([]float64{1, 2, 3, 4}, 400)
	if step != 1 || !slices.Equal(xs, []float64{1, 1, 2, 2, 3, 3, 4, 4}) || !slices.Equal(ys, []float64{0, 0.25, 0.25, 0.5, 0.5, 0.75, 0.75, 1}) {
		t.Errorf("cdf: %v %v step %d", xs, ys, step)
	}
	_, ys, step = cdf(make([]float64, 1000), 100)
	if step != 10 || ys[len(ys)-1] != 1 || len(ys) != 200 {
		t.Errorf("cdf of 1000 values at most 100 steps: step %d, %d points, last %v", step, len(ys), ys[len(ys)-1])
	}
}
