package ingest

import (
	"strings"
	"testing"
)

// Tests from a sweep of public nccl-tests outputs of older and quoted
// shapes: each reads a real one and fails without the fix it names.

// nccl-tests of the "error" column era, whose tables have a redop but no
// root column, printed the redop blank for alltoall (nccl-tests#78: 64
// V100 over 100G IB, all_reduce then alltoall). The row's first time was
// taken for the redop and the row dropped as cut; now it is read whole,
// with a blank redop, as a collective without a reduction. Nor is it
// all_gather's: all_gather_perf printed no redop column before nccl-tests
// 51af557 and "none" with a root column after.
func TestOldTableBlankRedopWithoutRoot(t *testing.T) {
	x := ncclTests(t, "nccl-tests/allreduce-alltoall-v100-8n-64rank-ib100g-old-error-column-two-tables-nccltests78.txt")
	if len(x.Runs) != 2 {
		t.Fatalf("%d runs, want 2", len(x.Runs))
	}
	a2a := x.Runs[1]
	if got := collOrCandidates(a2a); got != "alltoall" || len(a2a.Rows) != 2 || len(a2a.Truncated) != 0 {
		t.Fatalf("alltoall read as %q, %d rows, %d cut", got, len(a2a.Rows), len(a2a.Truncated))
	}
	if row := a2a.Rows[1]; row.Redop != "" || row.Out.Time != 1041974 || row.In.Time != 1041299 || row.Out.BusBW != 0.51 {
		t.Errorf("last row %+v", row)
	}
	checkReadWhole(t, []readWholeCase{
		{"allreduce-alltoall-v100-8n-64rank-ib100g-old-error-column-two-tables-nccltests78.txt", "alltoall", 64, 2},
		{"scatter-srun-l-efa-no-rank-lines-79GBps-awsome-validation.txt", "gather/scatter", 16, 29},
		{"allreduce-2.26.2-rtx5090-1n-g4-markdown-quote-27GBps-nccltests287.txt", "all_reduce", 4, 25},
		{"threads/allreduce-rank-tag-repeated-midline-nccl1453.txt", "", 15, 10},
		{"allreduce-a100-3n-24rank-4hdr-step-bytes-1m-tail-rows-96GBps-nccltests119.txt", "all_reduce", 24, 6},
		{"allreduce-2.26.2-h100-2n-16rank-8x400g-ib-xpmem-help-lines-before-ranks-469GBps-nccltests309.txt", "all_reduce", 16, 32},
		{"allreduce-2.26.2-h100-4n-32rank-vm-wrapper-run-line-366GBps-nccltests309.txt", "all_reduce", 32, 32},
		{"allreduce-h100-8n-64rank-320GBps-vs-2n-466-nccltests309.txt", "all_reduce", 64, 14},
		{"allreduce-p4de-2n-efa-srun-l-rows-only-78GBps-awsome-readme.txt", "all_reduce", 16, 29},
		{"allreduce-p5-2n-efa-srun-l-rows-only-487GBps-awsome-readme.txt", "all_reduce", 16, 32},
	})
}

// The first sendrecv_perf printed neither a redop nor a root column
// (nccl-tests#104), and a table without a redop column was held to be
// all_gather's or broadcast's: the GTX 1080 sendrecv row was named
// all_gather.
func TestOldSendrecvTableWithoutRedop(t *testing.T) {
	checkReadWhole(t, []readWholeCase{
		{"sendrecv-old-no-redop-column-uint8-step-bytes-one-row-gtx1080-nccltests104.txt", "sendrecv", 0, 1},
	})
}

// The count column is the count nccl-tests passes NCCL: the per-rank
// count for all_gather, reduce_scatter, alltoall, gather and scatter (the
// size is count × type size × ranks), the whole count for the others. A
// table without rank lines whose every size is count × type size is no
// reduce_scatter's, and one whose sizes are a multiple of it is no
// all_reduce's, whatever busbw/algbw allows.
func TestCountColumnNarrowsTheCollective(t *testing.T) {
	const header = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
	for _, c := range []struct {
		row, want string
	}{
		// 1 MiB of floats, count 262144: all_reduce (busbw/algbw 1.75).
		{"     1048576        262144     float     sum      -1    40.12   26.14   45.74      0    39.80   26.35   46.11      0\n", "all_reduce"},
		// The same sizes with count 32768 (8 ranks × 32768 floats): reduce_scatter.
		{"     1048576         32768     float     sum      -1    40.12   26.14   22.87      0    39.80   26.35   23.06      0\n", "reduce_scatter"},
	} {
		if got := collOrCandidates(parseTests(t, header+c.row).Runs[0]); got != c.want {
			t.Errorf("%q: read as %s, want %s", strings.TrimSpace(c.row), got, c.want)
		}
	}
	x := ncclTests(t, "nccl-tests/nccltests-zero-size-rows-reduce-scatter-nccltests128.txt")
	if r := x.Runs[0]; r.Collective != "reduce_scatter" {
		t.Errorf("nccl-tests#128 reduce-scatter read as %s%v", r.Collective, r.Candidates)
	}
}

// A table without rank lines of a per-rank count collective shows its
// rank count in the count column: the awsome-distributed-training scatter
// ran on 16 ranks, nccl-tests#78's alltoall on 64 (its 8 nodes × 8 V100).
// Before, both read 0 ranks. The count column's ranks stay out of the
// busbw factor test: nccl#340's all_gather of the NCCL 2.6 era prints
// busbw equal to algbw on 2 ranks and stays all_gather.
func TestCountColumnGivesTheRanks(t *testing.T) {
	for _, c := range []struct {
		file  string
		run   int
		ranks int
		coll  string
	}{
		{"scatter-srun-l-efa-no-rank-lines-79GBps-awsome-validation.txt", 0, 16, "gather/scatter"},
		{"allreduce-alltoall-v100-8n-64rank-ib100g-old-error-column-two-tables-nccltests78.txt", 1, 64, "alltoall"},
		{"allreduce-alltoall-v100-8n-64rank-ib100g-old-error-column-two-tables-nccltests78.txt", 0, 0, "all_reduce"},
		{"nccltests-nccl2.6-no-redop-column-0e00-error-nccl340.txt", 0, 2, "all_gather"},
		// Rank lines win: 16 listed.
		{"allreduce-2.26.2-h100-2n-16rank-8x400g-ib-xpmem-help-lines-before-ranks-469GBps-nccltests309.txt", 0, 16, "all_reduce"},
	} {
		r := ncclTests(t, "nccl-tests/"+c.file).Runs[c.run]
		coll := collOrCandidates(r)
		if r.NRanks() != c.ranks || coll != c.coll || r.RanksFromCount() != (c.ranks > 0 && r.RankCount == 0) {
			t.Errorf("%s run %d: %s on %d ranks (from the count column: %v); want %s on %d", c.file, c.run, coll, r.NRanks(), r.RanksFromCount(), c.coll, c.ranks)
		}
	}
}
