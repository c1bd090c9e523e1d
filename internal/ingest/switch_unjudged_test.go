package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SwitchUnjudged names the switch commands that print no counter the
// doctor judges, on real outputs of each (and nothing on one it reads).
func TestSwitchUnjudged(t *testing.T) {
	for file, want := range map[string]string{
		"nxos-show-interface-eth1-33-counters-octets-genieparser.txt":            "NX-OS `show interface counters`",
		"nxos-show-interface-subif-counters-inpkts-genieparser.txt":              "NX-OS `show interface counters`",
		"nxos-show-interface-counters-octets-2-genieparser.txt":                  "NX-OS `show interface counters`",
		"nxos-show-interface-counters-table-rates-genieparser.txt":               "NX-OS `show interface counters table`",
		"nxos-show-interface-counters-brief-n9k-rates-zartbot.txt":               "NX-OS `show interface counters brief`",
		"junos-show-class-of-service-interface-ge-0-0-2-genieparser.txt":         "Junos `show class-of-service interface`",
		"junos-show-class-of-service-interface-xe-0-1-7-genieparser.txt":         "Junos `show class-of-service interface`",
		"junos-show-interfaces-not-extensive-ntctemplates.txt":                   "Junos `show interfaces` without `extensive`",
		"junos-show-interfaces-xe-0-1-0-pcs-only-ntctemplates.txt":               "Junos `show interfaces` without `extensive`",
		"junos-show-interfaces-statistics-genieparser.txt":                       "Junos `show interfaces` without `extensive`",
		"eos-show-interfaces-vlan-vxlan-no-counters-ntctemplates.txt":            "of ports that print no counters",
		"nxos-show-interface-mgmt0-cut-ntctemplates.txt":                         "of ports that print no counters",
		"eos-show-interfaces-counters-rates-nz-wrapped-eantc2025.txt":            "EOS `show interfaces counters rates`",
		"aoscx-show-interface-vlan2-active-gateway-no-counters-ntctemplates.txt": "AOS-CX `show interface` of interfaces that print no counters",
		"sonic-show-pfc-asymmetric-all-off-sonic-utilities.txt":                  "SONiC `show pfc asymmetric`",
	} {
		head, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", "switch", file))
		if err != nil {
			t.Fatal(err)
		}
		if len(head) > 8<<10 {
			head = head[:8<<10]
		}
		what, fix := SwitchUnjudged(head)
		if !strings.Contains(what, want) || fix == "" {
			t.Errorf("%s: %q, %q; want %q", file, what, fix, want)
		}
		if arts := readCorpus(t, "switch/"+file); len(arts) != 0 {
			t.Errorf("%s: read by a reader, so never named as unjudged", file)
		}
	}
	if what, _ := SwitchUnjudged([]byte("Ethernet0  PFC0  PFC1\n")); what != "" {
		t.Errorf("a SONiC row: %q", what)
	}
}

