package doctor

import (
	"strings"
	"testing"
)

// `ethtool -I --show-fec`: uncorrectable blocks are frames lost as FCS
// errors, named with the lane that holds most of them; corrected blocks
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
	f := nicMustFind(t, fs, "counters.phy.fec_uncorrectable", Warn, "eth2: 4521 FEC blocks uncorrectable beside 81234567 corrected", "lane 1 holds 97%")
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

// A link without FEC: a warning at 50 Gb/s and up, where 802.3 requires
// RS-FEC, info at 25 Gb/s or at a speed no input gives, nothing at 10.
func TestFECOff(t *testing.T) {
	off := []string{"# ethtool --show-fec eth2", "FEC parameters for eth2:", "Supported/Configured FEC encodings: Off", "Active FEC encoding: Off"}
	speed := func(s string) []string {
		return append([]string{"Settings for eth2:", "\tSpeed: " + s}, off...)
	}
	nicMustFind(t, synthFindings(t, Options{}, speed("100000Mb/s")...), "counters.phy.fec_off", Warn, "eth2: the link runs without FEC", "at 100Gbps")
	nicMustFind(t, synthFindings(t, Options{}, speed("25000Mb/s")...), "counters.phy.fec_off", Info, "at 25Gbps")
	nicMustFind(t, synthFindings(t, Options{}, off...), "counters.phy.fec_off", Info, "Active FEC encoding: Off)")
	if got := nicFind(synthFindings(t, Options{}, speed("10000Mb/s")...), "counters.phy.fec_off"); len(got) != 0 {
		t.Errorf("a 10G link without FEC: %+v", got)
	}
}

// The real pastes of healthy links (fbnic, ice) give no FEC finding.
func TestFECCorpusHealthy(t *testing.T) {
	for _, rel := range []string{
		"corpus/ethtool/ethtool-show-fec-i-fbnic-rs-zero-blocks-and-eth-phy-group-netdev.txt",
		"corpus/ethtool/ethtool-show-fec-i-ice-rs-zero-blocks-ragged-indent-netdev.txt",
	} {
		for _, f := range diagnoseFiles(t, Options{}, rel) {
			if strings.HasPrefix(f.ID, "counters.phy.fec") || f.ID == "input.unrecognized" {
				t.Errorf("%s: %s %s", rel, f.ID, f.Title)
			}
		}
	}
}
