package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// Artifacts of the twenty-second sweep: the transceiver tables of Arista
// EOS and Cisco IOS-XE (`show interfaces transceiver [detail]`), before
// "in no format rocelab recognises", and a module's weak receiver joined
// with the errors its port counts.

// EOS's summary (ntc-templates): Et4/21/1 biased 0.00 mA receives -30.00
// dBm, the floor EOS prints for no light: the port is dark, not a
// healthy module. The lit modules print no threshold, and their verdict
// says so rather than claiming the module's own.
func TestEOSTransceiverSummaryDark(t *testing.T) {
	rep := Diagnose([]string{nicTestdata("corpus/switch/eos-show-interfaces-transceiver-et4-21-dark-30dbm-ntctemplates.txt")}, nil, Options{})
	if len(rep.Inputs) != 1 || rep.Inputs[0].Type != "transceiver" {
		t.Fatalf("inputs %+v", rep.Inputs)
	}
	fs := rep.Findings
	f := nicMustFind(t, fs, "optics.dark", Warn, "Et4/21: the module sends and receives no light on its one lane")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 16 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	nicMustFind(t, fs, "optics.ok", Info, "Et3/17: the module healthy on lanes 1-3, weakest receive -0.72 dBm (over -10 dBm; the module's thresholds are not in the paste), 35.61 C")
	if len(fs) != 3 {
		t.Errorf("want three findings:\n%s", nicTitles(fs))
	}
}

// The detail tables with the module's thresholds: EOS's (ntc-templates),
// Et6's four lanes 9.5 dB over the -10.50 dBm low warning; IOS-XE's,
// which print Low Warn before Low Alarm: Gi0/0/0's -7.9 dBm is 11.1 dB
// over its -19.0 dBm low warning (read in EOS's order it would be 15.1
// dB over a -23.0 "warning"). IOS-XE's admin-down ports read nothing.
func TestTransceiverDetailTables(t *testing.T) {
	for _, c := range []struct {
		file  string
		n     int
		wants []string
	}{
		{"corpus/switch/eos-show-interfaces-transceiver-detail-thresholds-healthy-ntctemplates.txt", 3, []string{
			"Et6: the module healthy on lanes 1-4, weakest receive -1.00 dBm (9.5 dB over the low-warning threshold), 27.48 C",
			"Et7: the module healthy on lane 1, weakest receive -1.15 dBm (9.3 dB over the low-warning threshold)"}},
		{"corpus/switch/iosxe-show-interfaces-transceiver-detail-low-warn-before-low-alarm-routerlog.txt", 2, []string{
			"Gi0/0/0: the module healthy on lane 1, weakest receive -7.90 dBm (11.1 dB over the low-warning threshold), 43.80 C",
			"Gi0/1/0: the module healthy on lane 1, weakest receive -9.30 dBm (9.7 dB over the low-warning threshold)"}},
	} {
		fs := diagnoseFiles(t, Options{}, c.file)
		for _, w := range c.wants {
			nicMustFind(t, fs, "optics.ok", Info, w)
		}
		if len(fs) != c.n {
			t.Errorf("%s: want %d findings:\n%s", c.file, c.n, nicTitles(fs))
		}
	}
}

// A summary without thresholds: a lane under -10 dBm is weak, not
// healthy (SYNTHETIC row in EOS's summary layout).
func TestTransceiverNoThresholdsWeak(t *testing.T) {
	const in = `                               Bias      Optical   Optical
          Temp       Voltage   Current   Tx Power  Rx Power
Port      (Celsius)  (Volts)   (mA)      (dBm)     (dBm)     Last Update
-----     ---------  --------  --------  --------  --------  -------------------
Et1/1      35.61      3.21      36.64    1.51      -12.10    0:00:03 ago
`
	rep := Diagnose([]string{"-"}, strings.NewReader(in), Options{})
	f := nicMustFind(t, rep.Findings, "optics.rx.power", Warn, "Et1: the module, received power: lane 1 at -12.10 dBm, under -10 dBm")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 5 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	nicMustNot(t, rep.Findings, "optics.ok")
}

