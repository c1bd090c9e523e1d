package ingest

import (
	"slices"
	"strings"
	"testing"
)

// Tests from a further sweep of public nccl-tests and rccl-tests
// outputs: each reads a real one and fails without the fix it names.

// A line of RCCL's version block ("RCCL version :", "HIP version  :",
// "ROCm version :", "Librccl path :", printed by librccl at
// NCCL_DEBUG=VERSION) says the tests ran on RCCL: an rccl-tests excerpt
// that keeps only "Librccl path" above its table, with no rccl-tests
// version line and no rank line naming an AMD GPU, was named nccl-tests
// (rocm-systems#10251's AINIC alltoall).
func TestRCCLTestsToolFromLibraryVersionBlock(t *testing.T) {
	x := ncclTests(t, "nccl-tests/rccl-ainic-1n-zero-size-rows-padded-librccl-path-inplace-na-rocmsystems10251.txt")
	if r := x.Runs[0]; r.Tool != ToolRCCL || len(r.Rows) != 3 {
		t.Errorf("tool %q, %d rows; want %s, 3 rows", r.Tool, len(r.Rows), ToolRCCL)
	}
	const table = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n" +
		"     1048576        262144     float     sum      -1    40.12   26.14   45.74      0    39.80   26.35   46.11      0\n"
	for _, c := range []struct {
		pre, want string
	}{
		{"Librccl path : /opt/rocm/lib/librccl.so.1\n", ToolRCCL},
		{"RCCL version : 2.22.3-HEAD:7d8d67c\nHIP version  : 6.4.43484-123eb5128\nROCm version : 6.4.2.0-120-e7d83f5\nHostname     : gpu-53\n", ToolRCCL},
		// A key without a value, or NCCL's own version line, says nothing.
		{"Librccl path :\n", ""},
		{"NCCL version 2.21.5+cuda12.4\n", ""},
	} {
		x := parseTests(t, c.pre+table)
		if r := x.Runs[len(x.Runs)-1]; r.Tool != c.want || len(r.Rows) != 1 {
			t.Errorf("%q: tool %q, %d rows; want %q, 1 row", c.pre, r.Tool, len(r.Rows), c.want)
		}
	}
	// It marks its own run only: an nccl-tests run pasted after an
	// rccl-tests one (synthetic) stays nccl-tests.
	x = parseTests(t, "Librccl path : /opt/rocm/lib/librccl.so.1\n"+table+"# Avg bus bandwidth    : 45.9\n#\n# nThread 1 nGpus 8 minBytes 1048576 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n"+table)
	if len(x.Runs) != 2 || x.Runs[0].Tool != ToolRCCL || x.Runs[1].Tool != "" {
		t.Errorf("%d runs, tools %q", len(x.Runs), []string{x.Runs[0].Tool, x.Runs[len(x.Runs)-1].Tool})
	}
	// The block alone, as a PyTorch job on RCCL prints it, is no run.
	if x := parseTests(t, "RCCL version : 2.22.3-HEAD:7d8d67c\nLibrccl path : /opt/rocm/lib/librccl.so.1\n"); x != nil && len(x.Runs) != 0 {
		t.Errorf("version block alone: %d runs, want none", len(x.Runs))
	}
}

