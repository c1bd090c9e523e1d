package lint

import (
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

// A synthetic EOS leaf in the shape Arista's AVD writes a routed port
// channel (`no switchport` and `qos trust dscp` on Port-Channel10,
// `channel-group 10 mode active` on the members) with PFC and queue ECN
// on the physical members: the members take the port channel's trust and
// routed mode and are judged (RoCE's DSCP 26 in class 3, lossless), and
// Port-Channel10 is not judged as a port of its own (it was told PFC is
// off).
func TestEOSChannelMembersTakeTrust(t *testing.T) {
	cfg := `! device: leaf1 (DCS-7050CX3-32S, EOS-4.28.3M)
interface Port-Channel10
   no switchport
   ip address 10.0.0.1/31
   qos trust dscp
!
interface Ethernet1/1
   channel-group 10 mode active
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   !
   tx-queue 3
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 10
!
interface Ethernet2/1
   channel-group 10 mode active
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   !
   tx-queue 3
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 10
`
	rep := lintFiles(t, tempFile(t, "synthetic-eos-po.cfg", cfg))
	for _, fd := range rep.Findings {
		if fd.Severity >= doctor.Warn || strings.Contains(fd.Title, "Port-Channel10") {
			t.Errorf("%s %s: %s", fd.Severity, fd.ID, fd.Title)
		}
	}
}

// A member whose Port-Channel the input does not hold (a cut of the
// config): the trust the port channel gives it is not known, so it is
// named, not told RoCE's DSCP lands where CoS trust would put it.
func TestEOSChannelMissingNamed(t *testing.T) {
	cfg := `! device: leaf1 (DCS-7050CX3-32S, EOS-4.28.3M)
interface Ethernet1/1
   channel-group 10 mode active
   priority-flow-control on
   priority-flow-control priority 3 no-drop
`
	rep := lintFiles(t, tempFile(t, "synthetic-eos-po-cut.cfg", cfg))
	named := false
	for _, fd := range rep.Findings {
		named = named || fd.ID == "config.not_judged" && strings.Contains(fd.Title, "channel-group 10 on Ethernet1/1 (Port-Channel10 not in the input")
	}
	if !named {
		t.Errorf("no config.not_judged naming Port-Channel10: %v", ids(rep))
	}
}

// A Port-Channel whose service-profile the input does not hold, over
// members that write PFC themselves: the members are judged on their own
// lines (RoCE's priority 3 lossless) with the profile named, and the
// configuration is not told it sets no QoS (config.qos.absent) nor ECN
// (ecn.disabled: the profile may hold `tx-queue 3` `random-detect ecn`);
// nor is a port skipped for its own missing profile. Synthetic.
func TestEOSChannelProfileMissing(t *testing.T) {
	cfg := `! device: leaf1 (DCS-7050CX3-32S, EOS-4.28.3M)
interface Port-Channel10
   no switchport
   service-profile ROCE
!
interface Ethernet1
   channel-group 10 mode active
   priority-flow-control on
   priority-flow-control priority 3 no-drop
!
interface Ethernet2
   service-profile ROCE
`
	rep := lintFiles(t, tempFile(t, "synthetic-eos-po-profile.cfg", cfg))
	named := false
	for _, fd := range rep.Findings {
		named = named || fd.ID == "config.not_judged" && strings.Contains(fd.Title, "service-profile ROCE of Port-Channel10 (not in the input")
		if fd.ID == "config.qos.absent" || fd.ID == "qos.pfc.disabled" || fd.ID == "ecn.disabled" {
			t.Errorf("%s: %s", fd.ID, fd.Title)
		}
	}
	if !named {
		t.Errorf("profile not named: %v", ids(rep))
	}
}
