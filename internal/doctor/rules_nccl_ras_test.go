package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The reports of NCCL's RAS client (ncclras) are judged: a communicator
// whose ranks launched different AllGather counts (NVIDIA/nccl#1911) is a
// warning naming the counts, processes missing from the job (#1762) are
// errors naming the process, and a report with every communicator OK
// (#1730) says so. Before, each was read as an NCCL log with no finding.
func TestRASReportJudged(t *testing.T) {
	fs := Diagnose([]string{nicTestdata("corpus/nccl-log/ncclras-2.26.2-mismatch-allgather-640-641-nccl1911.txt")}, nil, Options{}).Findings
	f := nicMustFind(t, fs, "nccl.ras.report", Warn, "MISMATCH for communicator #0-0 (fa93daea854b060b)", "30 ranks have launched up to operation 640, 2 ranks have launched up to operation 641")
	if len(f.Evidence) != 6 || f.Evidence[5].Line != 30 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	fs = Diagnose([]string{nicTestdata("corpus/nccl-log/ncclras-2.27.3-incomplete-process-60004-outlier-node-nccl1762.txt")}, nil, Options{}).Findings
	nicMustFind(t, fs, "nccl.ras.report", Error, "INCOMPLETE for the job: Missing communicator data from 1 job process: Process 60004 on node 10.4.109.13")
	nicMustFind(t, fs, "nccl.ras.report", Error, "INCOMPLETE for communicator #0-0 (b3398875b8b2a063)", "Rank 1 -- GPU 0")
	// The same report cut after its table (its first 17 lines): the
	// table's MISMATCH is said, and that the entries naming the ranks are
	// missing. Before, a cut report raised nothing.
	data, err := os.ReadFile(nicTestdata("corpus/nccl-log/ncclras-2.26.2-mismatch-allgather-640-641-nccl1911.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "ncclras.txt")
	if err := os.WriteFile(cut, []byte(strings.Join(strings.SplitAfter(string(data), "\n")[:17], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	f = nicMustFind(t, Diagnose([]string{cut}, nil, Options{}).Findings, "nccl.ras.report", Warn, "communicator table: group 0 MISMATCH", "entries, which name the ranks, are not in the input")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 17 || !strings.Contains(f.Mechanism, "disagree") {
		t.Errorf("cut report: evidence %+v, mechanism %s", f.Evidence, f.Mechanism)
	}
	fs = Diagnose([]string{nicTestdata("corpus/nccl-log/ncclras-2.26.2-running-ok-pytorch-timeout-pg-status-nccl1730.txt")}, nil, Options{}).Findings
	nicMustFind(t, fs, "nccl.ras.report", Info, "every communicator OK (1 group, the largest of 256 ranks)")
	nicMustFind(t, fs, "nccl.collective.timeout", Error, "rank 118")
}

// An ncclras MISMATCH whose named ranks are the two that launched one
// operation more than the other 30 (NVIDIA/nccl#1911): the named ranks are
// ahead and wait, the unnamed 30 are behind. Before, the finding said the
// ranks behind are the ones to look at without saying RAS names the others.
func TestRASMismatchNamedRanksAhead(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/ncclras-2.26.2-mismatch-allgather-640-641-nccl1911.txt")
	f := nicMustFind(t, fs, "nccl.ras.report", Warn, "MISMATCH for communicator #0-0 (fa93daea854b060b)")
	if !strings.Contains(f.Mechanism, "The 2 ranks RAS names here are the ones ahead: they launched operation 641") || !strings.Contains(f.Mechanism, "the 30 ranks that have not launched it yet") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
}

// RAS names the ranks of the smaller group; only when the named ranks are
// the ones that launched the most, and fewer than those behind, are they
// said to be ahead (the counts of nccl#1911 and two turned around).
func TestRASNamedAheadGroups(t *testing.T) {
	named := []string{"Rank 12 -- GPU 4 managed by process 323032 on node 10.137.190.124", "Rank 13 -- GPU 5 managed by process 323033 on node 10.137.190.124"}
	for _, c := range []struct {
		groups []string
		ahead  bool
	}{
		{[]string{"30 ranks have launched up to operation 640", "2 ranks have launched up to operation 641"}, true},
		{[]string{"2 ranks have launched up to operation 640", "30 ranks have launched up to operation 641"}, false},
		{[]string{"2 ranks have launched up to operation 640", "2 ranks have launched up to operation 641"}, false},
	} {
		got := rasNamedAhead(append(append([]string{"Communicator ranks have different AllGather operation counts"}, c.groups...), named...))
		if (got != "") != c.ahead {
			t.Errorf("%v: %q, want ahead %v", c.groups, got, c.ahead)
		}
	}
}
