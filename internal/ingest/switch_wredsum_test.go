package ingest

import (
	"slices"
	"strings"
	"testing"
)

// `show queue wredcounters --summary` as a table and as JSON (the
// sonic-utilities test vectors): thirty queues of no port, the same sums
// in both forms.
func TestSwitchWREDSummary(t *testing.T) {
	key := func(w QueueWRED) string {
		return w.Type + itoa(w.Queue) + " " + itoa(int(w.WREDDrop)) + " " + itoa(int(w.ECNMarks))
	}
	var forms [][]string
	for _, rel := range []string{"switch/sonic-queue-wredcounters-summary-all-ports-uc3-wred-123-sonicutilities4181.txt", "switch/sonic-queue-wredcounters-summary-json-uc3-wred-123-sonicutilities4181.txt"} {
		s, ok := readCorpus(t, rel)[KindSwitch].(*SwitchCounters)
		if !ok {
			t.Fatalf("%s: no switch counters", rel)
		}
		if len(s.WRED) != 30 || len(s.Queues) != 0 || len(s.Ports) != 0 {
			t.Fatalf("%s: %d WRED rows, %d queues, %d ports", rel, len(s.WRED), len(s.Queues), len(s.Ports))
		}
		var keys []string
		for _, w := range s.WRED {
			if !w.AllPorts || w.Port != "" {
				t.Errorf("%s: a summary row with a port: %+v", rel, w)
			}
			keys = append(keys, key(w))
		}
		slices.Sort(keys)
		forms = append(forms, keys)
	}
	if !slices.Equal(forms[0], forms[1]) {
		t.Errorf("table and JSON differ:\n%v\n%v", forms[0], forms[1])
	}
	for _, want := range []string{"UC3 123 130", "UC4 73 156", "MC19 134 114", "ALL29 0 0"} {
		if !slices.Contains(forms[0], want) {
			t.Errorf("no %q in %v", want, forms[0])
		}
	}
}

// SYNTHETIC: an N/A sum reads as no count, a JSON queue of N/A only is
// not kept, and a row cut short is not a row.
func TestSwitchWREDSummaryNA(t *testing.T) {
	s := feedSwitch("wredsum.txt",
		"  TxQ    WredDrp/pkts    WredDrp/bytes    EcnMarked/pkts    EcnMarked/bytes",
		"-----  --------------  ---------------  ----------------  -----------------",
		"  UC3             N/A              N/A                 7                N/A",
		"  UC4               5",
		"",
		"{",
		`  "VOQ1": {`,
		`    "ecnpacket": "N/A",`,
		`    "wredDrppacket": "N/A"`,
		"  },",
		`  "VOQ2": {`,
		`    "wredDrppacket": 9`,
		"  }",
		"}",
	)
	if len(s.WRED) != 2 || s.WRED[0].WREDDrop != -1 || s.WRED[0].ECNMarks != 7 || s.WRED[1].Type != "VOQ" || s.WRED[1].Queue != 2 || s.WRED[1].WREDDrop != 9 || s.WRED[1].ECNMarks != -1 {
		t.Errorf("WRED %+v", s.WRED)
	}
	if len(s.CutRows) != 1 || s.CutRows[0].Line != 4 || s.CutRows[0].Col != 3 || !strings.Contains(s.CutRows[0].Expected, "5 columns (this one has 2)") {
		t.Errorf("cut rows %+v", s.CutRows)
	}
}
