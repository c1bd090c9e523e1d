package ingest

import (
	"testing"
)

// A script that runs one test after another (xxrjun/nccl-tests-cluster's
// sbatch logs) prints the next test's "# nccl-tests version" line and
// "# Collective test starting" banner right under the failure of a test
// that died before its first row. They opened the failed run instead of a
// new one: alltoall_perf's run was renamed sendrecv and sendrecv's own run
// had no collective or version.
func TestNCCLTestsBannerAfterFailedRunOpensNextRun(t *testing.T) {
	for _, c := range []struct {
		file  string
		ranks int
		rows  [2]int
	}{
		{"nccl-tests/alltoall-sendrecv-2.17.6-h100-2n-g4-remote-exited-then-sendrecv-falls-exp-time-xxrjun.txt", 8, [2]int{0, 10}},
		{"nccl-tests/alltoall-sendrecv-2.17.6-h100-2n-g8-both-runs-remote-exited-before-rows-xxrjun.txt", 16, [2]int{0, 0}},
	} {
		x := ncclTests(t, c.file)
		if len(x.Runs) != 2 {
			t.Fatalf("%s: %d runs, want 2", c.file, len(x.Runs))
		}
		for i, want := range []string{"alltoall", "sendrecv"} {
			r := x.Runs[i]
			if r.Collective != want || r.CollectiveFrom != FromBanner || r.Version == "" || r.NRanks() != c.ranks || len(r.Rows) != c.rows[i] {
				t.Errorf("%s run %d: %s (%s), version %q, %d ranks, %d rows; want %s, %d ranks, %d rows",
					c.file, i, r.Collective, r.CollectiveFrom, r.Version, r.NRanks(), len(r.Rows), want, c.ranks, c.rows[i])
			}
		}
	}
	// Synthetic: the same with a command line between the failure and the
	// next test's version line; the next run takes its binary's sizes.
	const failed = "# nccl-tests version 2.17.6 nccl-headers=22807 nccl-library=22807\n" +
		"# Collective test starting: alltoall_perf\n" +
		"# nThread 1 nGpus 1 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n" +
		"#  Rank  0 Group  0 Pid 100 on hostA device  0 [0000:9d:00] NVIDIA H100 80GB HBM3\n" +
		"#  Rank  1 Group  0 Pid 200 on hostB device  0 [0000:9d:00] NVIDIA H100 80GB HBM3\n" +
		"hostA: Test NCCL failure common.cu:401 'remote process exited or there was a network error / '\n" +
		" .. hostA pid 100: Test failure common.cu:519\n"
	x := parseTests(t, failed+"$ mpirun -np 2 ./build/sendrecv_perf -b 8M -e 8M\n"+
		"# nccl-tests version 2.17.6 nccl-headers=22807 nccl-library=22807\n"+
		"# Collective test starting: sendrecv_perf\n")
	if len(x.Runs) != 2 || x.Runs[0].Collective != "alltoall" || x.Runs[1].Collective != "sendrecv" || x.Runs[1].MaxBytes != 8<<20 {
		t.Errorf("%d runs: %+v", len(x.Runs), x.Runs)
	}
	// Processes of one launch that print the same banner, with no failure
	// between them, stay one run (nccltests.ranks.split reads them).
	const banner = "# nccl-tests version 2.17.6 nccl-headers=22807 nccl-library=22807\n" +
		"# Collective test starting: all_reduce_perf\n"
	x = parseTests(t, banner+banner+"# nThread 1 nGpus 1 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n")
	if len(x.Runs) != 1 {
		t.Errorf("repeated banner: %d runs, want 1", len(x.Runs))
	}
}
