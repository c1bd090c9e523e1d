package ingest

import (
	"strings"
	"testing"
)

// Cisco IOS XR `show controllers <interface>` (real, genieparser's test
// vectors from a Cisco 8000): the FEC codewords and the PFC frames per
// CoS are read, an Rx-only CoS table (an older release) as Rx rows alone;
// the watchdog watches no class ("-" everywhere, no events), so no
// watchdog row and no lossless priority is kept.
func TestSwitchIOSXRControllers(t *testing.T) {
	for _, c := range []struct {
		file      string
		port      string
		pfc, line int
		fecLine   int
	}{
		{"switch/iosxr-show-controllers-400g-pfc-off-rx-only-watchdog-idle-genieparser.txt", "FourHundredGigE0/0/0/2", 8, 69, 53},
		{"switch/iosxr-show-controllers-100g-pfc-off-rx-tx-watchdog-idle-genieparser.txt", "HundredGigE0/8/0/6", 16, 34, 18},
	} {
		s, ok := readCorpus(t, c.file)[KindSwitch].(*SwitchCounters)
		if !ok {
			t.Fatalf("%s: no switch counters", c.file)
		}
		if len(s.PFC) != c.pfc || s.PFC[0].Port != c.port || s.PFC[0].Dir != RX || s.PFC[0].Prio != 0 || s.PFC[0].Evidence.Line != c.line {
			t.Errorf("%s: PFC %+v", c.file, s.PFC)
		}
		if len(s.FEC) != 1 || s.FEC[0] != (PortFEC{Port: c.port, State: "D", SymbolErrors: -1, PreBER: -1, PostBER: -1, Platform: IOSXR, Evidence: s.FEC[0].Evidence}) || s.FEC[0].Evidence.Line != c.fecLine {
			t.Errorf("%s: FEC %+v", c.file, s.FEC)
		}
		if len(s.WD) != 0 || len(s.PFCPrios) != 0 || len(s.CutRows) != 0 {
			t.Errorf("%s: watchdog %+v, lossless %v, cut %+v", c.file, s.WD, s.PFCPrios, s.CutRows)
		}
	}
}

// xrBlock is a synthetic IOS XR controllers block of one port: CoS 3 on,
// the watchdog's rows and its state machine's line as given.
func xrBlock(cos3, events, restores, drops, sm string) []string {
	return []string{
		"Operational data for interface HundredGigE0/0/0/1:",
		"State:",
		"    Operational state: Up",
		"        FEC:",
		"            Corrected Codeword Count: 912",
		"            Uncorrected Codeword Count: 7",
		"Priority flow control information for interface HundredGigE0/0/0/1:",
		"Priority Flow Control:",
		"    CoS  Status  Rx PFC Frames   Tx PFC Frames",
		"    ---  ------  --------------  -------------",
		"      0  off                  0               0",
		cos3,
		"Priority flow control watchdog statistics:",
		"-------------------------------------------------------------------------------------------------",
		"Traffic Class            :       0        1        2        3        4        5        6        7",
		"-------------------------------------------------------------------------------------------------",
		"Watchdog Events          :" + events,
		"Auto Restore Events      :" + restores,
		"Total Dropped Packets    :" + drops,
		"PFC Watchdog      : Enabled",
		"Watchdog SM state :  Traffic Class",
		"                    7 6 5 4 3 2 1 0",
		sm,
	}
}

// SYNTHETIC: a CoS that is on is a lossless priority; the watchdog's
// class waiting to restore (R) is a stormed queue with its events and
// drops, a monitored one (M) an operational queue, the others left out.
func TestSwitchIOSXRWatchdog(t *testing.T) {
	s := readSwitchText(t, xrBlock(
		"      3  on             120000         5000000",
		"       0        0        0        4        0        0        0        0",
		"       0        0        0        3        0        0        0        0",
		"       0        0        0    12345        0        0        0        0",
		"                    - - - M R - - -")...)
	if len(s.PFC) != 4 || s.PFC[3] != (SwitchPFC{Port: "HundredGigE0/0/0/1", Dir: TX, Prio: 3, Frames: 5000000, Platform: IOSXR, Evidence: s.PFC[3].Evidence}) {
		t.Errorf("PFC %+v", s.PFC)
	}
	if len(s.PFCPrios) != 1 || s.PFCPrios[0] != 3 || s.PFCPrioEvs[0].Line != 12 {
		t.Errorf("lossless %v %+v", s.PFCPrios, s.PFCPrioEvs)
	}
	want := []WatchdogQueue{
		{Port: "HundredGigE0/0/0/1", Queue: 3, Status: "stormed", Detected: 4, Restored: 3, TxDrop: 12345, Platform: IOSXR},
		{Port: "HundredGigE0/0/0/1", Queue: 4, Status: "operational", Platform: IOSXR},
	}
	if len(s.WD) != len(want) {
		t.Fatalf("watchdog %+v", s.WD)
	}
	for i, w := range want {
		got := s.WD[i]
		if got.Evidence.Line != 17 {
			t.Errorf("watchdog evidence %+v, want the Watchdog Events row, line 17", got.Evidence)
		}
		got.Evidence = Evidence{}
		if got != w {
			t.Errorf("watchdog %d = %+v, want %+v", i, got, w)
		}
	}
	if len(s.FEC) != 1 || s.FEC[0].State != "U" || s.FEC[0].Corrected != 912 || s.FEC[0].Uncorrectable != 7 {
		t.Errorf("FEC %+v", s.FEC)
	}
}

