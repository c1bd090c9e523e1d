package cc

import (
	"math/bits"

	"rocelab/internal/unit"
)

// α is kept in unsigned fixed point with 62 fractional bits (qOne = 1.0), so
// that its updates are exact integer arithmetic, identical on every platform
// (a float64 expression may be fused into an FMA on some architectures and
// round differently), and far finer than the NIC's own 10-bit α.
const qOne uint64 = 1 << 62

// q10 converts a value in 1/1024 units (the mlx5 fixed point) to Q62.
func q10(v int64) uint64 { return uint64(v) << 52 }

// mulQ returns a·b for a, b in Q62, both at most qOne, rounded down.
func mulQ(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi<<2 | lo>>62
}

// powQ returns d^m for d in Q62 (d ≤ qOne) by repeated squaring. Its error is
// below 2^-55 relative for any m, which is all α needs.
func powQ(d uint64, m int64) uint64 {
	r := qOne
	for m > 0 && r != 0 {
		if m&1 == 1 {
			r = mulQ(r, d)
		}
		d = mulQ(d, d)
		m >>= 1
	}
	return r
}

// fracOf returns floor(r·a) for a rate r in bit/s and a in Q62 (a ≤ qOne).
func fracOf(r int64, a uint64) int64 {
	hi, lo := bits.Mul64(uint64(r), a)
	return int64(hi<<2 | lo>>62)
}

// qFloat converts a Q62 value to a float for printing and sampling.
func qFloat(a uint64) float64 { return float64(a) / float64(qOne) }

// addTime returns t+d, saturating at unit.MaxTime.
func addTime(t, d unit.Time) unit.Time {
	if t > unit.MaxTime-d {
		return unit.MaxTime
	}
	return t + d
}

// addSat returns a+b for non-negative counters, saturating.
func addSat(a, b int64) int64 {
	if a > 1<<62-b {
		return 1 << 62
	}
	return a + b
}
