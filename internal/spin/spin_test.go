package spin

import "testing"

// Pause returns for any count: none or negative runs no hint (a loop
// that counted down past zero would never end).
func TestPauseReturns(t *testing.T) {
	for _, n := range []int{-1, 0, 1, 1000} {
		Pause(n)
	}
}
