package ingest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// nvueRoCECountersPaste is the machine-printed lines of the Cumulus 5.4
// user guide's `nv show interface swp16 qos roce counters`.
func nvueRoCECountersPaste(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", "switch", "cumulus-nv-show-interface-swp16-qos-roce-counters-663g-discards-cl54-doc.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if !strings.HasPrefix(l, "# ") {
			lines = append(lines, l)
		}
	}
	return lines
}

// The same counters pasted 25 times (over 1024 lines in all) are 25
// tables, each read whole (the last, too): the cap is per table, and no empty table is
// left for the `nv show qos roce` reader.
func TestNVUERoCECountersRepeated(t *testing.T) {
	one := nvueRoCECountersPaste(t)
	var lines []string
	for range 25 {
		lines = append(lines, one...)
	}
	if len(lines) <= maxNVUELines {
		t.Fatalf("only %d lines", len(lines))
	}
	s := switchLines(t, "roce.txt", lines...)
	if len(s.Garbled) != 0 {
		t.Fatalf("garbled: %+v", s.Garbled)
	}
	if len(s.Queues) == 0 || s.Queues[0].DropPkts != 663060754115 || s.Queues[0].Evidence.Line <= maxNVUELines {
		t.Errorf("the last paste's RoCE discards not read: %+v", s.Queues)
	}
}

// SYNTHETIC: one table past maxNVUELines is refused at its first line
// past the cap, not read in part.
func TestNVUETableCap(t *testing.T) {
	lines := []string{"cumulus@leaf1:mgmt:~$ nv show interface swp1 qos roce counters",
		"                               operational   applied  description",
		"tx-stats", "  tx-roce-stats"}
	for len(lines) < maxNVUELines+10 {
		lines = append(lines, "    roce-packets               5                      Tx RoCE Packets")
	}
	s := switchLines(t, "long.txt", lines...)
	if len(s.Garbled) != 1 || s.Garbled[0].Line != maxNVUELines+2 || !strings.Contains(s.Garbled[0].Expected, "at most 1024 lines") {
		t.Fatalf("garbled: %+v", s.Garbled)
	}
	if len(s.Queues) != 0 {
		t.Errorf("a cut table read in part: %+v", s.Queues)
	}
	if e := s.Garbled[0].Error("long.txt"); !strings.HasPrefix(e, "long.txt:1026:1: ") {
		t.Errorf("error %q", e)
	}
}

// SYNTHETIC: a RoCE discard count NVUE printed with a unit is read back
// to the precision shown and marked approximate.
func TestNVUERoCEDiscardsApprox(t *testing.T) {
	s := switchLines(t, "roce.txt", "cumulus@leaf1:mgmt:~$ nv show interface swp1 qos roce counters",
		"                               operational   applied  description",
		"tx-stats", "  tx-roce-stats",
		"    roce-packets               900                    Tx RoCE Packets",
		"    unicast-no-buffer-discard  75.19 KB               Tx buffer discards for RoCE traffic")
	if len(s.Queues) != 1 || !s.Queues[0].DropsApprox || s.Queues[0].DropPkts != 76995 {
		t.Errorf("queues: %+v", s.Queues)
	}
}

// The Cumulus 5.4 user guide's counters cut before rx-pfc-stats (after
// rx-non-roce-stats), with and without its command line, are that tree,
// not a garbled `nv show qos roce`: refused as a counters paste that ends
// before its RoCE sections.
func TestNVUERoCECountersCutEarly(t *testing.T) {
	one := nvueRoCECountersPaste(t)
	cut := slices.IndexFunc(one, func(l string) bool { return strings.TrimSpace(l) == "rx-pfc-stats" })
	if cut < 0 {
		t.Fatal("no rx-pfc-stats")
	}
	for _, lines := range [][]string{one[:cut], one[1:cut]} {
		s := switchLines(t, "cut.txt", lines...)
		if len(s.Garbled) != 1 || !strings.HasPrefix(s.Garbled[0].Expected, "`nv show interface <swp> qos roce counters`") || s.Garbled[0].Line != len(lines) {
			t.Errorf("%q: garbled: %+v", lines[0], s.Garbled)
		}
	}
}
