package ingest

import (
	"slices"
	"strings"
	"testing"
)

// Cisco NX-OS, the real Nexus 5000 outputs of Matt Oswalt's FCoE post:
// `show interface priority-flow-control` with PFC operationally off and
// pause counted over all priorities, and the queuing block whose no-drop
// qos-group 1 discarded 160104 packets at ingress.
func TestSwitchNXOS(t *testing.T) {
	pfc, ok := readCorpus(t, "switch/nxos-show-interface-pfc-auto-off-fcoe-n5k-mierdin.txt")[KindSwitch].(*SwitchCounters)
	if !ok {
		t.Fatal("show interface priority-flow-control: no switch counters")
	}
	if len(pfc.NXOSPFC) != 4 || pfc.NXOSPFC[0].Port != "Ethernet1/47" || pfc.NXOSPFC[0].Mode != "Auto" || pfc.NXOSPFC[0].Enabled || pfc.NXOSPFC[3].Evidence.Line != 11 {
		t.Errorf("ports %+v", pfc.NXOSPFC)
	}
	want := []SwitchPFC{{Port: "Ethernet1/47", Dir: RX, Prio: AllPrios, Frames: 7316}, {Port: "Ethernet1/47", Dir: TX, Prio: AllPrios, Frames: 762946}, {Port: "Ethernet1/48", Dir: RX, Prio: AllPrios, Frames: 7428}, {Port: "Ethernet1/48", Dir: TX, Prio: AllPrios, Frames: 761362}}
	if len(pfc.PFC) != 8 {
		t.Fatalf("pfc %+v", pfc.PFC)
	}
	for i, w := range want {
		g := pfc.PFC[i]
		g.Evidence = Evidence{}
		if g != w {
			t.Errorf("pfc[%d] = %+v, want %+v", i, g, w)
		}
	}
	if pfc.PFC[1].Evidence.Line != 8 || pfc.Lines() != 7 {
		t.Errorf("evidence %+v, %d lines", pfc.PFC[1].Evidence, pfc.Lines())
	}

	q, ok := readCorpus(t, "switch/nxos-show-queuing-rx-no-drop-discards-fcoe-n5k-mierdin.txt")[KindSwitch].(*SwitchCounters)
	if !ok {
		t.Fatal("show queuing interface: no switch counters")
	}
	if len(q.PGDrops) != 1 || q.PGDrops[0] != (PGDrop{Port: "Ethernet1/47", PG: 1, Packets: 160104, QoSGroup: true, NoDrop: true, Evidence: q.PGDrops[0].Evidence}) || q.PGDrops[0].Evidence.Line != 14 {
		t.Errorf("drops %+v", q.PGDrops)
	}
}

// Synthetic NX-OS rows in the shapes NX-OS prints and the ones it does
// not: PFC on with its bitmap (one priority, two), a row cut short, a bad
// mode, a bitmap that is no hex; a drop group and a discard count that is
// no number.
func TestSwitchNXOSShapes(t *testing.T) {
	s := readSwitchText(t,
		"# synthetic: NX-OS show interface priority-flow-control rows",
		"============================================================",
		"Port               Mode Oper(VL bmap)  RxPPP      TxPPP",
		"============================================================",
		"",
		"Ethernet1/1        On   On  (8)       12         4088353",
		"Ethernet1/2        Auto On(18)        0          5",
		"Ethernet1/3        Auto On",
		"Ethernet1/4        Maybe Off          0          0",
		"Ethernet1/5        On   On (zz)       0          0",
		"",
		"Ethernet1/9 queuing information:",
		"  RX Queuing",
		"    qos-group 0",
		"    drop-type: drop, xon: 0, xoff: 0",
		"    Statistics:",
		"        Pkts discarded on ingress               : 12",
		"    qos-group 3",
		"        Pkts discarded on ingress               : lots",
	)
	if len(s.NXOSPFC) != 2 || !slices.Equal(s.NXOSPFC[0].Prios, []int{3}) || !slices.Equal(s.NXOSPFC[1].Prios, []int{3, 4}) {
		t.Errorf("ports %+v", s.NXOSPFC)
	}
	if s.PFC[1].Prio != 3 || s.PFC[1].Frames != 4088353 || s.PFC[2].Prio != AllPrios {
		t.Errorf("pfc %+v", s.PFC)
	}
	var got []string
	for _, g := range s.CutRows {
		got = append(got, itoa(g.Line)+":"+itoa(g.Col)+" "+g.Expected)
	}
	for i, w := range []string{"8:27 a `show interface priority-flow-control` row", "9:20 a `show", "10:28 a `show", "19:51 `show queuing interface`"} {
		if i >= len(got) || !strings.HasPrefix(got[i], w) {
			t.Errorf("garbled %d: %q, want %q...", i, got, w)
		}
	}
	if len(s.PGDrops) != 1 || s.PGDrops[0].NoDrop || !s.PGDrops[0].QoSGroup || s.PGDrops[0].PG != 0 || s.PGDrops[0].Packets != 12 {
		t.Errorf("drops %+v", s.PGDrops)
	}
}

