package ingest

import (
	"testing"
)

// Juniper Junos, genieparser's real outputs: `show interfaces extensive`
// of et-0/0/0 (its queue counters, error lines and CRC/Align row) and
// `show interfaces queue` of ge-0/0/2 (five queues, queue 0 carrying
// 1470816406 packets). Both were "no format rocelab recognises" before.
func TestSwitchJunos(t *testing.T) {
	ext, ok := readCorpus(t, "switch/junos-show-interfaces-extensive-et-0-0-0-queue-counters-genieparser.txt")[KindSwitch].(*SwitchCounters)
	if !ok {
		t.Fatal("show interfaces extensive: no switch counters")
	}
	if len(ext.Queues) != 4 {
		t.Fatalf("queues %+v", ext.Queues)
	}
	q3 := ext.Queues[3]
	if q3.Port != "et-0/0/0" || q3.Queue != 3 || q3.Type != "UC" || q3.Packets != 17184 || q3.DropPkts != 0 || q3.Evidence.Line != 46 {
		t.Errorf("queue 3 %+v", q3)
	}
	if len(ext.Ports) != 1 {
		t.Fatalf("ports %+v", ext.Ports)
	}
	p := ext.Ports[0]
	if p.Port != "et-0/0/0" || p.State != "U" || p.RxOK != 17313 || p.TxOK != 17195 || p.CRC != 0 || p.RxErr != 0 || p.RxDrop != 0 || p.TxErr != 0 || p.TxDrop != 0 || !p.IOS || p.ErrEvidence.Line != 63 || p.Evidence.Line != 36 {
		t.Errorf("port %+v", p)
	}
	// Its MAC statistics' "MAC pause frames 0 0": 802.3x pause, none.
	if len(ext.PFC) != 2 || !ext.PFC[0].Link || ext.PFC[0].Frames != 0 || ext.PFC[1].Dir != TX || ext.PFC[1].Evidence.Line != 66 || len(ext.CutRows) != 0 {
		t.Errorf("pfc %+v, cut %+v", ext.PFC, ext.CutRows)
	}

	qs, ok := readCorpus(t, "switch/junos-show-interfaces-queue-ge-0-0-2-bronze-1.47g-genieparser.txt")[KindSwitch].(*SwitchCounters)
	if !ok {
		t.Fatal("show interfaces queue: no switch counters")
	}
	if len(qs.Queues) != 5 || len(qs.CutRows) != 0 {
		t.Fatalf("queues %+v, cut %+v", qs.Queues, qs.CutRows)
	}
	q0 := qs.Queues[0]
	if q0.Port != "ge-0/0/2" || q0.Queue != 0 || q0.Packets != 1470816406 || q0.Bytes != 564883280956 || q0.DropPkts != 0 || q0.DropBytes != -1 || q0.Evidence.Line != 15 {
		t.Errorf("queue 0 %+v", q0)
	}
	if q4 := qs.Queues[4]; q4.Queue != 4 || q4.Packets != 0 {
		t.Errorf("queue 4 %+v", q4)
	}
}