// A PG table of which every count is N/A is read by the switch parser and
// named (NotPolled), and nothing else is read from it; one whose rows
// hold a count is not named, whatever kept it from being read.
func TestSwitchNotPolledPG(t *testing.T) {
	file := "sonic-pg-drop-masic-asic1-all-na-sonic-utilities.txt"
	if w, fix, only := switchCorpus(t, "switch/"+file).Unpolled(); !only || !strings.Contains(w, "`show priority-group drop counters` with every count N/A") || !strings.Contains(fix, "counterpoll pg-drop enable") {
		t.Errorf("%s: read as %q, %q, only %v", file, w, fix, only)
	}
	// SYNTHETIC, in the formats of the real outputs: alias port names, a
	// table cut short, a PG watermark list of N/A keys.
	for head, want := range map[string]string{
		"Ingress headroom per PG:\n        Port    PG0    PG1    PG2    PG3\n------------  -----  -----  -----  -----\nfortyGigE0/0      0      0      0  91000\nfortyGigE0/4    N/A    N/A    N/A    N/A\n": "",
		"Ingress PG dropped packets:\n     Port    PG0    PG1    PG2    PG3    PG4\nEthernet0      0      0      0    800\n":                                                                                 "",
		"Ingress PG dropped packets:\n     Port    PG0    PG1\n---------  -----  -----\nfortyGigE0/0  N/A  N/A\n":                                                                                            "`show priority-group drop counters` with every count N/A",
		"admin@sonic:~$ show priority-group watermark shared -j\n[\n    {\n        \"Port\": \"Ethernet0\",\n        \"PG0\": \"N/A\",\n        \"PG1\": \"N/A\"\n    }\n]\n":                                "`show priority-group watermark` (or `persistent-watermark`) with every peak N/A",
		"[\n    {\n        \"Port\": \"Ethernet0\",\n        \"PG0\": \"N/A\",\n        \"PG1\": \"100\"\n    }\n]\n":                                                                                        "",
		// Saved without the rule of dashes: titled and untitled.
		"Ingress PG dropped packets:\n     Port    PG0    PG1\nEthernet0    N/A    N/A\nEthernet4    N/A    N/A\n": "`show priority-group drop counters` with every count N/A",
		"Ingress shared pool occupancy per PG:\n     Port    PG0    PG1\nEthernet0    N/A    N/A\n":                "`show priority-group watermark` (or `persistent-watermark`) with every peak N/A",
		"     Port    PG0    PG1    PG2\nEthernet0    N/A    N/A    N/A\n":                                         "`show priority-group watermark` (or `persistent-watermark`) with every peak N/A",
	} {
		s := feedSwitch("pg.txt", strings.Split(head, "\n")...)
		if s == nil {
			if want != "" {
				t.Errorf("%q: nothing read", head)
			}
			continue
		}
		what, fix, only := s.Unpolled()
		if want == "" && what != "" || want != "" && (!only || !strings.Contains(what, want) || !strings.Contains(fix, "counterpoll")) {
			t.Errorf("%q: %q, %q, only %v; want %q", head, what, fix, only, want)
		}
	}
	// A row shorter than the header is a cut row, with or without the rule.
	for _, rule := range []string{"---------  -----  -----  -----\n", ""} {
		s := feedSwitch("pg-cut.txt", strings.Split("Ingress PG dropped packets:\n     Port    PG0    PG1    PG2\n"+rule+"Ethernet0      0      0      5\nEthernet4      0      3\n", "\n")...)
		if s == nil || len(s.PGDrops) != 3 || len(s.CutRows) != 1 || !strings.Contains(s.CutRows[0].Text, "Ethernet4") || !strings.Contains(s.CutRows[0].Expected, "per-PG row of 4 columns") {
			t.Errorf("rule %q: cut PG row %+v", rule, s)
		}
	}
}

// Unpolled names queue watermarks and WRED counters all N/A (the switch
// polls none), and nothing once one count is a number.
func TestSwitchUnpolled(t *testing.T) {
	for file, want := range map[string]string{
		"sonic-queue-persistent-watermark-all-json-sonic-utilities.txt":   "`show queue watermark` (or `persistent-watermark`) with every peak N/A",
		"sonic-queue-watermark-multicast-all-na-collapsed-sonic482.txt":   "`show queue watermark` (or `persistent-watermark`) with every peak N/A",
		"sonic-queue-watermark-uc-mc-persistent-sonic-utilities.txt":      "",
		"sonic-queue-wredcounters-ethernet8-json-sonic-utilities.txt":     "",
		"sonic-queue-wredcounters-voq-system-ports-sonic-utilities.txt":   "",
		"sonic-pg-persistent-watermark-json-untitled-sonic-utilities.txt": "",
	} {
		what, fix, only := switchCorpus(t, "switch/"+file).Unpolled()
		if want == "" && what != "" || want != "" && (!only || !strings.Contains(what, want) || !strings.Contains(fix, "counterpoll watermark enable")) {
			t.Errorf("%s: %q, %q; want %q", file, what, fix, want)
		}
	}
	// SYNTHETIC, in the format of the real `show queue wredcounters`.
	p := NewSwitchParser("wred.txt")
	for i, l := range []string{"     Port    TxQ    WredDrp/pkts    WredDrp/bytes    EcnMarked/pkts    EcnMarked/bytes", "---------  -----  --------------  ---------------  ----------------  -----------------", "Ethernet0    UC0             N/A              N/A               N/A                N/A", "Ethernet0    UC1             N/A              N/A               N/A                N/A"} {
		p.Feed(Line{Num: i + 1, Text: l})
	}
	s, _ := p.Result().(*SwitchCounters)
	if s == nil || len(s.WRED) != 2 {
		t.Fatalf("WRED rows: %+v", s)
	}
	if what, fix, _ := s.Unpolled(); !strings.Contains(what, "`show queue wredcounters` with every count N/A") || !strings.Contains(fix, "counterpoll wredqueue enable") {
		t.Errorf("WRED all N/A: %q, %q", what, fix)
	}
}

