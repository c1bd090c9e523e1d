package scenario

import (
	"testing"

	"rocelab/internal/fabric"
)

// The seed's classic: the switch runs PFC on priority 3 and maps DSCP 26
// there, but the NIC queues RoCE on priority 0. The switch's XOFF names
// priority 3, which the NIC is not sending on, so the NIC never stops and
// the lossless class overflows its headroom — "PFC is configured" and
// packets still drop.
func TestNICPriorityMismatchDrops(t *testing.T) {
	base := example(t, "headroom-short")
	base.Switch.PFC.Headroom = 0 // computed: correct for the cables
	good, _ := run(t, base)
	if d := good.Net.Totals().Dropped.Packets; d != 0 {
		t.Fatalf("matching priorities: %d drops", d)
	}
	bad := example(t, "headroom-short")
	bad.Switch.PFC.Headroom = 0
	bad.Host.Priority = 0
	for i := range bad.Generators {
		bad.Generators[i].Priority = 0
	}
	tw, _ := run(t, bad)
	tot := tw.Net.Totals()
	if tot.DropsByReason[fabric.DropHeadroomOverflow] == 0 {
		t.Fatalf("NIC on priority 0 against a switch pausing priority 3: no headroom overflow (%+v)", tot)
	}
	if tx := tw.NICs[0].Port().Snapshot().TxPrioBytes[0]; tx == 0 {
		t.Error("the NIC did not send on priority 0")
	}
	t.Logf("NIC on priority 0: %d headroom-overflow drops though the switch sent %d pause frames", tot.DropsByReason[fabric.DropHeadroomOverflow], tot.PauseFrames)
}

// A switch that trusts PCP classifies untagged RoCE traffic as priority 0,
// outside the lossless class: the incast drops as if PFC were off.
func TestTrustPCPUntaggedIsLossy(t *testing.T) {
	s := example(t, "headroom-short")
	s.Switch.PFC.Headroom = 0
	s.Switch.Trust = fabric.TrustPCP
	tw, _ := run(t, s)
	tot := tw.Net.Totals()
	if tot.DropsByReason[fabric.DropLossyOverflow] == 0 || tot.PauseFrames != 0 {
		t.Fatalf("trust pcp, untagged: lossy drops %d, pause frames %d", tot.DropsByReason[fabric.DropLossyOverflow], tot.PauseFrames)
	}
	// Tagging the frames with the priority restores the lossless class.
	s.Host.VLAN = true
	tw2, _ := run(t, s)
	if d := tw2.Net.Totals().Dropped.Packets; d != 0 {
		t.Errorf("trust pcp with tagged frames: %d drops", d)
	}
}