// Every output of this sweep is read whole: no row left unread, cut
// short or garbled, with its last run's collective (or the collectives
// its columns allow), rank count and rows.
func TestNCCLTestsMorePublicOutputsReadWhole(t *testing.T) {
	checkReadWhole(t, []readWholeCase{
		{"allreduce-2n-old-format-launch-mode-mlx5-completion-error-4-nccltests24.txt", "all_reduce/all_gather/reduce_scatter/alltoall/sendrecv", 0, 0},
		{"allreduce-a100-2n-1g-srun-pmix-ucx-rows-8b-64b-nccltests150.txt", "all_reduce", 0, 4},
		{"allreduce-p3dn-1n-8g-v100-old-format-rows-8b-nccl318.txt", "all_reduce/sendrecv", 8, 1},
		{"allreduce-p3dn-2n-16g-efa-old-error-column-1m-4m-awsofinccl33.txt", "all_reduce", 16, 3},
		{"allreduce-v100-pcie-1n-4g-rows-8b-64b-unhandled-system-error-nccl1039.txt", "all_reduce", 4, 4},
		{"preamble-a100-p4d-2n-16rank-old-rank-lines-step-bytes-awsofinccl65.txt", "all_reduce/all_gather/reduce_scatter/alltoall/broadcast/reduce/sendrecv/gather/scatter", 9, 0},
		{"rccl-ainic-1n-zero-size-rows-padded-librccl-path-inplace-na-rocmsystems10251.txt", "alltoall", 0, 3},
		{"preamble-h200-1n-8rank-srun-nccl-version-after-ranks-header-cut-nccltests272.txt", "all_reduce/all_gather/reduce_scatter/alltoall/sendrecv", 8, 0},
		{"preamble-v100-2n-1g-roce-bond-old-rank-lines-cut-nccl426.txt", "all_reduce/all_gather/reduce_scatter/alltoall/broadcast/reduce/sendrecv/gather/scatter", 2, 0},
		{"preamble-v100-p3dn-2n-16rank-validation-0-rank-line-cut-in-gpu-name-nccl398.txt", "all_reduce/all_gather/reduce_scatter/alltoall/broadcast/reduce/sendrecv/gather/scatter", 8, 0},
		{"preamble-h100-nebius-2n-16rank-dstack-rank-line-cut-in-host-dstack2604.txt", "all_reduce/all_gather/reduce_scatter/alltoall/broadcast/reduce/sendrecv/gather/scatter", 11, 0},
		{"rccl-mi250x-2n-16rank-old-rank-lines-version-develop-ranks-cut-hpcaienvs21.txt", "all_reduce/all_gather/reduce_scatter/alltoall/broadcast/reduce/sendrecv/gather/scatter", 10, 0},
	})
}

// sendrecv_perf prints the -o operation it ran ("sum" by default), never
// "none": a table whose in-place half is N/A and whose redop is "none"
// is alltoall's (rocm-systems#10251's AINIC run, tinygrad#17's two
// RTX 4090), and one whose redop is "sum" is sendrecv's, as before.
func TestNCCLTestsRedopNoneIsNotSendrecv(t *testing.T) {
	const hdr = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
	for _, c := range []struct {
		redop, count, want string
	}{
		// alltoall's count is per rank: 8 ranks of 32768 floats.
		{"none", " 32768", "alltoall"},
		{" sum", "262144", "sendrecv"},
	} {
		x := parseTests(t, hdr+"     1048576        "+c.count+"     float    "+c.redop+"      -1    40.12   26.14   26.14      0    39.80   26.35   26.35    N/A\n")
		if got := collOrCandidates(x.Runs[0]); got != c.want {
			t.Errorf("redop %q: %s, want %s", c.redop, got, c.want)
		}
	}
}

// An excerpt that ends inside its table's header keeps where: the units
// line cut before its last "(GB/s)" (nccl-tests#272's "(eleme"); a whole
// units line, with the spaces nccl-tests pads it with, is no cut.
func TestNCCLTestsHeaderCutRead(t *testing.T) {
	x := ncclTests(t, "nccl-tests/preamble-h200-1n-8rank-srun-nccl-version-after-ranks-header-cut-nccltests272.txt")
	if r := x.Runs[0]; r.HeaderCut.Line != 17 || r.Header.Line != 16 {
		t.Errorf("header at line %d, cut at line %d; want 16 and 17", r.Header.Line, r.HeaderCut.Line)
	}
	x = ncclTests(t, "nccl-tests/allreduce-h100-pcie-1n-g2-nvlink-bridge-info-elided-116GBps-nccl1161.txt")
	if r := x.Runs[0]; r.HeaderCut.Line != 0 || len(r.Rows) != 2 || len(r.Truncated) != 1 {
		t.Errorf("nccl#1161: header cut at line %d, %d rows, %d cut; want no header cut, 2 rows, 1 cut", r.HeaderCut.Line, len(r.Rows), len(r.Truncated))
	}
}

