package ingest

import "testing"

// Tests from the session-31 sweep of public nccl-tests and rccl-tests
// outputs: each reads a real one and fails without the fix it names.

// A log of several runs pasted without their headers: rows after a
// table's trailer start another run, named by the "Collective test
// concluded" line that follows them (ROCm/rccl#2075: broadcast_perf, then
// alltoall_perf). They were read as one broadcast run of 20 rows.
func TestNCCLTestsRowsAfterTrailer(t *testing.T) {
	x := ncclTests(t, "nccl-tests/rccl-broadcast-alltoall-gfx1151-1gpu-concluded-banner-rccl2075.txt")
	if len(x.Runs) != 2 {
		t.Fatalf("%d runs, want 2", len(x.Runs))
	}
	for i, want := range []string{"broadcast", "alltoall"} {
		r := x.Runs[i]
		if r.Collective != want || len(r.Rows) != 10 || r.Backsteps != 0 {
			t.Errorf("run %d: %s, %d rows, %d backsteps; want %s, 10 rows, 0 backsteps", i, r.Collective, len(r.Rows), r.Backsteps, want)
		}
	}
	if x.Runs[1].Rows[0].Size != 262144 || x.Runs[1].AvgBusBW != 2.38156 {
		t.Errorf("alltoall run starts at %d B with average %v", x.Runs[1].Rows[0].Size, x.Runs[1].AvgBusBW)
	}
}

// Two commands of a session, hypercube_perf -g 8 failing before its rank
// lines and then -g 2 (nccl-tests#289), print two banners with nothing
// but a failure between them: not one launch's processes each printing
// its banner (nccltests.ranks.split), which banners of the same
// parameters with nothing between them still are.
func TestNCCLTestsBannersOfTwoCommands(t *testing.T) {
	x := ncclTests(t, "nccl-tests/hypercube-rtx5090-test-cuda-failure-invalid-device-ordinal-nccltests289.txt")
	if len(x.BackToBack) != 0 || len(x.Runs) != 2 || x.FailureCount != 2 {
		t.Errorf("%d back-to-back banners, %d runs, %d failures; want 0, 2, 2", len(x.BackToBack), len(x.Runs), x.FailureCount)
	}
	const banner = "# nThread 1 nGpus 2 minBytes 1073741824 maxBytes 34359738368 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n"
	if x := parseTests(t, banner+banner); len(x.BackToBack) != 1 {
		t.Errorf("two identical banners: %d back to back, want 1", len(x.BackToBack))
	}
	other := "# nThread 1 nGpus 8 minBytes 1073741824 maxBytes 34359738368 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n"
	if x := parseTests(t, other+banner); len(x.BackToBack) != 0 {
		t.Errorf("banners of -g 8 and -g 2: %d back to back, want 0", len(x.BackToBack))
	}
}

// An alltoall on 64 ranks prints busbw 2.05 for algbw 2.09 (msccl#48):
// 0.976-0.986 after the two decimals' rounding, so not sendrecv's factor
// of 1, which a fixed margin of 0.03 kept as a candidate.
func TestNCCLTestsRatioPrecision(t *testing.T) {
	x := ncclTests(t, "nccl-tests/alltoall-a100-8n-64g-msccl-inplace-na-msccl48.txt")
	if r := x.Runs[0]; r.Collective != "alltoall" || len(r.Candidates) != 0 {
		t.Errorf("collective %q, candidates %v; want alltoall", r.Collective, r.Candidates)
	}
	// Equal busbw and algbw leave the ratio ambiguous where rounding
	// allows a reduce_scatter of many ranks (nccl#1184: 0.79 = 0.79); its
	// count column, the whole count and not a rank's, settles all_reduce.
	x = ncclTests(t, "nccl-tests/allreduce-dgx-h100-a100-2n-socket-wrong-237858-at-512k-nccl1184.txt")
	if r := x.Runs[0]; r.Collective != "all_reduce" || len(r.Candidates) != 0 {
		t.Errorf("nccl#1184: collective %q, candidates %v; want all_reduce", r.Collective, r.Candidates)
	}
}

// "# Errors with asterisks indicate errors that have exceeded the maximum
// threshold." is rccl-tests' line under its table: an excerpt that keeps
// only the table's end is rccl-tests' (ROCm/rccl#2078).
func TestRCCLTestsToolFromTrailer(t *testing.T) {
	x := ncclTests(t, "nccl-tests/rccl-allreduce-ainic-tail-360GBps-concluded-rccl2078.txt")
	if r := x.Runs[0]; r.Tool != ToolRCCL || r.Collective != "all_reduce" {
		t.Errorf("tool %q, collective %q; want %s all_reduce", r.Tool, r.Collective, ToolRCCL)
	}
}

// A row with every column and a field that is not a number was counted
// as cut short ("fewer columns than the table's header names"), with no
// column. It is a garble at the field, saying what the column holds; the
// column counts the launcher's tag. Synthetic rows.
func TestNCCLTestsRowFieldNotANumber(t *testing.T) {
	const hdr = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
	for _, c := range []struct {
		text, want string
	}{
		{hdr + "   1048576   262144  float sum -1 12.3 abc 1.0 0 12.0 1.0 1.0 0\n",
			`synthetic.txt:2:40: expected a number of at least 0 (the out-of-place algbw) in an nccl-tests row, got "abc 1.0 0 12.0 1.0 1.0 0"`},
		{"[1,0]<stdout>:" + hdr + "[1,0]<stdout>:   1048576   262144  float sum -1 12.3 1.0 1.0 0 12.0 1.0 1.0 x7\n",
			`synthetic.txt:2:77: expected a count or N/A (the in-place #wrong) in an nccl-tests row, got "x7"`},
		{hdr + "   1048576   262144  float sum -1 12.3 1.0 -1.0 0 12.0 1.0 1.0 0\n",
			`synthetic.txt:2:44: expected a number of at least 0 (the out-of-place busbw) in an nccl-tests row, got "-1.0 0 12.0 1.0 1.0 0"`},
	} {
		x := parseTests(t, c.text)
		if x == nil || len(x.Garbled) != 1 || len(x.Runs) != 1 || x.Runs[0].GarbledRows != 1 || len(x.Runs[0].Truncated) != 0 {
			t.Fatalf("%q: read %+v", c.text, x)
		}
		if got := x.Garbled[0].Error("synthetic.txt"); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}
