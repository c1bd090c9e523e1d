package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/unit"
)

// A table of independent 1-rank jobs (nccl-tests without MPI=1 under
// mpirun: NVIDIA/nccl-tests#294, busbw 0.00 on every row, each size twice)
// was judged "0% of what 100Gbps allows" (error nccltests.busbw.low) beside
// the finding that says its bandwidth is meaningless.
func TestSplitRunBusBWNotJudged(t *testing.T) {
	const file = "corpus/nccl-tests/allreduce-busbw-zero-duplicate-rows-one-rank-each-nccltests294.txt"
	fs := diagnoseFiles(t, Options{NICSpeed: 100 * unit.Gbps}, file)
	nicMustFind(t, fs, "nccltests.ranks.split", Error)
	nicMustNot(t, fs, "nccltests.busbw.low")
	nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "not judged", "independent jobs")
}

// Two ranks on GPU 0 of one host, made to look like two hosts with
// NCCL_HOSTID (nccl-eBPF's socket experiments): the run read as an
// ordinary one-node all_reduce. Eight ranks on eight GPUs are no finding.
func TestRanksSharedGPU(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/allreduce-2.18.0-mpirun-tag-output-stderr-two-ranks-one-gpu-socket-rtx5090.txt")
	f := nicMustFind(t, fs, "nccltests.ranks.shared_gpu", Warn, "ranks 0 and 1 on lab device 0 share one GPU")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 15 || f.Evidence[1].Line != 16 {
		t.Errorf("evidence %v, want the two rank lines", f.Evidence)
	}
	nicMustNot(t, diagnoseFiles(t, Options{}, "corpus/nccl-tests/metax-c500-1n-8gpu-mccl-tests-allgather-blank-redop.txt"), "nccltests.ranks.shared_gpu")
}

// nccl-tests#355: the failure of the first size is printed on the line
// nccl-tests had started for that size's row ("2097152 32768 float none
// -1 node0: Test CUDA failure common.cu:389 'an illegal memory access was
// encountered'"). It is read as the test's failure, an error naming the
// device-API kernels' one-NVLink-domain limit the maintainers gave;
// before, the line was a row not read (a warning) and the failure missed.
func TestFailureOnRowLine(t *testing.T) {
	fs := Diagnose([]string{nicTestdata("corpus/nccl-tests/alltoall-2.17.6-h800-2n-device-kernel-D1-illegal-memory-access-nccltests355.txt")}, nil, Options{}).Findings
	f := nicMustFind(t, fs, "nccltests.failed", Error, "a CUDA call failed at common.cu:389 with 'an illegal memory access was encountered' on node0")
	if !strings.Contains(f.Mechanism, "one NVLink domain") || !strings.Contains(f.Fix, "-D 0") {
		t.Errorf("mechanism %s\nfix %s", f.Mechanism, f.Fix)
	}
	nicMustNot(t, fs, "nccltests.rows.unread")
	// The failure explains the empty table: no second warning about it.
	nicMustNot(t, fs, "nccltests.rows.none")
}

