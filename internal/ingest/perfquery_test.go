package ingest

import (
	"strings"
	"testing"
)

// pqSample returns the sample of dev port in q.
func pqSample(t *testing.T, q *Perfquery, dev string, port int) *CounterSample {
	t.Helper()
	for i := range q.Samples {
		if q.Samples[i].Device == dev && q.Samples[i].Port == port {
			return &q.Samples[i]
		}
	}
	t.Fatalf("no sample of %s port %d in %+v", dev, port, q.Samples)
	return nil
}

func TestPerfqueryExtendedNetdata(t *testing.T) {
	res := nicReadCorpus(t, "perfquery/perfquery-x-mail-wrapped-header-traffic-netdata2620.txt")
	if k := nicKinds(res); len(k) == 0 || k[0] != KindPerfquery {
		t.Fatalf("kinds %v", k)
	}
	q := nicArtifact[*Perfquery](t, res)
	if len(q.Samples) != 1 || len(q.Garbled) != 0 {
		t.Fatalf("samples %d garbled %v", len(q.Samples), q.Garbled)
	}
	s := pqSample(t, q, "LID 21", 1)
	// The paste's own figures, renamed to sysfs names, 64 bits wide.
	for name, want := range map[string]uint64{"port_xmit_data": 13672645927, "port_rcv_data": 2341975277576, "unicast_rcv_packets": 2467494386, "multicast_rcv_packets": 6779, "excessive_buffer_overrun_errors": 0} {
		if got := nicValue(t, s, name); got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
		if c, _ := s.After.Get(name); c.Bits != 64 {
			t.Errorf("%s: %d bits, want 64", name, c.Bits)
		}
	}
	if s.After.Len() != 19 {
		t.Errorf("%d counters, want 19 (the selects are no counters)", s.After.Len())
	}
}

func TestPerfqueryExtendedQP1Dropped(t *testing.T) {
	q := nicArtifact[*Perfquery](t, nicReadCorpus(t, "perfquery/perfquery-x-extended-all-zero-infinibanddiags16.txt"))
	s := pqSample(t, q, "LID 10", 1)
	if s.After.Len() != 22 {
		t.Errorf("%d counters, want 22", s.After.Len())
	}
	if c, ok := s.After.Get("QP1_dropped"); !ok || c.Evidence.Line != 27 {
		t.Errorf("QP1_dropped %+v %v", c, ok)
	}
}