// A rank line cut before its "device" field names part of a host
// (dstack#2604's excerpt stops in "on computeins"): its rank counts,
// its host is not one of the job's. The two Nebius hosts were three.
func TestNCCLTestsRankLineCutInHost(t *testing.T) {
	x := ncclTests(t, "nccl-tests/preamble-h100-nebius-2n-16rank-dstack-rank-line-cut-in-host-dstack2604.txt")
	r := x.Runs[0]
	hosts, counts := r.RanksPerHost()
	if r.RankCount != 11 || len(hosts) != 2 || counts[0] != 8 || counts[1] != 2 {
		t.Errorf("%d rank lines, hosts %v with %v ranks; want 11 lines, 2 hosts with 8 and 2", r.RankCount, hosts, counts)
	}
	// Cut inside the GPU's name, after "device 7", the host is whole.
	x = ncclTests(t, "nccl-tests/preamble-v100-p3dn-2n-16rank-validation-0-rank-line-cut-in-gpu-name-nccl398.txt")
	if hosts, counts := x.Runs[0].RanksPerHost(); len(hosts) != 1 || counts[0] != 8 {
		t.Errorf("nccl#398: hosts %v with %v ranks; want 1 host with 8", hosts, counts)
	}
}

// The -T watchdog's line (NVIDIA/nccl-tests src/common.cu,
// printf("%s: Test timeout (%ds) %s:%d\n", hostname, timeout, __FILE__,
// __LINE__)) is the test's failure: host, seconds and place. Lines that
// only look like it are not. SYNTHETIC lines built from that printf.
func TestNCCLTestsTimeoutLine(t *testing.T) {
	x := parseTests(t, strings.Join([]string{
		"#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong ",
		"gpu-a17: Test timeout (300s) /opt/nccl-tests/src/common.cu:523",
		"Test timeout (5s) common.cu:523",
		"  1073741824     268435456     float     sum      -1   5000.1  214.74  375.80       0 gpu-e5: Test timeout (60s) common.cu:523",
		"two words: Test timeout (300s) common.cu:523",
		"gpu-b2: Test timeout (300) common.cu:523",
		"gpu-c3: Test timeout (xs) common.cu:523",
		"gpu-d4: Test timeout (99999999999999999999s) common.cu:523",
	}, "\n")+"\n")
	want := []TestFailure{{Host: "gpu-a17", Timeout: 300, Where: "/opt/nccl-tests/src/common.cu:523"}, {Timeout: 5, Where: "common.cu:523"}, {Host: "gpu-e5", Timeout: 60, Where: "common.cu:523"}}
	if x.FailureCount != len(want) || len(x.Failures) != len(want) {
		t.Fatalf("failures %+v, want %+v", x.Failures, want)
	}
	for i, w := range want {
		g := x.Failures[i]
		if g.Host != w.Host || g.Timeout != w.Timeout || g.Where != w.Where || g.Call != "" || g.Evidence.Line != i+2 {
			t.Errorf("failure %d %+v, want %+v", i, g, w)
		}
	}
}

// nccl-tests' device check (common.cu since af68bc5, September 2025):
// "Invalid number of GPUs: 297 requested but only 8 were found." is the
// test's failure; its SYNTHETIC variants that are not the line are not.
func TestNCCLTestsTooFewGPUsLine(t *testing.T) {
	x := parseTests(t, strings.Join([]string{
		"# Using devices",
		"Invalid number of GPUs: 297 requested but only 8 were found.",
		"Invalid number of GPUs: 0 requested but only 8 were found.",
		"Invalid number of GPUs: 16 requested but only eight were found.",
		"Invalid number of GPUs: 16 requested",
	}, "\n")+"\n")
	if x == nil || x.FailureCount != 1 || len(x.Failures) != 1 {
		t.Fatalf("got %+v", x)
	}
	if f := x.Failures[0]; f.GPUsWanted != 297 || f.GPUsFound != 8 || f.Evidence.Line != 2 {
		t.Errorf("failure %+v", f)
	}
}

