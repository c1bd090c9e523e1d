package ingest

import (
	"strings"
	"testing"
)

// Tests from a sweep of public nccl-tests and rccl-tests
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
	// on many both fit it; the count column, the whole count and not a
	// rank's, leaves all_reduce.
	x := ncclTests(t, "nccl-tests/allreduce-p6-b200-2n-efa-blank-line-after-header-rows-8b-256b-dstack3961.txt")
	if r := x.Runs[0]; r.Collective != "all_reduce" || len(r.Candidates) != 0 {
		t.Errorf("dstack#3961: collective %q, candidates %v; want all_reduce", r.Collective, r.Candidates)
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

// Every public output in the sweep is read whole: no row left
// unread, cut short or garbled, and its last run's collective (or the
// collectives its columns allow), rank count and rows are these. A
// reader change that drops or misreads a row of any of them fails here.
func TestNCCLTestsPublicOutputsReadWhole(t *testing.T) {
	checkReadWhole(t, []readWholeCase{
		{"allgather-1n-g2-bfloat16-16m-step-inplace-15pct-above-outofplace-nccl1435.txt", "all_gather", 2, 18},
		{"allreduce-128gpu-error-column-1e-06-sharp-off-nccltests176.txt", "all_reduce", 0, 6},
		{"allreduce-aks-mpijob-2n-info-lines-then-check-off-na-rows-step4-aksrdma30.txt", "all_reduce", 0, 5},
		{"allreduce-h100-pcie-1n-g2-nvlink-info-elided-115GBps-nccltests194.txt", "all_reduce", 2, 2},
		{"allreduce-rows-only-8b-2m-4rank-factor-1.5-gardenlinux4556.txt", "all_reduce", 0, 19},
		{"allreduce-rtx-a6000-1g-inplace-time-0.13-bogus-pytorch84803.txt", "all_reduce/reduce_scatter", 1, 3},
		{"alltoall-rtx4090-1n-g2-p2p-disabled-inplace-na-tinygrad17.txt", "alltoall", 2, 3},
		{"h20-1n-redop-none-zero-size-rows-inplace-checked-deepep303.txt", "all_gather", 8, 10},
		{"preamble-2.19.6-b200-2n-srun-pmix-ranks-cut-nccltests389.txt", "all_reduce", 8, 0},
		{"preamble-h100-mpirun-8rank-no-hash-between-banner-and-devices-ibmpcb1.txt", "all_reduce/all_gather/reduce_scatter/alltoall/broadcast/reduce/sendrecv/gather/scatter", 7, 0},
		{"rccl-allgather-mi250x-16rank-no-redop-error-column-rccl930.txt", "all_gather", 16, 8},
		{"rccl-allreduce-mi250x-16rank-mpich-error-column-no-root-rccl929.txt", "all_reduce", 0, 8},
		{"rccl-mi300x-aks-16rank-check-off-ssh-known-hosts-banner-only-aksrdma150.txt", "all_reduce", 0, 0},
		{"rccl-mi50-1n-g4-version-line-ranks-cut-rccltests163.txt", "all_reduce", 3, 0},
		{"allreduce-a100-1n-g8-skypilot-ray-prefix-preamble-gcp-skypilot3217.txt", "all_reduce/all_gather/reduce_scatter/alltoall/broadcast/reduce/sendrecv/gather/scatter", 4, 0},
		{"allreduce-p4-2n-16rank-efa-ofi1.1.2-launch-mode-line-after-header-awsofinccl64.txt", "all_reduce/all_gather/reduce_scatter/alltoall/sendrecv", 16, 0},
		{"allreduce-p6-b200-2n-efa-blank-line-after-header-rows-8b-256b-dstack3961.txt", "all_reduce", 0, 6},
		{"alltoall-2.17.8-h100-1n-4rank-500m-524m-step-1m-two-decimal-time-cut-row-nccl2169.txt", "alltoall", 4, 1},
		{"alltoall-efa-indented-mpirun-tags-inplace-na-2k-512k-bottlerocketkk313.txt", "alltoall", 16, 9},
		{"allreduce-16n-h100-rows-only-8b-2k-nccl1469.txt", "all_reduce", 0, 9},
		{"allreduce-a100-2n-2rank-mpich-info-lines-after-ranks-nccltests231.txt", "all_reduce/all_gather/reduce_scatter/alltoall/broadcast/reduce/sendrecv/gather/scatter", 2, 0},
		{"allreduce-h20-2n-split-mod8-two-banners-rank-lines-restart-cut-row-nccltests306.txt", "all_reduce/all_gather/reduce_scatter/alltoall/sendrecv", 8, 0},
		{"allreduce-rtx-a6000-2n-g2-check-off-test-nccl-failure-mpirun-abort-nccltests219.txt", "all_reduce/all_gather/reduce_scatter/alltoall/broadcast/reduce/sendrecv/gather/scatter", 4, 0},
		{"allreduce-v100-pcie-1n-g4-libibverbs-warning-internal-error-old-rank-lines-nccltests41.txt", "all_reduce/all_gather/reduce_scatter/alltoall/broadcast/reduce/sendrecv/gather/scatter", 4, 0},
		{"allreduce-p5-4xlarge-2n-1g-dstack-efa-image-info-after-ranks-dstack3069.txt", "all_reduce/all_gather/reduce_scatter/alltoall/broadcast/reduce/sendrecv/gather/scatter", 2, 0},
		{"allreduce-rows-only-32b-32k-nccl757.txt", "all_reduce", 3, 11},
	})
}

// readWholeCase is a public output and what its last run must read as:
// the collective (or the collectives its columns allow, joined by "/"),
// the rank count and the rows.
type readWholeCase struct {
	file, coll  string
	ranks, rows int
}

// collOrCandidates is the run's collective, or the collectives its
// columns allow joined by "/".
func collOrCandidates(r *TestRun) string {
	if r.Collective != "" {
		return r.Collective
	}
	return strings.Join(r.Candidates, "/")
}

// checkReadWhole reads each output of testdata/corpus/nccl-tests and
// fails on a row left unread, cut short or garbled, or a last run that
// reads otherwise than its case says.
func checkReadWhole(t *testing.T, cases []readWholeCase) {
	t.Helper()
	for _, c := range cases {
		rel := c.file
		if !strings.Contains(rel, "/") {
			rel = "nccl-tests/" + rel
		}
		x := ncclTests(t, rel)
		r := x.Runs[len(x.Runs)-1]
		coll := collOrCandidates(r)
		if coll != c.coll || r.NRanks() != c.ranks || len(r.Rows) != c.rows || len(x.Garbled) != 0 || len(r.Truncated) != 0 || r.GarbledRows != 0 {
			t.Errorf("%s: %s, %d ranks, %d rows, %d garbled, %d cut; want %s, %d ranks, %d rows, none garbled or cut",
				c.file, coll, r.NRanks(), len(r.Rows), len(x.Garbled), len(r.Truncated), c.coll, c.ranks, c.rows)
		}
	}
}
