package lint

import (
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
