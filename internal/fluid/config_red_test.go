package fluid

import (
	"testing"

	"rocelab/internal/unit"
)

// A port takes its rate's profile, matched at the nominal rate whatever
// its clock offset, and the common one otherwise.
func TestRedByRate(t *testing.T) {
	c := &Config{}
	c.ECN[3] = RED{Kmin: 100, Kmax: 400, Pmax: 0.2}
	var fast [8]RED
	fast[3] = RED{Kmin: 1600, Kmax: 6400, Pmax: 0.2}
	c.ECNByRate = []RateRED{{Rate: 400 * unit.Gbps, ECN: fast}}
	if r := c.red(399_990_000_000, 3); r.Kmin != 1600 {
		t.Errorf("400G port: %+v", r)
	}
	if r := c.red(100*unit.Gbps, 3); r.Kmin != 100 {
		t.Errorf("100G port: %+v", r)
	}
	if r := c.red(400*unit.Gbps, 0); r.Kmax != 0 {
		t.Errorf("priority 0 marks: %+v", r)
	}
}
