package ingest

import (
	"slices"
	"strings"
	"testing"

	"rocelab/internal/counters"
)

// `ethtool --json -I --show-fec` is read into the same FEC setting as the
// text the same mail prints before it: configured and active encodings,
// the block counts and the uncorrectable blocks' lanes, with the JSON
// keys' lines as evidence. Before, the JSON was no artifact.
func TestEthtoolJSONShowFEC(t *testing.T) {
	e := nicArtifact[*EthtoolStats](t, nicReadCorpus(t, "ethtool/ethtool-json-show-fec-i-lanes-uncorrectable-145-netdev.txt"))
	if len(e.FEC) != 2 {
		t.Fatalf("FEC %+v", e.FEC)
	}
	text, js := e.FEC[0], e.FEC[1]
	for _, f := range []FECSetting{text, js} {
		if f.Device != "eth0" || f.Active != "None" || !slices.Equal(f.Configured, []string{"None"}) || !f.HasStats ||
			f.Corrected != 256 || f.Uncorrectable != 145 || !slices.Equal(f.UncorrectableLanes, []uint64{128, 17}) {
			t.Errorf("%+v", f)
		}
	}
	if ev := js.Evidence["uncorrectable"]; ev.Line != 24 || strings.TrimSpace(ev.Text) != `"uncorrectable_blocks": {` {
		t.Errorf("uncorrectable evidence %+v", ev)
	}
	if ev := js.Evidence["active"]; ev.Line != 18 {
		t.Errorf("active evidence %+v", ev)
	}
}

// `ethtool --json -S IF --groups ...` (here through jq) is read as a dump
// of IF named as the text output names the counters; rmon's histogram is
// no counter.
func TestEthtoolJSONStandardStats(t *testing.T) {
	e := nicArtifact[*EthtoolStats](t, nicReadCorpus(t, "ethtool/ethtool-json-s-groups-eth-phy-eth-mac-rmon-jq-netdev.txt"))
	if len(e.Samples) != 1 || e.Samples[0].Device != "eth0" {
		t.Fatalf("samples %+v", e.Samples)
	}
	s := e.Samples[0]
	var names []string
	for _, c := range s.After.Counters {
		names = append(names, c.Name)
	}
	want := []string{"eth-phy-SymbolErrorDuringCarrier", "eth-mac-FramesTransmittedOK", "eth-mac-FrameTooLongErrors", "rmon-etherStatsUndersizePkts", "rmon-etherStatsJabbers"}
	if !slices.Equal(names, want) {
		t.Errorf("counters %v", names)
	}
	if r, ok := s.Concept(counters.PhySymbolErrors, counters.RX, 0); !ok || r.Value != 1 || r.Evidence[0].Line != 8 {
		t.Errorf("symbol errors %+v %v", r, ok)
	}
}

// A JSON array that is not ethtool's (no ifname), or one cut before its
// brackets close, is no artifact (synthetic inputs).
func TestEthtoolJSONNotEthtool(t *testing.T) {
	nicNoArtifact[*EthtoolStats](t, nicReadText(t, "synthetic-json", "[ {\n  \"name\": \"x\", \"config\": [ \"RS\" ]\n} ]\n"))
	nicNoArtifact[*EthtoolStats](t, nicReadText(t, "synthetic-json-cut", "[ {\n        \"ifname\": \"eth0\",\n        \"active\": [ \"RS\" ],\n"))
}
