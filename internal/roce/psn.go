package roce

// PSNs are 24-bit serial numbers (IBTA §9.7.1): they compare modulo 2^24,
// and a PSN is "after" another when it lies less than 2^23 ahead.

// PSNMask keeps the 24 bits of a packet sequence number.
const PSNMask = 1<<24 - 1

const psnHalf = 1 << 23

// PSNDiff returns a − b as a signed distance in [−2^23, 2^23): positive when
// a is after b, safe across the 24-bit wraparound.
func PSNDiff(a, b uint32) int32 {
	d := (a - b) & PSNMask
	if d >= psnHalf {
		return int32(d) - 1<<24
	}
	return int32(d)
}

// PSNAdd returns p + n modulo 2^24.
func PSNAdd(p uint32, n int) uint32 { return uint32(int64(p)+int64(n)) & PSNMask }

// PSNAfter reports whether a comes after b, safely across wraparound.
func PSNAfter(a, b uint32) bool { return PSNDiff(a, b) > 0 }