// The KLISH DOM of Ethernet80 (its receivers 12 dB under the low alarm)
// and that port's uncorrectable FEC codewords (synthetic counters) are
// one fault when one input holds both: the optics finding carries the FEC
// row as its effect, and the port is not reported again as a link of its
// own. Ethernet84, with no module read, still is. As two inputs that name
// no switch, they are joined by port name alone: every SONiC switch has
// an Ethernet80, so the join is said to be one and the port keeps its
// own finding.
func TestOpticsJoinLinkErrors(t *testing.T) {
	const dom, fec = "corpus/switch/sonic-klish-show-int-transceiver-dom-ethernet80-rx-under-alarm-hld.txt", "synthetic/sonic-fec-stats-ethernet80-uncorr-synthetic.txt"
	fs := Diagnose([]string{oneInput(t, dom, fec)}, nil, Options{}).Findings
	f := nicMustFind(t, fs, "optics.rx.power", Error, "lanes 2, 4 at -23.28 dBm, -22.84 dBm, under its low-alarm threshold -10.40 dBm; Ethernet80 counts 1234 FEC codewords it could not correct, the errors this receiver causes")
	if last := f.Evidence[len(f.Evidence)-1]; !strings.Contains(last.Text, "Ethernet80") {
		t.Errorf("evidence %+v", f.Evidence)
	}
	if links := linkErrorTitles(fs); len(links) != 1 || !strings.Contains(links[0], "Ethernet84") {
		t.Errorf("link errors %q", links)
	}

	fs = diagnoseFiles(t, Options{}, dom, fec)
	f = nicMustFind(t, fs, "optics.rx.power", Error, "; Ethernet80 counts 1234 FEC codewords it could not correct in ", "sonic-fec-stats-ethernet80-uncorr-synthetic.txt, which may be another device's port of that name")
	last := f.Evidence[len(f.Evidence)-1]
	if !strings.HasSuffix(last.File, "sonic-fec-stats-ethernet80-uncorr-synthetic.txt") || last.Line != 5 || !strings.Contains(f.Mechanism, "joined by port name alone") {
		t.Errorf("evidence %+v mechanism %s", f.Evidence, f.Mechanism)
	}
	if links := linkErrorTitles(fs); len(links) != 2 {
		t.Errorf("link errors %q", links)
	}
}

// linkErrorTitles are the titles of the switch.link.errors findings.
func linkErrorTitles(fs []Finding) []string {
	var links []string
	for _, g := range fs {
		if g.ID == "switch.link.errors" {
			links = append(links, g.Title)
		}
	}
	return links
}

