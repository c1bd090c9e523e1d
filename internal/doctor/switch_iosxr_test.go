package doctor

import (
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// Real outputs of the IOS XR and Comware readers with nothing wrong in
// them (genieparser's Cisco 8000 vectors: PFC off, no pause, no FEC
// errors, no watchdog event; ntc-templates' Comware ports: no errors,
// drops or pause): read as switch counters, nothing to report.
func TestVendorCLIHealthy(t *testing.T) {
	for _, file := range []string{
		"corpus/switch/iosxr-show-controllers-400g-pfc-off-rx-only-watchdog-idle-genieparser.txt",
		"corpus/switch/iosxr-show-controllers-100g-pfc-off-rx-tx-watchdog-idle-genieparser.txt",
		"corpus/switch/iosxr-show-controllers-100g-aoc-up-no-pfc-section-fec-0-ntctemplates.txt",
		"corpus/switch/comware5-display-interface-bagg-879g-packets-no-errors-ntctemplates.txt",
		"corpus/switch/comware-display-interface-gige-admin-down-and-stp-down-no-errors-ntctemplates.txt",
	} {
		if fs := diagnoseFiles(t, Options{}, file); len(fs) != 0 {
			t.Errorf("%s: findings %+v", file, fs)
		}
	}
}

// xrStorm is a SYNTHETIC IOS XR controllers block: CoS 3 lossless, its
// watchdog waiting to restore the class, FEC codewords uncorrected.
var xrStorm = []string{
	"Operational data for interface HundredGigE0/0/0/1:",
	"    Operational state: Up",
	"            Corrected Codeword Count: 912",
	"            Uncorrected Codeword Count: 70",
	"Priority flow control information for interface HundredGigE0/0/0/1:",
	"    CoS  Status  Rx PFC Frames   Tx PFC Frames",
	"    ---  ------  --------------  -------------",
	"      3  on             120000         5000000",
	"Traffic Class            :       0        1        2        3        4        5        6        7",
	"Watchdog Events          :       0        0        0        4        0        0        0        0",
	"Auto Restore Events      :       0        0        0        3        0        0        0        0",
	"Total Dropped Packets    :       0        0        0    12345        0        0        0        0",
	"Watchdog SM state :  Traffic Class",
	"                    7 6 5 4 3 2 1 0",
	"                    - - - - R - - -",
}

// SYNTHETIC IOS XR controllers block: the watchdog waiting to restore
// traffic class 3 (state R, 4 events, 3 restored) is a storm now; the
// pause the port sent on CoS 3 is reported; FEC's uncorrectable codewords
// are told without the symbol errors IOS XR does not print.
func TestIOSXRControllersStorm(t *testing.T) {
	rep := diagnoseText(t, strings.Join(xrStorm, "\n")+"\n")
	nicMustFind(t, rep.Findings, "switch.pfcwd.storm", Error, "HundredGigE0/0/0/1 queue 3: PFC watchdog: in a storm now (4 storms detected, 3 restored); dropped TX 12345")
	nicMustFind(t, rep.Findings, "switch.pfc.tx_pause", Warn, "HundredGigE0/0/0/1: sent 5000000 PFC pause frames on priority 3")
	f := nicMustFind(t, rep.Findings, "switch.link.errors", Warn, "HundredGigE0/0/0/1: RS-FEC met 70 codewords it could not correct (Uncorrected Codeword Count; 912 corrected)")
	if strings.Contains(f.Title, "symbol") {
		t.Errorf("title %q tells symbol errors IOS XR does not print", f.Title)
	}
}

// Cisco IOS XR `show interfaces` (real, ntc-templates): 392 total input
// drops of 478575583 packets on FortyGigE0/0/0/0 are the port's ingress
// drops (warn); TenGigE0/3/0/0's 5 of 74732197285 a handful (info).
func TestIOSXRShowInterfacesDrops(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/iosxr-show-interfaces-fortygige-392-total-input-drops-ntctemplates.txt")
	f := nicMustFind(t, fs, "switch.queue.drops", Warn, "FortyGigE0/0/0/0: 392 packets dropped at ingress (total input drops; packets input 478575583)")
	if len(f.Evidence) == 0 || f.Evidence[0].Line != 131 {
		t.Errorf("evidence %+v, want the packets input line, 131", f.Evidence)
	}
	nicMustFind(t, fs, "switch.queue.drops", Info, "TenGigE0/3/0/0: 5 packets dropped at ingress")
}

// otherOSCommands are commands of SONiC, EOS and NX-OS that no finding on
// an IOS XR or Comware switch may send its reader to.
var otherOSCommands = []string{"show pfcwd", "sonic-clear", "show pfc counters", "show queue counters", "show interfaces counters", "show lldp table", "show dropcounters", "mmuconfig", "EOS", "NX-OS", "show queuing", "TX_DRP", "RX_DRP", "FEC_UNCORR"}

// mustNameOnly checks that each finding's text names the platform's
// commands (want, one of them at least) and none of another OS's.
func mustNameOnly(t *testing.T, fs []Finding, want ...string) {
	t.Helper()
	if len(fs) == 0 {
		t.Fatal("no findings")
	}
	for _, f := range fs {
		text := f.Title + " " + f.Mechanism + " " + f.Fix
		for _, c := range otherOSCommands {
			if strings.Contains(text, c) {
				t.Errorf("%s %q names %q, another OS's", f.ID, f.Title, c)
			}
		}
		named := false
		for _, w := range want {
			named = named || strings.Contains(f.Fix, w)
		}
		if !named {
			t.Errorf("%s %q: fix %q names none of %q", f.ID, f.Title, f.Fix, want)
		}
	}
}

// SYNTHETIC IOS XR controllers block and real IOS XR `show interfaces`:
// every finding's fix names IOS XR's commands (show controllers ...
// priority-flow-control, clear interface, the watchdog's configuration),
// never SONiC's, EOS's or NX-OS's. IOS XR clears an interface's counters
// with `clear interface type interface-path-id` (Interface and Hardware
// Component Command Reference, Global Interface Commands: NCS 6000,
// https://www.cisco.com/c/en/us/td/docs/routers/ncs6000/software/interfaces/command/reference/b_interfaces_cr50ncs_chapter_011.html,
// and CRS 4.2); `clear counters interface`, which the fixes printed
// before, is NX-OS's form and in no IOS XR reference.
func TestIOSXRFixesNameIOSXRCommands(t *testing.T) {
	rep := diagnoseText(t, strings.Join(xrStorm, "\n")+"\n")
	mustNameOnly(t, rep.Findings, "priority-flow-control", "`clear interface ")
	fs := diagnoseFiles(t, Options{}, "corpus/switch/iosxr-show-interfaces-fortygige-392-total-input-drops-ntctemplates.txt")
	mustNameOnly(t, fs, "`clear interface ", "show drops all")
	for _, f := range append(rep.Findings, fs...) {
		if strings.Contains(f.Fix, "clear counters") {
			t.Errorf("%s: fix %q names NX-OS's clear counters", f.ID, f.Fix)
		}
	}
}

// A watchdog storm's detection time and its command's contents come from
// the platform the row is marked with: the SYNTHETIC xrStorm rows remarked
// Comware (or Huawei VRP) name that OS's deadlock interval, never IOS XR's
// poll interval.
func TestWatchdogTextPerPlatform(t *testing.T) {
	res, err := ingest.Read("synthetic-xr-storm", strings.NewReader(strings.Join(xrStorm, "\n")+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	platforms := []ingest.Platform{ingest.IOSXR, ingest.Comware, ingest.HuaweiVRP}
	for _, plat := range platforms {
		for _, s := range All[*ingest.SwitchCounters](&Incident{Artifacts: res.Artifacts}) {
			for i := range s.WD {
				s.WD[i].Platform = plat
			}
		}
		fs := checkWatchdog(&Incident{Artifacts: res.Artifacts})
		if len(fs) != 1 {
			t.Fatalf("%s: findings %+v", plat, fs)
		}
		c, _ := platformOf(plat)
		text := fs[0].Mechanism + " " + fs[0].Fix
		if !strings.Contains(fs[0].Mechanism, string(plat)+": "+c.wdDetect) || !strings.Contains(fs[0].Fix, c.wdShows) {
			t.Errorf("%s: text %q does not give the platform's detection time and watchdog output", plat, text)
		}
		for _, other := range platforms {
			if other != plat && strings.Contains(text, string(other)) {
				t.Errorf("%s: text %q names %s", plat, text, other)
			}
		}
	}
}

// The rule texts name the switch OSes their findings judge: every finding
// raised by an IOS XR, Comware or Huawei VRP reader's record has a rule
// whose text names that OS (SYNTHETIC xrStorm and vrpFaulty; real IOS XR
// `show interfaces`).
func TestRuleTextsNamePlatforms(t *testing.T) {
	comware := strings.Join([]string{
		"HundredGigE1/0/1", "Current state: UP",
		" Input (total):  100000000 packets, 90000000000 bytes",
		" Input:  1200 input errors, 0 runts, 0 giants, - throttles",
		"         1200 CRC, - frame, 0 overruns, - aborts",
		" Output (total): 200000000 packets, 180000000000 bytes",
		"         199000000 unicasts, 0 broadcasts, 0 multicasts, 90000 pauses",
		" Output: 200000000 packets, 180000000000 bytes, 30000 drops",
	}, "\n") + "\n"
	for _, c := range []struct {
		os string
		fs []Finding
	}{
		{"IOS XR", diagnoseText(t, strings.Join(xrStorm, "\n")+"\n").Findings},
		{"IOS XR", diagnoseFiles(t, Options{}, "corpus/switch/iosxr-show-interfaces-fortygige-392-total-input-drops-ntctemplates.txt")},
		{"Comware", diagnoseText(t, comware).Findings},
		{"Huawei VRP", diagnoseText(t, strings.Join(vrpFaulty, "\n")+"\n").Findings},
	} {
		for _, f := range c.fs {
			if !strings.HasPrefix(f.ID, "switch.") {
				continue
			}
			if s, ok := SpecOf(f.ID); !ok || !strings.Contains(s.Text, c.os) {
				t.Errorf("%s finding %s: its rule's text does not name %s", c.os, f.ID, c.os)
			}
		}
	}
}
