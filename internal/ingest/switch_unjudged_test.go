package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SwitchUnjudged names the switch commands that print no counter the
// doctor judges, on real outputs of each (and nothing on one it reads).
func TestSwitchUnjudged(t *testing.T) {
	for file, want := range map[string]string{
		"nxos-show-interface-eth1-33-counters-octets-genieparser.txt":    "NX-OS `show interface counters`",
		"nxos-show-interface-subif-counters-inpkts-genieparser.txt":      "NX-OS `show interface counters`",
		"nxos-show-interface-counters-octets-2-genieparser.txt":          "NX-OS `show interface counters`",
		"nxos-show-interface-counters-table-rates-genieparser.txt":       "NX-OS `show interface counters table`",
		"nxos-show-interface-counters-brief-n9k-rates-zartbot.txt":       "NX-OS `show interface counters brief`",
		"junos-show-class-of-service-interface-ge-0-0-2-genieparser.txt": "Junos `show class-of-service interface`",
		"junos-show-class-of-service-interface-xe-0-1-7-genieparser.txt": "Junos `show class-of-service interface`",
		"junos-show-interfaces-not-extensive-ntctemplates.txt":           "Junos `show interfaces` without `extensive`",
		"junos-show-interfaces-xe-0-1-0-pcs-only-ntctemplates.txt":       "Junos `show interfaces` without `extensive`",
		"junos-show-interfaces-statistics-genieparser.txt":               "Junos `show interfaces` without `extensive`",
		"eos-show-interfaces-vlan-vxlan-no-counters-ntctemplates.txt":    "of ports that print no counters",
		"nxos-show-interface-mgmt0-cut-ntctemplates.txt":                 "of ports that print no counters",
		"eos-show-interfaces-counters-rates-nz-wrapped-eantc2025.txt":    "EOS `show interfaces counters rates`",
		"sonic-pg-drop-masic-asic1-all-na-sonic-utilities.txt":           "`show priority-group drop counters` with every count N/A",
	} {
		head, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", "switch", file))
		if err != nil {
			t.Fatal(err)
		}
		if len(head) > 8<<10 {
			head = head[:8<<10]
		}
		what, fix := SwitchUnjudged(head)
		if !strings.Contains(what, want) || fix == "" {
			t.Errorf("%s: %q, %q; want %q", file, what, fix, want)
		}
		if len(readCorpus(t, "switch/"+file)) != 0 {
			t.Errorf("%s: read by a reader, so never named as unjudged", file)
		}
	}
	if what, _ := SwitchUnjudged([]byte("Ethernet0  PFC0  PFC1\n")); what != "" {
		t.Errorf("a SONiC row: %q", what)
	}
}

// FuzzSwitchUnjudged: any bytes name a command and its fix together, or
// neither, without panicking.
func FuzzSwitchUnjudged(f *testing.F) {
	for _, path := range nicSeeds("corpus/switch/*.txt") {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		what, fix := SwitchUnjudged(head)
		if (what == "") != (fix == "") {
			t.Fatalf("%q without %q", what, fix)
		}
	})
}
