package ingest

import (
	"fmt"
	"testing"
)

// Vendor guides elide a 16-rank run's rank lines to each host's first and
// last (OCI's Slurm-operator page: ranks 0 and 7 on one host, 8 and 15 on
// the other, devices 0 and 7): a block layout of 8 ranks a host. Lines
// that do not show both ends of every host's block, or whose devices do
// not sit at their place in it, say nothing of the other ranks.
func TestRanksPerHostElidedBlocks(t *testing.T) {
	const params = "# nThread 1 nGpus 1 minBytes 1073741824 maxBytes 8589934592 step: 2(factor) warmup iters: 1 iters: 100 agg iters: 1 validation: 1 graph: 0\n"
	line := func(rank int, host string, dev int) string {
		return fmt.Sprintf("#  Rank %2d Group  0 Pid   2574 on %s device  %d [0000:0f:00] NVIDIA A100-SXM4-40GB\n", rank, host, dev)
	}
	for _, c := range []struct {
		name, ranks string
		want        int // ranks per host, 0 for none
	}{
		{"first and last of each host", line(0, "a", 0) + line(7, "a", 7) + line(8, "b", 0) + line(15, "b", 7), 8},
		{"GB300 page: two of each host", line(0, "a", 0) + line(1, "a", 1) + line(6, "b", 2) + line(7, "b", 3), 0},
		{"device off its place", line(0, "a", 0) + line(7, "a", 6) + line(8, "b", 0) + line(15, "b", 7), 0},
		{"a host outside its block", line(0, "a", 0) + line(7, "a", 7) + line(8, "a", 0) + line(15, "b", 7), 0},
		{"starts past rank 0", line(8, "b", 0) + line(15, "b", 7), 0},
	} {
		x := parseTests(t, params+c.ranks)
		hosts, counts := x.Runs[0].RanksPerHost()
		got := 0
		if len(hosts) == 2 && counts[0] == counts[1] {
			got = counts[0]
		}
		if got != c.want || c.want == 0 && len(hosts) > 0 {
			t.Errorf("%s: hosts %v counts %v, want %d a host", c.name, hosts, counts, c.want)
		}
	}
}

// The same four lines above a table whose busbw/algbw ratio is
// all_reduce's on 32 ranks (1.9375) are not 2 hosts x 8: the job ran
// past the ranks shown.
func TestRanksPerHostElidedBlocksRatio(t *testing.T) {
	line := func(rank int, host string, dev int) string {
		return fmt.Sprintf("#  Rank %2d Group  0 Pid   2574 on %s device  %d [0000:0f:00] NVIDIA A100-SXM4-40GB\n", rank, host, dev)
	}
	text := "# Collective test starting: all_reduce_perf\n" +
		"# nThread 1 nGpus 1 minBytes 1073741824 maxBytes 2147483648 step: 2(factor) warmup iters: 1 iters: 100 agg iters: 1 validation: 1 graph: 0\n" +
		line(0, "a", 0) + line(7, "a", 7) + line(8, "b", 0) + line(15, "b", 7) +
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
	for _, busbw := range []string{"187.50", "193.75"} {
		rows := fmt.Sprintf("  1073741824     268435456     float     sum      -1  10737.4  100.00  %s      0  10737.4  100.00  %s      0\n", busbw, busbw) +
			fmt.Sprintf("  2147483648     536870912     float     sum      -1  21474.8  100.00  %s      0  21474.8  100.00  %s      0\n", busbw, busbw)
		hosts, counts := parseTests(t, text+rows).Runs[0].RanksPerHost()
		want := busbw == "187.50" // 16 ranks: 2 x 8
		if got := len(hosts) == 2 && counts[0] == 8; got != want {
			t.Errorf("busbw %s: hosts %v counts %v", busbw, hosts, counts)
		}
	}
}
