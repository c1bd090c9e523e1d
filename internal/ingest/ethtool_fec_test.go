package ingest

import (
	"slices"
	"strings"
	"testing"
)

// `ethtool --show-fec` is read per interface: the encodings configured
// and active, and with -I the blocks FEC corrected and could not, with
// the uncorrectable blocks' per-lane counts; a prompt line ends the
// section and a second section opens the next interface's entry.
func TestEthtoolShowFEC(t *testing.T) {
	e := nicArtifact[*EthtoolStats](t, nicReadText(t, "fec", strings.Join([]string{"# ethtool -I --show-fec eth2",
		"FEC parameters for eth2:",
		"Supported/Configured FEC encodings: Auto RS",
		"Active FEC encoding: RS",
		"Statistics:",
		"  corrected_blocks: 81234567",
		"    Lane 0: 20112233",
		"    Lane 1: 20312233",
		"  uncorrectable_blocks: 4521",
		"    Lane 0: 4400",
		"    Lane 1: 121",
		"mprg@spark-fb97:~$ sudo ethtool --show-fec enp1s0f1np1",
		"FEC parameters for enp1s0f1np1:",
		"Configured FEC encodings: Off",
		"Active FEC encoding: None",
		"mprg@spark-fb97:~$ "}, "\n")+"\n"))
	if len(e.FEC) != 2 {
		t.Fatalf("FEC settings %+v", e.FEC)
	}
	f := e.FEC[0]
	if f.Device != "eth2" || f.Active != "RS" || !slices.Equal(f.Configured, []string{"Auto", "RS"}) || !f.HasStats ||
		f.Corrected != 81234567 || f.Uncorrectable != 4521 || !slices.Equal(f.UncorrectableLanes, []uint64{4400, 121}) {
		t.Errorf("eth2 %+v", f)
	}
	if f.Evidence["uncorrectable"].Line != 9 {
		t.Errorf("uncorrectable_blocks evidence %+v", f.Evidence["uncorrectable"])
	}
	g := e.FEC[1]
	if g.Device != "enp1s0f1np1" || g.Active != "None" || !slices.Equal(g.Configured, []string{"Off"}) || g.HasStats {
		t.Errorf("enp1s0f1np1 %+v", g)
	}
}

// The real pastes: fbnic's with the eth-phy group after it, and ice's
// cover letter's, whose lines are each indented differently.
func TestEthtoolShowFECCorpus(t *testing.T) {
	for _, c := range []struct {
		file, dev string
		conf      []string
	}{
		{"ethtool/ethtool-show-fec-i-fbnic-rs-zero-blocks-and-eth-phy-group-netdev.txt", "eth0", []string{"RS"}},
		{"ethtool/ethtool-show-fec-i-ice-rs-zero-blocks-ragged-indent-netdev.txt", "eth0", []string{"Auto", "RS", "BaseR"}},
	} {
		e := nicArtifact[*EthtoolStats](t, nicReadCorpus(t, c.file))
		if len(e.FEC) != 1 {
			t.Fatalf("%s: %+v", c.file, e.FEC)
		}
		f := e.FEC[0]
		if f.Device != c.dev || f.Active != "RS" || !slices.Equal(f.Configured, c.conf) || !f.HasStats || f.Corrected != 0 || f.Uncorrectable != 0 {
			t.Errorf("%s: %+v", c.file, f)
		}
	}
}

// A section header ends the lane run of the section before it: Lane lines
// of the next interface that follow no uncorrectable_blocks line are not
// taken for its per-lane counts.
func TestEthtoolShowFECLanesEndAtHeader(t *testing.T) {
	e := nicArtifact[*EthtoolStats](t, nicReadText(t, "fec", strings.Join([]string{"# ethtool -I --show-fec eth2",
		"FEC parameters for eth2:",
		"Active FEC encoding: RS",
		"Statistics:",
		"  uncorrectable_blocks: 9",
		"    Lane 0: 9",
		"FEC parameters for eth3:",
		"Active FEC encoding: RS",
		"Statistics:",
		"    Lane 0: 7",
		"    Lane 1: 0"}, "\n")+"\n"))
	if len(e.FEC) != 2 {
		t.Fatalf("FEC settings %+v", e.FEC)
	}
	if !slices.Equal(e.FEC[0].UncorrectableLanes, []uint64{9}) {
		t.Errorf("eth2 lanes %v", e.FEC[0].UncorrectableLanes)
	}
	if g := e.FEC[1]; g.Device != "eth3" || len(g.UncorrectableLanes) != 0 {
		t.Errorf("eth3 %+v", g)
	}
}
