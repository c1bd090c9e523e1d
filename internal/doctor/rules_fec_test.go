package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/unit"
)

// One `ethtool -I --show-fec` reading: uncorrectable blocks since link-up
// are frames lost as FCS errors, named with the lane that holds most of them; corrected blocks
// alone are FEC doing its job and give no finding.
func TestFECUncorrectable(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# ethtool -I --show-fec eth2",
		"FEC parameters for eth2:",
		"Supported/Configured FEC encodings: Auto RS",
		"Active FEC encoding: RS",
		"Statistics:",
		"  corrected_blocks: 81234567",
		"  uncorrectable_blocks: 4521",
		"    Lane 0: 121",
		"    Lane 1: 4400",
		"# ethtool -I --show-fec eth3",
		"FEC parameters for eth3:",
		"Active FEC encoding: RS",
		"Statistics:",
		"  corrected_blocks: 912345",
		"  uncorrectable_blocks: 0")
	f := nicMustFind(t, fs, "counters.phy.fec_uncorrectable", Warn, "eth2: 4521 FEC blocks uncorrectable beside 81234567 corrected since link-up", "lane 1 holds 97%")
	if len(f.Evidence) != 3 || f.Evidence[2].Line != 7 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	if !strings.Contains(f.Fix, "ethtool -m eth2") {
		t.Errorf("fix %s", f.Fix)
	}
	if got := nicFind(fs, "counters.phy.fec_uncorrectable", "eth3"); len(got) != 0 {
		t.Errorf("corrected blocks alone: %+v", got)
	}
}

// A link without FEC: a warning at 200 Gb/s and up, where every lane is
// PAM4 and needs RS-FEC; info at 50 and 100 Gb/s (four 25 Gb/s NRZ lanes
// of an LR4 optic run without), at 25 Gb/s and at a speed no input gives
// for that interface; nothing at 10.
func TestFECOff(t *testing.T) {
	off := []string{"# ethtool --show-fec eth2", "FEC parameters for eth2:", "Supported/Configured FEC encodings: Off", "Active FEC encoding: Off"}
	speedOf := func(dev, s string) []string {
		return append([]string{"Settings for " + dev + ":", "\tSpeed: " + s}, off...)
	}
	speed := func(s string) []string { return speedOf("eth2", s) }
	nicMustFind(t, synthFindings(t, Options{}, speed("400000Mb/s")...), "counters.phy.fec_off", Warn, "eth2: the link runs without FEC", "at 400Gbps")
	nicMustFind(t, synthFindings(t, Options{}, speed("100000Mb/s")...), "counters.phy.fec_off", Info, "at 100Gbps", "unless its lanes are 25 Gb/s NRZ")
	nicMustFind(t, synthFindings(t, Options{}, speed("25000Mb/s")...), "counters.phy.fec_off", Info, "at 25Gbps")
	nicMustFind(t, synthFindings(t, Options{}, off...), "counters.phy.fec_off", Info, "Active FEC encoding: Off)")
	if got := nicFind(synthFindings(t, Options{}, speed("10000Mb/s")...), "counters.phy.fec_off"); len(got) != 0 {
		t.Errorf("a 10G link without FEC: %+v", got)
	}
	// Another interface's speed says nothing of eth2's: its rate is unknown.
	f := nicMustFind(t, synthFindings(t, Options{}, speedOf("eth0", "1000Mb/s")...), "counters.phy.fec_off", Info, "eth2: the link runs without FEC (Active FEC encoding: Off)")
	if strings.Contains(f.Title, "Gbps") || strings.Contains(f.Title, "Mbps") {
		t.Errorf("eth0's speed judged eth2: %s", f.Title)
	}
	nicMustFind(t, synthFindings(t, Options{NICSpeed: 400 * unit.Gbps}, off...), "counters.phy.fec_off", Warn, "at 400Gbps")
}

