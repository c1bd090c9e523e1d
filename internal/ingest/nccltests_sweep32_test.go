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
		"allreduce-rows-only-8b-2m-4rank-factor-1.5-gardenlinux4556.txt",
	} {
		x := ncclTests(t, "nccl-tests/"+name)
		if r := x.Runs[0]; r.Collective != "all_reduce" || r.CollectiveFrom != FromColumns || len(r.Candidates) != 0 {
			t.Errorf("%s: collective %q from %q, candidates %v; want all_reduce from the columns", name, r.Collective, r.CollectiveFrom, r.Candidates)
		}
	}
	// Busbw 0.01 over algbw 0.00 bounds the ratio from 1 alone: the
	// factor 1 of all_reduce on 2 ranks and the near-1 of reduce_scatter
	// on many stay.
	x := ncclTests(t, "nccl-tests/allreduce-p6-b200-2n-efa-blank-line-after-header-rows-8b-256b-dstack3961.txt")
	if r := x.Runs[0]; r.Collective != "" || len(r.Candidates) != 2 {
		t.Errorf("dstack#3961: collective %q, candidates %v; want all_reduce/reduce_scatter", r.Collective, r.Candidates)
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

// A paste cut inside a row's last field, the in-place #wrong, at "N"
// (nccl#2169): the row's six measurements are whole and the field can
// only be N/A, so the row is read (it was a garble); a row cut before
// that field stays cut short.
func TestNCCLTestsRowCutInsideNA(t *testing.T) {
	x := ncclTests(t, "nccl-tests/alltoall-2.17.8-h100-1n-4rank-500m-524m-step-1m-two-decimal-time-cut-row-nccl2169.txt")
	r := x.Runs[0]
	if len(x.Garbled) != 0 || len(r.Rows) != 1 || r.Rows[0].In.Wrong != -1 || r.Rows[0].In.BusBW != 337.99 || r.Rows[0].Out.Time != 1174.14 {
		t.Fatalf("garbled %d, rows %+v", len(x.Garbled), r.Rows)
	}
	const hdr = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
	for _, c := range []struct {
		end            string
		rows, cut, bad int
	}{{"N/", 1, 0, 0}, {"", 0, 1, 0}, {"X", 0, 0, 1}} {
		x := parseTests(t, hdr+"   524288000      32768000     float    none      -1  1174.14  446.53  334.90       0  1163.40  450.65  337.99    "+c.end+"\n")
		if r := x.Runs[0]; len(r.Rows) != c.rows || len(r.Truncated) != c.cut || r.GarbledRows != c.bad {
			t.Errorf("row ending %q: %d rows, %d cut, %d garbled; want %d, %d, %d", c.end, len(r.Rows), len(r.Truncated), r.GarbledRows, c.rows, c.cut, c.bad)
		}
	}
}
