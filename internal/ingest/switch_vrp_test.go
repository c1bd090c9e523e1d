package ingest

import (
	"strings"
	"testing"
)

// vrpWant is a port a Huawei VRP `display interface` test expects.
type vrpWant struct {
	port, state                      string
	rxOK, rxErr, rxDrop, crc, giants int64
	txOK, txErr, txDrop              int64
}

// vrpCheck compares the ports read with want, each with its evidence.
func vrpCheck(t *testing.T, s *SwitchCounters, want []vrpWant) {
	t.Helper()
	if len(s.Ports) != len(want) {
		t.Fatalf("ports %+v", s.Ports)
	}
	for i, w := range want {
		p := s.Ports[i]
		got := vrpWant{p.Port, p.State, p.RxOK, p.RxErr, p.RxDrop, p.CRC, p.Giants, p.TxOK, p.TxErr, p.TxDrop}
		if got != w || p.Platform != HuaweiVRP || p.Evidence.Line == 0 || p.ErrEvidence.Line == 0 {
			t.Errorf("port %d = %+v (platform %q, evidence %d/%d), want %+v", i, got, p.Platform, p.Evidence.Line, p.ErrEvidence.Line, w)
		}
	}
}

// Huawei VRP `display interface` (real, ntc-templates), the layout with
// Pause and Total Error on a line of its own: each port's packets,
// Discard, Total Error, CRC (the management port's FCS) and Giants are a
// PortCount, a logical interface's "N errors,N drops" too; its Pause
// received and sent link pause rows. A port whose Output prints no
// Total Error keeps TxErr -1; a VLAN interface with no counters is no row.
func TestSwitchVRPDisplayInterface(t *testing.T) {
	s, ok := readCorpus(t, "switch/huawei-vrp-display-interface-trunk-meth-xge-721-packets-no-errors-ntctemplates.txt")[KindSwitch].(*SwitchCounters)
	if !ok {
		t.Fatal("no switch counters")
	}
	vrpCheck(t, s, []vrpWant{
		{"Eth-Trunk0", "D", 0, 0, 0, 0, 0, 0, 0, 0},
		{"LoopBack1", "U", 0, 0, -1, -1, -1, 0, 0, -1},
		{"MEth0/0/1", "D", 0, -1, -1, 0, -1, 0, -1, -1},
		{"NULL0", "U", 0, 0, -1, -1, -1, 0, 0, -1},
		{"XGigabitEthernet0/0/1", "U", 721, 0, 0, 0, 0, 2326, -1, 0},
		{"XGigabitEthernet0/0/2", "D", 228, 0, 0, 0, 0, 505, -1, 0},
	})
	if p := s.Ports[4]; p.Evidence.Line != 192 || p.ErrEvidence.Line != 184 {
		t.Errorf("XGigabitEthernet0/0/1 evidence %d/%d, want the Output Discard line 192 and the CRC line 184", p.Evidence.Line, p.ErrEvidence.Line)
	}
	if len(s.PFC) != 8 || !s.PFC[0].Link || s.PFC[0].Prio != AllPrios || s.PFC[0].Platform != HuaweiVRP || s.PFC[4].Port != "XGigabitEthernet0/0/1" || s.PFC[4].Evidence.Line != 181 || s.PFC[5].Dir != TX {
		t.Errorf("pause %+v", s.PFC)
	}
}

// The older layout (real, ntc-templates: an AR router's switch ports):
// Discard and Total Error on one line, Jumbo "-", no Pause.
func TestSwitchVRPDisplayInterfaceOlderLayout(t *testing.T) {
	s := corpusAs[*SwitchCounters](t, "switch/huawei-vrp-display-interface-ar-ge-discard-total-error-one-line-no-errors-ntctemplates.txt", KindSwitch)
	vrpCheck(t, s, []vrpWant{
		{"GigabitEthernet0/0/0", "D", 0, 0, 0, 0, 0, 0, 0, 0},
		{"GigabitEthernet0/0/1", "D", 0, 0, 0, 0, 0, 0, 0, 0},
		{"GigabitEthernet0/0/2", "U", 6460, 0, 0, 0, 0, 6460, 0, 0},
		{"GigabitEthernet0/0/3", "D", 0, 0, 0, 0, 0, 0, 0, 0},
		{"GigabitEthernet0/0/4", "U", 30464, 0, 0, 0, 0, 20762, 0, 0},
		{"GigabitEthernet0/0/5", "U", 1832, 0, 0, 0, 0, 0, 0, 0},
	})
	if len(s.PFC) != 0 {
		t.Errorf("pause %+v from a layout that prints none", s.PFC)
	}
}

