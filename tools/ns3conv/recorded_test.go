package main

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// Every recorded ns-3 run carries the sha256 of the input it ran, and
// that is the input ns3conv writes now for its scenario and seed: a
// scenario or converter change that alters what ns-3 would run fails here,
// naming the command that records the run again, instead of leaving the
// agreement tests to hold rocelab to figures of another input. (Stamped
// after ns-3 9f4be2a, run again on every recorded input, reproduced each
// fct.txt byte for byte.)
func TestRecordedRunsMatchInput(t *testing.T) {
	runs, _ := filepath.Glob("testdata/ns3/*-seed*.txt")
	sweep, _ := filepath.Glob("testdata/sweep/*-seed*.txt")
	if len(runs) == 0 || len(sweep) == 0 {
		t.Fatal("no recorded runs")
	}
	for _, file := range append(runs, sweep...) {
		r, err := readRecordedHead(file)
		if err != nil {
			t.Error(err)
			continue
		}
		if r.hash == "" {
			t.Errorf("%s: no %q line in its head; record it with tools/ns3conv/record.sh NS3 %s %d", file, strings.TrimSpace(inputHashPrefix), r.scenario, r.seed)
			continue
		}
		got, err := inputHash(strings.TrimPrefix(r.scenario, "tools/ns3conv/"), r.seed)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if got != r.hash {
			t.Errorf("%s is stale: ns-3 ran input %.12s, and %s at seed %d now converts to %.12s; record it again with\n\ttools/ns3conv/record.sh NS3_SIMULATION_DIR %s %d\n(or undo the change to the scenario or the converter)", file, r.hash, r.scenario, r.seed, got, r.scenario, r.seed)
		}
	}
}

// An agreement held to another workload's runs (agreement.data) must
// give ns-3 the same input as that workload, seed by seed: else rocelab
// is held to a run of something else.
func TestBorrowedRunsMatchInput(t *testing.T) {
	for _, c := range agreements {
		for seed := 1; seed <= c.seeds; seed++ {
			data := fmt.Sprintf("testdata/ns3/%s-seed%d.txt", cmp.Or(c.data, c.workload), seed)
			r, err := readRecordedHead(data)
			if err != nil {
				t.Fatal(err)
			}
			got, err := inputHash("scenarios/"+c.workload+".yaml", uint64(seed))
			if err != nil {
				t.Fatal(err)
			}
			if got != r.hash {
				t.Errorf("%s, seed %d: ns-3 would run input %.12s, and is held to %s, a run of input %.12s", c.workload, seed, got, data, r.hash)
			}
		}
	}
}
