package scenario

import (
	"fmt"
	"math"
	"testing"
)

// A lone flow under HPCC-PINT settles where the switch's average of its
// egress port's utilisation reads η: the rate R = Rc·η/U + W_AI with U =
// R/B at a queue of zero is R = η·B + W_AI, so the flow's goodput is that
// wire rate times the payload's share of a packet (4096 of 4096 + 82
// bytes of headers + 2 of PINT). A switch that wrote no code, or a
// sender that read none, would leave the flow at line rate or at the
// floor.
func TestPINTLoneFlowAtEta(t *testing.T) {
	for _, eta := range []int{950, 500} {
		s := mustLoad(t, "pint.yaml", fmt.Sprintf(`
topology: {kind: single-switch, hosts: 2}
host: {mtu: 4096, cc: hpcc-pint, hpcc_pint: {eta: %d}}
traffic: {flows: [{src: h0, dst: h1, bytes: 20MB}]}`, eta))
		tw, _ := run(t, s)
		want := (float64(eta)/1000*100 + 0.04) * 4096 / (4096 + 82 + 2)
		if got := goodput(tw, 0); math.Abs(got-want) > 0.02*want {
			t.Errorf("eta %d: goodput %.2f Gb/s, want %.2f (η·B + W_AI on the wire)", eta, got, want)
		}
	}
}
