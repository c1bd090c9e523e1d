package doctor

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"rocelab/internal/golden"
	"rocelab/internal/ingest"
)

// TestGoldenNCCLTestsCorpus diagnoses every real nccl-tests output of
// testdata/corpus/nccl-tests on its own and writes what was read of each
// run (collective, ranks, rows, rows not read, plateau) and the findings'
// severities, ids and titles to testdata/golden/nccltests-corpus.txt: one
// place to read what rocelab concludes of each public run. Run with
// -update after a change, then read the diff.
func TestGoldenNCCLTestsCorpus(t *testing.T) {
	dir := filepath.Join(corpus, "nccl-tests")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if !e.IsDir() && !strings.HasSuffix(e.Name(), ".source") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var b bytes.Buffer
	for _, name := range names {
		path := filepath.Join(dir, name)
		rep := Diagnose([]string{path}, nil, Options{})
		fmt.Fprintf(&b, "== %s (exit %d)\n", name, rep.ExitCode())
		for _, a := range nicReadArtifacts(t, "corpus/nccl-tests/"+name) {
			nt, ok := a.(*ingest.NCCLTests)
			if !ok {
				continue
			}
			for _, r := range nt.Runs {
				fmt.Fprintf(&b, "  run %s (%s): %d ranks, %d rows, %d not read", collName(r), r.CollectiveFrom, r.NRanks(), len(r.Rows), len(r.Truncated))
				if r.Version != "" {
					fmt.Fprintf(&b, ", version %s", r.Version)
				}
				if p, ok := r.Plateau(); ok {
					fmt.Fprintf(&b, ", plateau %s GB/s", fmtGB(p.BusBW))
				}
				b.WriteString("\n")
			}
			if nt.FailureCount > 0 {
				fmt.Fprintf(&b, "  %d failure lines\n", nt.FailureCount)
			}
		}
		for _, f := range rep.Findings {
			fmt.Fprintf(&b, "  %s %s: %s\n", f.Severity, f.ID, f.Title)
		}
	}
	golden.Check(t, filepath.Join("testdata", "golden", "nccltests-corpus.txt"), b.Bytes(), *update)
}

// MetaX's mccl-tests prints nothing in the redop column of all_gather;
// the rows were read with -1 as the redop and the time as the root, then
// dropped as cut (21 rows, no finding said so).
func TestNCCLTestsBlankRedop(t *testing.T) {
	rel := "corpus/nccl-tests/metax-c500-1n-8gpu-mccl-tests-allgather-blank-redop.txt"
	runs := nicReadArtifacts(t, rel)[0].(*ingest.NCCLTests).Runs
	if len(runs) != 3 {
		t.Fatalf("%d runs, want 3", len(runs))
	}
	ag := runs[1]
	if ag.Collective != "all_gather" || len(ag.Rows) != 21 || len(ag.Truncated) != 0 || ag.Rows[20].Redop != "" || ag.Rows[20].Root != -1 || ag.Rows[20].Out.Time != 14553.37 {
		t.Errorf("all_gather %s: %d rows, %d cut, last %+v", ag.Collective, len(ag.Rows), len(ag.Truncated), ag.Rows[len(ag.Rows)-1])
	}
}
