package lint

import (
	"strings"
	"testing"

	"rocelab/internal/sonic"
)

// TestPFCOffFixNothingLossless: where RoCE's class is known and no class
// is lossless on the port, the fix turns PFC on for RoCE's class and
// offers neither to map RoCE's DSCP to a lossless class nor to mark RoCE
// into one, which do not exist; with another class lossless it offers all
// three. Before, Aruba's QoS workflow (qos trust dscp on lag 10, no PFC
// anywhere) was told to "map DSCP 26 to the lossless local priority".
// The configurations are SYNTHETIC, in each OS's syntax.
func TestPFCOffFixNothingLossless(t *testing.T) {
	for _, c := range []struct {
		name, text, pfcOn string
		lossless          bool
	}{
		{"aoscx-synthetic.cfg", "!Version ArubaOS-CX GL.10.13.1000\nqos trust dscp\ninterface lag 10\n    qos trust dscp\n", "`flow-control priority rxtx 3`", false},
		{"aoscx-other-synthetic.cfg", "!Version ArubaOS-CX GL.10.13.1000\nqos trust dscp\ninterface 1/1/1\n    qos trust dscp\n    flow-control priority rxtx 4\n", "`flow-control priority rxtx 3`", true},
		{"eos-synthetic.cfg", "interface Ethernet1\n   qos trust dscp\n   priority-flow-control on\n", "`priority-flow-control priority 3 no-drop`", false},
	} {
		var fix string
		for _, fd := range lintWritten(t, map[string]string{c.name: c.text, "nccl-synthetic.env": "NCCL_IB_TC=106\n"}) {
			if fd.ID == "qos.pfc.disabled" {
				fix = fd.Fix
			}
		}
		maps, marks := strings.Contains(fix, "DSCP 26 to"), strings.Contains(fix, "mark RoCE into the lossless")
		if !strings.Contains(fix, c.pfcOn) || maps != c.lossless || marks != c.lossless {
			t.Errorf("%s: fix %q, want %s and the map and mark alternatives only with a lossless class (%v)", c.name, fix, c.pfcOn, c.lossless)
		}
	}
}

// TestPFCOnFixOneText: the two fixes that turn PFC on, for ports whose
// RoCE class is not known and none lossless and for ports whose RoCE
// class is not lossless, give one OS's command in the same words. Before,
// AOS-CX, OS10, FTOS and traffic.conf each had a second wording in the
// first (FTOS none in the second).
func TestPFCOnFixOneText(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{sonic.VendorAOSCX, "`flow-control priority rxtx 3` on these interfaces, with local priority 3 in a lossless pool"},
		{sonic.VendorOS10, "`pause` and `pfc-cos 3` in the network-qos class of qos-group 3, in the policy these interfaces apply"},
	} {
		db := &sonic.ConfigDB{Vendor: c.name}
		cmd := pfcOnCommand(db, 3)
		if !strings.Contains(cmd, c.want) {
			t.Errorf("%s: pfcOnCommand %q, want %q", c.name, cmd, c.want)
		}
		none := noLosslessFix(switchSide{TC: -1, DB: db})
		off := pfcOffFix(roceClass{DSCP: 26}, switchSide{TC: 3, Lossless: []int{4}, DB: db})
		if !strings.Contains(strings.ToLower(none), strings.ToLower(cmd)) || !strings.Contains(off, cmd) {
			t.Errorf("%s: the fixes do not share %q:\n%s\n%s", c.name, cmd, none, off)
		}
	}
	ftos := &sonic.ConfigDB{Vendor: sonic.VendorFTOS}
	if off := pfcOffFix(roceClass{DSCP: 26}, switchSide{TC: 3, DB: ftos}); !strings.Contains(off, "`priority-pgid 0 0 0 1 0 0 0 0`") {
		t.Errorf("FTOS: %s", off)
	}
}
