package doctor

import (
	"strings"
	"testing"
)

// Artifacts of the nineteenth sweep: each was misread before its fix, and
// each test fails on the code before it.

// An ungrouped ncclSend on both ranks (NVIDIA/nccl#2057, NCCL 2.29.2 over
// NET/Socket): the socket transport reads a peer handle with address
// family 1 and returns internal error through net_socket.cc. Before, the
// line was read as a bootstrap unique id no rank 0 made, and the fix sent
// the reader to MPI=1 and the launcher.
func TestSocketTransportFamilyIsUngroupedSendRecv(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.29.2-socket-ungrouped-send-family-1-net-socket-nccl2057.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "socket transport was handed a peer address that is no IP address", "returned 3 (internal error) through net_socket.cc:399")
	if !strings.Contains(f.Fix, "ncclGroupStart") || f.Evidence[0].Line != 48 {
		t.Errorf("fix or evidence: %s %+v", f.Fix, f.Evidence)
	}
	for _, f := range fs {
		if strings.Contains(f.Title, "bootstrap address") {
			t.Errorf("the transport's connect is called a bootstrap failure: %s", f.Title)
		}
	}
}

// NCCL 2.25.1 on two RTX 5090 (NVIDIA/nccl-tests#287): the INFO line
// "ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856" is why the
// launch in enqueue.cc fails with 'invalid argument'. Before, the finding
// was a generic "NCCL failed after a WARN" that sent the reader to
// NCCL_DEBUG=INFO, which the log already had.
func TestSharedMemOverIsTheLaunchFailure(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.25.1-rtx5090-maxsharedmem-exceeds-launch-invalid-argument-nccltests287.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "more shared memory than this GPU gives a block", "returned 1 (unhandled cuda error)", "on GENOA-06")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 12 || f.Evidence[1].Line != 69 || !strings.Contains(f.Fix, "2.26") {
		t.Errorf("evidence %+v, fix %s; want the INFO line 12 and the WARN 69, and NCCL 2.26", f.Evidence, f.Fix)
	}
	// The same WARN without the INFO line is a CUDA call that failed,
	// its cause not named.
	fs = synthFindings(t, Options{},
		"# synthetic",
		"h:1:1 [1] enqueue.cc:1500 NCCL WARN Cuda failure 1 'invalid argument'",
		"h:1:1 [1] NCCL INFO group.cc:242 -> 1")
	nicMustFind(t, fs, "nccl.warn.error", Error, "A CUDA call NCCL made failed (Cuda failure 1 'invalid argument' in enqueue.cc:1500)")
}

// ib_write_bw between two GB10 with --force-link IB on rocep1s0f0 (a
// Dell Pro Max GB10 README): perftest prints Link type IB for a RoCE
// device, so its MTU of 1024 (netdev MTU 1500) went unjudged.
func TestForcedLinkIBOnRoCEDeviceJudgesMTU(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "corpus/perftest/ib-write-bw-gb10-rocep-force-link-ib-mtu1024-rdmacm-111gbps.txt")
	f := nicMustFind(t, fs, "perftest.mtu.small", Warn, "RoCE MTU 1024", "printed as Link type IB because of --force-link IB")
	if len(f.Evidence) != 3 || f.Evidence[0].Line != 3 || f.Evidence[1].Line != 14 {
		t.Errorf("evidence %+v; want the command (3), Mtu (14) and Link type (15)", f.Evidence)
	}
}

// PyTorch's heartbeat monitor (ArcticTraining#219): rank 7's watchdog
// thread made no progress for 480 s after rank 2's all-gather timed out.
// Before, the heartbeat line was not read at all.
func TestWatchdogStuckJoinsTheTimeout(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/pytorch-watchdog-stuck-480s-heartbeat-allgather-timeout-arctictraining219.txt")
	f := nicMustFind(t, fs, "nccl.collective.timeout", Error, "_ALLGATHER_BASE (SeqNum 120049)", "on rank 2")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 3 || !strings.Contains(f.Mechanism, "on rank 7 (480 s) PyTorch's heartbeat monitor found the watchdog thread itself blocked") {
		t.Errorf("heartbeat line not joined: %+v\n%s", f.Evidence, f.Mechanism)
	}
	// The heartbeat line alone (SYNTHETIC: the real line without the
	// timeout before it) is a hang of its own.
	fs = synthFindings(t, Options{},
		"# synthetic",
		"[rank5]:[E626 05:14:36.393819762 ProcessGroupNCCL.cpp:1743] [PG ID 0 PG GUID 0(default_pg) Rank 5] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives.")
	nicMustFind(t, fs, "nccl.collective.timeout", Error, "watchdog got stuck on rank 5 (480 s)")
}

