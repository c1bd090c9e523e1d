package metrics

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"rocelab/internal/packet"
	"rocelab/internal/unit"
)

// Latencies recorded in two parts and merged as plain data equal the
// latencies recorded in one instrument: buckets, count, quantiles and
// maximum. This is what lets a partitioned run merge its observation
// exactly.
func TestHistogramMergesExactly(t *testing.T) {
	whole, a, b := NewLatency(), NewLatency(), NewLatency()
	live := hdrhistogram.New(lowest, highest, digits)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		d := unit.Time(rng.ExpFloat64() * float64(5*unit.Microsecond))
		whole.Record(packet.ClassRoCE, 3, d)
		_ = live.RecordValue(max(int64(d/unit.Nanosecond), 1))
		part := a
		if i%3 == 0 {
			part = b
		}
		part.Record(packet.ClassRoCE, 3, d)
	}
	got := a.Histogram(3)
	if !got.Merge(b.Histogram(3)) {
		t.Fatal("same geometry refused")
	}
	want := whole.Histogram(3)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("merged buckets differ from the whole's")
	}
	if got.Count() != 20000 || got.Count() != whole.Count(3) {
		t.Errorf("count %d, want 20000", got.Count())
	}
	for _, q := range []float64{50, 99, 99.9} {
		if g, w := got.Quantile(q), unit.Time(live.ValueAtQuantile(q))*unit.Nanosecond; g != w || g == 0 {
			t.Errorf("p%g = %v, the live histogram says %v", q, g, w)
		}
	}
	if g, w := got.Max(), unit.Time(live.Max())*unit.Nanosecond; g != w {
		t.Errorf("max %v, want %v", g, w)
	}
	var empty Histogram
	if empty.Quantile(99) != 0 || empty.Max() != 0 || !empty.Merge(Histogram{}) {
		t.Error("an empty histogram is not zero")
	}
	if before := got.Count(); !got.Merge(Histogram{}) || got.Count() != before {
		t.Error("merging the zero Histogram changed or refused a histogram with a geometry")
	}
	other := Histogram{Lowest: 1, Highest: 1000, Digits: 2}
	if got.Merge(other) {
		t.Error("merged histograms of different geometries")
	}
	// A sibling holds only its values, in the geometry it merges with:
	// the whole is the two parts' values together.
	part := a.Histogram(3)
	sib := part.Sibling([]Value{{V: 7_000_000, N: 300}, {V: 1 << 62, N: 2}})
	if sib.Count() != 302 || sib.Max() < 7*unit.Second || !sib.Merge(b.Histogram(3)) || sib.Count() != 302+b.Count(3) {
		t.Errorf("sibling: %d values, max %v", sib.Count(), sib.Max())
	}
}

// A priority or class that recorded nothing holds no histogram, and reads
// as an empty one of the same geometry: merging it changes nothing, and
// merging into it copies the other's values.
func TestLatencyUnused(t *testing.T) {
	a, b := NewLatency(), NewLatency()
	for i := 1; i <= 100; i++ {
		a.Record(packet.ClassRoCE, 3, unit.Time(i)*unit.Microsecond)
	}
	if a.h[0] != nil || a.class[packet.ClassTCP] != nil || a.h[3] == nil {
		t.Fatal("histograms made for what recorded nothing, or none for what did")
	}
	empty := a.Histogram(0)
	if want := hdrExport(hdrhistogram.New(lowest, highest, digits)); !reflect.DeepEqual(empty, want) {
		t.Errorf("unused priority %+v, an empty histogram %+v", empty, want)
	}
	if a.Count(0) != 0 || a.Count(3) != 100 {
		t.Errorf("counts %d and %d", a.Count(0), a.Count(3))
	}
	b.Merge(a)
	a.Merge(NewLatency())
	if !reflect.DeepEqual(a.Histogram(3), b.Histogram(3)) || b.h[0] != nil || b.Count(3) != 100 {
		t.Error("merging with unused histograms lost or made something")
	}
}

