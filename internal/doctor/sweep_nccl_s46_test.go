package doctor

import (
	"strings"
	"testing"
)

// ncclLogFindingsS46 is what the doctor finds in each of the real logs
// taken from public threads in session 46 (testdata/corpus/nccl-log; each
// file names its source): every finding's id and severity, sorted.
var ncclLogFindingsS46 = []struct{ file, want string }{
	{"nccl-mpi-uncaught-runtime-error-unhandled-cuda-error-ompi-abort-report-no-frames-deepbench97.txt", "nccltests.failed:error"},
	{"uccl-glog-roce-version-read-einval-then-check-failed-abort-uccl301.txt", "nccl.ib.qp_setup_failed:error"},
	{"nccltests-2.14.3-summit-internal-error-then-glibc-corrupted-double-linked-list-abort-nccl726.txt", "nccltests.failed:error"},
	{"mscclpp-tagged-ranks-uncaught-std-exception-interleaved-ompi-frames-mscclpp665.txt", "nccltests.failed:error"},
	{"nccl-2.27-vllm-ray-two-hosts-profiler-library-without-symbols-v3-v1-socket-gpustack3067.txt", "nccl.plugin.no_symbol:info nccl.transport.socket_fallback:error"},
}

func TestNCCLLogCorpusFindingsS46(t *testing.T) { checkLogFindings(t, ncclLogFindingsS46) }

// A process that aborts itself prints why just before Open MPI's signal
// report. baidu-research/DeepBench#97: two ranks throw std::runtime_error
// on "NCCL failure: unhandled cuda error" and each gets the report with
// no frames; the finding names the exception and its NCCL error (not a
// crash to look for in a backtrace), one finding for both processes (the
// texts differ only in the rank), with the what() line as evidence.
func TestAbortReportTiedToUncaughtException(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-mpi-uncaught-runtime-error-unhandled-cuda-error-ompi-abort-report-no-frames-deepbench97.txt")
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1:\n%s", len(fs), nicTitles(fs))
	}
	f := nicMustFind(t, fs, "nccltests.failed", Error, "uncaught std::runtime_error", "unhandled cuda error", "jetson-3, jetson-2 (2 processes)")
	if f.Evidence[0].Line != 5 || !strings.Contains(f.Evidence[0].Text, "what():") {
		t.Errorf("evidence %+v, want the what() line (5) first", f.Evidence)
	}
	if !strings.Contains(f.Mechanism, "CUDA call failing under NCCL") || strings.Contains(f.Fix, "backtrace") || strings.Contains(f.Mechanism, "maxBytes") {
		t.Errorf("mechanism %q\nfix %q", f.Mechanism, f.Fix)
	}
}

// An exception's NCCL error is explained without nccl-tests' options
// (-e maxBytes, -g): the program that threw it is another (synthetic
// lines in DeepBench#97's form, with CUDA's out-of-memory string).
func TestThrownNCCLErrorNotToldInTestsTerms(t *testing.T) {
	fs := diagnoseText(t, "terminate called after throwing an instance of 'std::runtime_error'\n  what():  NCCL failure: Cuda failure 'out of memory'\n[h1:7] *** Process received signal ***\n[h1:7] Signal: Aborted (6)\n").Findings
	f := nicMustFind(t, fs, "nccltests.failed", Error, "uncaught std::runtime_error")
	for _, s := range []string{f.Mechanism, f.Fix} {
		if strings.Contains(s, "maxBytes") || strings.Contains(s, "-e") || strings.Contains(s, "-g") {
			t.Errorf("nccl-tests' terms in %q", s)
		}
	}
	if !strings.Contains(f.Mechanism, "GPU memory exhausted") {
		t.Errorf("mechanism %q", f.Mechanism)
	}
}

