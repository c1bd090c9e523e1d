package fabric

import "unsafe"

// largeObject is the size past which Go allocates an object on pages of
// its own, starting on a page and so on a cache line. A smaller object of
// more than 512 bytes that holds pointers follows an 8-byte header in its
// slot (Go 1.22 on): allocated alone, a port, a switch or a switch's array
// of egresses starts 8 bytes into a line, and each of the lines its
// layout keeps together (TestPortHotLines, TestSwitchHotLines,
// TestSwitchEgressLines) straddles two.
const largeObject = 32 << 10

// lineSlab hands out runs of T, a whole number of cache lines, from
// arrays of more than largeObject bytes, so that every element starts on
// a line (TestSlabLines). What it hands out lives as long as the network.
type lineSlab[T any] struct {
	free []T
}

// take returns n fresh, zero elements side by side.
func (s *lineSlab[T]) take(n int) []T {
	var t T
	per := largeObject/int(unsafe.Sizeof(t)) + 1 // elements in an array past largeObject
	if n >= per {
		return make([]T, n)
	}
	if n > len(s.free) {
		s.free = make([]T, (per+n-1)/n*n) // whole runs of n: a fabric's switches are alike
	}
	run := s.free[:n:n]
	s.free = s.free[n:]
	return run
}