// TestGeometryAgreesWithHDR holds the plain-data histogram's index
// arithmetic, percentiles and maximum to hdrhistogram-go's on random
// values, for several geometries: the library's dense histogram is the
// reference the buckets stand for.
func TestGeometryAgreesWithHDR(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 18))
	for _, geo := range []struct {
		lowest, highest int64
		digits          int
	}{{1, 10_000_000_000, 3}, {1, 1 << 40, 3}, {1, 5000, 2}, {3, 1_000_000, 1}, {1000, 1 << 36, 3}, {7, 100, 1}} {
		snap := &hdrhistogram.Snapshot{LowestTrackableValue: geo.lowest, HighestTrackableValue: geo.highest, SignificantFigures: int64(geo.digits)}
		g := geometryOf(geo.lowest, geo.highest, geo.digits)
		if want := int32(len(hdrhistogram.Import(snap).Export().Counts)); g.counts() != want {
			t.Errorf("%+v: %d counts, hdrhistogram has %d", geo, g.counts(), want)
		}
		ref := hdrhistogram.Import(snap)
		var vals []Value
		for range 2000 {
			// log-uniform over the range, so that every bucket is visited
			v := int64(math.Exp(rng.Float64() * math.Log(float64(geo.highest))))
			v = min(max(v, geo.lowest), geo.highest)
			n := rng.Int64N(3) + 1
			one := hdrhistogram.Import(snap)
			_ = one.RecordValues(v, n)
			idx := slices.IndexFunc(one.Export().Counts, func(c int64) bool { return c != 0 })
			if i := g.index(v); int(i) != idx || g.value(i) > v || g.highest(i) < v {
				t.Fatalf("%+v: value %d at index %d [%d, %d], hdrhistogram's index %d", geo, v, i, g.value(i), g.highest(i), idx)
			}
			_ = ref.RecordValues(v, n)
			vals = append(vals, Value{v, n})
		}
		h := hdrExport(ref)
		for _, q := range []float64{0, 0.1, 1, 37.3, 50, 90, 99, 99.9, 99.99, 100} {
			if got, want := h.Quantile(q), unit.Time(ref.ValueAtQuantile(q))*unit.Nanosecond; got != want {
				t.Errorf("%+v: p%v %d, hdrhistogram %d", geo, q, got, want)
			}
		}
		if got, want := h.Max(), unit.Time(ref.Max())*unit.Nanosecond; got != want {
			t.Errorf("%+v: max %d, hdrhistogram %d", geo, got, want)
		}
		if s := h.Sibling(vals); !reflect.DeepEqual(s, h) {
			t.Errorf("%+v: a sibling of every value recorded differs from the histogram", geo)
		}
		if err := h.Check(); err != nil {
			t.Errorf("%+v: %v", geo, err)
		}
	}
}

// hdrExport exports a histogram of hdrhistogram-go as plain data, through
// the library's own iteration over its buckets: the reference a Latency's
// export is held to.
func hdrExport(h *hdrhistogram.Histogram) Histogram {
	out := Histogram{Lowest: h.LowestTrackableValue(), Highest: h.HighestTrackableValue(), Digits: int(h.SignificantFigures())}
	p := hdrhistogram.NewPacked(out.Lowest, out.Highest, out.Digits)
	p.MergeFrom(h)
	g := geometryOf(out.Lowest, out.Highest, out.Digits)
	for v, n := range p.ForEachBucket {
		out.Buckets = append(out.Buckets, Bucket{g.index(v), n})
	}
	return out
}

// A Latency records what hdrhistogram-go records, bucket for bucket, by
// priority and by class: latencies from 1 ps (below the first
// nanosecond) to past the range's end (10 s, which the library refuses
// beyond its last bucket), one at a time and several at once, in a
// histogram that is then merged into another.
func TestLatencyAgreesWithHDR(t *testing.T) {
	if g := geometryOf(lowest, highest, digits); g.unit != 0 || g.half != latencyHalf || g.counts() != latencyCounts {
		t.Fatalf("the latency histograms' geometry is %+v (%d counts), their constants say unit 0, half %d, %d counts", g, g.counts(), latencyHalf, latencyCounts)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	l, merged := NewLatency(), NewLatency()
	ref := [2]*hdrhistogram.Histogram{hdrhistogram.New(lowest, highest, digits), hdrhistogram.New(lowest, highest, digits)}
	for i := range 50000 {
		// log-uniform from 1 ps to 100 s
		d := unit.Time(math.Exp(rng.Float64() * math.Log(float64(100*unit.Second))))
		if i%1000 == 0 {
			d = 10*unit.Second + unit.Time(rng.Int64N(int64(20*unit.Millisecond)))
		}
		n := int64(1)
		if i%7 == 0 {
			n = rng.Int64N(1000) + 1
		}
		prio := uint8(i % 2 * 3)
		l.RecordN(packet.ClassRoCE, prio, d, n)
		_ = ref[i%2].RecordValues(max(int64(d/unit.Nanosecond), 1), n)
	}
	merged.Merge(l)
	for i, prio := range []int{0, 3} {
		want := hdrExport(ref[i])
		if got := l.Histogram(prio); !reflect.DeepEqual(got, want) {
			t.Errorf("priority %d: %d buckets, hdrhistogram-go %d", prio, len(got.Buckets), len(want.Buckets))
		}
		if got := merged.Histogram(prio); !reflect.DeepEqual(got, want) {
			t.Errorf("priority %d merged: %d buckets, hdrhistogram-go %d", prio, len(got.Buckets), len(want.Buckets))
		}
		if l.Count(prio) != ref[i].TotalCount() {
			t.Errorf("priority %d: count %d, hdrhistogram-go %d", prio, l.Count(prio), ref[i].TotalCount())
		}
	}
	both := hdrExport(ref[0])
	both.Merge(hdrExport(ref[1]))
	if got := l.ClassHistogram(packet.ClassRoCE); !reflect.DeepEqual(got, both) {
		t.Errorf("class: %d buckets, hdrhistogram-go %d", len(got.Buckets), len(both.Buckets))
	}
}