// NVIDIA/nccl#726: glibc's heap check aborting the process after the test
// stopped is told as memory corruption (the line above the report), not a
// crash to read in frames; microsoft/mscclpp#665: Open MPI's tags and the
// ranks' interleaved frames keep one finding for both ranks' bare
// std::exception, whose what() text is its type and is not repeated.
func TestAbortReportHeapAndTaggedException(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccltests-2.14.3-summit-internal-error-then-glibc-corrupted-double-linked-list-abort-nccl726.txt")
	f := nicMustFind(t, fs, "nccltests.failed", Error, "signal 6 (Aborted) after glibc's 'corrupted double-linked list'")
	if !strings.Contains(f.Mechanism, "Memory corruption") || !strings.Contains(f.Fix, "memory checker") {
		t.Errorf("mechanism %q\nfix %q", f.Mechanism, f.Fix)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/mscclpp-tagged-ranks-uncaught-std-exception-interleaved-ompi-frames-mscclpp665.txt")
	f = nicMustFind(t, fs, "nccltests.failed", Error, "after an uncaught std::exception on my-dev-1 (2 processes)")
	if len(f.Evidence) != 3 || f.Evidence[0].Line != 5 {
		t.Errorf("evidence %+v, want the first what() line (5) and both Signal lines", f.Evidence)
	}
}

// uccl-project/uccl#301: UCCL's glog CHECK of ncclIbRoceGetVersionNum
// after its warning that the read failed is the abort, not a second
// failure whose message is the check's argument list.
func TestGlogCheckOfRoceVersionIsNoSecondFailure(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/uccl-glog-roce-version-read-einval-then-check-failed-abort-uccl301.txt")
	f := nicMustFind(t, fs, "nccl.ib.qp_setup_failed", Error, "read failed: Invalid argument")
	if strings.Contains(f.Title, "deviceName") || len(f.Evidence) != 1 {
		t.Errorf("title %q, evidence %+v", f.Title, f.Evidence)
	}
}

// gpustack/gpustack#3067: after a file was put in under the profiler's
// default name, NCCL's profiler loader found none of ncclProfiler_v3..v1
// in it ("failed to find ncclProfiler_v1." is the last) and ran without a
// profiler: told once, on the host that printed it. A loader that goes on
// to load v1 after missing v2 found a profiler: no finding.
func TestProfilerLibraryWithoutSymbols(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.27-vllm-ray-two-hosts-profiler-library-without-symbols-v3-v1-socket-gpustack3067.txt")
	f := nicMustFind(t, fs, "nccl.plugin.no_symbol", Info, "profiler", "sysz-2x3090-nvlink", "ran without a profiler")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 7 {
		t.Errorf("evidence %+v, want the v1 line (7)", f.Evidence)
	}
	fs = diagnoseText(t, "h1:1:1 [0] NCCL INFO PROFILER/Plugin: failed to find ncclProfiler_v2.\nh1:1:1 [0] NCCL INFO PROFILER/Plugin: loaded ncclProfiler_v1.\n").Findings
	nicMustNot(t, fs, "nccl.plugin.no_symbol")
}

// Which library the profiler loader opened, as NCCL printed it
// (synthetic lines in the forms of src/misc/profiler.cc v2.24.3-1,
// src/plugin/plugin_open.cc v2.27.7-1 and src/plugin/profiler.cc
// v2.28.3-1): NCCL_PROFILER_PLUGIN's library is named with the setting's
// line as evidence, 2.28's "External profiler plugin X is unsupported"
// is read, with or without the setting (a default libnccl-profiler.so
// found), and a default file 2.23-2.27 do not name is told as the
// default's.
func TestProfilerLibraryNamedOrDefault(t *testing.T) {
	for _, c := range []struct {
		name, log string
		title     []string
		evidence  int
	}{
		{"2.24 setting", "h1:1:1 [0] NCCL INFO PROFILER/Plugin: Plugin name set by env to /opt/libnccl-net.so\nh1:1:1 [0] NCCL INFO PROFILER/Plugin: failed to find ncclProfiler_v2.\nh1:1:1 [0] NCCL INFO PROFILER/Plugin: failed to find ncclProfiler_v1.\n",
			[]string{"NCCL_PROFILER_PLUGIN's /opt/libnccl-net.so"}, 2},
		{"2.28 setting", "h1:1:1 [0] NCCL INFO NCCL_PROFILER_PLUGIN set by environment to libx.so\nh1:1:1 [0] NCCL INFO External profiler plugin libx.so is unsupported\n",
			[]string{"NCCL_PROFILER_PLUGIN's libx.so"}, 2},
		{"2.28 default", "h1:1:1 [0] NCCL INFO External profiler plugin /usr/lib/libnccl-profiler.so is unsupported\n",
			[]string{"The profiler library /usr/lib/libnccl-profiler.so, found under the default name,"}, 1},
		{"2.26 default", "h1:1:1 [0] NCCL INFO PROFILER/Plugin: failed to find ncclProfiler_v3\nh1:1:1 [0] NCCL INFO PROFILER/Plugin: failed to find ncclProfiler_v1.\n",
			[]string{"default name, libnccl-profiler.so"}, 1},
	} {
		fs := diagnoseText(t, c.log).Findings
		f := nicMustFind(t, fs, "nccl.plugin.no_symbol", Info, append(c.title, "ran without a profiler")...)
		if len(f.Evidence) != c.evidence {
			t.Errorf("%s: evidence %+v, want %d lines", c.name, f.Evidence, c.evidence)
		}
	}
}

// Any glog CHECK of a net plugin is its abort after the failure its W
// line told, whatever call the expression names (synthetic lines in
// uccl-project/uccl#301's glog form, the check of ibv_modify_qp).
func TestGlogCheckOfAnyCallIsNoSecondFailure(t *testing.T) {
	fs := diagnoseText(t, "W20250825 11:10:33.595331   331 util_rdma.h:547] NET/IB: Call to ibv_modify_qp failed with error Connection timed out\nF20250825 11:10:33.595355   331 util_rdma.h:592] Check failed: ibv_modify_qp(qp, &attr, mask) == 0 Call to ibv_modify_qp failed\n*** Check failure stack trace: ***\n").Findings
	f := nicMustFind(t, fs, "nccl.ib.qp_setup_failed", Error, "ibv_modify_qp: Connection timed out")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 1 {
		t.Errorf("title %q, evidence %+v", f.Title, f.Evidence)
	}
}
