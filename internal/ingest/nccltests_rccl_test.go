package ingest

import "testing"

// rccl-tests names itself in its version lines, and runs on AMD's HIP
// devices; nccl-tests on NVIDIA's. The lines are those of the corpus's
// rccl-tests runs (rccl-mi300x-2n-16g-roce-8nic-allreduce-357GBps.txt,
// rccl-2.17.9-alltoall-2n-16gpu-aliyun-ucx-warn-zero-rows-91GBps.txt,
// rccl-mi300x-2n-16gpu-check-off-na-341GBps.txt) and of nccl-tests#319.
func TestRCCLTestsTool(t *testing.T) {
	const params = "# nThread 1 nGpus 1 minBytes 8 maxBytes 17179869184 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
	for _, c := range []struct{ text, want string }{
		{params + "#\nrccl-tests: Version develop:448c4c7\n# Using devices\n", ToolRCCL},
		{"# rccl-tests version 2.17.9-develop:4a65e8d rccl-headers=22707 rccl-library=22707\n" + params, ToolRCCL},
		{params + "#  Rank  0 Group  0 Pid 2532785 on      node0 device  0 [0000:05:00] AMD Instinct MI300X\n", ToolRCCL},
		{params + "#  Rank  0 Group  0 Pid 2520136 on     lccn09 device  0 [0000:18:00] NVIDIA H100 80GB HBM3\n", ""},
		// ROCm 5's HIP names consumer cards without the maker, and RCCL's
		// init line stands where NCCL's "NCCL version" does (an issue thread
		// of RCCL 2.17.1 on two RX 7900 XTX, in the corpus).
		{params + "#   Rank  0 Pid 776691 on catalyst-convoy device  0 [0000:03:00.0] Radeon RX 7900 XTX\n", ToolRCCL},
		{params + "RCCL version 2.17.1+hip5.7 HEAD:cbbb3d8+\n#\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n", ToolRCCL},
		{params + "#  Rank  0 Group  0 Pid 1 on h device  0 [0000:18:00] NVIDIA H100\nNCCL version 2.21.5+cuda12.4\n", ""},
	} {
		x := parseTests(t, c.text)
		if len(x.Runs) != 1 {
			t.Fatalf("%q: %d runs, want 1", c.text, len(x.Runs))
		}
		if got := x.Runs[0].Tool; got != c.want {
			t.Errorf("%q: tool %q, want %q", c.text, got, c.want)
		}
	}
}
