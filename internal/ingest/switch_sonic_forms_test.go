package ingest

import (
	"testing"
)

// TestSwitchWREDForms reads `show queue wredcounters` as --voq prints it
// (rows of system ports) and as -j prints it (with and without --voq).
func TestSwitchWREDForms(t *testing.T) {
	v := switchCorpus(t, "switch/sonic-queue-wredcounters-voq-system-ports-sonic-utilities.txt")
	if len(v.WRED) != 24 {
		t.Fatalf("%d WRED rows, want 3 system ports x 8 VOQs", len(v.WRED))
	}
	if w := v.WRED[11]; w.Port != "testsw|Ethernet4" || w.Type != "VOQ" || w.Queue != 3 || w.WREDDrop != 45 || w.ECNMarks != 82 || w.Evidence.Line != 21 {
		t.Errorf("testsw|Ethernet4 VOQ3 %+v", w)
	}
	j := switchCorpus(t, "switch/sonic-queue-wredcounters-ethernet8-json-sonic-utilities.txt")
	if len(j.WRED) != 30 || len(j.Queues) != 0 {
		t.Fatalf("%d WRED rows, %d queue counts, want 30 queues of Ethernet8", len(j.WRED), len(j.Queues))
	}
	if w := j.WRED[0]; w.Type != "ALL" || w.WREDDrop != -1 || w.ECNMarks != -1 {
		t.Errorf("ALL20 %+v, want N/A", w)
	}
	if w := j.WRED[23]; w.Port != "Ethernet8" || w.Type != "UC" || w.Queue != 3 || w.WREDDrop != 11 || w.ECNMarks != 63 || w.Evidence.Line != 145 {
		t.Errorf("Ethernet8 UC3 %+v", w)
	}
	vj := switchCorpus(t, "switch/sonic-queue-wredcounters-voq-port-json-sonic-utilities.txt")
	if len(vj.WRED) != 8 || vj.WRED[3].Port != "testsw|Ethernet0" || vj.WRED[3].WREDDrop != 11 || vj.WRED[3].ECNMarks != 12 {
		t.Errorf("VOQ JSON %+v", vj.WRED)
	}
}

// TestSwitchTrimPortTable reads `show interfaces counters trim`: each
// port's trimmed packets as a QueueTrim of no queue, as its -j is read;
// an all-N/A port is kept out.
func TestSwitchTrimPortTable(t *testing.T) {
	s := switchCorpus(t, "switch/sonic-show-int-counters-trim-table-sonic-utilities.txt")
	if len(s.Trims) != 2 || len(s.Ports) != 0 {
		t.Fatalf("trims %+v ports %+v", s.Trims, s.Ports)
	}
	if q := s.Trims[1]; q.Port != "Ethernet4" || q.Type != "" || q.Queue != -1 || q.Trimmed != 20000 || q.Sent != 10000 || q.Dropped != 10000 || q.Evidence.Line != 8 {
		t.Errorf("Ethernet4 %+v", q)
	}
}

// TestSwitchPortsChassisSupervisor reads `show interfaces counters` on a
// chassis supervisor: the line cards' ports, named with slashes.
func TestSwitchPortsChassisSupervisor(t *testing.T) {
	s := switchCorpus(t, "switch/sonic-int-counters-chassis-supervisor-ethernet1-1-na-sonic-utilities.txt")
	if len(s.Ports) != 4 || s.Ports[2].Port != "Ethernet11/1" || s.Ports[2].RxOK != -1 || s.Ports[0].RxOK != 100 || s.Ports[0].Evidence.Line != 7 {
		t.Errorf("VOQ chassis ports %+v", s.Ports)
	}
	s = switchCorpus(t, "switch/sonic-int-counters-packet-chassis-supervisor-hundredgige-sonic-utilities.txt")
	if len(s.Ports) != 3 || s.Ports[2].Port != "FourHundredGigE0/3/0/10" || s.Ports[2].TxOK != 100 {
		t.Errorf("packet chassis ports %+v", s.Ports)
	}
}