// SYNTHETIC: a CoS row whose status is neither on nor off, and a watchdog
// row short of the header's classes, are reported at their line and
// column and read by no rule; events on a class the state machine leaves
// out ("-") are kept, its state unknown (N/A).
func TestSwitchIOSXRRows(t *testing.T) {
	s := readSwitchText(t, xrBlock(
		"      3  maybe             120000         5000000",
		"       0        0        0        2        0        0        0        0",
		"       0        0        0        2        0        0        0",
		"       0        0        0       x9        0        0        0        0",
		"                    - - - - - - - -")...)
	if len(s.CutRows) != 3 {
		t.Fatalf("cut rows %+v", s.CutRows)
	}
	for i, c := range []struct {
		line, col int
		want      string
	}{{12, 7, "a CoS row"}, {18, 27, "a watchdog row"}, {19, 60, "a count in Total Dropped Packets"}} {
		if g := s.CutRows[i]; g.Line != c.line || g.Col != c.col || !strings.Contains(g.Expected, c.want) {
			t.Errorf("cut row %d = %+v, want line %d col %d %q", i, g, c.line, c.col, c.want)
		}
	}
	if len(s.PFCPrios) != 0 || len(s.PFC) != 2 {
		t.Errorf("lossless %v, PFC %+v", s.PFCPrios, s.PFC)
	}
	if len(s.WD) != 1 || s.WD[0].Queue != 3 || s.WD[0].Status != "N/A" || s.WD[0].Detected != 2 {
		t.Errorf("watchdog %+v", s.WD)
	}
}

// Cisco IOS XR `show interfaces` (real, ntc-templates): XR counts a port's
// drops as "total input drops" and "total output drops", read as its
// input and output discards; the loopback, null and tunnel blocks hold no
// port counters.
func TestSwitchIOSXRShowInterfacesDrops(t *testing.T) {
	s, ok := readCorpus(t, "switch/iosxr-show-interfaces-fortygige-392-total-input-drops-ntctemplates.txt")[KindSwitch].(*SwitchCounters)
	if !ok {
		t.Fatal("no switch counters")
	}
	var got *PortCount
	for i := range s.Ports {
		if s.Ports[i].Port == "FortyGigE0/0/0/0" {
			got = &s.Ports[i]
		}
	}
	if got == nil || got.RxDrop != 392 || got.TxDrop != 0 || got.RxOK != 478575583 || got.Evidence.Line != 131 || got.Platform != IOSXR {
		t.Errorf("FortyGigE0/0/0/0 %+v", got)
	}
}

// Cisco IOS XR `show controllers` of a release that prints no PFC section
// (real, ntc-templates): the FEC codewords of each interface block are
// read with its state, and nothing else.
func TestSwitchIOSXRControllersNoPFC(t *testing.T) {
	s, ok := readCorpus(t, "switch/iosxr-show-controllers-100g-aoc-up-no-pfc-section-fec-0-ntctemplates.txt")[KindSwitch].(*SwitchCounters)
	if !ok {
		t.Fatal("no switch counters")
	}
	if len(s.FEC) != 2 || s.FEC[0].Port != "HundredGigE0/0/0/0" || s.FEC[0].State != "U" || s.FEC[0].Evidence.Line != 45 || len(s.PFC) != 0 || len(s.WD) != 0 {
		t.Errorf("FEC %+v, PFC %+v, watchdog %+v", s.FEC, s.PFC, s.WD)
	}
}

// SYNTHETIC: a class waiting for shutdown (S: found stalled by pause at
// the watchdog's last poll) is in a storm now, as one waiting to restore
// (R) is; only monitoring (M) is operational.
func TestSwitchIOSXRWatchdogWaitingForShutdown(t *testing.T) {
	s := readSwitchText(t, xrBlock(
		"      3  on             120000         5000000",
		"       0        0        0        1        0        0        0        0",
		"       0        0        0        0        0        0        0        0",
		"       0        0        0        0        0        0        0        0",
		"                    - - - M S - - -")...)
	got := map[int]string{}
	for _, w := range s.WD {
		got[w.Queue] = w.Status
		if w.Platform != IOSXR {
			t.Errorf("watchdog %+v not marked IOS XR", w)
		}
	}
	if len(got) != 2 || got[3] != "stormed" || got[4] != "operational" {
		t.Errorf("watchdog states %v, want 3 stormed (S), 4 operational (M)", got)
	}
}
