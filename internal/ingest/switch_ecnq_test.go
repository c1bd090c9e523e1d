package ingest

import "testing"

// TestSwitchECNQueues reads `ecnconfig -q`: the status block of one queue
// (sonic-buildimage#11879) and the -vv lines of a change with the ports it
// names (sonic-utilities#375).
func TestSwitchECNQueues(t *testing.T) {
	st := switchCorpus(t, "switch/sonic-ecnconfig-q3-status-off-buildimage11879.txt")
	if q := st.ECNQueues; len(q) != 1 || q[0].Queue != 3 || q[0].On || q[0].Set || len(q[0].Ports) != 0 || q[0].Evidence.Line != 5 || st.Switch != "str-7260cx3-acs-2" {
		t.Errorf("status %+v (switch %q)", q, st.Switch)
	}
	vv := switchCorpus(t, "switch/sonic-ecnconfig-q3-on-q4-off-vv-port-lists-sonicutilities375.txt").ECNQueues
	if len(vv) != 2 || !vv[0].On || !vv[0].Set || vv[0].Queue != 3 || vv[1].On || vv[1].Queue != 4 || len(vv[1].Ports) != 32 || vv[1].Ports[31] != "Ethernet124" {
		t.Errorf("set lines %+v", vv)
	}
	// SYNTHETIC, in ecnconfig's format (scripts/ecnconfig EcnQ.get): a
	// multi-ASIC block names its namespace; a state other than on/off is
	// reported where it stands, past the spaces before it; a sentence
	// that merely mentions a queue is no status line.
	s := switchLines(t, "q.txt",
		"ECN status for namespace asic1:",
		"queue 3: on",
		"Ethernet0,Ethernet8 queue 4: off",
		"queue 6: maybe",
		"queue 7:   unknown",
		"the queue 4 is fine: yes",
	)
	if q := s.ECNQueues; len(q) != 2 || q[0].Namespace != "asic1" || !q[0].On || q[1].Queue != 4 || q[1].On || len(q[1].Ports) != 2 {
		t.Errorf("namespace block %+v", q)
	}
	if len(s.CutRows) != 2 || s.CutRows[0].Line != 4 || s.CutRows[0].Col != 10 || s.CutRows[1].Line != 5 || s.CutRows[1].Col != 12 {
		t.Errorf("garbled state %+v", s.CutRows)
	}
}

// TestSwitchECNQueuesVOQPorts reads ecnconfig's -vv lines on a VOQ chassis,
// where it names each port by its system port key, "host|asic|port"
// (scripts/ecnconfig gen_ports_key when switch_type is voq).
func TestSwitchECNQueuesVOQPorts(t *testing.T) {
	// SYNTHETIC, in ecnconfig's -vv format with a VOQ linecard's keys.
	q := switchLines(t, "voq.txt",
		"Disable ECN on lc1|asic0|Ethernet0,lc1|asic0|Ethernet8 queue 3",
		"ECN status:",
		"lc1|asic0|Ethernet0,lc1|asic0|Ethernet8 queue 4: off",
	).ECNQueues
	if len(q) != 2 || !q[0].Set || q[0].Queue != 3 || len(q[0].Ports) != 2 || q[0].Ports[1] != "lc1|asic0|Ethernet8" || q[1].Set || q[1].Queue != 4 || len(q[1].Ports) != 2 {
		t.Errorf("VOQ -vv lines %+v", q)
	}
}

// TestSwitchECNQueuesMultiASIC reads a change on a multi-ASIC switch:
// without -n ecnconfig prints one -vv line per ASIC, which are one change
// of all their ports; with -n the echoed command names the ASIC, as it
// does for wredstat's rows, which print no namespace of their own.
func TestSwitchECNQueuesMultiASIC(t *testing.T) {
	// SYNTHETIC, in ecnconfig's and wredstat's formats (EcnQ.set runs once
	// per namespace).
	s := switchLines(t, "masic.txt",
		"admin@masic:~$ sudo ecnconfig -q 3,4 off -vv",
		"Disable ECN on Ethernet0,Ethernet4 queue 3",
		"Disable ECN on Ethernet0,Ethernet4 queue 4",
		"Disable ECN on Ethernet64,Ethernet68 queue 3",
		"Disable ECN on Ethernet64,Ethernet68 queue 4",
		"admin@masic:~$ sudo ecnconfig -q 3 on -vv -n asic1",
		"Enable ECN on Ethernet64,Ethernet68 queue 3",
		"admin@masic:~$ show queue wredcounters -n asic1 | grep UC3",
		"Ethernet64    UC3             N/A              N/A                 5                500",
	)
	q := s.ECNQueues
	if len(q) != 3 || q[0].Queue != 3 || q[0].Namespace != "" || len(q[0].Ports) != 4 || q[0].Ports[2] != "Ethernet64" || q[0].Evidence.Line != 2 ||
		q[1].Queue != 4 || len(q[1].Ports) != 4 || q[2].Namespace != "asic1" || !q[2].On || len(q[2].Ports) != 2 {
		t.Errorf("changes %+v", q)
	}
	if w := s.WRED; len(w) != 1 || w[0].Namespace != "asic1" || w[0].ECNMarks != 5 {
		t.Errorf("wred rows %+v", w)
	}
}

// switchLines reads lines as the switch parser's input src.
func switchLines(t *testing.T, src string, lines ...string) *SwitchCounters {
	t.Helper()
	p := NewSwitchParser(src)
	for i, l := range lines {
		p.Feed(Line{Num: i + 1, Text: l})
	}
	s, ok := p.Result().(*SwitchCounters)
	if !ok {
		t.Fatalf("%s: nothing read", src)
	}
	return s
}

// TestCommandNamespace reads the ASIC an echoed SONiC command names, and
// no other tool's -n.
func TestCommandNamespace(t *testing.T) {
	for cmd, want := range map[string]string{
		"admin@sw:~$ show queue wredcounters -n asic0 |grep UC3": "asic0",
		"admin@sw:~$ **show queue wredcounters -n asic1**":       "asic1",
		"admin@sw:~$ sudo ecnconfig -q 3 off --namespace asic2":  "asic2",
		"admin@sw:~$ ecnconfig -q 3 --namespace=asic12":          "asic12",
		"admin@sw:~$ watch -n 1 show queue counters":             "",
		"admin@sw:~$ show queue counters | grep -n asic0":        "",
		"admin@sw:~$ show queue counters -n asicX":               "",
	} {
		if got := commandNamespace(cmd); got != want {
			t.Errorf("%q: %q, want %q", cmd, got, want)
		}
	}
}
