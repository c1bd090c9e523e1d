package nic

import "testing"

// TestWrap holds wrap to the remainder it replaces, over the indices a
// ring or a send queue asks for (below twice its length), including the
// growth of a ring past the default eight places.
func TestWrap(t *testing.T) {
	for n := 1; n <= 17; n++ {
		for i := range 2 * n {
			if got := wrap(i, n); got != i%n {
				t.Fatalf("wrap(%d, %d) = %d, want %d", i, n, got, i%n)
			}
		}
	}
}
