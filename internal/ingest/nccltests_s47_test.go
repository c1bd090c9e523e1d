package ingest

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// Tests from session 47's sweep of public nccl-tests outputs: each reads
// a real one and fails without the fix it names.

// A README's single-node 8 x B200 all_reduce whose author kept the
// out-of-place time, algbw and busbw only, header included ("size count
// type redop root time algbw busbw"): its 12 rows were "not read (fewer
// columns than the table's header names), 0 whole rows read". They are
// read as the out-of-place half, the in-place one absent, and the
// collective follows from busbw/algbw = 2(n-1)/n = 1.75 for 8 ranks.
func TestNCCLTestsOutOfPlaceOnlyHeader(t *testing.T) {
	const file = "allreduce-b200-1n-g8-gke-a4-out-of-place-only-columns-author-trimmed-845GBps.txt"
	x := ncclTests(t, "nccl-tests/"+file)
	r := x.Runs[len(x.Runs)-1]
	if len(r.Rows) != 12 || len(r.Truncated) != 0 || r.GarbledRows != 0 || len(x.Garbled) != 0 || collOrCandidates(r) != "all_reduce" {
		t.Fatalf("%d rows, %d cut, %d garbled, collective %q; want 12 whole all_reduce rows", len(r.Rows), len(r.Truncated), r.GarbledRows, collOrCandidates(r))
	}
	last := r.Rows[11]
	if last.Size != 17179869184 || last.Redop != "sum" || last.Root != -1 || last.Out.Time != 35561 || last.Out.AlgBW != 483.11 || last.Out.BusBW != 845.44 || last.Out.Wrong != -1 || last.In != (TestHalf{Wrong: -1}) {
		t.Errorf("last row %+v; want 16 GiB, out of place 35561 us 483.11 845.44, no #wrong, no in-place half", last)
	}
	// A row whose busbw is no number names its column.
	x = parseTests(t, "#       size         count      type   redop    root     time   algbw   busbw\n"+
		"     8388608       2097152     float     sum      -1    80.32  104.44  18x.77\n")
	if len(x.Garbled) != 1 || x.Garbled[0].Expected != "a number of at least 0 (the out-of-place busbw) in an nccl-tests row" {
		t.Errorf("garbled %+v", x.Garbled)
	}
}

// The same trim with the #wrong column kept (SYNTHETIC: the real B200
// paste above, its header ending in "busbw #wrong" and each row in a
// count), the other way an author cuts the in-place half: its rows were
// "not read" as well. They are read with their counts; a count that is no
// number names its column, and rows with both halves under that header
// still read both.
func TestNCCLTestsOutOfPlaceOnlyWrongKept(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/nccl-tests/allreduce-b200-1n-g8-gke-a4-out-of-place-only-columns-author-trimmed-845GBps.txt")
	if err != nil {
		t.Fatal(err)
	}
	text := regexp.MustCompile(`(?m)^(#\s+size .* busbw)$`).ReplaceAllString(string(data), "$1 #wrong")
	text = regexp.MustCompile(`(?m)^(\s+\d+\s+\d+\s+float .*\d)$`).ReplaceAllString(text, "$1      0")
	text = strings.Replace(text, "845.44      0", "845.44      3", 1)
	x := parseTests(t, text)
	r := x.Runs[len(x.Runs)-1]
	if len(r.Rows) != 12 || len(r.Truncated) != 0 || r.GarbledRows != 0 || collOrCandidates(r) != "all_reduce" {
		t.Fatalf("%d rows, %d cut, %d garbled, collective %q; want 12 whole all_reduce rows", len(r.Rows), len(r.Truncated), r.GarbledRows, collOrCandidates(r))
	}
	if first, last := r.Rows[0], r.Rows[11]; first.Out.Wrong != 0 || last.Out.Wrong != 3 || last.Out.BusBW != 845.44 || last.In != (TestHalf{Wrong: -1}) {
		t.Errorf("rows %+v ... %+v; want #wrong 0 ... 3, no in-place half", first, last)
	}
	x = parseTests(t, "#       size         count      type   redop    root     time   algbw   busbw  #wrong\n"+
		"     8388608       2097152     float     sum      -1    80.32  104.44  182.77      x\n"+
		"    16777216       4194304     float     sum      -1    110.5  151.81  266.67      0    110.1  152.30  266.53      0\n")
	if len(x.Garbled) != 1 || x.Garbled[0].Expected != "a count or N/A (the out-of-place #wrong) in an nccl-tests row" {
		t.Errorf("garbled %+v", x.Garbled)
	}
	if r := x.Runs[len(x.Runs)-1]; len(r.Rows) != 1 || r.Rows[0].Out.BusBW != 266.67 || r.Rows[0].In.BusBW != 266.53 {
		t.Errorf("a row with both halves: %+v", r.Rows)
	}
}

// The same paste's rank lines have no "on <host>" ("Pid 221599 device
// 0 [0000:8f:00] NVIDIA B200"): they were not read, so the run's 8 ranks
// came from busbw/algbw alone, on no known node, and the doctor had no
// NVLink to judge. One process printed them all (nccl-tests -g 8), and a
// process runs on one node: 8 ranks on one host. Lines of several
// processes (synthetic) are read as ranks on no known host.
func TestNCCLTestsRankLinesWithoutHost(t *testing.T) {
	x := ncclTests(t, "nccl-tests/allreduce-b200-1n-g8-gke-a4-out-of-place-only-columns-author-trimmed-845GBps.txt")
	r := x.Runs[len(x.Runs)-1]
	hosts, counts := r.RanksPerHost()
	if len(r.Ranks) != 8 || r.Ranks[7].GPU != "NVIDIA B200" || r.Ranks[7].Device != 7 || len(hosts) != 1 || counts[0] != 8 {
		t.Fatalf("%d ranks, hosts %v %v; want 8 B200 ranks on one host", len(r.Ranks), hosts, counts)
	}
	x = parseTests(t, "# Using devices\n"+
		"#  Rank  0 Group  0 Pid   1001 device  0 [0x1b] NVIDIA H100 80GB HBM3\n"+
		"#  Rank  1 Group  0 Pid   2002 device  0 [0x1b] NVIDIA H100 80GB HBM3\n")
	r = x.Runs[0]
	if hosts, _ := r.RanksPerHost(); len(r.Ranks) != 2 || len(hosts) != 0 {
		t.Errorf("%d ranks on hosts %v; want 2 ranks, no host known", len(r.Ranks), hosts)
	}
}

// Rank lines past the maxRanks kept are counted, not kept: a process that
// printed only those may run on another node, so lines without "on
// <host>" are then on no known host (SYNTHETIC: 4096 lines of one PID, a
// last one of another).
func TestNCCLTestsRankLinesWithoutHostPastKept(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Using devices\n")
	for i := range maxRanks + 1 {
		pid := 1001
		if i == maxRanks {
			pid = 2002
		}
		fmt.Fprintf(&b, "#  Rank %4d Group  0 Pid %6d device %2d [0x1b] NVIDIA H100 80GB HBM3\n", i, pid, i%8)
	}
	r := parseTests(t, b.String()).Runs[0]
	if hosts, _ := r.RanksPerHost(); r.RankCount != maxRanks+1 || len(r.Ranks) != maxRanks || len(hosts) != 0 {
		t.Errorf("%d rank lines, %d kept, hosts %v; want %d, %d, no host known", r.RankCount, len(r.Ranks), hosts, maxRanks+1, maxRanks)
	}
}
