package ingest

import "testing"

// NVIDIA Cumulus Linux `ethtool -S swpN`, two real dumps from Cumulus's
// knowledge base: swp1 with 15682741 frames received with errors and 1439
// ingress discards (read before as a NIC's ethtool dump whose names no
// driver table knows: no findings), and swp13/swp14 with ACL drops only.
func TestSwitchCumulusEthtool(t *testing.T) {
	s := corpusAs[*SwitchCounters](t, "switch/cumulus-ethtool-S-swp1-hwifinerrors-15.7m.txt", KindSwitch)
	if len(s.Ports) != 1 {
		t.Fatalf("ports %+v", s.Ports)
	}
	p := s.Ports[0]
	if p.Port != "swp1" || !p.Cumulus || p.RxOK != 7669711571+264791 || p.TxOK != 3035458717+264792 || p.RxErr != 15682741 || p.RxDrop != 1439 || p.TxDrop != 0 || p.TxErr != 0 || p.CRC != -1 || p.Evidence.Line != 13 || p.ErrEvidence.Line != 18 {
		t.Errorf("swp1 %+v", p)
	}
	if res := readFile(t, corpusDir+"/switch/cumulus-ethtool-S-swp1-hwifinerrors-15.7m.txt", "swp1"); len(res.Artifacts) != 1 {
		t.Errorf("artifacts %d, want the switch's alone (not a NIC's ethtool dump too)", len(res.Artifacts))
	}

	two := corpusAs[*SwitchCounters](t, "switch/cumulus-ethtool-S-swp13-swp14-acl-drops.txt", KindSwitch)
	if len(two.Ports) != 2 || two.Switch != "switch" {
		t.Fatalf("ports %+v, switch %q", two.Ports, two.Switch)
	}
	for i, want := range []struct {
		port       string
		rxOK, txOK int64
	}{{"swp13", 5140969 + 14 + 9272, 139033950 + 17657 + 8556}, {"swp14", 139051524 + 5 + 9230, 5124014 + 17875 + 8711}} {
		p := two.Ports[i]
		if p.Port != want.port || p.RxOK != want.rxOK || p.TxOK != want.txOK || p.RxDrop != 0 || p.RxErr != 0 || p.TxDrop != 0 {
			t.Errorf("port %d %+v", i, p)
		}
	}
}

// Synthetic switchd dumps in the shapes it prints them: a Spectrum port's
// PFC counters per priority (HwIfInPfcNPkt, HwIfOutPfcNPkt, the names
// NetQ's ethtool-stats lists), FCS errors, a dump with no command naming
// its port, and the same port dumped twice (the later dump wins).
func TestSwitchCumulusShapes(t *testing.T) {
	s := readSwitchText(t,
		"# synthetic: Cumulus Linux ethtool -S of switch ports",
		"cumulus@leaf1:mgmt:~$ sudo ethtool -S swp7",
		"NIC statistics:",
		"     HwIfInUcastPkts: 100",
		"     HwIfInDiscards: 0",
		"     HwIfInErrors: 9",
		"     HwIfInDot3FrameErrors: 7",
		"     HwIfOutDiscards: 12",
		"     HwIfInPfc3Pkt: 41",
		"     HwIfOutPfc3Pkt: 5000",
		"     HwIfOutPfc9Pkt: 1",
		"     HwIfOutPfcXPkt: 1",
		"cumulus@leaf1:mgmt:~$ sudo ethtool -S swp7",
		"NIC statistics:",
		"     HwIfInUcastPkts: 200",
		"     HwIfInErrors: 10",
		"     HwIfOutPfc3Pkt: 6000",
		"",
		"NIC statistics:",
		"     HwIfInUcastPkts: 5",
		"     HwIfInUcastPkts: 6",
	)
	if s.Switch != "leaf1" {
		t.Errorf("switch %q", s.Switch)
	}
	if len(s.Ports) != 2 {
		t.Fatalf("ports %+v", s.Ports)
	}
	p := s.Ports[0]
	if p.Port != "swp7" || p.RxOK != 200 || p.RxErr != 10 || p.CRC != -1 || p.TxDrop != -1 || p.ErrEvidence.Line != 16 {
		t.Errorf("swp7, its later dump %+v", p)
	}
	if u := s.Ports[1]; u.Port != cumulusUnnamed || u.RxOK != 6 || u.Evidence.Line != 0 {
		t.Errorf("unnamed port %+v", u)
	}
	var rx3, tx3 uint64
	for _, r := range s.PFC {
		if r.Port != "swp7" || r.Prio != 3 {
			t.Errorf("pfc row %+v", r)
		}
		if r.Dir == RX {
			rx3 = r.Frames
		} else {
			tx3 = r.Frames
		}
	}
	if rx3 != 41 || tx3 != 6000 || len(s.PFC) != 2 {
		t.Errorf("pfc %+v", s.PFC)
	}

	first := readSwitchText(t,
		"# synthetic: one Cumulus dump with FCS errors",
		"$ ethtool -S swp2",
		"     HwIfInUcastPkts: 100",
		"     HwIfInErrors: 9",
		"     HwIfInDot3FrameErrors: 7",
		"     HwIfOutDiscards: 12",
	)
	if q := first.Ports[0]; q.Port != "swp2" || q.CRC != 7 || q.RxErr != 9 || q.TxDrop != 12 || q.ErrEvidence.Line != 5 || q.Evidence.Line != 6 {
		t.Errorf("swp2 %+v", q)
	}
}

// Cumulus Linux `cl-netstat` (the same knowledge-base article): the
// switch ports' rows as portstat's, RX_ERR and RX_DRP per port; eth0, the
// management port, and lo are not read as switch ports. Before, the table
// was in no format rocelab recognised.
func TestSwitchCumulusNetstat(t *testing.T) {
	s := corpusAs[*SwitchCounters](t, "switch/cumulus-cl-netstat-swp1-4-rx-err.txt", KindSwitch)
	if len(s.Ports) != 4 {
		t.Fatalf("ports %+v", s.Ports)
	}
	for i, want := range []struct {
		port          string
		rxOK, err, dr int64
	}{{"swp1", 7669976333, 15682741, 1439}, {"swp2", 3023667770, 10728822, 978}, {"swp3", 24315580462, 14877988, 1307}, {"swp4", 13869960451, 8452232, 897}} {
		p := s.Ports[i]
		if p.Port != want.port || p.RxOK != want.rxOK || p.RxErr != want.err || p.RxDrop != want.dr || p.TxDrop != 0 || !p.Cumulus || p.RxErrCol != "RX_ERR" || p.Evidence.Line != 9+i {
			t.Errorf("row %d %+v", i, p)
		}
	}
}
