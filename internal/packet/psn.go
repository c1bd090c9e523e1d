package packet

// PSNMask keeps the 24 bits of a packet sequence number.
const PSNMask = 1<<24 - 1

// PSNAdd returns psn + n modulo 2^24.
func PSNAdd(psn uint32, n int) uint32 { return uint32(int64(psn)+int64(n)) & PSNMask }

// PSNDiff returns the signed distance b - a in the 24-bit sequence space,
// in [-2^23, 2^23): positive when b is after a.
func PSNDiff(a, b uint32) int32 {
	d := int32((b - a) & PSNMask)
	if d >= 1<<23 {
		d -= 1 << 24
	}
	return d
}

// PSNLess reports whether a comes before b, safely across wraparound.
func PSNLess(a, b uint32) bool { return PSNDiff(a, b) > 0 }
