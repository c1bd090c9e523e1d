package lint

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus/sonic-stock/golden.txt")

const stockDir = "../../testdata/corpus/sonic-stock"

// knownStockMistakes are the findings lint may raise on SONiC's stock
// files: each is a real mistake for a RoCE fabric, and docs/lint.md
// ("Stock SONiC") says why.
var knownStockMistakes = []string{"pfc.watchdog.off", "switch.ecn.thresholds", "config.duplicate_key"}

// TestLintSONiCStock lints every real config_db.json and rendered QoS
// file of SONiC's repositories under testdata/corpus/sonic-stock (their
// sources in SOURCES.md), one at a time, and compares every finding with
// golden.txt (-update rewrites it). Nothing but the known mistakes may
// fire, and none of those on a file that does not show it.
func TestLintSONiCStock(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(stockDir, "*.json"))
	if err != nil || len(files) < 20 {
		t.Fatalf("%d stock files (%v)", len(files), err)
	}
	var b strings.Builder
	b.WriteString("# rocelab lint on each stock SONiC file alone (go test ./internal/lint -run TestLintSONiCStock -update)\n\n")
	for _, f := range files {
		rep, err := Lint([]string{f}, nil)
		name := filepath.Base(f)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			fmt.Fprintf(&b, "%s: refused: %v\n", name, err)
			continue
		}
		fmt.Fprintf(&b, "%s: %d findings\n", name, len(rep.Findings))
		for _, fd := range rep.Findings {
			title := strings.TrimLeft(strings.TrimPrefix(fd.Title, f), ": ")
			fmt.Fprintf(&b, "  %s %s: %s\n", fd.Severity, fd.ID, title)
			if !slices.Contains(knownStockMistakes, fd.ID) {
				t.Errorf("%s: %s %s on a stock file: %s", name, fd.Severity, fd.ID, fd.Title)
			}
		}
		for _, msg := range doctor.Nonconforming(rep.Findings) {
			t.Errorf("%s: %s", name, msg)
		}
	}
	golden := filepath.Join(stockDir, "golden.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != b.String() {
		t.Errorf("findings differ from %s; run go test ./internal/lint -run TestLintSONiCStock -update and review the diff", golden)
	}
}