// Two readings of one port are judged together: uncorrectable blocks that
// did not grow between them are one info of the count since the driver
// started counting (none when it is 0), and growth one warn.
func TestFECReadingsPaired(t *testing.T) {
	dump := func(corr, unc string) []string {
		return []string{"# ethtool -I --show-fec eth2", "FEC parameters for eth2:", "Active FEC encoding: RS", "Statistics:",
			"  corrected_blocks: " + corr, "  uncorrectable_blocks: " + unc}
	}
	same := append(dump("81234567", "4521"), dump("81234567", "4521")...)
	if got := nicFind(synthFindings(t, Options{}, same...), "counters.phy.fec_uncorrectable"); len(got) != 1 || got[0].Severity != Info ||
		got[0].Title != "eth2: 4521 FEC blocks uncorrectable since the driver started counting; none between the 2 readings (RS FEC)" {
		t.Errorf("nothing moved between the readings, want one info of the 4521: %+v", got)
	}
	if got := nicFind(synthFindings(t, Options{}, append(dump("5", "0"), dump("9", "0")...)...), "counters.phy.fec_uncorrectable"); len(got) != 0 {
		t.Errorf("no uncorrectable blocks at all: %+v", got)
	}
	grew := append(dump("81234567", "4521"), dump("81299999", "4600")...)
	fs := nicFind(synthFindings(t, Options{}, grew...), "counters.phy.fec_uncorrectable")
	if len(fs) != 1 {
		t.Fatalf("one finding per port: %+v", fs)
	}
	f := fs[0]
	if f.Severity != Warn || !strings.Contains(f.Title, "eth2: 79 FEC blocks uncorrectable between 2 readings beside 65432 corrected") {
		t.Errorf("%s %s", f.Severity, f.Title)
	}
	if len(f.Evidence) != 4 || f.Evidence[0].Line != 6 || f.Evidence[3].Line != 12 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	// A count that fell was reset between the readings: it counts afresh.
	reset := append(dump("81234567", "4521"), dump("1200", "10")...)
	nicMustFind(t, synthFindings(t, Options{}, reset...), "counters.phy.fec_uncorrectable", Warn, "eth2: 10 FEC blocks uncorrectable between 2 readings beside 1200 corrected")
	offTwice := []string{"# ethtool --show-fec eth2", "FEC parameters for eth2:", "Active FEC encoding: Off",
		"# ethtool --show-fec eth2", "FEC parameters for eth2:", "Active FEC encoding: Off"}
	if got := nicFind(synthFindings(t, Options{}, offTwice...), "counters.phy.fec_off"); len(got) != 1 {
		t.Errorf("one fec_off per port: %+v", got)
	}
}

// The real pastes of healthy links (fbnic, ice) give no FEC finding.
func TestFECCorpusHealthy(t *testing.T) {
	wantReadNoFinding(t, "counters.phy.fec",
		"corpus/ethtool/ethtool-show-fec-i-fbnic-rs-zero-blocks-and-eth-phy-group-netdev.txt",
		"corpus/ethtool/ethtool-show-fec-i-ice-rs-zero-blocks-ragged-indent-netdev.txt")
}

// wantReadNoFinding diagnoses each input alone and fails on any finding
// whose rule id starts with prefix, or on the input not being recognised:
// healthy real pastes, read and judged clean.
func wantReadNoFinding(t *testing.T, prefix string, rels ...string) {
	t.Helper()
	for _, rel := range rels {
		for _, f := range diagnoseFiles(t, Options{}, rel) {
			if strings.HasPrefix(f.ID, prefix) || f.ID == "input.unrecognized" {
				t.Errorf("%s: %s %s", rel, f.ID, f.Title)
			}
		}
	}
}

// Readings of one interface in inputs that name no host may be two
// machines: each input's eth2 is judged on its own (SYNTHETIC: the same
// dump in two files gives a finding each; paired, nothing would have
// moved and neither would be reported).
func TestFECInputsOfUnknownHostsApart(t *testing.T) {
	dump := strings.Join([]string{"# ethtool -I --show-fec eth2", "FEC parameters for eth2:", "Active FEC encoding: RS", "Statistics:",
		"  corrected_blocks: 81234567", "  uncorrectable_blocks: 4521"}, "\n") + "\n"
	dir := t.TempDir()
	var paths []string
	for _, name := range []string{"a.txt", "b.txt"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(dump), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	got := nicFind(diagnose(t, Options{}, paths...).Findings, "counters.phy.fec_uncorrectable", "eth2: 4521 FEC blocks uncorrectable")
	if len(got) != 2 {
		t.Errorf("%d findings of eth2's 4521 blocks, want one per input: %+v", len(got), got)
	}
}

// One pdsh paste of two hosts is one input naming no host, but each line
// names its host: node01's eth2 and node02's eth2 are two ports, each
// judged on its own reading (SYNTHETIC; paired as one, they would report
// the 79 blocks between them).
func TestFECHostsOfOnePdshPasteApart(t *testing.T) {
	var lines []string
	lines = append(lines, "$ pdsh -w node0[1-2] ethtool -I --show-fec eth2")
	for _, h := range []struct{ host, unc string }{{"node01", "4521"}, {"node02", "4600"}} {
		for _, l := range []string{"FEC parameters for eth2:", "Active FEC encoding: RS", "Statistics:",
			"  corrected_blocks: 81234567", "  uncorrectable_blocks: " + h.unc} {
			lines = append(lines, h.host+": "+l)
		}
	}
	fs := synthFindings(t, Options{}, lines...)
	nicMustFind(t, fs, "counters.phy.fec_uncorrectable", Warn, "node01 eth2: 4521 FEC blocks uncorrectable", "since link-up")
	nicMustFind(t, fs, "counters.phy.fec_uncorrectable", Warn, "node02 eth2: 4600 FEC blocks uncorrectable", "since link-up")
	if got := nicFind(fs, "counters.phy.fec_uncorrectable", "between"); len(got) != 0 {
		t.Errorf("two hosts' ports paired: %+v", got)
	}
}
