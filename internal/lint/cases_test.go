package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

const casesDir = "../../testdata/lint"

// lintDir lints every file of dir except .source provenance notes.
func lintDir(t *testing.T, dir string) *doctor.Report {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range entries {
		if !e.IsDir() && !strings.HasSuffix(e.Name(), ".source") {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(paths)
	rep, err := Lint(paths, nil)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	for _, msg := range doctor.Nonconforming(rep.Findings) {
		t.Errorf("%s: %s", dir, msg)
	}
	return rep
}

func ids(rep *doctor.Report) map[string]doctor.Severity {
	out := map[string]doctor.Severity{}
	for _, f := range rep.Findings {
		if s, ok := out[f.ID]; !ok || f.Severity > s {
			out[f.ID] = f.Severity
		}
	}
	return out
}

// TestLintCases runs testdata/lint: each bad state gives the findings its
// expect.txt names, and the fixed state gives none of them and no error.
func TestLintCases(t *testing.T) {
	cases, err := os.ReadDir(casesDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		n++
		t.Run(c.Name(), func(t *testing.T) {
			dir := filepath.Join(casesDir, c.Name())
			data, err := os.ReadFile(filepath.Join(dir, "expect.txt"))
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Fields(string(data))
			bad, fixed := ids(lintDir(t, filepath.Join(dir, "bad"))), lintDir(t, filepath.Join(dir, "fixed"))
			for _, id := range want {
				if _, ok := bad[id]; !ok {
					t.Errorf("bad: no %s among %v", id, bad)
				}
			}
			got := ids(fixed)
			for _, id := range want {
				if _, ok := got[id]; ok {
					t.Errorf("fixed: still %s", id)
				}
			}
			for _, f := range fixed.Findings {
				if f.Severity == doctor.Error {
					t.Errorf("fixed: error finding %s: %s", f.ID, f.Title)
				}
			}
		})
	}
	if n < 15 {
		t.Errorf("only %d cases", n)
	}
}

// Findings cite the lines they rest on: the description's ECN line, the
// mlxconfig command, the config_db entry.
func TestEvidenceLines(t *testing.T) {
	rep := lintDir(t, filepath.Join(casesDir, "seed-002-files", "bad"))
	want := map[string]string{
		"switch.ecn.thresholds": "seed-as-found-synthetic.yaml:18: ecn: {enabled: true, priorities: [3], kmin: 20000, kmax: 40000, pmax: 0.05}",
		"nic.cc_prio_mask.wide": "nic-firmware-as-found-synthetic.txt:3: mlxconfig -d /dev/mst/mt4123_pciconf0 set ROCE_CC_PRIO_MASK=0xFF",
	}
	for _, f := range rep.Findings {
		w, ok := want[f.ID]
		if !ok {
			continue
		}
		found := false
		for _, e := range f.Evidence {
			found = found || strings.HasSuffix(e.String(), w)
		}
		if !found {
			t.Errorf("%s: evidence %v lacks %q", f.ID, f.Evidence, w)
		}
		delete(want, f.ID)
	}
	if len(want) > 0 {
		t.Errorf("findings missing: %v", want)
	}
	// The same facts from one cluster description.
	rep = lintDir(t, filepath.Join(casesDir, "seed-002", "bad"))
	for _, f := range rep.Findings {
		if f.ID == "nic.cc_prio_mask.wide" && (len(f.Evidence) != 1 || f.Evidence[0].Line != 27) {
			t.Errorf("mask evidence %v, want the host.firmware line 27", f.Evidence)
		}
	}
	rep = lintDir(t, filepath.Join(casesDir, "prio-mismatch-sonic", "bad"))
	for _, f := range rep.Findings {
		if f.ID == "qos.priority.mismatch" && !strings.Contains(fmt.Sprint(f.Evidence), `qos-mellanox4600c-c64-subset.json:132: "26": "1",`) {
			t.Errorf("mismatch evidence %v lacks the config_db line", f.Evidence)
		}
	}
}

// One ECN profile over ports of several speeds is judged at the fastest
// and its fix names switch.ecn.by_rate; with the fast ports given their
// own, each is judged at its speed and nothing is said.
func TestECNMixedSpeeds(t *testing.T) {
	rep := lintDir(t, filepath.Join(casesDir, "ecn-mixed-speeds", "bad"))
	n := 0
	for _, f := range rep.Findings {
		if f.ID == "switch.ecn.thresholds" {
			n++
			if !strings.Contains(f.Title, "400Gbps") || !strings.Contains(f.Fix, "switch.ecn.by_rate gives the ports of each its own profile") {
				t.Errorf("title %q, fix %q", f.Title, f.Fix)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d switch.ecn.thresholds findings, want 1", n)
	}
	for _, f := range lintDir(t, filepath.Join(casesDir, "ecn-mixed-speeds", "fixed")).Findings {
		if strings.HasPrefix(f.ID, "switch.ecn") {
			t.Errorf("fixed: %s %s", f.ID, f.Title)
		}
	}
}
