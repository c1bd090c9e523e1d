package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// HPE Aruba AOS-CX `show interface`, real outputs (testdata/corpus/switch,
// ntc-templates' test inputs): transmit drops are the port's egress drops,
// named by AOS-CX's own counter and fixed with its own commands; a LAG's
// drops, its members' sum, and a down port's are info; a healthy paste
// raises nothing; VLAN blocks alone are named as output diagnose does not
// judge.
func TestAOSCXShowInterfaceFindings(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/aoscx-show-interface-statistic-table-1-1-51-52-lag1-dropped-tx-ntctemplates.txt")
	f := nicMustFind(t, fs, "switch.queue.drops", Warn, "1/1/52: 13 packets dropped at egress (Dropped TX; Packets TX 180190047)")
	if !strings.Contains(f.Fix, "show interface 1/1/52 queues") || strings.Contains(f.Fix, "EOS") || !cites(f, "ntctemplates.txt", 127) {
		t.Errorf("fix %q evidence %+v", f.Fix, f.Evidence)
	}
	nicMustFind(t, fs, "switch.queue.drops", Info, "1/1/51: 4 packets dropped at egress") // a handful, of 401 M sent
	lag := nicMustFind(t, fs, "switch.queue.drops", Info, "lag1: 17 packets dropped at egress")
	if !strings.Contains(lag.Mechanism, "port channel") || !strings.Contains(lag.Mechanism, "its members are 1/1/51, 1/1/52") || !strings.Contains(lag.Mechanism, "show lacp aggregates lag1") || strings.Contains(lag.Mechanism, "show port-channel summary") ||
		!strings.Contains(lag.Fix, "`show lldp neighbor-info` of its members 1/1/51, 1/1/52") || strings.Contains(lag.Fix, "neighbor-info lag1") {
		t.Errorf("lag mechanism %q", lag.Mechanism)
	}
	if len(fs) != 3 {
		t.Errorf("want 3 findings, got:\n%s", nicTitles(fs))
	}
	old := diagnoseFiles(t, Options{}, "corpus/switch/aoscx-show-interface-rx-tx-sections-1-1-1-dropped-tx-14-ntctemplates.txt")
	nicMustFind(t, old, "switch.queue.drops", Warn, "1/1/1: 14 packets dropped at egress (Dropped TX; Packets TX 116722501)")
	nicMustFind(t, old, "switch.queue.drops", Info, "1/1/2: 14 packets dropped at egress")
	if fs := diagnoseFiles(t, Options{}, "corpus/switch/aoscx-show-interface-statistic-table-filtered-row-healthy-ntctemplates.txt"); len(fs) != 0 {
		t.Errorf("healthy: want no findings, got:\n%s", nicTitles(fs))
	}
	vlan := Diagnose([]string{nicTestdata("corpus/switch/aoscx-show-interface-vlan2-active-gateway-no-counters-ntctemplates.txt")}, nil, Options{}).Findings
	u := nicMustFind(t, vlan, "input.unrecognized", Info, "AOS-CX `show interface` of interfaces that print no counters")
	if !strings.Contains(u.Fix, "queues") {
		t.Errorf("fix %q", u.Fix)
	}
}

