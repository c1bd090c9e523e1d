package ingest

import "testing"

// Tests from the session-32 sweep of public nccl-tests and rccl-tests
// outputs: each reads a real one and fails without the fix it names.

// A table that stops at a few KiB prints busbw and algbw of two
// hundredths, yet each row bounds their ratio: 0.09 over 0.05 is
// 1.55-2.11, which no factor of 1 (sendrecv) or below 1 (reduce_scatter)
// reaches. The bounds of every row are intersected; the largest row
// alone, and only from algbw 1, had left three candidates.
func TestNCCLTestsRatioFromSmallRows(t *testing.T) {
	for _, name := range []string{
		"allreduce-aks-mpijob-2n-info-lines-then-check-off-na-rows-step4-aksrdma30.txt",
		"allreduce-uccl-plugin-check-off-na-rows-1k-32k-uccl396.txt",
		"rccl-allreduce-mi250x-16rank-mpich-error-column-no-root-rccl929.txt",
	} {
		x := ncclTests(t, "nccl-tests/"+name)
		if r := x.Runs[0]; r.Collective != "all_reduce" || r.CollectiveFrom != FromColumns || len(r.Candidates) != 0 {
			t.Errorf("%s: collective %q from %q, candidates %v; want all_reduce from the columns", name, r.Collective, r.CollectiveFrom, r.Candidates)
		}
	}
	// Rows of equal busbw and algbw keep the factor 1 of all_reduce on 2
	// ranks and the near-1 of reduce_scatter on many.
	x := ncclTests(t, "nccl-tests/allreduce-rows-only-8b-1k-gardenlinux4556.txt")
	if r := x.Runs[0]; r.Collective != "" || len(r.Candidates) != 2 {
		t.Errorf("gardenlinux#4556: collective %q, candidates %v; want all_reduce/reduce_scatter", r.Collective, r.Candidates)
	}
}

// An output cut right after "# Collective test starting: all_reduce_perf"
// (the launcher's ssh warnings before it) is nccl-tests output: one run,
// named by that banner, with nothing else. It was read as no artifact.
func TestNCCLTestsBannerLineOnly(t *testing.T) {
	x := ncclTests(t, "nccl-tests/rccl-mi300x-aks-16rank-check-off-ssh-known-hosts-banner-only-aksrdma150.txt")
	if len(x.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(x.Runs))
	}
	if r := x.Runs[0]; r.Collective != "all_reduce" || r.Banner.Line != 4 || r.RankCount != 0 || r.NThread != 0 {
		t.Errorf("run %s from banner line %d, %d rank lines, nThread %d; want all_reduce from line 4 and nothing else", r.Collective, r.Banner.Line, r.RankCount, r.NThread)
	}
}