// "Object map is empty!" (watermarkstat found no PG or queue to show) is
// named as what the watermark command printed, and the PG table of the
// same paste is read.
func TestSwitchWatermarkObjectMapEmpty(t *testing.T) {
	s := switchCorpus(t, "switch/sonic-pg-persistent-watermark-shared-netns-then-object-map-empty-buildimage15148.txt")
	what, fix, only := s.Unpolled()
	// All three causes named, the counterpoll fix first.
	if !strings.Contains(what, "`Object map is empty!`") || !strings.Contains(what, "never enabled") || !strings.Contains(what, "BUFFER_PG") || !strings.Contains(what, "before 202411") || !strings.HasPrefix(fix, "`counterpoll show`") || !strings.Contains(fix, "counterpoll watermark enable") || !strings.Contains(fix, "ip netns exec asic0") || only || len(s.PGs) != 60 {
		t.Errorf("%q, %q, only %v, %d PG peaks", what, fix, only, len(s.PGs))
	}
	if len(s.NotPolled) != 1 || s.NotPolled[0].Evidence.Line != 28 {
		t.Errorf("one note at the first message: %+v", s.NotPolled)
	}
}

// FuzzSwitchUnjudged: any bytes name a command and its fix together, or
// neither, without panicking.
func FuzzSwitchUnjudged(f *testing.F) {
	for _, path := range nicSeeds("corpus/switch/*.txt") {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		what, fix := SwitchUnjudged(head)
		if (what == "") != (fix == "") {
			t.Fatalf("%q without %q", what, fix)
		}
	})
}

// feedSwitch parses lines as one switch output.
func feedSwitch(name string, lines ...string) *SwitchCounters {
	p := NewSwitchParser(name)
	for i, l := range lines {
		p.Feed(Line{Num: i + 1, Text: l})
	}
	s, _ := p.Result().(*SwitchCounters)
	return s
}

// An all-N/A table is named whatever else the file holds: a PG drop table
// before `show pfc counters`, queue counters (which read as zero packets
// before), trim counters, WRED beside queue watermarks. SYNTHETIC lines in
// the format of the real tables.
func TestSwitchNotPolledMixed(t *testing.T) {
	pgDrop := []string{"Ingress PG dropped packets:", "     Port    PG0    PG1    PG2    PG3    PG4    PG5    PG6    PG7", "---------  -----  -----  -----  -----  -----  -----  -----  -----", "Ethernet0    N/A    N/A    N/A    N/A    N/A    N/A    N/A    N/A", "Ethernet4    N/A    N/A    N/A    N/A    N/A    N/A    N/A    N/A"}
	pfc := []string{"", "  Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7", "---------  ------  ------  ------  ------  ------  ------  ------  ------", "Ethernet0       0       0       0      12       0       0       0       0"}
	queue := []string{"     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes", "---------  -----  --------------  ---------------  -----------  ------------", "Ethernet0    UC0             N/A              N/A          N/A           N/A", "Ethernet0    UC1             N/A              N/A          N/A           N/A"}
	trim := []string{"     Port    TxQ    Trim/pkts    TrimSent/pkts    TrimDrop/pkts", "---------  -----  -----------  ---------------  ---------------", "Ethernet0    UC2          N/A              N/A              N/A"}
	wred := []string{"     Port    TxQ    WredDrp/pkts    WredDrp/bytes    EcnMarked/pkts    EcnMarked/bytes", "---------  -----  --------------  ---------------  ----------------  -----------------", "Ethernet0    UC0             N/A              N/A               N/A                N/A", ""}
	qwm := []string{"Egress shared pool occupancy per unicast queue:", "     Port    UC0    UC1", "---------  -----  -----", "Ethernet0    N/A    N/A"}
	for _, c := range []struct {
		name  string
		lines []string
		want  []string
		only  bool
	}{
		{"pgdrop+pfc", append(append([]string{}, pgDrop...), pfc...), []string{"`show priority-group drop counters` with every count N/A"}, false},
		{"queue", queue, []string{"`show queue counters` with every count N/A"}, true},
		{"trim", trim, []string{"trim counters"}, true},
		{"wred+qwm", append(append([]string{}, wred...), qwm...), []string{"`show queue wredcounters`", "`show queue watermark`"}, true},
	} {
		s := feedSwitch(c.name+".txt", c.lines...)
		if s == nil {
			t.Errorf("%s: nothing read", c.name)
			continue
		}
		what, fix, only := s.Unpolled()
		for _, w := range c.want {
			if !strings.Contains(what, w) {
				t.Errorf("%s: %q lacks %q", c.name, what, w)
			}
		}
		if only != c.only || fix == "" || len(s.Queues) != 0 {
			t.Errorf("%s: only %v fix %q queues %d", c.name, only, fix, len(s.Queues))
		}
	}
}