// SYNTHETIC, in the format of the real output: errors received with a
// CRC/FCS of 0 beside them are no bit errors (runts, giants); with CRC
// errors the fix is AOS-CX's, and Pause Frames received beside transmit
// drops are named in the drops' finding.
func TestAOSCXShowInterfaceErrors(t *testing.T) {
	block := func(port, errs, crc, pause, dropped string) []string {
		return []string{
			"Interface " + port + " is up",
			" Admin state is up",
			" Statistic                          RX                   TX                Total",
			" ---------------- -------------------- -------------------- --------------------",
			" Packets                    900000000            800000000           1700000000",
			" Dropped                            0 " + dropped,
			" Pause Frames                " + pause + "                    0                 5000",
			" Errors                    " + errs + "                    0                    0",
			"   CRC/FCS                 " + crc + "                  n/a                    0",
			"   Giants                        300                  n/a                  300",
			"",
		}
	}
	lines := append(block("1/1/1", "      500", "        0", "5000", "                  40                   40"),
		block("1/1/2", "      500", "      500", "   0", "                   0                    0")...)
	fs := synthFindings(t, Options{}, lines...)
	noCRC := nicMustFind(t, fs, "switch.link.errors", Warn, "1/1/1: 500 frames received with input errors, none with a bad CRC")
	if !strings.Contains(noCRC.Mechanism, "300 frames were longer than the port's MTU (Giants)") {
		t.Errorf("mechanism %q", noCRC.Mechanism)
	}
	crc := nicMustFind(t, fs, "switch.link.errors", Warn, "1/1/2: 500 frames received with a bad CRC")
	if !strings.Contains(crc.Fix, "clear interface 1/1/2 statistics") || !strings.Contains(crc.Fix, "transceiver") || strings.Contains(crc.Fix, "NX-OS") {
		t.Errorf("fix %q", crc.Fix)
	}
	drop := nicMustFind(t, fs, "switch.queue.drops", Warn, "1/1/1: 40 packets dropped at egress")
	if !strings.Contains(drop.Mechanism, "received 5000 pause frames") || !strings.Contains(drop.Fix, "`show lldp neighbor-info 1/1/1`") {
		t.Errorf("mechanism %q fix %q", drop.Mechanism, drop.Fix)
	}
	// Pause sent: AOS-CX's one count of PFC and 802.3x, told with its own
	// commands, not NX-OS's, EOS's or SONiC's.
	sent := append(block("1/1/3", "        0", "        0", "   0", "                   0                    0"), "")
	sent[6] = " Pause Frames                   0                 2000                 2000"
	fs = synthFindings(t, Options{}, sent...)
	p := nicMustFind(t, fs, "switch.pfc.tx_pause", Warn, "1/1/3: sent 2000 pause frames")
	if !strings.Contains(p.Mechanism, "show dcbx interface 1/1/3") || !strings.Contains(p.Mechanism, "flow-control priority N") || strings.Contains(p.Mechanism, "NX-OS") ||
		!strings.Contains(p.Fix, "show interface PORT queues") || strings.Contains(p.Fix, "show queue counters") {
		t.Errorf("pause %q fix %q", p.Mechanism, p.Fix)
	}
}

// FRR's zebra (`vtysh -c 'show interface'`, pasted from SONiC or Cumulus)
// prints "Interface swp3 is down" at the margin as AOS-CX does: with no
// line only AOS-CX prints, the file stays in no format rocelab
// recognises. SYNTHETIC, in the format of FRR's output.
func TestAOSCXNotFRR(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vtysh-show-interface.txt")
	frr := "Interface swp3 is down\n  Link ups:       0    last: (never)\n  Link downs:     0    last: (never)\n  vrf: default\n  index 5 metric 0 mtu 9216 speed 0\n  flags: <BROADCAST,MULTICAST>\n  Type: Ethernet\n  HWaddr: 44:38:39:00:00:03\n  Interface Type Other\n"
	if err := os.WriteFile(path, []byte(frr), 0o644); err != nil {
		t.Fatal(err)
	}
	fs := Diagnose([]string{path}, nil, Options{}).Findings
	nicMustFind(t, fs, "input.unrecognized", Warn, "is in no format rocelab recognises")
	if len(fs) != 1 {
		t.Errorf("want the one finding, got:\n%s", nicTitles(fs))
	}
}

// Drops are a handful under 10, or under 1e-8 of the packets beside them,
// as link errors are.
func TestFewDrops(t *testing.T) {
	for _, c := range []struct {
		n, ok int64
		few   bool
	}{{9, -1, true}, {9, 100, true}, {12, -1, false}, {12, 1_000_000, false}, {12, 2_000_000_000, true}} {
		if got := fewDrops(c.n, c.ok) != ""; got != c.few {
			t.Errorf("fewDrops(%d, %d): %v, want %v", c.n, c.ok, got, c.few)
		}
	}
}