func TestPerfqueryIBQueryErrors(t *testing.T) {
	q := nicArtifact[*Perfquery](t, nicReadCorpus(t, "perfquery/ibqueryerrors-port-all-link-downed-xmit-discards-ucx9590.txt"))
	s := pqSample(t, q, "GUID 0x1070fd0300370ea2", pqAllPorts)
	for name, want := range map[string]uint64{"link_downed": 25, "port_rcv_errors": 26, "port_xmit_discards": 2846, "port_xmit_wait": 14681376621} {
		if got := nicValue(t, s, name); got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
	if c, _ := s.After.Get("port_xmit_discards"); c.Bits != 0 {
		t.Errorf("ibqueryerrors width %d, want 0 (not known)", c.Bits)
	}
}

// Two ports of one LID; of port 1 both attributes, the extended kept.
func TestPerfqueryPortsAndAttributes(t *testing.T) {
	q := nicArtifact[*Perfquery](t, readSynthetic(t, "perfquery-two-ports-saturated-synthetic.txt"))
	if len(q.Samples) != 2 {
		t.Fatalf("%d samples, want 2", len(q.Samples))
	}
	p1 := pqSample(t, q, "LID 7", 1)
	if c, _ := p1.After.Get("symbol_error"); c.Value != 1048211 || c.Bits != 64 || p1.IsDelta() {
		t.Errorf("port 1 symbol_error %+v delta %v", c, p1.IsDelta())
	}
	p2 := pqSample(t, q, "LID 7", 2)
	for name, bits := range map[string]uint8{"symbol_error": 16, "link_error_recovery": 8, "local_link_integrity_errors": 4, "port_xmit_data": 32} {
		if c, _ := p2.After.Get(name); c.Bits != bits {
			t.Errorf("port 2 %s: %d bits, want %d", name, c.Bits, bits)
		}
	}
}

// synthetic: a later perfquery of the same port is its after-dump.
func TestPerfqueryBeforeAfter(t *testing.T) {
	sec := func(sym string) string {
		return "# Port counters: Lid 3 port 1 (CapMask: 0x1600)\nPortSelect:......................1\nSymbolErrorCounter:.............." + sym + "\nPortXmitData:....................10\n"
	}
	q := nicArtifact[*Perfquery](t, nicReadText(t, "t.txt", "$ perfquery -C mlx5_2 -P 1\n"+sec("5")+sec("9")))
	s := pqSample(t, q, "mlx5_2", 1)
	if !s.IsDelta() || nicValue(t, s, "symbol_error") != 4 {
		t.Fatalf("delta %v symbol_error %d, want a pair counting 4", s.IsDelta(), nicValue(t, s, "symbol_error"))
	}
	// Two dumps pasted without their headers: the repeated field begins
	// the second.
	fields := func(sym string) string { return sec(sym)[strings.Index(sec(sym), "\n")+1:] }
	q = nicArtifact[*Perfquery](t, nicReadText(t, "t.txt", "$ perfquery 3 1\n"+fields("5")+fields("9")))
	if s := pqSample(t, q, "LID 3", 1); !s.IsDelta() || nicValue(t, s, "symbol_error") != 4 {
		t.Fatalf("headerless: delta %v symbol_error %d, want a pair counting 4", s.IsDelta(), nicValue(t, s, "symbol_error"))
	}
}

func TestPerfqueryGarbled(t *testing.T) {
	in := strings.Join([]string{
		"# Port counters: Lid 3 port 1 (CapMask: 0x1600)",
		"PortSelect:......................2",
		"SymbolErrorCounter:..............12a",
		"CounterSelect:...................zero",
		"LinkDownedCounter:...............1",
		"# Port counters: Lid 3 port x (CapMask: 0x1600)",
		" GUID 0x1 port 1: [PortRcvErrors == many]",
	}, "\n")
	q := nicArtifact[*Perfquery](t, nicReadText(t, "g.txt", in))
	var got []string
	for _, g := range q.Garbled {
		got = append(got, g.Error("g.txt"))
	}
	want := []string{
		`g.txt:2:34: expected PortSelect 1, the header's port, got "2"`,
		`g.txt:3:34: expected a decimal counter value, got "12a"`,
		`g.txt:4:34: expected a hexadecimal select value (0x0000), got "zero"`,
		`g.txt:6:29: expected a port number from 0 to 255, got "x (CapMask: 0x1600)"`,
		`g.txt:7:20: expected "[<Counter> == <value>]", got "PortRcvErrors == many]"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("garbles:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if v := nicValue(t, pqSample(t, q, "LID 3", 1), "link_downed"); v != 1 {
		t.Errorf("link_downed %d", v)
	}
}

func FuzzPerfquery(f *testing.F) {
	nicFuzz(f, NewPerfqueryParser, nicSeeds("corpus/perfquery/*.txt", "synthetic/perfquery-*.txt"), func(t *testing.T, a Artifact, n int) {
		q := a.(*Perfquery)
		nicCheckSamples(t, q.Samples, n)
		for _, g := range q.Garbled {
			if g.Line < 1 || g.Line > n || g.Col < 1 {
				t.Fatalf("garble %+v", g)
			}
		}
	})
}

// ibsim#1's paste has no header: the port is the command's LID and port.
func TestPerfqueryNoHeader(t *testing.T) {
	q := nicArtifact[*Perfquery](t, nicReadCorpus(t, "perfquery/perfquery-no-header-ibsim-lid5-cut-ibsim1.txt"))
	s := pqSample(t, q, "LID 5", 1)
	if s.After.Len() != 8 || len(q.Garbled) != 0 {
		t.Fatalf("%d counters, garbled %v", s.After.Len(), q.Garbled)
	}
	if c, _ := s.After.Get("port_xmit_constraint_errors"); c.Bits != 8 || c.Evidence.Line != 12 {
		t.Errorf("port_xmit_constraint_errors %+v", c)
	}
}

func TestPerfqueryCommand(t *testing.T) {
	for _, tc := range []struct {
		args string
		want pqCommand
	}{
		{"-x 10 1", pqCommand{dev: "LID 10", port: 1, ext: true}},
		{"-C mlx5_2 -P 2", pqCommand{dev: "mlx5_2", port: 2}},
		{"-C mlx5_2 -P 1 17 3", pqCommand{dev: "LID 17", port: 3}},
		{"", pqCommand{port: 1}},
	} {
		if got := *pqCommandOf(strings.Fields(tc.args)); got != tc.want {
			t.Errorf("%q: %+v, want %+v", tc.args, got, tc.want)
		}
	}
}
