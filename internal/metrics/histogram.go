package metrics

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"

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

// histogramOf exports the dense counts of a Latency histogram (nil: one
// that recorded nothing) as its non-zero buckets.
func histogramOf(counts []int64) Histogram {
	out := Histogram{Lowest: lowest, Highest: highest, Digits: digits}
	n := 0
	for _, c := range counts {
		if c != 0 {
			n++
		}
	}
	if n == 0 {
		return out
	}
	out.Buckets = make([]Bucket, 0, n)
	for i, c := range counts {
		if c != 0 {
			out.Buckets = append(out.Buckets, Bucket{int32(i), c})
		}
	}
	return out
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
// nanoseconds, as a time; 0 when it is empty. It is HDR's value at the
// percentile: the highest value equivalent to the bucket where the count
// reaches the percentile's rank (the lowest, for the 0th).
func (h *Histogram) Quantile(q float64) unit.Time {
	if len(h.Buckets) == 0 {
		return 0
	}
	q = min(max(q, 0), 100)
	total := h.Count()
	rank := q/100*float64(total) + 0.5
	var want int64
	switch {
	case !(rank >= 1):
		want = 1
	case rank >= float64(total):
		want = total
	default:
		want = int64(rank)
	}
	g := geometryOf(h.Lowest, h.Highest, h.Digits)
	var sum int64
	for _, b := range h.Buckets {
		if sum += b.Count; sum >= want {
			if q == 0 {
				return unit.Time(g.value(b.Index)) * unit.Nanosecond
			}
			return unit.Time(g.highest(b.Index)) * unit.Nanosecond
		}
	}
	return 0
}

// Max returns the largest value of a histogram of nanoseconds, as a time
// (the highest value equivalent to it at the histogram's precision).
func (h *Histogram) Max() unit.Time {
	if len(h.Buckets) == 0 {
		return 0
	}
	g := geometryOf(h.Lowest, h.Highest, h.Digits)
	return unit.Time(g.highest(h.Buckets[len(h.Buckets)-1].Index)) * unit.Nanosecond
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
	out := Histogram{Lowest: h.Lowest, Highest: h.Highest, Digits: h.Digits}
	g := geometryOf(h.Lowest, h.Highest, h.Digits)
	for _, v := range vals {
		if v.N > 0 {
			out.Buckets = append(out.Buckets, Bucket{g.index(min(max(v.V, h.Lowest), h.Highest)), v.N})
		}
	}
	slices.SortFunc(out.Buckets, func(a, b Bucket) int { return cmp.Compare(a.Index, b.Index) })
	kept := out.Buckets[:0]
	for _, b := range out.Buckets {
		if n := len(kept); n > 0 && kept[n-1].Index == b.Index {
			kept[n-1].Count += b.Count
		} else {
			kept = append(kept, b)
		}
	}
	if len(kept) == 0 {
		kept = nil
	}
	out.Buckets = kept
	return out
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
	n := geometryOf(h.Lowest, h.Highest, h.Digits).counts()
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

// A geometry is the index arithmetic of an HDR histogram's counts array,
// as hdrhistogram-go lays it out for a snapshot's exact geometry: bucket
// b doubles the unit of bucket b-1, and every bucket but the first holds
// only the upper half of its sub-buckets (the lower half is bucket b-1's).
// With it, the plain-data histogram answers percentiles from its buckets
// without rebuilding the dense array.
type geometry struct {
	unit    int32 // log2 of the lowest discernible value, rounded down
	half    int32 // log2 of half the sub-buckets of a bucket
	buckets int32
}

// geometryOf returns the geometry of a histogram from lowest to highest at
// digits significant digits (a valid one: Check's bounds).
func geometryOf(lowest, highest int64, digits int) geometry {
	g := geometry{half: max(int32(math.Ceil(math.Log2(2*math.Pow10(digits)))), 1) - 1}
	g.unit = max(int32(math.Floor(math.Log2(float64(lowest)))), 0)
	g.buckets = 1
	for untrackable := int64(2) << (g.half + g.unit); untrackable <= highest; untrackable <<= 1 {
		g.buckets++
		if untrackable > math.MaxInt64/2 {
			break
		}
	}
	return g
}

// counts is the length of the counts array.
func (g geometry) counts() int32 { return (g.buckets + 1) << g.half }

// value is the lowest value counted at index i.
func (g geometry) value(i int32) int64 {
	halfCount := int32(1) << g.half
	b, sub := i>>g.half-1, i&(halfCount-1)+halfCount
	if b < 0 {
		b, sub = 0, sub-halfCount
	}
	return int64(sub) << (b + g.unit)
}

// highest is the highest value counted at index i.
func (g geometry) highest(i int32) int64 {
	b := max(i>>g.half-1, 0)
	return g.value(i) + int64(1)<<(b+g.unit) - 1
}

// index is the index that counts v (within the histogram's range).
func (g geometry) index(v int64) int32 {
	mask := (int64(2)<<g.half - 1) << g.unit
	b := int32(64-bits.LeadingZeros64(uint64(v|mask))) - g.unit - (g.half + 1)
	sub := int32(v >> (b + g.unit))
	return (b+1)<<g.half + sub - int32(1)<<g.half
}