// nccl-tests' abort line pasted without its host (NVIDIA/nccl#1913,
// "Test NCCL failure all_reduce.cu:471 'internal error ...'"). Before, the
// line was not read and the file gave no finding at all. The aws-ofi-nccl
// WARN before it is quoted as evidence after the abort line.
func TestTestFailureWithoutHost(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.28.9-ofi-remote-rails-mismatch-test-failure-no-host-nccl1913.txt")
	f := nicMustFind(t, fs, "nccltests.failed", Error, "failed at all_reduce.cu:471", "'internal error")
	// The failure's line first, the WARN that names its cause after it.
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 14 || f.Evidence[1].Line != 3 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// Real text: nccl-tests#254 (every process prints itself as
// Rank 0) and nccl-tests#213 (two banners back to back).
func TestNCCLTestsRanksSplit(t *testing.T) {
	for _, rel := range []string{"corpus/threads/allreduce-every-rank-0-no-mpi-nccltests254.txt", "corpus/threads/allreduce-two-banners-separate-nodes-nccltests213.txt"} {
		rep := Diagnose([]string{nicTestdata(rel)}, nil, Options{})
		f := nicMustFind(t, rep.Findings, "nccltests.ranks.split", Error)
		if !strings.Contains(f.Fix, "MPI=1") || !strings.Contains(f.Fix, "mpirun -np") {
			t.Errorf("%s: fix %s", rel, f.Fix)
		}
	}
	// A healthy multi-rank preamble is not split.
	rep := Diagnose([]string{"-"}, strings.NewReader(synthTestsRuns(2)), Options{})
	nicMustNot(t, rep.Findings, "nccltests.ranks.split")
}

// A test that stopped on a failed call is an error that names the call,
// the error and the hosts, once per distinct error.
func TestNCCLTestsFailed(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/nccltests-failure-after-rows-hostname-prefix-nccltests322.txt")
	var got []Finding
	for _, f := range fs {
		if f.ID == "nccltests.failed" {
			got = append(got, f)
		}
	}
	if len(got) != 1 || got[0].Severity != Error {
		t.Fatalf("nccltests.failed findings %v, want one error", ids(fs))
	}
	for _, want := range []string{"an NCCL call", "common.cu:1204", "unhandled cuda error", "HCA-128", "4 processes"} {
		if !strings.Contains(got[0].Title, want) {
			t.Errorf("title %q lacks %q", got[0].Title, want)
		}
	}
	if !strings.Contains(got[0].Mechanism, "GPU memory") {
		t.Errorf("mechanism %q: want the CUDA error's usual causes", got[0].Mechanism)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-tests/rccltests-nthreads-colon-banner-internal-error-rccltests50.txt")
	if f := find(fs, "nccltests.failed"); f == nil || !strings.Contains(f.Mechanism, "'internal error'") {
		t.Errorf("rccl-tests internal error: %v", ids(fs))
	}
}

// A row whose algbw is not a number is reported where it is, not as a row
// cut short or a table without a size. Synthetic row.
func TestNCCLTestsGarbledRow(t *testing.T) {
	fs := diagnoseText(t, "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"+
		"   1048576   262144  float sum -1 12.3 abc 1.0 0 12.0 1.0 1.0 0\n").Findings
	nicMustFind(t, fs, "input.garbled", Warn, "<stdin>:2:40: expected a number of at least 0 (the out-of-place algbw) in an nccl-tests row")
	nicMustNot(t, fs, "nccltests.rows.unread")
	nicMustNot(t, fs, "nccltests.rows.none")
}

// A CUDA call nccl-tests makes itself fails with CUDA's own error string.
// Those outside the known list were explained as NCCL's 'unhandled cuda
// error' ("a CUDA call failing under NCCL: GPU memory exhausted ..."), and
// 'system not yet initialized', the Fabric Manager of an NVSwitch node not
// running (nccl-tests#264, #338), was sent to NCCL_DEBUG=INFO, which says
// nothing of it.
func TestNCCLTestsCUDAFailureCauses(t *testing.T) {
	for _, c := range []struct{ file, cause, fix string }{
		{"nccltests-2.16.4-h20-2vm-test-cuda-failure-system-not-yet-initialized-fabricmanager-nccltests338.txt", "cudaErrorSystemNotReady", "nvidia-fabricmanager"},
		{"nccltests-h100-1n-g8-test-cuda-failure-system-not-yet-initialized-nccltests264.txt", "cudaErrorSystemNotReady", "nvidia-fabricmanager"},
		{"nccltests-test-cuda-failure-uncorrectable-ecc-one-line.txt", "cudaErrorECCUncorrectable", "ROW_REMAPPER"},
		{"nccltests-test-cuda-failure-no-kernel-image-sm90-build-one-line.txt", "cudaErrorNoKernelImageForDevice", "NVCC_GENCODE"},
		{"nccltests-one-line-test-cuda-failure-unknown-error-nccltests66.txt", "before or outside NCCL", "dmesg"},
	} {
		f := nicMustFind(t, diagnoseFiles(t, Options{}, "corpus/nccl-tests/"+c.file), "nccltests.failed", Error)
		if !strings.Contains(f.Mechanism, c.cause) || strings.Contains(f.Mechanism, "'unhandled cuda error'") || !strings.Contains(f.Fix+f.Mechanism, c.fix) {
			t.Errorf("%s: why %q, fix %q; want %q and %q, not NCCL's 'unhandled cuda error'", c.file, f.Mechanism, f.Fix, c.cause, c.fix)
		}
	}
}

// NVML not finding the GPU by its bus id (a Slurm task bound to its own
// GPU under ConstrainDevices, nccl-tests#300) was told as a WARN of no
// known meaning ("read the WARN's source file").
func TestNVMLGPUNotFound(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/nccltests-a100-pcie-srun-tres-bind-nvml-not-found-unhandled-system-error-4-processes-nccltests300.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "NVML cannot find the GPU")
	if !strings.Contains(f.Mechanism, "per_task") || !strings.Contains(f.Fix, "--gpus-per-node") {
		t.Errorf("why %q, fix %q", f.Mechanism, f.Fix)
	}
}

// A WARN pasted wrapped after its tag ("NCCL WARN NET/IB:", the words
// "Got completion from peer ... status=12" on the next line) was read as
// NCCL's IB transport failing at init: "NCCL falls back to TCP sockets"
// beside the retry-exceeded error it is. DGX Spark notes, bonded RoCE.
func TestWrappedNETIBWarnIsNoInitFailure(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/alltoall-gb10-2n-roce-bond-xor-retry-exceeded-warn-wrapped-after-net-ib-dgxspark.txt")
	nicMustNot(t, fs, "nccl.transport.socket_fallback")
	nicMustFind(t, fs, "nccl.ib.retry_exceeded", Error)
}

// Two init failures whose WARN was told as one of no known meaning, or
// not at all: NVML's library missing (nccl-tests#320), and NCCL_NET
// naming a network no loaded plugin provides ("Error: network AWS
// Libfabric not found.", CSCS's documentation), whose 'invalid usage'
// was explained only as ranks calling NCCL differently.
func TestInitWarnsNVMLMissingAndNetNotFound(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/allreduce-2.26.2-rtx-a6000-1n-g3-failed-to-open-libnvidia-ml-unhandled-system-error-nccltests320.txt")
	nicMustFind(t, fs, "nccl.warn.error", Error, "NCCL could not load NVML")
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-tests/nccltests-invalid-usage-nccl-net-aws-libfabric-not-found-cscs-doc.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Warn, "NCCL_NET names a network no loaded plugin provides")
	if !strings.Contains(f.Fix, "NET/Plugin: Loaded") {
		t.Errorf("fix %q", f.Fix)
	}
	if f := nicMustFind(t, fs, "nccltests.failed", Error); !strings.Contains(f.Mechanism, "NCCL_NET naming a network") {
		t.Errorf("why %q", f.Mechanism)
	}
}

