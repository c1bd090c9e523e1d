package doctor

import "testing"

// A filtered `show pfc counters` is read by its row order, a port's first
// row Rx and its second Tx; a third row is reported, not judged.
func TestUnplacedPFCRows(t *testing.T) {
	// SYNTHETIC: pfcstat's rows for Ethernet0 under grep, with one row
	// too many.
	r := diagnoseText(t, "admin@leaf1:~$ show pfc counters | grep Ethernet0\n"+
		"  Ethernet0       0       0       0   1,234       0       0       0       0\n"+
		"  Ethernet0       0       0       0      15       0       0       0       0\n"+
		"  Ethernet0       0       0       0      99       0       0       0       0\n")
	nicMustFind(t, r.Findings, "switch.pfc.tx_pause", Info, "sent 15 PFC pause frames on priority 3 (received 1234)")
	f := nicMustFind(t, r.Findings, "switch.pfc.unplaced", Info, "1 row of `show pfc counters | grep` seen but not judged")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 4 {
		t.Errorf("evidence %+v, want line 4", f.Evidence)
	}
}
