package scenario

import (
	"fmt"
	"testing"
)

// flowName spells a generator's flow as fmt's "%s-h%d-h%d-q%d" did, which
// the output's flow names and the md5 sums of the runs are held to.
func TestFlowNameIsFmts(t *testing.T) {
	for _, c := range []struct {
		gen          string
		src, dst, qp int
	}{
		{"g0", 1, 0, 0}, {"incast", 127, 0, 3}, {"", 0, 0, 0}, {"perm", 1023, 4095, 12}, {"x", -1, 7, 255},
	} {
		want := fmt.Sprintf("%s-h%d-h%d-q%d", c.gen, c.src, c.dst, c.qp)
		if got := flowName(c.gen, c.src, c.dst, c.qp); got != want {
			t.Errorf("flowName(%q, %d, %d, %d) = %q, want %q", c.gen, c.src, c.dst, c.qp, got, want)
		}
	}
}
