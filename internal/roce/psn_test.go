package roce

import "testing"

// PSNDiff(a, b) is a − b in 24-bit serial arithmetic: positive when a is
// after b.
func TestPSN(t *testing.T) {
	for _, c := range []struct {
		a, b uint32
		d    int32
	}{
		{1, 0, 1}, {0, 1, -1}, {0, PSNMask, 1}, {PSNMask, 0, -1}, {5, 5, 0},
		{3, PSNMask - 2, 6}, {1 << 23, 0, -(1 << 23)},
	} {
		if got := PSNDiff(c.a, c.b); got != c.d {
			t.Errorf("PSNDiff(%#x,%#x)=%d want %d", c.a, c.b, got, c.d)
		}
	}
	if PSNAdd(PSNMask, 1) != 0 || PSNAdd(0, -1) != PSNMask {
		t.Error("PSNAdd does not wrap")
	}
	if !PSNAfter(0, PSNMask) || PSNAfter(PSNMask, 0) {
		t.Error("PSNAfter wrong across wrap")
	}
}
