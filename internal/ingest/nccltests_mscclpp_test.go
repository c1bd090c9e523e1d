package ingest

import "testing"

// mscclpp-test prints nccl-tests' table without type, redop and root, one
// half per row: allreduce in place, alltoall out of place (indented past
// the in-place columns). Both are read, and the busbw/algbw factor of 8
// ranks, 2·7/8 = 1.75, names all_reduce.
func TestCorpusMSCCLPPOneHalf(t *testing.T) {
	ar := ncclTests(t, "nccl-tests/mscclpp-test-allreduce-1n-8xa100-inplace-one-half-mscclpp83.txt")
	if len(ar.Runs) != 1 {
		t.Fatalf("allreduce runs %d, want 1", len(ar.Runs))
	}
	r := ar.Runs[0]
	if r.Tool != ToolMSCCLPP || r.Collective != "all_reduce" || r.CollectiveFrom != FromColumns || r.NRanks() != 8 {
		t.Errorf("allreduce run: tool %q collective %q from %q, %d ranks", r.Tool, r.Collective, r.CollectiveFrom, r.NRanks())
	}
	if len(r.Rows) != 1 || r.Rows[0].Size != 1<<30 || r.Rows[0].In.BusBW != 110.41 || r.Rows[0].In.Wrong != 0 ||
		r.Rows[0].Out.Time != 0 || r.Rows[0].Measured().AlgBW != 63.09 || r.OutOfBounds != 0 {
		t.Errorf("allreduce rows %+v, out of bounds %d", r.Rows, r.OutOfBounds)
	}

	a2a := ncclTests(t, "nccl-tests/mscclpp-test-alltoall-1n-2n-out-of-place-one-half-mpi-tags-mscclpp87.txt")
	if len(a2a.Runs) != 2 {
		t.Fatalf("alltoall runs %d, want 2", len(a2a.Runs))
	}
	for i, want := range []float64{130.74, 43.25} {
		r := a2a.Runs[i]
		if r.Tool != ToolMSCCLPP || r.Collective != "alltoall" || len(r.Rows) != 1 {
			t.Fatalf("alltoall run %d: tool %q collective %q candidates %v, %d rows", i, r.Tool, r.Collective, r.Candidates, len(r.Rows))
		}
		if row := r.Rows[0]; row.Out.BusBW != want || row.In.Time != 0 || row.In.Wrong != -1 || row.BestBusBW() != want {
			t.Errorf("alltoall run %d row %+v, want out-of-place busbw %v", i, row, want)
		}
	}
}

// A binary named on a pasted command line names the collective.
func TestMSCCLPPBinary(t *testing.T) {
	for bin, want := range map[string]string{"allreduce_test_perf": "all_reduce", "allgather_test_perf": "all_gather",
		"alltoall_test_perf": "alltoall", "sendrecv_test_perf": "sendrecv", "reduce_test_perf": "", "all_reduce_perf": "all_reduce"} {
		if got := collectiveName(bin); got != want {
			t.Errorf("collectiveName(%q) = %q, want %q", bin, got, want)
		}
	}
}

// Under -c 0 mscclpp-test prints no #wrong; a row cut before its busbw is
// kept as cut, not read.
func TestMSCCLPPNoCheck(t *testing.T) {
	// SYNTHETIC: the rows common.cc prints with datacheck off, the last cut.
	x := parseTests(t, "$ mpirun -np 8 ./build/test/mscclpp-test/allgather_test_perf -b 3M -e 6M -f 2 -c 0\n"+
		"# minBytes 3145728 maxBytes 6291456 step: 2(factor) warmup iters: 10 iters: 100 validation: 0 graph: 15 kernel num: 0\n"+
		"#       size         count     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong\n"+
		"     3145728        786432    41.05   76.63   67.05\n"+
		"     6291456       1572864    76.21\n")
	if len(x.Runs) != 1 {
		t.Fatalf("%d runs", len(x.Runs))
	}
	r := x.Runs[0]
	if r.Collective != "all_gather" || r.CollectiveFrom != FromBinary || r.Tool != ToolMSCCLPP || len(r.Rows) != 1 || len(r.Truncated) != 1 {
		t.Fatalf("run %q from %q, tool %q, %d rows, %d cut", r.Collective, r.CollectiveFrom, r.Tool, len(r.Rows), len(r.Truncated))
	}
	if in := r.Rows[0].In; in.BusBW != 67.05 || in.Wrong != -1 || r.Rows[0].Out.Time != 0 {
		t.Errorf("row %+v", r.Rows[0])
	}
}