// RCCL 2.27.7 on MI350X (ROCm/rccl#2188): hipIpcGetMemHandle fails at
// p2p.cc:256, the allocator frees the buffer (an ALLOC INFO line), then the
// return codes follow; the prefix has no pid:tid ("node [1]"). Before, the
// free line ended the WARN's chain, the WARN had no return code and no
// finding named the failure at all.
func TestIPCExportFailureWithAllocLines(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/rccl-2.27.7-rocm7.2-mi350x-hipipcgetmemhandle-p2p-invalid-argument-no-pid-rccl2188.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "P2P transport could not share GPU memory with another process", "returned 1 (unhandled cuda error) through p2p.cc:709")
	if f.Evidence[0].Line != 35 || !strings.Contains(f.Fix, "NCCL_P2P_DISABLE=1") {
		t.Errorf("evidence %+v fix %s", f.Evidence, f.Fix)
	}
	nicMustFind(t, fs, "nccl.host.config", Warn, "iommu=pt")
}

// nccl-tests' abort line pasted without its host (NVIDIA/nccl#1913,
// "Test NCCL failure all_reduce.cu:471 'internal error ...'"). Before, the
// line was not read and the file gave no finding at all.
func TestTestFailureWithoutHost(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.28.9-ofi-remote-rails-mismatch-test-failure-no-host-nccl1913.txt")
	f := nicMustFind(t, fs, "nccltests.failed", Error, "failed at all_reduce.cu:471", "'internal error")
	if f.Evidence[0].Line != 14 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// mlnx-tools' show_counters of a ConnectX-4 Lx bond (Chinese RDMA notes):
// 3.29 M responder completion errors, 3.21 M of them flushes. Before, no
// finding named them.
func TestResponderCompletionErrors(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "corpus/hwcounters/show-counters-mlx5-bond-ecn-np-out-of-sequence-resp-cqe-flush-notes.txt")
	f := nicMustFind(t, fs, "counters.responder_errors", Info, "mlx5_bond_0 port 1: 3293504 receive work requests", "resp_cqe_flush_error 3211234")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 18 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	nicMustFind(t, fs, "counters.retransmission", Info, "out_of_sequence 1811101")
}

// ibstat of a GB10 (geerlingguy/sbc-reviews#92) beside an ib_write_bw
// between two GB10: the disabled port's "Rate: 40" is no line rate. Before,
// it made the rates disagree and the perftest went unjudged.
func TestDownPortRateIsNoLineRate(t *testing.T) {
	fs := nicDiagnose(t, Options{},
		"corpus/ethtool/ibstat-gb10-cx7-mt4129-roce-halves-200g-one-disabled-rate-40-sbcreviews92.txt",
		"corpus/perftest/ib-write-bw-gb10-rocep-force-link-ib-mtu1024-rdmacm-111gbps.txt")
	f := nicMustFind(t, fs, "perftest.bw.low", Warn, "best 111.6 Gb/s", "56% of the 200.0 Gb/s link rate")
	if !strings.Contains(f.Evidence[0].Text, "Rate: 200") {
		t.Errorf("rate evidence %+v", f.Evidence)
	}
	nicMustFind(t, fs, "devinfo.port.down", Warn, "roceP2p1s0f1 port 1")
}

// An nccl-tests output cut in its device list (nebius/soperator#428).
// Before, it gave no finding at all, as if the run were clean.
func TestNCCLTestsPreambleOnly(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/preamble-only-h100-2n-srun-mpi-cut-before-table-soperator428.txt")
	f := nicMustFind(t, fs, "nccltests.rows.none", Info, "ends in its preamble (12 rank lines)")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 4 || f.Evidence[1].Line != 18 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// The watchdog's line wrapped by a terminal (huggingface/open-r1#620): the
// WorkNCCL fields end one line, "Timeout(ms)=... ran for ..." starts the
// next. Before, the file was "in no format rocelab recognises".
func TestWrappedWatchdogLine(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/pytorch-watchdog-terminate-wrapped-130-columns-broadcast-seq4-openr1-620.txt")
	f := nicMustFind(t, fs, "nccl.collective.timeout", Error, "BROADCAST (SeqNum 4) on rank 2")
	if f.Evidence[0].Line != 4 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// NCCL 2.29.7's last error under PyTorch's DistBackendError
// (NVIDIA/nccl#2077): NVLS could not bind multicast memory, CUDA error 2,
// the NVSwitches' multicast slots used up by many communicators. Before,
// the paste was "in no format rocelab recognises".
func TestNVLSMulticastOutOfMemory(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/pytorch-distbackenderror-nccl-2.29.7-nvls-multicast-bind-out-of-memory-nccl2077.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "multicast resources are used up (CUDA error 2, out of memory)", "returned 1 (unhandled cuda error) through NCCLUtils.cpp:93")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 3 || f.Evidence[1].Line != 5 || !strings.Contains(f.Fix, "NCCL_NVLS_ENABLE=0") {
		t.Errorf("evidence %+v fix %s", f.Evidence, f.Fix)
	}
	// The same failure as NCCL's own WARN (SYNTHETIC line in nvls.cc's
	// format) with its return code.
	fs = synthFindings(t, Options{},
		"# synthetic",
		"h:1:2 [0] transport/nvls.cc:166 NCCL WARN Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 2 'out of memory'.",
		"h:1:2 [0] NCCL INFO transport/nvls.cc:260 -> 1")
	nicMustFind(t, fs, "nccl.warn.error", Error, "multicast resources are used up", "returned 1 (unhandled cuda error)")
}
