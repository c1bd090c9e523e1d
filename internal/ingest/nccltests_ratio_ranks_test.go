package ingest

import "testing"

// A table pasted without its rank lines, whose count column gives no rank
// count (all_reduce prints the whole count), still gives its ranks in the
// busbw/algbw ratio when every row agrees on one: all_reduce's 2(n-1)/n is
// 1.875 on 16 ranks. Real rank-less pastes: the AWS READMEs' 2-node p4de
// and p5 tables (16 ranks), the 3-node A100 table of nccl-tests#119 (24),
// nccl#1706's one-host pair. No count where the rows disagree (the two
// excerpts of gardenlinux#4556 print busbw = algbw up to 1 KiB, 1.5 × algbw
// above), where small sizes' two decimals fit several counts (rccl#929), or
// where the factor is 1 whatever the ranks (sendrecv).
func TestRanksFromBusRatio(t *testing.T) {
	for _, c := range []struct {
		file  string
		ranks int
	}{
		{"allreduce-p4de-2n-efa-srun-l-rows-only-78GBps-awsome-readme.txt", 16},
		{"allreduce-p5-2n-efa-srun-l-rows-only-487GBps-awsome-readme.txt", 16},
		{"allreduce-efa-2n-indented-mpirun-tags-444GBps-eks-doc.txt", 16},
		{"allreduce-a100-3n-24rank-4hdr-step-bytes-1m-tail-rows-96GBps-nccltests119.txt", 24},
		{"nccltests-tail-destroy-complete-one-host-2-ranks-nvls-hang-nccl1706.txt", 2},
		{"rccl-mi355x-pollara400-2n-4n-allreduce-alltoall-no-rank-lines-oci.txt", 32},
		{"allreduce-rows-only-8b-2m-4rank-factor-1.5-gardenlinux4556.txt", 0},
		{"rccl-allreduce-mi250x-16rank-mpich-error-column-no-root-rccl929.txt", 0},
		{"sendrecv-a100-1n-g8-command-line-then-header-rows-only-inplace-na-195GBps-liplus.txt", 0},
	} {
		x := ncclTests(t, "nccl-tests/"+c.file)
		var r *TestRun
		for _, run := range x.Runs {
			if run.Collective == "all_reduce" || run.Collective == "sendrecv" {
				r = run
			}
		}
		if r == nil {
			t.Fatalf("%s: no all_reduce or sendrecv run", c.file)
		}
		n, _, _ := r.RatioRanks()
		if n != c.ranks || c.ranks > 0 && (r.NRanks() != c.ranks || !r.RanksFromRatio()) {
			t.Errorf("%s: %s ratio gives %d ranks (NRanks %d, from the ratio %v); want %d", c.file, r.Collective, n, r.NRanks(), r.RanksFromRatio(), c.ranks)
		}
	}
}

// Pages that reflow a table: cscs-docs' GH200 outputs re-indent the rows
// apart from the header (the smallest sizes pushed right, the largest
// left), and the stored text of Google Cloud's A4X Max page collapses
// every run of spaces to one. Every row is read whole, the ranks from the
// rank lines or, where the page elided them, the count column.
func TestReflowedPagesReadWhole(t *testing.T) {
	checkReadWhole(t, []readWholeCase{
		{"allreduce-2.17.1-gh200-2n-8rank-slingshot-aws-ofi-hook-reindented-rows-123GBps-cscsdocs.txt", "all_reduce", 8, 25},
		{"allreduce-2.17.1-gh200-2n-8rank-slingshot-no-aws-ofi-hook-reindented-rows-5GBps-cscsdocs.txt", "all_reduce", 8, 25},
		{"allgather-2.17.6-nccl2.28.9-gb300-a4xmax-2n-4g-gib-spaces-collapsed-357GBps-gkedocs.txt", "all_gather", 8, 23},
		{"allgather-2.17.6-nccl2.28.9-gb300-a4xmax-jobset-rank-lines-elided-spaces-collapsed-360GBps-gkedocs.txt", "all_gather", 8, 24},
		{"allreduce-2.18.3-nccl2.29.7-h100-ndv5-2n-16rank-8xndr400-sharp-nvls-rank-lines-condensed-466GBps-azcluster.txt", "all_reduce", 16, 12},
	})
}

// A 1-rank all_reduce prints busbw 0.00 on every row (factor 2(1-1)/1 = 0);
// beside algbw 0.01 the two decimals bound the ratio to [0, 1.001], which
// all_reduce on 2 ranks (factor 1) fits. A ratio no row bounds away from 0
// gives no rank count.
func TestRatioRanksNeedsNonZeroBusBW(t *testing.T) {
	r := &TestRun{Collective: "all_reduce"}
	for _, h := range []TestHalf{{Time: 10, AlgBW: 0.01}, {Time: 12, AlgBW: 0.01}, {Time: 20, AlgBW: 0}} {
		r.Rows = append(r.Rows, TestRow{Size: 128, Count: 32, Root: -1, Out: h, In: h})
	}
	if n, lo, hi := r.RatioRanks(); n != 0 {
		t.Errorf("busbw 0.00 on every row gives %d ranks (ratio %.3f-%.3f); want none", n, lo, hi)
	}
}
