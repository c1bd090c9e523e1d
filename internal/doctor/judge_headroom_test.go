package doctor

import (
	"testing"

	"rocelab/internal/headroom"
	"rocelab/internal/unit"
)

// The boundaries of the one headroom judgement, at the floors of a 100G
// port on 5 m of cable (TestProfileHeadroomShort: 16384 B with the static
// tables' peer response, 36864 B with the IEEE budget).
func TestHeadroomShort(t *testing.T) {
	need := headroom.Compute(headroom.Floor(100*unit.Gbps, 5*unit.Metre, 9100)).Xoff
	static := headroom.Compute(headroom.StaticFloor(100*unit.Gbps, 5*unit.Metre, 9100)).Xoff
	if need != 36864 || static != 16384 {
		t.Fatalf("floors %v and %v, want 36864 B and 16384 B", need, static)
	}
	for _, c := range []struct {
		xoff, static unit.Bytes
		sev          Severity
		short        bool
	}{
		{need, static, Info, false},
		{need - 1, static, Info, true},
		{static, static, Info, true},
		{static - 1, static, Warn, true},
		{need - 1, 0, Warn, true}, // no static floor known: below the formula is a warning
	} {
		sev, short := HeadroomShort(c.xoff, need, c.static)
		if short != c.short || short && sev != c.sev {
			t.Errorf("xoff %v (static %v): %v %v, want %v %v", c.xoff, c.static, sev, short, c.sev, c.short)
		}
	}
}
