package doctor

import (
	"strings"
	"testing"
)

// ncclLogFindingsS41 is what the doctor finds in each of the real NCCL logs
// taken from public threads in session 41 (testdata/corpus/nccl-log; each
// file names its source): every finding's id and severity, sorted.
var ncclLogFindingsS41 = []struct{ file, want string }{
	{"nccl-2.27.7-h100-ucx-caught-signal-11-backtrace-libnccl-frames-no-test-output-nccl1996.txt", "nccltests.failed:error"},
	{"nccl-info-level-quoted-no-prefix-gdr-disabled-peermem-loaded-not-registered-ubuntu24-nccl1939.txt", "nccl.gdr.disabled:warn"},
	{"nccl-2.2x-one-host-socket-eno8303-and-docker-veth-ipv6-link-local-abort-complete-nccl1499.txt", "nccl.transport.socket_fallback:warn"},
	{"nccl-2.2x-megatron-modify-qp-110-init-rtr-gid3-bond-subnets-172.168-172.16-net-ib-shared-paimegatron612.txt", "gid.index.ipv4:info nccl.gdr.disabled:warn nccl.ib.qp_setup_failed:error nccl.transport.ib:info"},
	{"nccl-2.22-dgx-os-25.01-gdr-disabled-three-hcas-no-reason-nvidia-peermem-nccl1676.txt", "nccl.gdr.disabled:warn"},
	{"nccl-2.27.3-profiler-plugin-could-not-find-dot-slash-name-nccl1732.txt", ""},
	{"nccl-16-containers-socket-eth0-no-real-path-net-h-chain-direct-shm-nccl367.txt", "nccl.transport.socket_fallback:error"},
	{"nccl-2.21-ib-addr-range-family-roce-version-gid-type-read-chain-no-warn-nccltests-system-error-nccl1332.txt", "nccl.ib.qp_setup_failed:error nccltests.failed:error"},
}

func TestNCCLLogCorpusFindingsS41(t *testing.T) { checkLogFindings(t, ncclLogFindingsS41) }

// NCCL 2.21 and 2.22 return ncclSystemError without a WARN when the RoCE
// type of a GID cannot be read while they choose the index themselves
// (NVIDIA/nccl#1332): the return chain's first two locations name the
// failure, and the test's stop points at it, not at a missing WARN.
func TestUnwarnedGIDTypeReadIsSetupFailure(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.21-ib-addr-range-family-roce-version-gid-type-read-chain-no-warn-nccltests-system-error-nccl1332.txt")
	f := nicMustFind(t, fs, "nccl.ib.qp_setup_failed", Error, "ncclIbRoceGetVersionNum")
	if !strings.Contains(f.Fix, "NCCL_IB_GID_INDEX") || f.Evidence[0].Line != 6 {
		t.Errorf("fix %q, evidence %+v", f.Fix, f.Evidence)
	}
	stop := nicMustFind(t, fs, "nccltests.failed", Error, "unhandled system error")
	if strings.Contains(stop.Fix, "no WARN") {
		t.Errorf("stop fix %q", stop.Fix)
	}
}

// A process that died on a signal is told by where its backtrace stops:
// a crash in libnccl.so itself (NVIDIA/nccl#1996, NCCL 2.27.7, RAS) points
// at NCCL_RAS_ENABLE=0 and addr2line, with the frame as evidence; and a
// crash with no nccl-tests output around it is not called a test's stop.
func TestCrashInNCCLNamedByFrame(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.27.7-h100-ucx-caught-signal-11-backtrace-libnccl-frames-no-test-output-nccl1996.txt")
	f := nicMustFind(t, fs, "nccltests.failed", Error, "in libnccl.so")
	if strings.Contains(f.Title, "nccl-tests") || !strings.Contains(f.Fix, "NCCL_RAS_ENABLE=0") || !strings.Contains(f.Fix, "addr2line") || len(f.Evidence) != 2 {
		t.Errorf("title %q\nfix %q\nevidence %+v", f.Title, f.Fix, f.Evidence)
	}
}
