package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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

// Two real SONiC outputs of two different switches, each at the factory
// prompt `root@sonic` / `admin@sonic`: the HLD's QSFP56-DD in Ethernet0
// with two dark lanes, and sonic-utilities#2027's fec-stats whose
// Ethernet0 counts 34 uncorrectable codewords. Before, "sonic" was taken
// for one switch and the codewords became "the errors this receiver
// causes", the port's own finding dropped; a factory hostname names no
// device, so the join is said to be by port name and the port keeps its
// finding.
func TestOpticsJoinFactoryHostnameIsNoDevice(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/sonic-show-int-transceiver-eeprom-dom-qsfp56dd-400g-dr4-rx3-4-minus-40dbm-hld.txt", "corpus/switch/sonic-fec-stats-uncorr-34-sonicutilities2027.txt")
	f := nicMustFind(t, fs, "optics.rx.dark", Error, "Ethernet0 counts 34 FEC codewords it could not correct in ", "which may be another device's port of that name")
	if strings.Contains(f.Title, "the errors this receiver causes") {
		t.Errorf("title %s", f.Title)
	}
	nicMustFind(t, fs, "switch.link.errors", Warn, "Ethernet0: RS-FEC met 34 codewords it could not correct")
}

// A weak receiver's finding carries its port's symbol errors as it does
// its FCS errors: the marginal SFP-10G-SR on enp134s0f0 (real) and that
// port's eth-phy-SymbolErrorDuringCarrier (SYNTHETIC) in one input give
// one optics finding naming them, no counters.phy.symbol_errors.
func TestOpticsJoinHostSymbolErrors(t *testing.T) {
	module, err := os.ReadFile(nicTestdata("corpus/ethtool/ethtool-m-sfp-10g-sr-rx-13.57dbm-near-low-warning-supingisme.txt"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "one.txt")
	std := "$ ethtool -S enp134s0f0 --groups eth-phy\nStandard stats for enp134s0f0:\neth-phy-SymbolErrorDuringCarrier: 4096\n"
	if err := os.WriteFile(p, append(module, std...), 0o644); err != nil {
		t.Fatal(err)
	}
	fs := Diagnose([]string{p}, nil, Options{}).Findings
	f := nicMustFind(t, fs, "optics.rx.power", Warn, "enp134s0f0 counts 4096 symbol errors during carrier (eth-phy-SymbolErrorDuringCarrier)")
	if last := f.Evidence[len(f.Evidence)-1]; !strings.Contains(last.Text, "eth-phy-SymbolErrorDuringCarrier") {
		t.Errorf("evidence %+v", f.Evidence)
	}
	nicMustNot(t, fs, "counters.phy.symbol_errors")
}
