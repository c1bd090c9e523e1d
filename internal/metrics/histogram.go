package metrics

import (
	"fmt"
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"rocelab/internal/unit"
)

// A Histogram is an HDR histogram as plain data: its geometry and its
// non-zero buckets. It is what an observation carries instead of the live
// instrument, so that it can be copied, written as JSON and read back
// exactly, and merged: histograms of one geometry add bucket by bucket, so
// the parts of a partitioned run merge into exactly the histogram of the
// whole.
type Histogram struct {
	Lowest  int64 `json:"lowest"`
	Highest int64 `json:"highest"`
	Digits  int   `json:"digits"`
	// Buckets are the non-zero buckets in increasing order of index.
	Buckets []Bucket `json:"buckets"`
}

// A Bucket is one non-zero bucket: its index in the HDR counts array and
// its count.
type Bucket struct {
	Index int32 `json:"i"`
	Count int64 `json:"n"`
}

// histogramOf exports a live histogram.
func histogramOf(h *hdrhistogram.Histogram) Histogram {
	if h == nil {
		return Histogram{Lowest: lowest, Highest: highest, Digits: digits}
	}
	s := h.Export()
	out := Histogram{Lowest: s.LowestTrackableValue, Highest: s.HighestTrackableValue, Digits: int(s.SignificantFigures)}
	for i, n := range s.Counts {
		if n != 0 {
			out.Buckets = append(out.Buckets, Bucket{int32(i), n})
		}
	}
	return out
}

// live rebuilds the HDR histogram.
func (h *Histogram) live() *hdrhistogram.Histogram {
	s := &hdrhistogram.Snapshot{LowestTrackableValue: h.Lowest, HighestTrackableValue: h.Highest, SignificantFigures: int64(h.Digits)}
	if n := len(h.Buckets); n > 0 {
		s.Counts = make([]int64, h.Buckets[n-1].Index+1)
		for _, b := range h.Buckets {
			s.Counts[b.Index] = b.Count
		}
	}
	return hdrhistogram.Import(s)
}

// Count is the number of values recorded.
func (h *Histogram) Count() int64 {
	var n int64
	for _, b := range h.Buckets {
		n += b.Count
	}
	return n
}

// Quantile returns the q-th percentile (0..100) of a histogram of
// nanoseconds, as a time; 0 when it is empty.
func (h *Histogram) Quantile(q float64) unit.Time {
	if len(h.Buckets) == 0 {
		return 0
	}
	return unit.Time(h.live().ValueAtQuantile(q)) * unit.Nanosecond
}

// Max returns the largest value of a histogram of nanoseconds, as a time
// (the highest value equivalent to it at the histogram's precision).
func (h *Histogram) Max() unit.Time {
	if len(h.Buckets) == 0 {
		return 0
	}
	return unit.Time(h.live().Max()) * unit.Nanosecond
}

// Merge adds o's buckets to h's. Both must have one geometry (or either be
// empty of everything, the zero Histogram); it reports whether they had.
func (h *Histogram) Merge(o Histogram) bool {
	if o.Highest == 0 && len(o.Buckets) == 0 {
		return true // the zero Histogram adds nothing, whatever h's geometry
	}
	if h.Highest == 0 && len(h.Buckets) == 0 {
		h.Lowest, h.Highest, h.Digits = o.Lowest, o.Highest, o.Digits
	}
	if h.Lowest != o.Lowest || h.Highest != o.Highest || h.Digits != o.Digits {
		return false
	}
	out := make([]Bucket, 0, len(h.Buckets)+len(o.Buckets))
	a, b := h.Buckets, o.Buckets
	for len(a) > 0 || len(b) > 0 {
		switch {
		case len(b) == 0 || len(a) > 0 && a[0].Index < b[0].Index:
			out, a = append(out, a[0]), a[1:]
		case len(a) == 0 || b[0].Index < a[0].Index:
			out, b = append(out, b[0]), b[1:]
		default:
			out = append(out, Bucket{a[0].Index, a[0].Count + b[0].Count})
			a, b = a[1:], b[1:]
		}
	}
	if len(out) == 0 {
		out = nil
	}
	h.Buckets = out
	return true
}

// A Value is n recordings of the value V.
type Value struct{ V, N int64 }

// Sibling returns a histogram of h's geometry holding only vals, each
// clamped to its range, so that it merges with h. h must have a geometry
// (every histogram a Latency exports has one).
func (h *Histogram) Sibling(vals []Value) Histogram {
	l := (&Histogram{Lowest: h.Lowest, Highest: h.Highest, Digits: h.Digits}).live()
	for _, v := range vals {
		if v.N > 0 {
			l.RecordValues(min(max(v.V, h.Lowest), h.Highest), v.N)
		}
	}
	return histogramOf(l)
}

// maxHighest bounds the range of a histogram read from a file, so that
// checking it allocates little (the twin's histograms, nanoseconds up to
// 10 s at 3 digits, are well inside).
const maxHighest = 1 << 40

// Check reports what makes h unusable: a geometry HDR histograms cannot
// have, buckets out of order, out of range, or not positive. The zero
// Histogram (nothing recorded, no geometry) is valid.
func (h *Histogram) Check() error {
	if h.Lowest == 0 && h.Highest == 0 && h.Digits == 0 && len(h.Buckets) == 0 {
		return nil
	}
	if h.Digits < 0 || h.Digits > 3 || h.Lowest < 1 || h.Highest < 2*h.Lowest || h.Highest > maxHighest {
		return fmt.Errorf("geometry %d to %d at %d digits: expected 1 ≤ lowest, 2·lowest ≤ highest ≤ 2^40, 0 to 3 digits", h.Lowest, h.Highest, h.Digits)
	}
	geometry := &hdrhistogram.Snapshot{LowestTrackableValue: h.Lowest, HighestTrackableValue: h.Highest, SignificantFigures: int64(h.Digits)}
	if err := geometry.Validate(); err != nil {
		return err
	}
	n := int32(len(hdrhistogram.Import(geometry).Export().Counts))
	var total int64
	for i, b := range h.Buckets {
		switch {
		case b.Index < 0 || b.Index >= n:
			return fmt.Errorf("bucket %d: index %d of %d", i, b.Index, n)
		case i > 0 && b.Index <= h.Buckets[i-1].Index:
			return fmt.Errorf("bucket %d: index %d after %d", i, b.Index, h.Buckets[i-1].Index)
		case b.Count <= 0 || b.Count > math.MaxInt64-total:
			return fmt.Errorf("bucket %d: count %d", i, b.Count)
		}
		total += b.Count
	}
	return nil
}
