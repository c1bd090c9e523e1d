package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/examples"
)

// TestTwinVariantsDiagnosed: the doctor, run on each variant's --out
// directory of the load-balancing, congestion-control and storage
// examples, names the variant's fault, and finds nothing at warning level
// or above on the healthy ones. The load-balancing job runs at 64 MiB
// instead of 256 to save time; spraying reorders alike.
func TestTwinVariantsDiagnosed(t *testing.T) {
	cases := map[string]map[string]string{ // example → variant → fault ("" healthy)
		"load-balancing": {"spray": "counters.retransmission", "spray-ooo": "", "flowlet": ""},
		"cc-compare":     {"dcqcn": "counters.ecn.heavy_marking", "timely": "counters.pause.ratio", "hpcc": ""},
		"storage-read":   {"lossy": "counters.pfc.not_on_roce_priority", "lossless": ""},
	}
	for ex, variants := range cases {
		data, err := examples.FS.ReadFile(ex + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), ex+".yaml")
		if err := os.WriteFile(file, []byte(strings.Replace(string(data), "-b 256M -e 256M", "-b 64M -e 64M", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if code, _, stderr := rocelab(t, "run", file, "--out", dir); code != 0 {
			t.Fatalf("run %s: exit %d: %s", ex, code, stderr)
		}
		for v, want := range variants {
			_, out, stderr := rocelab(t, "diagnose", "--json", filepath.Join(dir, v))
			var d diagJSON
			if err := json.Unmarshal([]byte(out), &d); err != nil {
				t.Fatalf("diagnose %s/%s: %v\n%s", ex, v, err, stderr)
			}
			found := false
			for _, f := range d.Findings {
				found = found || f.ID == want
				if want == "" && (f.Severity == "warn" || f.Severity == "error") {
					t.Errorf("%s/%s is healthy, yet: %s %s: %s", ex, v, f.Severity, f.ID, f.Title)
				}
			}
			if want != "" && !found {
				t.Errorf("%s/%s: no %s finding", ex, v, want)
			}
		}
	}
}
