package doctor

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// A test that stops on an NCCL error names the WARN NCCL printed before
// it: a NIC merge NCCL 2.30.7 refuses across NUMA nodes (synthetic) ('invalid
// argument', told apart from 'invalid usage'), and RCCL's 'invalid kernel
// file' (no code object for the gfx target) told as a build without the
// GPU's architecture.
func TestNCCLTestsFailedNamesWarnBefore(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "synthetic/nccl-force-merge-cross-numa-invalid-argument-synthetic.txt")
	f := nicMustFind(t, fs, "nccltests.failed", Error, "'invalid argument")
	if !strings.Contains(f.Fix, "'Fusing NET devices from different NUMA domains is not supported'") || !strings.Contains(f.Mechanism, "ncclInvalidArgument") || strings.Contains(f.Mechanism, "'invalid usage'") {
		t.Errorf("fix %q\nmechanism %q", f.Fix, f.Mechanism)
	}

	fs = diagnoseFiles(t, Options{}, "corpus/nccl-tests/rccl-2.17.1-rx7900xtx-1n-g2-invalid-kernel-file-unhandled-cuda-error.txt")
	f = nicMustFind(t, fs, "nccltests.failed", Error, "rccl-tests stopped", "'unhandled cuda error'")
	if !strings.Contains(f.Mechanism, "hipErrorInvalidKernelFile") || !strings.Contains(f.Mechanism, "no code object for some device it can see") || !strings.Contains(f.Fix, "HIP_VISIBLE_DEVICES") || !strings.Contains(f.Fix, "GPU_TARGETS") {
		t.Errorf("fix %q\nmechanism %q", f.Fix, f.Mechanism)
	}
	// The same run with HIP's own lines (written here, as ROCm prints
	// them at AMD_LOG_LEVEL=1) names the device without a code object.
	b, err := os.ReadFile(nicTestdata("corpus/nccl-tests/rccl-2.17.1-rx7900xtx-1n-g2-invalid-kernel-file-unhandled-cuda-error.txt"))
	if err != nil {
		t.Fatal(err)
	}
	hip := ":1:hip_code_object.cpp     :507 : 2795123456 us: 776691: [tid:0x7f5c] Devices:\n" +
		":1:hip_code_object.cpp     :510 : 2795123460 us: 776691: [tid:0x7f5c]   amdgcn-amd-amdhsa--gfx1036 - [Not Found]\n" +
		":1:hip_code_object.cpp     :516 : 2795123470 us: 776691: [tid:0x7f5c] hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"
	text := strings.Replace(string(b), "RCCL version 2.17.1", hip+"RCCL version 2.17.1", 1)
	f = nicMustFind(t, diagnoseText(t, text).Findings, "nccltests.failed", Error, "rccl-tests stopped")
	if !strings.Contains(f.Mechanism, "none for gfx1036") || !strings.Contains(f.Fix, "Hide gfx1036, the one") {
		t.Errorf("fix %q\nmechanism %q", f.Fix, f.Mechanism)
	}
}