// nccl-tests' refusals of its size flags (common.cu) are failures;
// SYNTHETIC lines after that source, and one that is not such a line.
func TestNCCLTestsBadSizeLines(t *testing.T) {
	x := parseTests(t, "invalid size specified for 'stepBytes'\ninvalid sizes for 'minbytes' and 'maxbytes': 9 > 8\ninvalid size specified for 'anything'\n")
	if x == nil || x.FailureCount != 2 || x.Failures[0].Usage != UsageSize || x.Failures[1].Message != "invalid sizes for 'minbytes' and 'maxbytes': 9 > 8" {
		t.Fatalf("got %+v", x)
	}
}

// UCX's error handler line for a process that died on a signal (NVIDIA/nccl#2112,
// NCCL 2.30.3 with a profiler plugin; the paste cut it mid-word) is a failure
// of the run, with its host and signal.
func TestNCCLTestsCaughtSignal(t *testing.T) {
	res, err := Read("t.txt", strings.NewReader("#  Rank  0 Group  0 Pid 3765587 on h20-01 device  0 [0000:08:00] NVIDIA H20\n"+
		"[h20-01:3765588:0:3767672] Caught signal 11 (Segmentation fault: addres\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Artifacts {
		if r, ok := a.(*NCCLTests); ok {
			if len(r.Failures) != 1 || r.Failures[0].Host != "h20-01" || r.Failures[0].Signal != 11 || r.Failures[0].Message != "Segmentation fault: addres" {
				t.Errorf("failures %+v", r.Failures)
			}
			return
		}
	}
	t.Fatal("no nccl-tests artifact")
}

// nccl-tests' refusals of what its command line asked for (common.cu of
// 2.17 and later, glibc getopt_long), each line SYNTHETIC after that
// source, are failures of their kind; lines that only look like them are
// not.
func TestNCCLTestsRefusalLines(t *testing.T) {
	want := []struct {
		line string
		kind UsageKind
	}{
		{"Option -D (device implementation) requires NCCL >= 2.28.0", UsageDevice},
		{"Option -V (device CTA count) requires NCCL >= 2.28.0", UsageDevice},
		{"Option -H (host RMA implementation) requires NCCL >= 2.29.0", UsageDevice},
		{"device implementation (-D > 0) requires enabling symmetric memory registration (-R 2)", UsageDevice},
		{"host RMA implementation (-H) requires enabling symmetric memory registration (-R 2)", UsageDevice},
		{"Cannot use both -H (host RMA implementation) and -D (device implementation) at the same time", UsageDevice},
		{"Device implementation 3 is not supported by this test", UsageDevice},
		{"Device implementation -1 is not supported by this test", UsageDevice},
		{"Incompatible NCCL versions. nccl-tests was compiled with NCCL 22903, but is running with NCCL 22807. The 22903 Device API is not compatible with versions before 2.29.", UsageDevice},
		{"DeviceImplementation > 1 requires CUDA P2P connectivity across all ranks. Not all ranks of this communicator have P2P connectivity.", UsageDevice},
		{"This test requires multimem support, but multimem support is not enabled for this communicator.", UsageDevice},
		{"DeviceImplementation 1 and 2 requires CUDA P2P connectivity across all ranks. Not all ranks of this communicator have P2P connectivity.", UsageDevice},
		{"This test requires GIN support, but GIN support is not enabled for this communicator.", UsageDevice},
		{"./build/all_reduce_perf: invalid option -- 'Q'", UsageOption},
		{"/opt/nccl-tests/build/alltoall_perf: unrecognized option '--device_impl=1'", UsageOption},
		{"all_gather_perf: option requires an argument -- 'b'", UsageOption},
		{"all_reduce_perf_mpi: option '--minbytes' requires an argument", UsageOption},
		{"invalid option '?'", UsageOption},
		{"invalid size specified for 'maxbytes'", UsageSize},
	}
	var lines []string
	for _, w := range want {
		lines = append(lines, w.line)
	}
	lines = append(lines,
		"Device implementation x is not supported by this test",
		"Device implementation - is not supported by this test",
		"invalid option 'QQ'",
		"mpirun: invalid option -- 'Q'",
		"some tool: unrecognized option '--x'",
		"Option -D (device implementation) requires NCCL >= ",
	)
	x := parseTests(t, strings.Join(lines, "\n")+"\n")
	if x == nil || x.FailureCount != len(want) {
		t.Fatalf("got %+v", x)
	}
	for i, w := range want {
		if f := x.Failures[i]; f.Usage != w.kind || f.Message != w.line || f.Evidence.Line != i+1 {
			t.Errorf("line %d: %+v, want %s", i+1, f, w.kind)
		}
	}
}

// The " .. host pid N: Test failure" line under an abort names the host
// of that abort, not of every failure in the file; interleaved, the
// traces follow the aborts' order. SYNTHETIC lines after common.cu.
func TestNCCLTestsFailedHosts(t *testing.T) {
	x := parseTests(t, "Invalid number of GPUs: 16 requested but only 8 were found.\n"+
		"invalid size specified for 'maxbytes'\n"+
		" .. node-a pid 49: Test failure common.cu:1454\n"+
		" .. node-b pid 50: Test failure common.cu:1454\n"+
		" .. two words pid 52: Test failure common.cu:1454\n"+
		"node-c: Test NCCL failure common.cu:1204 'unhandled system error'\n"+
		" .. node-c pid 51: Test failure common.cu:1204\n")
	if x == nil || len(x.Failures) != 3 {
		t.Fatalf("got %+v", x)
	}
	// The refusal returns before any trace: node-b's trace is no one's.
	for i, want := range []string{"node-a", "", "node-c"} {
		if h := x.Failures[i].Host; h != want {
			t.Errorf("failure %d on %q, want %q", i, h, want)
		}
	}
	// Each process prints a trace line per level it unwinds: only its
	// first claims an abort, so nodeB's gets the second.
	x = parseTests(t, "Invalid number of GPUs: 9 requested but only 8 were found.\n"+
		"Invalid number of GPUs: 9 requested but only 8 were found.\n"+
		" .. nodeA pid 100: Test failure common.cu:1100\n"+
		" .. nodeA pid 100: Test failure common.cu:1200\n"+
		" .. nodeB pid 200: Test failure common.cu:1100\n"+
		" .. nodeB pid 200: Test failure common.cu:1200\n")
	if x == nil || len(x.Failures) != 2 || x.Failures[0].Host != "nodeA" || x.Failures[1].Host != "nodeB" {
		t.Errorf("got %+v", x)
	}
	// A local refusal before the job is no node's: nodeB's trace under its
	// own abort leaves it alone.
	x = parseTests(t, "$ ./build/all_reduce_perf -b 8 -e 1Q -g 8\n"+
		"invalid size specified for 'maxbytes'\n"+
		"$ mpirun -np 2 -H nodeA,nodeB ./build/all_reduce_perf -b 8 -e 1G -g 8\n"+
		"nodeB: Test NCCL failure common.cu:1005 'unhandled system error / '\n"+
		" .. nodeB pid 200: Test failure common.cu:891\n"+
		" .. nodeB pid 200: Test failure common.cu:1100\n")
	if x == nil || len(x.Failures) != 2 || x.Failures[0].Host != "" || x.Failures[1].Host != "nodeB" {
		t.Errorf("got %+v", x)
	}
	// The test's own check of the communicator fails through the trace.
	x = parseTests(t, "This test requires GIN support, but GIN support is not enabled for this communicator.\n"+
		" .. n1 pid 100: Test failure alltoall.cu:300\n")
	if x == nil || len(x.Failures) != 1 || x.Failures[0].Host != "n1" {
		t.Errorf("got %+v", x)
	}
}

// A pasted command line that runs the binary itself, after nothing but a
// prompt, environment assignments or sudo/env/time, is one process on one
// host with -t × -g ranks; under a launcher it says nothing of them.
// SYNTHETIC command lines.
func TestNCCLTestsDirectCommandLine(t *testing.T) {
	for _, c := range []struct {
		line string
		want int
	}{
		{"./build/sendrecv_perf -b 128M -e 1G -f 2 -g 8", 8},
		{"root@dkh:~/nccl-tests# ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 8", 8},
		{"(base) [root@gpu-1 nccl-tests]# ./build/all_reduce_perf -b 1G -e 4G -f 2 -g 8", 8},
		{"[user@host my tests]$ ./build/all_reduce_perf -g 4", 4},
		{"(base) [root@gpu-1 nccl-tests]# mpirun -np 16 ./build/all_reduce_perf -g 1", 0},
		{"$ NCCL_ALGO=Tree sudo ./all_reduce_perf -t 2 -g4", 8},
		{"all_gather_perf --nthreads=2 --ngpus=2", 4},
		{"all_reduce_perf -b 8 -e 1G", 1},
		{"mpirun -np 16 ./build/all_reduce_perf -g 1", 0},
		{"srun --mpi=pmix all_reduce_perf -g 1", 0},
		{"python bench.py all_reduce_perf -g 8", 0},
		{"./all_reduce_perf -g x", 0},
		{"./all_reduce_perf -g 0", 0},
		{"./all_reduce_perf -g", 0},
		{"mpirun -np 16 \\\n./build/all_reduce_perf -g 1", 0},
		{"mpirun -np 16 -npernode 8 --hostfile hosts\n\n./build/all_reduce_perf -g 1", 0},
		{"./run_on_nodes.sh --nodes 2 \\\n  ./build/all_reduce_perf -g 8", 0},
		// A launcher named in prose runs nothing; one run as a command,
		// after a colon or quoted, is the binary's launcher.
		{"It is fast under mpirun on two nodes, but alone:\n./build/all_reduce_perf -g 8", 8},
		{"We launch with srun on the cluster; here alone:\n$ ./build/all_reduce_perf -b 8 -e 1G -g 4", 4},
		{"+ ./build/all_reduce_perf -g 4", 4},
		// A launcher after a wrapper command, followed by its options or
		// a continued line, runs the binary on the next line.
		{"+ mpirun -np 16 -H a,b\n./build/all_reduce_perf -g 1", 0},
		{"++ srun --mpi=pmix\n./build/all_reduce_perf -g 1", 0},
		{"nohup torchrun --nnodes 2 --no-python \\\n./build/all_reduce_perf -g 1", 0},
		{"timeout 600 mpirun -np 16 -H a,b\n./build/all_reduce_perf -g 1", 0},
		{"/usr/bin/time -v mpirun -np 16\n./build/all_reduce_perf -g 1", 0},
		{"salloc -N2 srun \\\n./build/all_reduce_perf -g 1", 0},
		{"singularity exec img.sif mpirun -np 16\n./build/all_reduce_perf -g 1", 0},
		{"kubectl exec pod -- mpirun --allow-run-as-root -np 16\n./build/all_reduce_perf -g 1", 0},
		{"command: /usr/bin/mpirun -np 16 -H a,b\n./build/all_reduce_perf -g 1", 0},
		{"I run `mpirun -np 2 -H a,b` with\n./build/all_reduce_perf -g 1", 0},
		{"NCCL_DEBUG=INFO sudo mpirun -np 2\n./build/all_reduce_perf -g 1", 0},
	} {
		x := parseTests(t, c.line+"\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n   134217728      33554432     float     sum      -1   1211.2  110.81  110.81      0   1211.8  110.76  110.76      0\n")
		if x == nil || len(x.Runs) != 1 {
			t.Fatalf("%s: got %+v", c.line, x)
		}
		// Without a direct command line the row's busbw/algbw, 1.00, is
		// all_reduce on 2 ranks: NRanks falls back to it.
		if r := x.Runs[0]; r.DirectRanks != c.want || c.want > 0 && r.NRanks() != c.want || c.want == 0 && !r.RanksFromRatio() {
			t.Errorf("%s: direct ranks %d, NRanks %d, want %d", c.line, r.DirectRanks, r.NRanks(), c.want)
		}
	}
	// The shell's continuation prompt: the command began on an earlier line.
	if launcherless([]string{">"}) {
		t.Error(`">" read as a prompt that starts a command`)
	}
}

// nccl-tests' notices of an option it ran without, by the option named
// (SYNTHETIC lines after common.cu at 2.19.6).
func TestNCCLTestsOptionNotices(t *testing.T) {
	want := map[string]string{
		"Option -R (register) is not supported before NCCL 2.19. Ignoring":                "-R",
		"Option -G (CUDA graph) not supported before NCCL 2.9 + CUDA 11.3. Ignoring":      "-G",
		"Option -x (cta_policy) 3 is not supported before NCCL 2.28. Ignoring":            "-x",
		"per-iteration timing (-I) is incompatible with CUDA graph mode (-G). Disabling.": "-I",
		"blocking mode (-z 3) is incompatible with CUDA graph mode (-G). Disabling.":      "-z",
		"per-iteration skip (-K) requires per-iteration timing (-I 1). Disabling.":        "-K",
	}
	var lines []string
	for l := range want {
		lines = append(lines, l)
	}
	slices.Sort(lines)
	banner := "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 1"
	x := parseTests(t, banner+"\n"+strings.Join(append(lines, "Option - Ignoring", "nothing to see. Disabling."), "\n")+"\n")
	if x == nil || len(x.Notices) != len(want) {
		t.Fatalf("got %+v", x)
	}
	for i, n := range x.Notices {
		if n.Message != lines[i] || n.Option != want[lines[i]] || n.Evidence.Line != i+2 {
			t.Errorf("notice %d: %+v", i, n)
		}
	}
}

// A "[tag] Caught signal N" without UCX's "host:pid:idx:tid" (a launcher's
// "[rank0]", synthetic) names no host: it is not read as UCX's line.
func TestNCCLTestsCaughtSignalNeedsUCXPrefix(t *testing.T) {
	x := parseTests(t, "#  Rank  0 Group  0 Pid 3765587 on h20-01 device  0 [0000:08:00] NVIDIA H20\n[rank0] Caught signal 11 (Segmentation fault)\n[h:x:0:1] Caught signal 11\n")
	if x != nil && x.FailureCount != 0 {
		t.Errorf("failures %+v", x.Failures)
	}
}

// SYNTHETIC command lines: the words that may precede a command are one
// list for both readers, nohup and exec among them: "nohup
// ./all_reduce_perf" runs no launcher, "nohup mpirun ./all_reduce_perf"
// does.
func TestCommandLeadShared(t *testing.T) {
	for _, pre := range [][]string{{"$", "nohup"}, {"#", "exec", "NCCL_ALGO=Ring"}, {"$", "sudo", "env", "time"}} {
		if !launcherless(pre) {
			t.Errorf("%q: a launcher", pre)
		}
	}
	for _, s := range []string{"$ nohup mpirun ./build/all_reduce_perf", "# exec srun ./build/all_reduce_perf", "$ NCCL_DEBUG=INFO mpirun ./build/all_reduce_perf"} {
		if !namesLauncher(s) {
			t.Errorf("%q: no launcher", s)
		}
	}
}