// readSwitchText reads lines as one input through the switch parser.
func readSwitchText(t *testing.T, lines ...string) *SwitchCounters {
	t.Helper()
	res, err := Read("synthetic.txt", strings.NewReader(strings.Join(lines, "\n")+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Artifacts {
		if s, ok := a.(*SwitchCounters); ok {
			return s
		}
	}
	t.Fatal("no switch counters")
	return nil
}

// Synthetic NX-OS `show interface priority-flow-control detail` in the
// Nexus 9000's shape: Ethernet1/51 runs PFC on priority 5 (bitmap 20) and
// sent 1500 pause frames on it; Ethernet1/52 is off in mode Auto, its Tx
// row holding a cell that is no count, reported at its line and column.
func TestSwitchNXOSPFCDetail(t *testing.T) {
	s := readSwitchText(t,
		"# synthetic: NX-OS show interface priority-flow-control detail in the Nexus 9000's shape",
		"PrivN9K# show interface priority-flow-control detail",
		"Ethernet1/51",
		"    Admin Mode: On",
		"    Oper Mode: On",
		"    VL bitmap: (20)",
		"    Total Rx PFC Frames: 0",
		"    Total Tx PFC Frames: 150",
		"    ---------------------------------------------------------------------------------------------------------------------",
		"        |  Priority0  |  Priority1  |  Priority2  |  Priority3  |  Priority4  |  Priority5  |  Priority6  |  Priority7  |",
		"    ---------------------------------------------------------------------------------------------------------------------",
		"    Rx  |0            |0            |0            |0            |0            |0            |0            |0",
		"    ---------------------------------------------------------------------------------------------------------------------",
		"    Tx  |0            |0            |0            |0            |0            |1500         |0            |0",
		"Ethernet1/52",
		"    Admin Mode: Auto",
		"    Oper Mode: Off",
		"    VL bitmap: (0)",
		"    Total Rx PFC Frames: 0",
		"    Total Tx PFC Frames: 0",
		"    ---------------------------------------------------------------------------------------------------------------------",
		"        |  Priority0  |  Priority1  |  Priority2  |  Priority3  |  Priority4  |  Priority5  |  Priority6  |  Priority7  |",
		"    ---------------------------------------------------------------------------------------------------------------------",
		"    Rx  |0            |0            |0            |0            |0            |0            |0            |0",
		"    ---------------------------------------------------------------------------------------------------------------------",
		"    Tx  |0            |0            |0            |0            |0            |0            |0            |x",
	)
	if len(s.NXOSPFC) != 2 || s.NXOSPFC[0].Port != "Ethernet1/51" || !s.NXOSPFC[0].Enabled || !slices.Equal(s.NXOSPFC[0].Prios, []int{5}) || s.NXOSPFC[0].Mode != "On" ||
		s.NXOSPFC[1].Enabled || s.NXOSPFC[1].Mode != "Auto" || len(s.NXOSPFC[1].Prios) != 0 || s.NXOSPFC[1].Evidence.Line != 17 {
		t.Errorf("ports %+v", s.NXOSPFC)
	}
	// 8 Rx and 8 Tx of Ethernet1/51, 8 Rx of Ethernet1/52; its Tx row is cut.
	if len(s.PFC) != 24 {
		t.Fatalf("pfc %+v", s.PFC)
	}
	if g := s.PFC[13]; g.Port != "Ethernet1/51" || g.Dir != TX || g.Prio != 5 || g.Frames != 1500 || g.Evidence.Line != 14 {
		t.Errorf("tx prio 5 %+v", g)
	}
	if len(s.CutRows) != 1 || s.CutRows[0].Line != 26 || s.CutRows[0].Col != 108 {
		t.Errorf("cut %+v", s.CutRows)
	}
}