// oneInput writes the testdata files rels one after the other into one
// input, as a paste of one device's outputs, and returns its path.
func oneInput(t *testing.T, rels ...string) string {
	t.Helper()
	var all []byte
	for _, r := range rels {
		b, err := os.ReadFile(nicTestdata(r))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	path := filepath.Join(t.TempDir(), "one-device.txt")
	if err := os.WriteFile(path, all, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// NX-OS's details (ntc-templates): three SFP-10G-SR ports whose lasers
// are off (a fraction of a milliampere, -14 to -16 dBm, flagged low
// alarms) and which receive nothing are dark both ways, one finding each,
// not a receiver fault "while the module transmits" beside a failing
// laser; the CFP LR4's two network lanes are healthy.
func TestNXOSTransceiverDetails(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/nxos-show-interface-transceiver-details-sfp-shut-dark-cfp-lr4-lanes-ntctemplates.txt")
	for _, port := range []string{"Ethernet3/1", "Ethernet3/2", "Ethernet3/3"} {
		nicMustFind(t, fs, "optics.dark", Warn, port+": FTLX8571D3BCL-C2 (10Gbase-SR) sends and receives no light on its one lane")
	}
	nicMustFind(t, fs, "optics.ok", Info, "Ethernet4/1: SCF1001L4CNC101 (CFP-100G-LR4) healthy on lanes 2-3, weakest receive -1.77 dBm (8.8 dB over the low-warning threshold), 40.44 C")
	if len(fs) != 4 {
		t.Errorf("want four findings:\n%s", nicTitles(fs))
	}
}

// The host side of the same join: a marginal SFP-10G-SR on enp134s0f0
// (real) and that port's bad-FCS frames (synthetic `ethtool -S`) in one
// input: one optics finding naming the FCS count as its effect, no
// counters.phy.fcs beside it. As two inputs naming no host, the join is
// said to be by port name and the FCS count keeps its own finding.
func TestOpticsJoinHostFCS(t *testing.T) {
	const sfp, crc = "corpus/ethtool/ethtool-m-sfp-10g-sr-rx-13.57dbm-near-low-warning-supingisme.txt", "synthetic/ethtool-s-enp134s0f0-crc-synthetic.txt"
	fs := Diagnose([]string{oneInput(t, sfp, crc)}, nil, Options{}).Findings
	f := nicMustFind(t, fs, "optics.rx.power", Warn, "less than 1 dB over its low-warning threshold -14.00 dBm; enp134s0f0 counts 48213 frames with a bad FCS (rx_crc_errors_phy), the errors this receiver causes")
	if last := f.Evidence[len(f.Evidence)-1]; !strings.Contains(last.Text, "rx_crc_errors_phy") {
		t.Errorf("evidence %+v", f.Evidence)
	}
	nicMustNot(t, fs, "counters.phy.fcs")
	fs = diagnoseFiles(t, Options{}, sfp, crc)
	nicMustFind(t, fs, "optics.rx.power", Warn, "enp134s0f0 counts 48213 frames with a bad FCS (rx_crc_errors_phy) in ", "which may be another device's port of that name")
	nicMustFind(t, fs, "counters.phy.fcs", Warn)

	// Counted during a test (a before/after pair, SYNTHETIC, after the
	// module in one input), 0.025% of the frames received: the error
	// counters.phy.fcs would have raised.
	pair := filepath.Join(t.TempDir(), "pair.txt")
	dump := "$ ethtool -S enp134s0f0\nNIC statistics:\n     rx_packets_phy: %d\n     rx_crc_errors_phy: %d\n"
	module, err := os.ReadFile(nicTestdata(sfp))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pair, fmt.Appendf(module, dump+dump, 1000000, 10, 2000000, 260), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := Diagnose([]string{pair}, nil, Options{})
	nicMustFind(t, rep.Findings, "optics.rx.power", Error, "enp134s0f0 counts 250 frames with a bad FCS (rx_crc_errors_phy), the errors this receiver causes")
	nicMustNot(t, rep.Findings, "counters.phy.fcs")

	// The same pair in an input of its own, naming no host, is joined by
	// port name alone: it may be another host's enp134s0f0, so it keeps
	// its own error and the module's finding stays a warning.
	alone := filepath.Join(t.TempDir(), "alone.txt")
	if err := os.WriteFile(alone, fmt.Appendf(nil, dump+dump, 1000000, 10, 2000000, 260), 0o644); err != nil {
		t.Fatal(err)
	}
	rep = Diagnose([]string{nicTestdata(sfp), alone}, nil, Options{})
	nicMustFind(t, rep.Findings, "optics.rx.power", Warn, "which may be another device's port of that name")
	nicMustFind(t, rep.Findings, "counters.phy.fcs", Error)
}

// NX-OS `show interface counters errors` (genieparser's golden output):
// Eth1/1's 13450 Stomped-CRC frames were corrupted on another link and
// stomped by a cut-through switch upstream: the finding sends the
// engineer to the port upstream whose FCS-Err grows, not to this link's
// optic. Before, the file was in no format rocelab recognised.
func TestNXOSCountersErrorsStomped(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/nxos-show-interface-counters-errors-stomped-crc-13450-genieparser.txt")
	f := nicMustFind(t, fs, "switch.link.errors", Warn, "Eth1/1: 13450 frames arrived with a stomped CRC (Stomped-CRC): corrupted on a link upstream and forwarded cut-through")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 27 || !strings.Contains(f.Fix, "at the other end of Eth1/1") {
		t.Errorf("evidence %+v, fix %q", f.Evidence, f.Fix)
	}
	if len(fs) != 1 {
		t.Errorf("want the one finding:\n%s", nicTitles(fs))
	}
}

// A port is the module's whatever its switch calls it: EOS's Et and
// Ethernet, NX-OS's Eth and Ethernet, IOS's Gi and GigabitEthernet, EOS's
// lanes of a module; a different port, or a longer number, is not.
func TestOnModule(t *testing.T) {
	for _, c := range []struct {
		port, module string
		want         bool
	}{
		{"Ethernet3/17/1", "Et3/17", true},
		{"Eth1/39", "Ethernet1/39", true},
		{"Ethernet80", "Ethernet80", true},
		{"eth2", "eth2", true},
		{"Ethernet3/17", "Et3/1", false},
		{"Ethernet1/39", "Ethernet1/3", false},
		{"Ethernet3/17/x", "Et3/17", false},
		{"swp13", "swp1", false},
		{"GigabitEthernet0/0/0", "Gi0/0/0", true},
		{"TenGigabitEthernet1/1/1", "Te1/1/1", true},
		{"TwentyFiveGigE1/0/1", "Twe1/0/1", true},
		{"HundredGigE1/0/49", "Hu1/0/49", true},
		{"TenGigabitEthernet1/1/1", "Gi1/1/1", false},
		{"TwoGigabitEthernet1/0/1", "Twe1/0/1", false},
	} {
		if got := onModule(c.port, c.module); got != c.want {
			t.Errorf("onModule(%q, %q) = %v", c.port, c.module, got)
		}
	}
}

// A breakout's ports are joined to their own lanes only (SYNTHETIC rows
// in EOS's summary and counters-errors layouts): Et1/1's weak receiver
// carries Et1/1's bad-CRC frames, while Et1/2, on a lane receiving -1.10
// dBm, keeps its own link-errors finding rather than being charged to
// its neighbour's lane.
func TestOpticsJoinBreakoutLane(t *testing.T) {
	in := `                               Bias      Optical   Optical
          Temp       Voltage   Current   Tx Power  Rx Power
Port      (Celsius)  (Volts)   (mA)      (dBm)     (dBm)     Last Update
-----     ---------  --------  --------  --------  --------  -------------------
Et1/1      35.61      3.21      36.64    1.51      -12.10    0:00:03 ago
Et1/2      35.61      3.21      36.64    1.51      -1.10     0:00:03 ago
Et1/3      35.61      3.21      36.64    1.51      -1.10     0:00:03 ago
Et1/4      35.61      3.21      36.64    1.51      -1.10     0:00:03 ago

Port        FCS    Align   Symbol       Rx     Runts   Giants       Tx
Et1/1        90        0        0       90         0        0        0
Et1/2       170        0        3      200         0        0        0
Et1/3         0        0        0        0         0        0        0
Et1/4         0        0        0        0         0        0        0
`
	rep := Diagnose([]string{"-"}, strings.NewReader(in), Options{})
	f := nicMustFind(t, rep.Findings, "optics.rx.power", Warn, "lane 1 at -12.10 dBm")
	if !strings.Contains(f.Title, "Et1/1 counts 90 frames") || strings.Contains(f.Title, "Et1/2") {
		t.Errorf("optics finding %q: want Et1/1's errors only", f.Title)
	}
	var links []string
	for _, g := range rep.Findings {
		if g.ID == "switch.link.errors" {
			links = append(links, g.Title)
		}
	}
	if len(links) != 1 || !strings.HasPrefix(links[0], "Et1/2: 170 frames") {
		t.Errorf("link errors %q, want Et1/2's", links)
	}

	// The weak lane past the first: Et1/1 carries lane 1 alone, up to
	// Et1/2, so lane 2's weak receiver is not charged with its errors.
	in = strings.NewReplacer("1.51      -12.10", "1.51      -1.10", "Et1/2      35.61      3.21      36.64    1.51      -1.10",
		"Et1/2      35.61      3.21      36.64    1.51      -12.10").Replace(in)
	rep = Diagnose([]string{"-"}, strings.NewReader(in), Options{})
	f = nicMustFind(t, rep.Findings, "optics.rx.power", Warn, "lane 2 at -12.10 dBm")
	if !strings.Contains(f.Title, "Et1/2 counts 170 frames") || strings.Contains(f.Title, "Et1/1 ") {
		t.Errorf("optics finding %q: want Et1/2's errors only", f.Title)
	}
	links = links[:0]
	for _, g := range rep.Findings {
		if g.ID == "switch.link.errors" {
			links = append(links, g.Title)
		}
	}
	if len(links) != 1 || !strings.HasPrefix(links[0], "Et1/1: 90 frames") {
		t.Errorf("link errors %q, want Et1/1's", links)
	}
}

// A shut port's laser keeps a fraction of a milliampere and sends under
// the module's low-alarm threshold; with its receiver dark it is dark
// both ways even where the module prints thresholds but raises no flag
// (SYNTHETIC module, the values of NX-OS's shut SFP-10G-SR ports).
func TestLaserUnderLowAlarmDark(t *testing.T) {
	m := ingest.Module{Port: "Ethernet3/1", Lanes: []ingest.OpticLane{{Lane: 1, BiasMA: 0.5, TxMW: 0.03, RxMW: 0.0001,
		BiasEv: Evidence{File: "x", Line: 2, Text: "Current 0.50 mA"}, RxEv: Evidence{File: "x", Line: 4, Text: "Rx Power -40.00 dBm"}}}}
	m.Limits.TxLowAlarm.V = 0.1
	fs := judgeModule("Ethernet3/1", m)
	nicMustFind(t, fs, "optics.dark", Warn, "Ethernet3/1: the module sends and receives no light on its one lane")
	nicMustNot(t, fs, "optics.rx.dark")
}