// The same test rerun in one output on another NCCL build that ran
// through tells a library's fault from the host's: nccl-tests 2.19.7 on
// NCCL 2.18.3 stops on an illegal memory access, on 2.31.2 it runs.
func TestNCCLTestsFailedLaterRunOtherLibrary(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/h200-vm-4g-illegal-access-2.18.3-then-2.31.2.txt")
	f := nicMustFind(t, fs, "nccltests.failed", Error, "illegal memory access")
	if !strings.Contains(f.Mechanism, "on NCCL 2.31.2 (line 37), ran through") || !strings.Contains(f.Mechanism, "NCCL 2.18.3, not the host") || !strings.HasPrefix(f.Fix, "Use the build that ran (NCCL 2.31.2") {
		t.Errorf("fix %q\nmechanism %q", f.Fix, f.Mechanism)
	}
	if !strings.Contains(f.Fix, "report the failure on NCCL 2.18.3 to") {
		t.Errorf("fix %q", f.Fix)
	}
	// The later run on another host, or on fewer GPUs, says nothing of
	// the host the failure was on.
	b, err := os.ReadFile(nicTestdata("corpus/nccl-tests/h200-vm-4g-illegal-access-2.18.3-then-2.31.2.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for _, c := range []struct{ from, to string }{
		{"Pid  97166 on nccltest08192", "Pid  97166 on otherhost0001"},
		{"nGpus 4", "nGpus 2"},
	} {
		out := slices.Clone(lines)
		for i := 24; i < len(out); i++ {
			out[i] = strings.ReplaceAll(out[i], c.from, c.to)
		}
		if c.from == "nGpus 4" {
			out = slices.DeleteFunc(out, func(l string) bool {
				return strings.Contains(l, "Pid  97166") && (strings.Contains(l, "device  2") || strings.Contains(l, "device  3"))
			})
		}
		f = nicMustFind(t, diagnoseText(t, strings.Join(out, "\n")).Findings, "nccltests.failed", Error, "illegal memory access")
		if strings.Contains(f.Mechanism, "ran through") {
			t.Errorf("%s: mechanism %q", c.to, f.Mechanism)
		}
	}
	// A failure with no later run of another library says nothing of it.
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-tests/alltoall-2.17.6-h800-2n-device-kernel-D1-illegal-memory-access-nccltests355.txt")
	f = nicMustFind(t, fs, "nccltests.failed", Error, "illegal memory access")
	if strings.Contains(f.Mechanism, "ran through") {
		t.Errorf("mechanism %q", f.Mechanism)
	}
}

// The WARN quoted is the first meaningful one of the failed run, on the
// failing host: RCCL's routine init WARNs (iommu=pt, NUMA balancing) are
// passed over for the UCX plugin's error (ROCm/rccl#1261), a WARN whose
// words a paste wrapped onto the next line is not quoted as 'NET/IB:',
// and a WARN of an earlier run that measured is never taken.
func TestNCCLTestsFailedWarnOfFailedRun(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/rccl-2.18.3-ucx-plugin-bnxt_re-gdr-invalid-parameter-rccl1261.txt")
	f := nicMustFind(t, fs, "nccltests.failed", Error, "'internal error")
	if !strings.Contains(f.Fix, "UCX error ucx_plugin.c:498 '-5' Invalid parameter") {
		t.Errorf("fix %q", f.Fix)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-tests/alltoall-gb10-2n-roce-bond-xor-retry-exceeded-warn-wrapped-after-net-ib-dgxspark.txt")
	for _, f := range nicFind(fs, "nccltests.failed") {
		if strings.Contains(f.Fix, "'NET/IB:'") {
			t.Errorf("fix quotes a wrapped WARN: %q", f.Fix)
		}
	}
	// SYNTHETIC: a run that measured after a WARN, then a run that stops.
	run := func(rows ...string) []string {
		return append([]string{
			"# nThread 1 nGpus 1 minBytes 8 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
			"#",
			"# Using devices",
			"#  Rank  0 Group  0 Pid   1000 on      hostA device  0 [0x1b] NVIDIA H100 80GB HBM3",
			"#  Rank  1 Group  0 Pid   2000 on      hostB device  0 [0x1b] NVIDIA H100 80GB HBM3",
		}, rows...)
	}
	lines := run("hostA:1000:1010 [0] transport/net_ib.cc:700 NCCL WARN NET/IB : earlier run's warning",
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
		"           8             2     float     sum      -1    20.00    0.00    0.00      0    20.00    0.00    0.00      0",
		"        1024           256     float     sum      -1    21.00    0.05    0.05      0    21.00    0.05    0.05      0")
	// The failed run printed no WARN: nothing of the earlier run is quoted.
	quiet := append(append([]string{}, lines...), run("hostB: Test NCCL failure common.cu:1158 'unhandled system error / '")...)
	f = nicMustFind(t, synthFindings(t, Options{}, quiet...), "nccltests.failed", Error, "'unhandled system error")
	if strings.Contains(f.Fix, "earlier run") || !strings.Contains(f.Fix, "no WARN naming the failed call") {
		t.Errorf("fix %q", f.Fix)
	}
	lines = append(lines, run(
		"hostB:2000:2010 [0] init.cc:136 NCCL WARN Missing \"iommu=pt\" from kernel command line which can lead to system instablity or hang!",
		"hostA:1000:1020 [0] bootstrap.cc:100 NCCL WARN Bootstrap : hostA's own trouble",
		"hostB:2000:2020 [0] transport/net_ib.cc:900 NCCL WARN NET/IB : hostB's cause",
		"hostA:1000:1030 [0] misc/socket.cc:57 NCCL WARN socketProgress: Connection closed by remote peer hostB<35187>",
		"hostB: Test NCCL failure common.cu:1158 'unhandled system error / '")...)
	f = nicMustFind(t, synthFindings(t, Options{}, lines...), "nccltests.failed", Error, "'unhandled system error")
	if !strings.Contains(f.Fix, "'NET/IB : hostB's cause'") {
		t.Errorf("fix %q", f.Fix)
	}
	// The WARNs nccl.warn.error never takes for a cause (notACause): a
	// search NCCL fell back from and a stranger's connection are not
	// quoted either.
	lines = run(
		"hostB:2000:2005 [0] graph/search.cc:1100 NCCL WARN Could not find a path for pattern 4, falling back to simple order",
		"hostB:2000:2006 [0] misc/socket.cc:500 NCCL WARN socketFinalizeAccept: wrong magic 0x2f74656d20544547 != 0x3f4c0ef5a2b3c4d5",
		"hostB:2000:2020 [0] transport/net_ib.cc:900 NCCL WARN NET/IB : hostB's cause",
		"hostB: Test NCCL failure common.cu:1158 'unhandled system error / '")
	f = nicMustFind(t, synthFindings(t, Options{}, lines...), "nccltests.failed", Error, "'unhandled system error")
	if !strings.Contains(f.Fix, "'NET/IB : hostB's cause'") {
		t.Errorf("fix %q", f.Fix)
	}
}
