package doctor

import (
	"strings"
	"testing"
)

// Artifacts of the twenty-fourth sweep (NCCL logs): each was misread
// before its fix, and each test fails on the code before it.

// A bootstrap connect that fails in NCCL's SYSCHECK macros is reported
// only by return codes, the first with its errno ("misc/socket.cc:505 ->
// 2 (Operation now in progress)"), and no WARN (pytorch/pytorch#131781).
// Before, the log read as a clean IB job.
func TestSystemErrorOriginWithoutWarn(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.2x-bootstrap-connect-einprogress-return-codes-no-warn-pytorch131781.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "NCCL's bootstrap connection between ranks failed", "returned 2 (unhandled system error)", "bootstrap.cc:275", "on g105; 3 lines")
	if f.Evidence[0].Line != 5 || !strings.Contains(f.Evidence[0].Text, "(Operation now in progress)") {
		t.Errorf("evidence is not the errno line: %+v", f.Evidence[0])
	}
}

// A return code with no errno and no WARN before it stays unread: it is
// the unwinding of a failure printed elsewhere (SYNTHETIC lines in
// NCCL's format).
func TestReturnCodeWithoutOriginIsNoFailure(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"h1:100:200 [0] NCCL INFO misc/socket.cc:47 -> 3",
		"h1:100:200 [0] NCCL INFO misc/socket.cc:550 -> 3 [Proxy Thread]")
	nicMustNot(t, fs, "nccl.warn.error")
}

// NCCL 2.3 names the HCA of its GPUDirect RDMA decision by its device and
// gives a reason in parentheses (horovod/horovod#1651, the terminal
// wrapping the reason). Before, the finding said "disabled for HCA  on
// ta1-0, ta1-1, no reason printed".
func TestGDRDisabledHCAByNameNCCL23(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.3-gdr-disabled-hca-by-name-wrapped-reason-create-qp-failed-mlx4-horovod1651.txt")
	f := nicMustFind(t, fs, "nccl.gdr.disabled", Warn, "disabled for HCA mlx4_0 on ta1-0, ta1-1 (not supported b…)")
	if strings.Contains(f.Title, "no reason printed") || strings.Contains(f.Mechanism, "but not why") {
		t.Errorf("the printed reason is called none: %s / %s", f.Title, f.Mechanism)
	}
	nicMustFind(t, fs, "nccl.ib.alloc_failed", Error, "ibv_create_qp on ta1-1")
}

// NCCL failing to allocate GPU memory (alloc.h's "Cuda failure 'out of
// memory'", then "Failed to CUDA calloc 6291456 bytes") is the cause of
// its process's failure, and the return code after the second WARN is
// that failure's (NVIDIA/nccl#1235). Before, the first WARN was skipped
// and the finding read "NCCL failed after a WARN: Failed to CUDA calloc".
func TestNCCLGPUOutOfMemory(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.1x-cuda-out-of-memory-p2p-calloc-peer-closed-nccl1235.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "NCCL could not allocate GPU memory for its buffers (CUDA out of memory)", "NCCL returned 1 (unhandled cuda error)", "p2p.cc:204")
	if f.Evidence[0].Line != 16 {
		t.Errorf("evidence is not the out-of-memory WARN: %+v", f.Evidence[0])
	}
	if !strings.Contains(f.Mechanism, "connections to the failed one closed") {
		t.Errorf("the peer's closed connection is not told under the failure: %s", f.Mechanism)
	}
}

// NCCL's socket transport lists usb0 169.254.3.1, a BMC's link-local USB
// network, beside eno1 (NVIDIA/Megatron-LM#588): the fallback finding
// names it and sets NCCL_SOCKET_IFNAME first. Before, it was not named.
func TestSocketFallbackNamesLinkLocalInterface(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-socket-no-ib-device-usb0-link-local-169-254-bmc-interface-megatron588.txt")
	f := nicMustFind(t, fs, "nccl.transport.socket_fallback", Warn, "(also over usb0 169.254.3.1)")
	if !strings.HasPrefix(f.Fix, "Set NCCL_SOCKET_IFNAME") {
		t.Errorf("fix does not start with NCCL_SOCKET_IFNAME: %s", f.Fix)
	}
	// One node's ranks may use lo: the note is for jobs that may span
	// nodes (SYNTHETIC lines in NCCL's format).
	fs = synthFindings(t, Options{},
		"# synthetic",
		"h1:1:1 [0] NCCL INFO NET/IB : No device found.",
		"h1:1:1 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>",
		"h1:1:1 [0] NCCL INFO Using network Socket",
		"h1:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0")
	nicMustFind(t, fs, "nccl.transport.socket_fallback", Info, "single-node job")
	if got := nicFind(fs, "nccl.transport.socket_fallback", "over lo"); len(got) > 0 {
		t.Errorf("a single-node job's lo is called unreachable: %s", got[0].Title)
	}
	// A host whose only socket interface is link-local uses it alone,
	// not also.
	fs = synthFindings(t, Options{},
		"# synthetic",
		"h1:1:1 [0] NCCL INFO NET/IB : No device found.",
		"h1:1:1 [0] NCCL INFO NET/Socket : Using [0]usb0:169.254.3.1<0>",
		"h1:1:1 [0] NCCL INFO Using network Socket")
	nicMustFind(t, fs, "nccl.transport.socket_fallback", Warn, "on 1 host (over usb0 169.254.3.1);")
}