// Synthetic Junos blocks in the shapes Junos prints and the ones it does
// not: a QFX port with PFC frames and queue drops, a queue's tail and RED
// drops summed, Total-dropped taking their place (before or after them),
// and rows that begin as Junos's and do not go on so, each reported with
// line and column.
func TestSwitchJunosShapes(t *testing.T) {
	s := readSwitchText(t,
		"# synthetic: Junos show interfaces extensive and show interfaces queue",
		"user@qfx1> show interfaces et-0/0/5 extensive",
		"Physical interface: et-0/0/5, Enabled, Physical link is Up",
		"  Input errors:",
		"    Errors: 7, Drops: 12, Framing errors: 0, Runts: 0,",
		"  Output errors:",
		"    Carrier transitions: 1, Errors: 0, Drops: 3, Collisions: 0",
		"  Queue counters:       Queued packets  Transmitted packets      Dropped packets",
		"    0                             100                  100                    0",
		"    4                         5000000              4999000                 1000",
		"    x                               1                    1                    0",
		"    7                               1                    1",
		"  MAC statistics:                      Receive         Transmit",
		"    CRC/Align errors                         5                0",
		"  MAC Priority Flow Control Statistics:",
		"    Priority :  3                            40             9000",
		"    Priority :  4                             0",
		"    Priority :  9                             0                0",
		"user@qfx1> show interfaces queue xe-0/0/1",
		"Physical interface: xe-0/0/1, Enabled, Physical link is Down",
		"Queue: 3, Forwarding classes: fcoe",
		"  Queued:",
		"    Packets              :                    NA                     0 pps",
		"  Transmitted:",
		"    Packets              :                   800                     0 pps",
		"    Bytes                :                 80000                     0 bps",
		"    Tail-dropped packets :                     2                     0 pps",
		"    RED-dropped packets  :                     3                     0 pps",
		"     Low                 :                     3                     0 pps",
		"Queue: 4, Forwarding classes: no-loss",
		"  Transmitted:",
		"    Packets              :                    10                     0 pps",
		"    Tail-dropped packets :                     2                     0 pps",
		"    Total-dropped packets:                     9                     0 pps",
		"    RED-dropped packets  :                     4                     0 pps",
		"Queue: 5, Forwarding classes: x",
		"  Transmitted:",
		"    Packets              :                  lots                     0 pps",
	)
	want := []QueueCount{
		{Port: "et-0/0/5", Queue: 0, Type: "UC", Packets: 100, DropBytes: -1},
		{Port: "et-0/0/5", Queue: 4, Type: "UC", Packets: 4999000, DropPkts: 1000, DropBytes: -1},
		{Port: "xe-0/0/1", Queue: 3, Type: "UC", Packets: 800, Bytes: 80000, DropPkts: 5, DropBytes: -1},
		{Port: "xe-0/0/1", Queue: 4, Type: "UC", Packets: 10, DropPkts: 9, DropBytes: -1},
		{Port: "xe-0/0/1", Queue: 5, Type: "UC", DropBytes: -1},
	}
	if len(s.Queues) != len(want) {
		t.Fatalf("queues %+v", s.Queues)
	}
	wantLine := []int{9, 10, 27, 34, 36}
	for i, w := range want {
		g := s.Queues[i]
		if g.Evidence.Line != wantLine[i] {
			t.Errorf("queue[%d] at line %d, want %d", i, g.Evidence.Line, wantLine[i])
		}
		g.Evidence = Evidence{}
		if g != w {
			t.Errorf("queue[%d] = %+v, want %+v", i, g, w)
		}
	}
	if len(s.PFC) != 2 || s.PFC[0] != (SwitchPFC{Port: "et-0/0/5", Dir: RX, Prio: 3, Frames: 40, Evidence: s.PFC[0].Evidence}) || s.PFC[1] != (SwitchPFC{Port: "et-0/0/5", Dir: TX, Prio: 3, Frames: 9000, Evidence: s.PFC[1].Evidence}) || s.PFC[1].Evidence.Line != 16 {
		t.Errorf("pfc %+v", s.PFC)
	}
	if len(s.Ports) != 1 {
		t.Fatalf("ports %+v", s.Ports)
	}
	if p := s.Ports[0]; p.Port != "et-0/0/5" || p.RxErr != 7 || p.RxDrop != 12 || p.TxErr != 0 || p.TxDrop != 3 || p.CRC != 5 || p.ErrEvidence.Line != 14 || p.Evidence.Line != 5 {
		t.Errorf("port %+v", p)
	}
	if s.Switch != "qfx1" {
		t.Errorf("switch %q", s.Switch)
	}
	type at struct{ line, col int }
	var got []at
	for _, g := range s.CutRows {
		got = append(got, at{g.Line, g.Col})
	}
	wantCut := []at{{11, 5}, {12, 59}, {17, 48}, {18, 17}, {38, 45}}
	if len(got) != len(wantCut) {
		t.Fatalf("cut rows %+v", s.CutRows)
	}
	for i := range wantCut {
		if got[i] != wantCut[i] {
			t.Errorf("cut[%d] at %v, want %v (%+v)", i, got[i], wantCut[i], s.CutRows[i])
		}
	}
}

// A block's header gives the port's state: an administratively down port
// is down by choice ("X") though its link is down too, an enabled one
// with its link down is "D".
func TestJunosHeader(t *testing.T) {
	for _, c := range []struct{ line, port, state string }{
		{"Physical interface: et-0/0/5, Enabled, Physical link is Up", "et-0/0/5", "U"},
		{"Physical interface: xe-0/0/1, Enabled, Physical link is Down", "xe-0/0/1", "D"},
		{"Physical interface: ge-0/0/2, Administratively down, Physical link is Down", "ge-0/0/2", "X"},
	} {
		port, state, ok := junosHeader(c.line)
		if !ok || port != c.port || state != c.state {
			t.Errorf("%q: %q %q %v, want %q %q", c.line, port, state, ok, c.port, c.state)
		}
	}
	if _, _, ok := junosHeader("Physical interface: et-0/0/5"); ok {
		t.Error("a header with no state read")
	}
}