// nccl-tests' -T watchdog (src/common.cu of NVIDIA/nccl-tests a0b82b2,
// printf("%s: Test timeout (%ds) %s:%d\n", ...)) ends a test whose
// collective hung past N seconds. SYNTHETIC text built from that printf:
// no public paste of the line was found. Before, the line was not read and
// the run was told as "no size printed: hung or cut" (a warning).
func TestNCCLTestsTimeout(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# nccl-tests version 2.19.6 nccl-headers=22907 nccl-library=22907",
		"# Collective test starting: all_reduce_perf",
		"# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0",
		"#",
		"# Using devices",
		"#  Rank  0 Group  0 Pid   4242 on     node-0 device  0 [0000:18:00] NVIDIA H100 80GB HBM3",
		"#  Rank  1 Group  0 Pid   5151 on     node-1 device  0 [0000:18:00] NVIDIA H100 80GB HBM3",
		"#",
		"#                                                              out-of-place                       in-place          ",
		"#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong ",
		"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         ",
		"[1,0]<stdout>:node-0: Test timeout (60s) common.cu:523",
		"[1,1]<stdout>:node-1: Test timeout (60s) common.cu:523",
		"[1,0]<stdout>: .. node-0 pid 4242: Test failure common.cu:664",
	)
	f := nicMustFind(t, fs, "nccltests.failed", Error, "a collective did not complete within its -T 60 s timeout (common.cu:523) on node-0, node-1 (2 processes)")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 12 || !strings.Contains(f.Mechanism, "ncclCommAbort") || !strings.Contains(f.Fix, "ib_write_bw") {
		t.Errorf("evidence %+v\nmechanism %s\nfix %s", f.Evidence, f.Mechanism, f.Fix)
	}
	nicMustNot(t, fs, "nccltests.rows.none")
}

