package doctor

import (
	"fmt"
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
	{"nccl-2.27.3-profiler-plugin-could-not-find-dot-slash-name-nccl1732.txt", "nccl.plugin.not_found:info"},
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
	const crash = "corpus/nccl-log/nccl-2.27.7-h100-ucx-caught-signal-11-backtrace-libnccl-frames-no-test-output-nccl1996.txt"
	if in := diagnose(t, Options{}, nicTestdata(crash)).Inputs; len(in) != 1 || in[0].Type != "process-crash" {
		t.Errorf("inputs %+v, want one process-crash", in)
	}
	fs := diagnoseFiles(t, Options{}, crash)
	f := nicMustFind(t, fs, "nccltests.failed", Error, "in libnccl.so")
	if strings.Contains(f.Title, "nccl-tests") || !strings.Contains(f.Fix, "on 2.24 or later, rerun with NCCL_RAS_ENABLE=0") || !strings.Contains(f.Fix, "addr2line") || len(f.Evidence) != 2 {
		t.Errorf("title %q\nfix %q\nevidence %+v", f.Title, f.Fix, f.Evidence)
	}
}

// A crash in libnccl.so outside RAS's functions is sent to RAS only on a
// release that has RAS (2.24 on), and asks for addr2line only when the
// frame names no function (synthetic lines in the shapes of
// NVIDIA/nccl#1996 and #1363).
func TestCrashInNCCLAdviceByRelease(t *testing.T) {
	const sig = "[n1:2:0:3] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x48)\n==== backtrace (tid: 3) ====\n 0  /usr/lib/libucs.so.0(ucs_handle_error+0x2d4) [0x1]\n"
	const ver = "n1:2:2 [0] NCCL INFO NCCL version %s+cuda12.4\n"
	for _, c := range []struct {
		name, text   string
		want, unwant []string
	}{
		{"2.21 no symbols", fmt.Sprintf(ver, "2.21.5") + sig + " 1  /opt/nccl/lib/libnccl.so.2(+0x120057) [0x2]\n", []string{"addr2line"}, []string{"RAS"}},
		{"2.27 no symbols", fmt.Sprintf(ver, "2.27.7") + sig + " 1  /opt/nccl/lib/libnccl.so.2(+0x120057) [0x2]\n", []string{"Rerun with NCCL_RAS_ENABLE=0", "addr2line"}, []string{"2.24 or later"}},
		{"2.21 named", fmt.Sprintf(ver, "2.21.5") + sig + " 1 0x000000000007e0d9 ncclTopoCompute() /src/graph/search.cc:992\n", []string{"Report it"}, []string{"RAS", "addr2line"}},
		{"RAS frame", sig + " 1 0x0000000000122927 rasMsgHandlePeersUpdate() /src/ras/peers.cc:412\n", []string{"NCCL_RAS_ENABLE=0 on every rank"}, nil},
		{"libcuda", fmt.Sprintf(ver, "2.27.7") + sig + " 1  /usr/lib/libcuda.so.1(+0x1) [0x2]\n", []string{"frames under it"}, []string{"RAS"}},
	} {
		var f *Finding
		fs := diagnoseText(t, c.text).Findings
		for i := range fs {
			if fs[i].ID == "nccltests.failed" {
				f = &fs[i]
			}
		}
		if f == nil {
			t.Errorf("%s: no nccltests.failed", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(f.Fix, w) {
				t.Errorf("%s: fix %q lacks %q", c.name, f.Fix, w)
			}
		}
		for _, w := range c.unwant {
			if strings.Contains(f.Fix, w) {
				t.Errorf("%s: fix %q says %q", c.name, f.Fix, w)
			}
		}
	}
}

// A plugin NCCL_PROFILER_PLUGIN named and NCCL did not find is told by the
// name NCCL tried (NVIDIA/nccl#1732, NCCL 2.27.3): a path turned into
// libnccl-profiler-<path>.so, and a lib*.so name not on the library
// search path.
func TestPluginNotFoundByName(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.27.3-profiler-plugin-could-not-find-dot-slash-name-nccl1732.txt")
	path := nicMustFind(t, fs, "nccl.plugin.not_found", Info, "libnccl-profiler-./")
	name := nicMustFind(t, fs, "nccl.plugin.not_found", Info, "plugin libnccl_example_profiler_plugin.so")
	if !strings.Contains(path.Mechanism, "held a path") || !strings.Contains(name.Mechanism, "not in the current directory") {
		t.Errorf("path %q\nname %q", path.Mechanism, name.Mechanism)
	}
}
