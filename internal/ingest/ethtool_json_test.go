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
// keys' lines as evidence (the uncorrectable count's line and text, the
// active encoding's line).
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

// A JSON array that is not ethtool's (no ifname), whole or cut, is no
// artifact (synthetic inputs).
func TestEthtoolJSONNotEthtool(t *testing.T) {
	nicNoArtifact[*EthtoolStats](t, nicReadText(t, "synthetic-json", "[ {\n  \"name\": \"x\", \"config\": [ \"RS\" ]\n} ]\n"))
	nicNoArtifact[*EthtoolStats](t, nicReadText(t, "synthetic-json-other-cut", "[ {\n  \"name\": \"x\",\n"))
}

// An ethtool array the input ends inside is reported as garbled at its
// "[", with what was expected there (synthetic input).
func TestEthtoolJSONCutAtEnd(t *testing.T) {
	e := nicArtifact[*EthtoolStats](t, nicReadText(t, "synthetic-json-cut", "[ {\n        \"ifname\": \"eth0\",\n        \"active\": [ \"RS\" ],\n"))
	if len(e.FEC) != 0 || len(e.Garbled) != 1 {
		t.Fatalf("FEC %+v garbled %+v", e.FEC, e.Garbled)
	}
	if msg := e.Garbled[0].Error("x"); !strings.HasPrefix(msg, "x:1:1: expected the array's closing ']' before the input ends") {
		t.Errorf("%s", msg)
	}
}

// A pasted array that never closes ends at the next shell command line:
// the `ethtool -S` dump after it is read, and the array is reported cut
// at its first line (synthetic input).
func TestEthtoolJSONCutBeforeCommand(t *testing.T) {
	in := "[root@cn3 ~]# ethtool --json --show-fec eth0\n" +
		"[ {\n" +
		"        \"ifname\": \"eth0\",\n" +
		"        \"active\": [ \"RS\" ],\n" +
		"[root@cn3 ~]# ethtool -S eth0\n" +
		"NIC statistics:\n" +
		"     rx_bytes: 5\n" +
		"     rx_crc_errors_phy: 7\n"
	e := nicArtifact[*EthtoolStats](t, nicReadText(t, "synthetic-json-cut-command", in))
	if len(e.Samples) != 1 || e.Samples[0].Device != "eth0" || e.Samples[0].After.Len() != 2 {
		t.Fatalf("samples %+v", e.Samples)
	}
	if len(e.Garbled) != 1 {
		t.Fatalf("garbled %+v", e.Garbled)
	}
	if msg := e.Garbled[0].Error("x"); !strings.HasPrefix(msg, "x:2:1: expected the array's closing ']' before the next command") {
		t.Errorf("%s", msg)
	}
}

// An ethtool array whose brackets close but which does not parse is
// reported at its "[" with the decoder's complaint (synthetic input).
func TestEthtoolJSONBroken(t *testing.T) {
	in := "$ ethtool --json --show-fec eth0\n" +
		"  [ {\n" +
		"        \"ifname\": \"eth0\",\n" +
		"        \"active\": [ \"RS\" ],\n" +
		"    } ]\n"
	e := nicArtifact[*EthtoolStats](t, nicReadText(t, "synthetic-json-broken", in))
	if len(e.FEC) != 0 || len(e.Garbled) != 1 {
		t.Fatalf("FEC %+v garbled %+v", e.FEC, e.Garbled)
	}
	if msg := e.Garbled[0].Error("x"); !strings.HasPrefix(msg, "x:2:3: expected an ethtool --json array (invalid character '}'") {
		t.Errorf("%s", msg)
	}
}

// Go's decoder matches keys case-insensitively and decodes escapes, so
// "IFNAME" and "if\u006eame" name the interface though no line holds the
// text "ifname"; the object is read with evidence from its own lines
// (synthetic inputs; these panicked).
func TestEthtoolJSONKeyNotAsWritten(t *testing.T) {
	for _, key := range []string{`"IFNAME"`, `"if\u006eame"`} {
		in := "[ {\n" +
			"        " + key + ": \"eth0\",\n" +
			"        \"config\": [ \"RS\" ],\n" +
			"        \"active\": [ \"RS\" ],\n" +
			"        \"eth-phy\": {\n" +
			"            \"SymbolErrorDuringCarrier\": 3\n" +
			"        }\n" +
			"    } ]\n"
		e := nicArtifact[*EthtoolStats](t, nicReadText(t, "synthetic-json-key", in))
		if len(e.FEC) != 1 || e.FEC[0].Device != "eth0" || e.FEC[0].Evidence["active"].Line != 4 {
			t.Errorf("%s: FEC %+v", key, e.FEC)
		}
		if len(e.Samples) != 1 || e.Samples[0].After.Counters[0].Evidence.Line != 6 {
			t.Errorf("%s: samples %+v", key, e.Samples)
		}
	}
}

// An object skipped for its interface name does not lend its lines to
// the next: eth1's evidence is eth1's own lines (synthetic input).
func TestEthtoolJSONSkippedObject(t *testing.T) {
	in := "[ {\n" +
		"        \"ifname\": \"not a name\",\n" +
		"        \"active\": [ \"Off\" ]\n" +
		"    },{\n" +
		"        \"ifname\": \"eth1\",\n" +
		"        \"active\": [ \"RS\" ]\n" +
		"    } ]\n"
	e := nicArtifact[*EthtoolStats](t, nicReadText(t, "synthetic-json-skipped", in))
	if len(e.FEC) != 1 || e.FEC[0].Device != "eth1" {
		t.Fatalf("FEC %+v", e.FEC)
	}
	if ev := e.FEC[0].Evidence["active"]; ev.Line != 6 {
		t.Errorf("active evidence %+v", ev)
	}
}

// `jq -S` sorts an object's keys, so "active" and "eth-mac" come before
// "ifname": evidence is searched from the object's opening brace
// (SYNTHETIC input shaped as `ethtool --json ... | jq -S` prints).
func TestEthtoolJSONSortedKeys(t *testing.T) {
	in := "$ ethtool --json -S eth0 --groups eth-mac | jq -S\n" +
		"[\n" +
		"  {\n" +
		"    \"eth-mac\": {\n" +
		"      \"FrameCheckSequenceErrors\": 12,\n" +
		"      \"FramesReceivedOK\": 900\n" +
		"    },\n" +
		"    \"ifname\": \"eth0\"\n" +
		"  },\n" +
		"  {\n" +
		"    \"active\": [\n" +
		"      \"RS\"\n" +
		"    ],\n" +
		"    \"config\": [\n" +
		"      \"Auto\"\n" +
		"    ],\n" +
		"    \"ifname\": \"eth1\"\n" +
		"  }\n" +
		"]\n"
	e := nicArtifact[*EthtoolStats](t, nicReadText(t, "synthetic-json-jq-sorted", in))
	if len(e.Samples) != 1 || e.Samples[0].Device != "eth0" {
		t.Fatalf("samples %+v", e.Samples)
	}
	var lines []int
	for _, c := range e.Samples[0].After.Counters {
		lines = append(lines, c.Evidence.Line)
	}
	if !slices.Equal(lines, []int{5, 6}) {
		t.Errorf("counter evidence lines %v", lines)
	}
	if len(e.FEC) != 1 || e.FEC[0].Device != "eth1" || e.FEC[0].Evidence["active"].Line != 11 || e.FEC[0].Evidence["configured"].Line != 14 {
		t.Errorf("FEC %+v", e.FEC)
	}
}
