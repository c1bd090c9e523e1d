package doctor

import (
	"os"
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
	// A failure with no later run of another library says nothing of it.
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-tests/alltoall-2.17.6-h800-2n-device-kernel-D1-illegal-memory-access-nccltests355.txt")
	f = nicMustFind(t, fs, "nccltests.failed", Error, "illegal memory access")
	if strings.Contains(f.Mechanism, "ran through") {
		t.Errorf("mechanism %q", f.Mechanism)
	}
}