// CloudEngine V300's layout (Huawei's command reference example):
// packets from "Input :  N bytes,  N packets" (a space before the colon),
// the pairs under "Input:" alone, "--" for a counter the port does not
// keep (Frames beside Discard, Jabbers), Pause beside Ignoreds: every
// Input counter is read, none cut.
func TestSwitchVRPCloudEngineV300Layout(t *testing.T) {
	s := corpusAs[*SwitchCounters](t, "switch/huawei-vrp-ce-v300-display-interface-10ge-616-packets-no-errors-command-reference-doc.txt", KindSwitch)
	vrpCheck(t, s, []vrpWant{{"10GE1/0/1", "U", 616, 0, 0, 0, 0, 9268, -1, 0}})
	if len(s.PFC) != 2 || s.PFC[0].Dir != RX || s.PFC[0].Evidence.Line != 29 || s.PFC[1].Dir != TX || len(s.CutRows) != 0 {
		t.Errorf("pause %+v, bad cells %+v", s.PFC, s.CutRows)
	}
}

// SYNTHETIC block: an administratively down port; a Discard that is no
// number is reported at its column (the port keeps -1), the Total Error
// beside it read; a line past the counters (bandwidth utilization) ends
// them, so a "Discard:" after it is not the port's.
func TestSwitchVRPOddLines(t *testing.T) {
	s := readSwitchText(t,
		"100GE1/0/3 current state : Administratively DOWN",
		"Input:  10 packets, 1000 bytes",
		"  Discard:                        n/a,  Total Error:                       4",
		"Output:  20 packets, 2000 bytes",
		"    Output bandwidth utilization :    0%",
		"  Discard:                        700",
	)
	vrpCheck(t, s, []vrpWant{{"100GE1/0/3", "X", 10, 4, -1, -1, -1, 20, -1, -1}})
	if len(s.CutRows) != 1 || s.CutRows[0].Line != 3 || s.CutRows[0].Col != 35 || !strings.Contains(s.CutRows[0].Expected, "Discard: a count") {
		t.Errorf("bad cells %+v, want Discard's at line 3 column 35", s.CutRows)
	}
}

// VRP8's layout as Huawei's NetEngine 40E command reference prints it:
// packets from "Input: N bytes, N packets", CRC, LongPacket and
// Undersized Frame under "Input:" alone, RxPause and TxPause as link
// pause rows; no Discard or error total (-1).
func TestSwitchVRP8ReferenceLayout(t *testing.T) {
	s := corpusAs[*SwitchCounters](t, "switch/huawei-vrp8-ne40e-display-interface-main-ge-182525-packets-no-errors-command-reference-doc.txt", KindSwitch)
	vrpCheck(t, s, []vrpWant{
		{"GE1/0/0", "U", 182525, -1, -1, 0, 0, 244628, -1, -1},
		{"GE1/0/1", "U", 182525, -1, -1, 0, 0, 244628, -1, -1},
	})
	if len(s.PFC) != 4 || s.PFC[0].Dir != RX || s.PFC[1].Dir != TX || s.Ports[0].Runts != 0 || len(s.CutRows) != 0 {
		t.Errorf("pause %+v, port %+v, bad cells %+v", s.PFC, s.Ports[0], s.CutRows)
	}
}

// SYNTHETIC block in VRP8's layout (NetEngine, ATN, indented as a
// documentation example is): packets from "Input: N bytes, N packets",
// the pairs under "Input:" alone ("CRC: N packets"), RxPause and TxPause
// as link pause rows, LongPacket as Giants; no error total (-1).
func TestSwitchVRP8Layout(t *testing.T) {
	s := readSwitchText(t,
		"   GigabitEthernet0/2/5 current state : UP (ifindex: 10)",
		"   Line protocol current state : UP",
		"       Input: 34936765982979 bytes, 130496944382 packets",
		"       Output: 671608254191369 bytes, 942009683952 packets",
		"       Input:",
		"         Unicast: 130449003438 packets, Multicast: 45477123 packets",
		"         CRC: 3000 packets, Symbol: 0 packets",
		"         LongPacket: 12 packets, Jabber: 0 packets, Alignment: 0 packets",
		"         RxPause: 0 packets",
		"       Output:",
		"         Lost: 0 packets, Overflow: 0 packets, Underrun: 0 packets",
		"         TxPause: 70000 packets",
		"       Last 300 seconds input utility rate:  0.01%",
	)
	vrpCheck(t, s, []vrpWant{{"GigabitEthernet0/2/5", "U", 130496944382, -1, -1, 3000, 12, 942009683952, -1, -1}})
	if len(s.PFC) != 2 || s.PFC[1].Dir != TX || s.PFC[1].Frames != 70000 || s.PFC[1].Evidence.Line != 12 || s.Ports[0].ErrEvidence.Line != 7 {
		t.Errorf("pause %+v, port %+v", s.PFC, s.Ports[0])
	}
}