// nccl-tests refusing to start, from Azure/cluster-health-monitor's
// captured outputs (ND H100 v5 under mpirun): 2.19.7 with -g 99 on an
// 8-GPU node, each process printing "Invalid number of GPUs: N requested
// but only 8 were found." in place of its rank lines (before: output cut in
// its banner, info); and every rank refusing -b (before: no artifact at
// all, exit 2).
func TestNCCLTestsRefusedToStart(t *testing.T) {
	for _, c := range []struct{ file, title, mechanism, fix string }{
		{"allreduce-2.19.7-invalid-number-of-gpus-mpirun-ppr8-h100-ndv5-clusterhealthmonitor.txt", "5 processes needed GPU indices up to 296, 395, 494, 593, 791 (the highest each needed) but each sees only 8 GPUs on nccl-badgpus", "local rank", "NCCL_TESTS_DEVICE=0"},
		{"invalid-size-minbytes-mpirun-8-ranks-h100-ndv5-clusterhealthmonitor.txt", "it refused its command line: invalid size specified for 'minbytes' (7 processes)", "K, M or G", "-b 8 -e 16G"},
	} {
		fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/"+c.file)
		f := nicMustFind(t, fs, "nccltests.failed", Error, c.title)
		if len(f.Evidence) != 3 || !strings.Contains(f.Mechanism, c.mechanism) || !strings.Contains(f.Fix, c.fix) {
			t.Errorf("%s: evidence %+v\nmechanism %s\nfix %s", c.file, f.Evidence, f.Mechanism, f.Fix)
		}
		nicMustNot(t, fs, "nccltests.rows.none")
	}
}

// A process of nccl-tests dying on a signal (NVIDIA/nccl#2112, real lines:
// NCCL 2.30.3 with the example profiler plugin, UCX's "Caught signal 11")
// stopped the test: told as a crash, with the plugins to rule out, not as a
// header with no rows.
func TestNCCLTestsCrashOnSignal(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/nccl-2.30.3-nccltests-2.17.8-profiler-plugin-segfault-ucx-signal-two-hosts-nccl2112.txt")
	f := nicMustFind(t, fs, "nccltests.failed", Error, "died on signal 11 (Segmentation fault)", "h20-01")
	if !strings.Contains(f.Fix, "NCCL_PROFILER_PLUGIN") {
		t.Errorf("fix %q", f.Fix)
	}
}

// nccl-tests refusing its device-API options and an option the binary
// lacks: SYNTHETIC outputs after common.cu (2.17+) and glibc getopt_long,
// each under mpirun with two ranks. Before, neither was a finding, and the
// refused option exits 0 after printing its usage.
func TestNCCLTestsRefusedOptions(t *testing.T) {
	for _, c := range []struct {
		lines                 []string
		title, mechanism, fix string
	}{
		{[]string{
			"# nccl-tests version 2.17.6 nccl-headers=22807 nccl-library=22807",
			"device implementation (-D > 0) requires enabling symmetric memory registration (-R 2)",
			"device implementation (-D > 0) requires enabling symmetric memory registration (-R 2)",
		}, "it refused its command line: device implementation (-D > 0) requires enabling symmetric memory registration (-R 2) (2 processes)", "NCCL 2.28", "Give -R 2"},
		{[]string{
			"# nccl-tests version 2.19.6 nccl-headers=22903 nccl-library=22903",
			"This test requires GIN support, but GIN support is not enabled for this communicator.",
			"This test requires GIN support, but GIN support is not enabled for this communicator.",
		}, "the communicator lacks what -D needs: This test requires GIN support, but GIN support is not enabled for this communicator. (2 processes)", "across nodes therefore needs GIN", "its -D 3 and 4 need GIN"},
		{[]string{
			"DeviceImplementation > 1 requires CUDA P2P connectivity across all ranks. Not all ranks of this communicator have P2P connectivity.",
		}, "the communicator lacks what -D needs: DeviceImplementation > 1 requires CUDA P2P", "every -D > 0", "all_reduce_perf needs CUDA P2P across all ranks for every -D > 0"},
		{[]string{
			"./build/all_reduce_perf: invalid option -- 'D'",
			"invalid option '?'",
			"USAGE: all_reduce_perf ",
			"\t[-t,--nthreads <num threads>] ",
			"\t[-h,--help]",
		}, "it refused its command line: ./build/all_reduce_perf: invalid option -- 'D'", "exits with status 0", "all_reduce_perf -h"},
	} {
		fs := synthFindings(t, Options{}, c.lines...)
		f := nicMustFind(t, fs, "nccltests.failed", Error, c.title)
		if !strings.Contains(f.Mechanism, c.mechanism) || !strings.Contains(f.Fix, c.fix) {
			t.Errorf("%s:\nmechanism %s\nfix %s", c.title, f.Mechanism, f.Fix)
		}
		nicMustNot(t, fs, "nccltests.rows.none")
		nicMustNot(t, fs, "input.garbled")
	}
}

