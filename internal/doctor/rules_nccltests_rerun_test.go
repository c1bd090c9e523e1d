package doctor

import (
	"os"
	"strings"
	"testing"
)

// KoyoImai/dgx_spark_cluster2 step 11: the same all_gather_perf between two
// DGX Spark, 22.05 GB/s through the QSFP switch after a reboot, 2.83 GB/s
// after the cable was moved. Alone, neither run is judged (no NIC speed);
// together they are one test on the same ranks that lost 87%.
func TestBusBWRerunApart(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/allgather-2.18.3-gb10-2n-1g-qsfp-recabled-2.8GBps-after-22-x11-auth-lines-koyoimai.txt")
	f := nicMustFind(t, fs, "nccltests.busbw.rerun", Warn, "nccl-tests all_gather on the same 2 ranks (spark-4440, spark-fb97) reached 22.05 GB/s in one run and 2.83 GB/s (13%) in another of 2, over the same sizes (1GiB-4GiB): something changed between the runs")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 20 || f.Evidence[1].Line != 44 {
		t.Errorf("evidence %+v, want both runs' 4 GiB rows (lines 20 and 44)", f.Evidence)
	}
}

// CSCS's nccl-tests image guide prints the same 8-rank all_reduce on two
// GH200 nodes with and without the aws-ofi-nccl hook, one file each: given
// together, as one incident, they are one test that lost 95%.
func TestBusBWRerunAcrossFiles(t *testing.T) {
	fs := diagnoseFiles(t, Options{},
		"corpus/nccl-tests/allreduce-2.17.1-gh200-2n-8rank-slingshot-aws-ofi-hook-reindented-rows-123GBps-cscsdocs.txt",
		"corpus/nccl-tests/allreduce-2.17.1-gh200-2n-8rank-slingshot-no-aws-ofi-hook-reindented-rows-5GBps-cscsdocs.txt")
	nicMustFind(t, fs, "nccltests.busbw.rerun", Warn, "all_reduce on the same 8 ranks (nid005471, nid005487) reached 115.75 GB/s in one run and 5.48 GB/s (5%) in another of 2, over the same sizes (64MiB-128MiB)")
}

// Two synthetic runs of one all_reduce on the same two hosts: 70% of the
// other is a change (below fallFraction), 80% is not; runs of different
// nccl-tests builds, or on other hosts, are not compared.
func TestBusBWRerunThreshold(t *testing.T) {
	run := func(version, host, busbw string) string {
		return "# nccl-tests version " + version + " nccl-headers=22809 nccl-library=22809\n" +
			"# Collective test starting: all_reduce_perf\n" +
			"# nThread 1 nGpus 1 minBytes 1073741824 maxBytes 4294967296 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n" +
			"#  Rank  0 Group  0 Pid   1001 on     node-a device  0 [0x01] NVIDIA H100 80GB HBM3\n" +
			"#  Rank  1 Group  0 Pid   1002 on     " + host + " device  0 [0x01] NVIDIA H100 80GB HBM3\n#\n" +
			"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n" +
			"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n" +
			"  1073741824     268435456     float     sum      -1   1000.0   " + busbw + "   " + busbw + "      0   1000.0   " + busbw + "   " + busbw + "      0\n" +
			"  2147483648     536870912     float     sum      -1   2000.0   " + busbw + "   " + busbw + "      0   2000.0   " + busbw + "   " + busbw + "      0\n" +
			"  4294967296    1073741824     float     sum      -1   4000.0   " + busbw + "   " + busbw + "      0   4000.0   " + busbw + "   " + busbw + "      0\n" +
			"# Out of bounds values : 0 OK\n"
	}
	text := func(runs ...string) string { return "# synthetic: two all_reduce_perf runs\n" + strings.Join(runs, "") }
	nicMustFind(t, diagnoseText(t, text(run("2.18.3", "node-b", "40.00"), run("2.18.3", "node-b", "28.00"))).Findings,
		"nccltests.busbw.rerun", Warn, "reached 40.00 GB/s in one run and 28.00 GB/s (70%) in another of 2")
	nicMustNot(t, diagnoseText(t, text(run("2.18.3", "node-b", "40.00"), run("2.18.3", "node-b", "32.00"))).Findings, "nccltests.busbw.rerun")
	nicMustNot(t, diagnoseText(t, text(run("2.18.3", "node-b", "40.00"), run("2.19.6", "node-b", "20.00"))).Findings, "nccltests.busbw.rerun")
	nicMustNot(t, diagnoseText(t, text(run("2.18.3", "node-b", "40.00"), run("2.18.3", "node-c", "20.00"))).Findings, "nccltests.busbw.rerun")
}

// The KoyoImai paste cut inside the slow run's table, after its 2 GiB row
// (a job killed mid-sweep, or an output cut short): the runs' plateaus
// are 1GiB-4GiB and 1GiB-2GiB, and the two sizes both reached still show
// the loss, compared over those sizes only (medians 21.43 and 2.83 GB/s).
// The same cut of CRLF text is read alike.
func TestBusBWRerunCutShort(t *testing.T) {
	data, err := os.ReadFile(nicTestdata("corpus/nccl-tests/allgather-2.18.3-gb10-2n-1g-qsfp-recabled-2.8GBps-after-22-x11-auth-lines-koyoimai.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if !strings.HasPrefix(strings.TrimSpace(lines[42]), "2147483648") {
		t.Fatalf("line 43 is %q, want the slow run's 2 GiB row", lines[42])
	}
	cut := strings.Join(lines[:43], "")
	for _, text := range []string{cut, strings.ReplaceAll(cut, "\n", "\r\n")} {
		f := nicMustFind(t, diagnoseText(t, text).Findings, "nccltests.busbw.rerun", Warn,
			"reached 21.43 GB/s in one run and 2.83 GB/s (13%) in another of 2, over the same sizes (1GiB-2GiB)")
		if len(f.Evidence) != 2 || f.Evidence[0].Line != 19 || f.Evidence[1].Line != 43 {
			t.Errorf("evidence %+v, want both runs' 2 GiB rows (lines 19 and 43)", f.Evidence)
		}
	}
}
