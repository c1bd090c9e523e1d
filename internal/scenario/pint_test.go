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
		got := loneFlowGoodput(t, fmt.Sprintf("{mtu: 4096, cc: hpcc-pint, hpcc_pint: {eta: %d}}", eta))
		want := (float64(eta)/1000*100 + 0.04) * 4096 / (4096 + 82 + 2)
		if math.Abs(got-want) > 0.02*want {
			t.Errorf("eta %d: goodput %.2f Gb/s, want %.2f (η·B + W_AI on the wire)", eta, got, want)
		}
	}
}

// A lone flow under HPCC settles at R = η·B + W_AI on the wire too, and
// its goodput is R times the payload's share of a frame: 4096 of 4096 +
// 82 bytes of headers + int_bytes of INT, which every data packet carries
// (42, ns-3's and the paper's; 0, csg-htsim's, whose INT takes no room).
// A NIC that framed INT at 42 bytes whatever the knob says would give
// 0's flow 1 % less.
func TestHPCCINTBytes(t *testing.T) {
	for _, n := range []int{42, 0} {
		got := loneFlowGoodput(t, fmt.Sprintf("{mtu: 4096, cc: hpcc, hpcc: {int_bytes: %d}}", n))
		want := (0.95*100 + 0.04) * 4096 / float64(4096+82+n)
		if math.Abs(got-want) > 0.003*want {
			t.Errorf("int_bytes %d: goodput %.3f Gb/s, want %.3f (η·B + W_AI on the wire)", n, got, want)
		}
	}
}

// loneFlowGoodput runs one 20 MB flow between two hosts of a switch with
// the host section given and returns its goodput in Gb/s.
func loneFlowGoodput(t *testing.T, host string) float64 {
	t.Helper()
	s := mustLoad(t, "lone.yaml", `
topology: {kind: single-switch, hosts: 2}
host: `+host+`
traffic: {flows: [{src: h0, dst: h1, bytes: 20MB}]}`)
	tw, _ := run(t, s)
	return goodput(tw, 0)
}