// getopt's complaint and nccl-tests' "invalid option '?'" after it are one
// refusal: one finding, citing both.
func TestNCCLTestsRefusedOptionOnce(t *testing.T) {
	fs := synthFindings(t, Options{}, "./build/all_reduce_perf: invalid option -- 'D'", "invalid option '?'", "USAGE: all_reduce_perf ")
	var n int
	for _, f := range fs {
		if f.ID == "nccltests.failed" {
			n++
			if len(f.Evidence) != 2 {
				t.Errorf("evidence %+v", f.Evidence)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d nccltests.failed findings, want 1: %+v", n, fs)
	}
}

// Two runs in one paste refusing different options are two refusals
// (SYNTHETIC, after glibc getopt_long and common.cu).
func TestNCCLTestsRefusedOptionsTwoRuns(t *testing.T) {
	fs := synthFindings(t, Options{},
		"./build/all_reduce_perf: invalid option -- 'D'", "invalid option '?'", "USAGE: all_reduce_perf ",
		"./build/all_reduce_perf: unrecognized option '--device_impl=1'", "invalid option '?'", "USAGE: all_reduce_perf ")
	nicMustFind(t, fs, "nccltests.failed", Error, "invalid option -- 'D'")
	nicMustFind(t, fs, "nccltests.failed", Error, "unrecognized option '--device_impl=1'")
}

// prasad-nair-amd/aion: rccl-tests built against RCCL 2.28.3 headers ran
// the container's RCCL 2.27.7 ("rccl-headers=22803 rccl-library=22707");
// before, nothing said so. A library newer than its headers is told as
// info; matching ones are not told (SYNTHETIC version lines).
func TestNCCLTestsBuildMismatch(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/rccl-2.17.9-headers-22803-library-22707-1n-g8-docker-pid1-radeon-allreduce-322GBps-aion.txt")
	f := nicMustFind(t, fs, "nccltests.version.mismatch", Warn, "rccl-tests all_reduce ran RCCL 2.27.7, older than the 2.28.3 it was built against")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 3 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	row := "     1048576        262144     float     sum      -1    49.49   21.19   37.08       0    49.51   21.18   37.07       0"
	hdr := "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong"
	fs = synthFindings(t, Options{}, "# nccl-tests version 2.19.6 nccl-headers=22703 nccl-library=2708", "# Collective test starting: all_reduce_perf", hdr, row)
	nicMustFind(t, fs, "nccltests.version.mismatch", Warn, "ran NCCL 2.7.8, older than the 2.27.3")
	fs = synthFindings(t, Options{}, "# nccl-tests version 2.19.6 nccl-headers=22703 nccl-library=22903", "# Collective test starting: all_reduce_perf", hdr, row)
	nicMustFind(t, fs, "nccltests.version.mismatch", Info, "ran NCCL 2.29.3, newer than the 2.27.3")
	fs = synthFindings(t, Options{}, "# nccl-tests version 2.19.6 nccl-headers=22903 nccl-library=22903", "# Collective test starting: all_reduce_perf", hdr, row)
	nicMustNot(t, fs, "nccltests.version.mismatch")
	// Two runs of one build: one finding.
	v := "# nccl-tests version 2.19.6 nccl-headers=22903 nccl-library=22807"
	fs = synthFindings(t, Options{}, v, "# Collective test starting: all_reduce_perf", hdr, row, v, "# Collective test starting: all_gather_perf", hdr, row)
	var n int
	for _, f := range fs {
		if f.ID == "nccltests.version.mismatch" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d version mismatch findings for one version line, want 1", n)
	}
}

// An option nccl-tests ran without is an info finding naming it, once per
// distinct line (SYNTHETIC lines after common.cu at 2.19.6).
func TestNCCLTestsOptionIgnored(t *testing.T) {
	r := "Option -R (register) is not supported before NCCL 2.19. Ignoring"
	fs := synthFindings(t, Options{}, "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 1", r, r, "per-iteration timing (-I) is incompatible with CUDA graph mode (-G). Disabling.")
	f := nicMustFind(t, fs, "nccltests.option.ignored", Info, "ran without -R: "+r)
	if len(f.Evidence) != 2 || !strings.Contains(f.Fix, "Rebuild nccl-tests") {
		t.Errorf("evidence %+v fix %s", f.Evidence, f.Fix)
	}
	f = nicMustFind(t, fs, "nccltests.option.ignored", Info, "ran without -I")
	if !strings.Contains(f.Fix, "conflicts") {
		t.Errorf("fix %s", f.Fix)
	}
}

// UCX's line cut right after the signal number (synthetic) has no
// description: the title says the signal without an empty "()".
func TestNCCLTestsCrashOnSignalNoDescription(t *testing.T) {
	fs := synthFindings(t, Options{},
		"#  Rank  0 Group  0 Pid 3765587 on h20-01 device  0 [0000:08:00] NVIDIA H20",
		"[h20-01:3765588:0:3767672] Caught signal 11")
	f := nicMustFind(t, fs, "nccltests.failed", Error, "died on signal 11")
	if strings.Contains(f.Title, "()") {
		t.Errorf("title %q", f.Title)
	}
}

// One crash on several processes is one finding: the fault address after
// ':' differs per process (synthetic UCX lines after ucs_handle_error).
func TestNCCLTestsCrashOnSignalGrouped(t *testing.T) {
	fs := synthFindings(t, Options{},
		"#  Rank  0 Group  0 Pid 3765587 on     h20-01 device  0 [0000:08:00] NVIDIA H20",
		"#  Rank  1 Group  0 Pid 1234568 on     h20-02 device  0 [0000:08:00] NVIDIA H20",
		"[h20-01:3765588:0:3767672] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x48)",
		"[h20-02:1234568:0:1234999] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x7f00)",
		"[h20-01:3765587:0:3767673] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x50)")
	n := 0
	for _, f := range fs {
		if f.ID == "nccltests.failed" {
			n++
			if !strings.Contains(f.Title, "(3 processes)") {
				t.Errorf("title %q", f.Title)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d crash findings for one signal, want 1", n)
	}
}

// nccl-tests refusing a library of another device-API generation is told
// once, as that refusal, not also as a build mismatch (SYNTHETIC, after
// common.cu 2.17's line).
func TestNCCLTestsIncompatibleDeviceAPI(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# nccl-tests version 2.17.6 nccl-headers=22903 nccl-library=22807",
		"# nThread 1 nGpus 8 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
		"Incompatible NCCL versions. nccl-tests was compiled with NCCL 22903, but is running with NCCL 22807. The Device API is not compatible across versions.")
	nicMustFind(t, fs, "nccltests.failed", Error, "the NCCL it loaded does not share the device API it was built for: Incompatible NCCL versions")
	nicMustNot(t, fs, "nccltests.version.mismatch")
}

// xxrjun/nccl-tests-cluster's pairwise log of two H100 nodes: alltoall_perf
// and then sendrecv_perf both stop on 'remote process exited' before their
// first row. The one finding names the two tests, the processes each lost
// (not 11 summed over both) and the first line of each. The same log's
// neighbour, where only alltoall fails, names no list.
func TestNCCLTestsFailureNamesTestsOneAfterAnother(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/alltoall-sendrecv-2.17.6-h100-2n-g8-both-runs-remote-exited-before-rows-xxrjun.txt")
	f := nicMustFind(t, fs, "nccltests.failed", Error, "remote process exited", "in 2 tests one after another (alltoall: 6 processes, sendrecv: 5 processes)")
	if strings.Contains(f.Title, "11 processes") || !cites(f, ".txt", 23) || !cites(f, ".txt", 56) {
		t.Errorf("processes summed or a test's first line missing: %s %v", f.Title, f.Evidence)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-tests/alltoall-sendrecv-2.17.6-h100-2n-g4-remote-exited-then-sendrecv-falls-exp-time-xxrjun.txt")
	if f := nicMustFind(t, fs, "nccltests.failed", Error, "remote process exited"); strings.Contains(f.Title, "tests one after another") {
		t.Errorf("one test failed: %s", f.Title)
	}
}

// The same test run twice in a loop, failing alike both times, is two runs,
// not one test (synthetic: the xxrjun log with its second test renamed
// alltoall).
func TestNCCLTestsFailureSameTestTwice(t *testing.T) {
	b, err := os.ReadFile(nicTestdata("corpus/nccl-tests/alltoall-sendrecv-2.17.6-h100-2n-g8-both-runs-remote-exited-before-rows-xxrjun.txt"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "alltoall-twice-remote-exited-synthetic.txt")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(b), "sendrecv_perf", "alltoall_perf")), 0o644); err != nil {
		t.Fatal(err)
	}
	nicMustFind(t, Diagnose([]string{path}, nil, Options{}).Findings, "nccltests.failed", Error, "in 2 tests one after another (alltoall: 6 processes, alltoall: 5 processes)")
}
