package doctor

import (
	"strings"
	"testing"
)

// rccl-tests, AMD's port of nccl-tests, names itself in its version line
// ("rccl-tests: Version develop:448c4c7", "# rccl-tests version
// 2.17.9-develop:4a65e8d") and runs on HIP devices ("AMD Instinct
// MI300X"): its findings say rccl-tests. Before, they said nccl-tests.
func TestRCCLTestsTitled(t *testing.T) {
	for _, c := range []struct {
		file, id string
		sev      Severity
		title    string
	}{
		{"rccl-mi300x-2n-16g-roce-8nic-allreduce-357GBps.txt", "nccltests.busbw.unjudged", Info, "rccl-tests all_reduce per-rank busbw plateau 356.14 GB/s"},
		{"rccl-2.17.9-alltoall-2n-16gpu-aliyun-ucx-warn-zero-rows-91GBps.txt", "nccltests.busbw.unjudged", Info, "rccl-tests alltoall per-rank busbw plateau 90.99 GB/s"},
		// No version line: the AMD Instinct rank lines say it.
		{"rccl-mi300x-2n-16gpu-check-off-na-341GBps.txt", "nccltests.busbw.unjudged", Info, "rccl-tests all_reduce per-rank busbw plateau 339.69 GB/s"},
		{"rccltests-nthreads-colon-banner-internal-error-rccltests50.txt", "nccltests.failed", Error, "rccl-tests stopped: an NCCL call failed at common.cu:1285"},
	} {
		fs := Diagnose([]string{nicTestdata("corpus/nccl-tests/" + c.file)}, nil, Options{}).Findings
		nicMustFind(t, fs, c.id, c.sev, c.title)
	}
	// An nccl-tests run on NVIDIA GPUs keeps its name, and two ranks on
	// one host are "both ranks", not "all 2 ranks".
	fs := Diagnose([]string{nicTestdata("corpus/nccl-tests/allreduce-2.18.0-mpirun-tag-output-stderr-two-ranks-one-gpu-socket-rtx5090.txt")}, nil, Options{}).Findings
	nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "nccl-tests all_reduce busbw plateau 2.30 GB/s", "both ranks on one node")
}

// rccl-tests stopping on 'unhandled cuda error' (mx-llama.cpp#7: two MI50
// in one process, the first AllReduce after P2P/direct pointer channels)
// is a HIP call on an AMD GPU, not CUDA's with Xid; and the output already
// holds RCCL's INFO lines without a WARN, so "rerun with NCCL_DEBUG=INFO"
// is no fix.
func TestRCCLTestsFailureOnAMD(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/rccl-2.18.3-mi50-2g-one-process-no-prefix-info-first-allreduce-unhandled-cuda-error-cut-mxllamacpp7.txt")
	f := nicMustFind(t, fs, "nccltests.failed", Error, "rccl-tests stopped", "unhandled cuda error")
	if !strings.Contains(f.Mechanism, "HIP call failing on the AMD GPU") || strings.Contains(f.Mechanism, "Xid") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
	if !strings.Contains(f.Fix, "already holds NCCL INFO lines but no WARN") || !strings.Contains(f.Fix, "AMD_LOG_LEVEL") {
		t.Errorf("fix %s", f.Fix)
	}
}
