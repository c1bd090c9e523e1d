package doctor

import (
	"strings"
	"testing"
)

// Artifacts of the nineteenth sweep's second pass: each was misread
// before its fix, and each test fails on the code before it.

// An nccl-tests output quoted with only its footer (aws/aws-k8s-tester
// #503, under mpirun's "[1,0]<stdout>:" prefix). Before, the file was "in
// no format rocelab recognises"; the average mixes every size of the
// sweep, so it is reported, not judged.
func TestNCCLTestsFooterOnly(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/footer-only-mpirun-stdout-prefix-avg-92GBps-awsk8stester503.txt")
	f := nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "only the footer was given: Avg bus bandwidth 92.34 GB/s (739 Gb/s)", "the plateau is at least that")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 3 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	nicMustNot(t, fs, "nccltests.wrong")
}

// The footer of nccl-tests#37 without its "#", after a command line that
// sweeps one size (-b 4294967296 -e 4294967296): its average is that
// size's busbw, judged as a plateau, and its failed bound check is wrong
// data.
func TestNCCLTestsFooterOfOneSize(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/footer-no-hash-one-size-4GiB-allgather-v100-2-failed-nccltests37.txt")
	w := nicMustFind(t, fs, "nccltests.wrong", Error, "nccl-tests all_gather reports 2 out-of-bounds values")
	if w.Evidence[0].Line != 3 {
		t.Errorf("evidence %+v", w.Evidence)
	}
	f := nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "busbw plateau 128.94 GB/s", "at 4GiB-4GiB")
	if !strings.Contains(f.Mechanism, "its run measured one size (4GiB)") || f.Evidence[0].Line != 4 {
		t.Errorf("mechanism %s evidence %+v", f.Mechanism, f.Evidence)
	}
}

// aws-ofi-nccl's rail check pasted without NCCL's prefixes
// (NVIDIA/nccl#1913, NCCL 2.28.9 on P5): eight devices whose two ends
// disagree on their rail count, then nccl-tests stops on internal error.
// Before, the rail lines were read as INFO and the only finding sent the
// reader to NCCL_DEBUG=INFO.
func TestOFIRemoteRailsMismatch(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.28.9-ofi-remote-rails-mismatch-test-failure-no-host-nccl1913.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Warn, "The two ends of an aws-ofi-nccl connection have different rail counts", "8 lines")
	if len(f.Evidence) != 8 || f.Evidence[0].Line != 3 || !strings.Contains(f.Fix, "OFI_NCCL_FORCE_NUM_RAILS") || strings.Contains(f.Mechanism, "fallout") {
		t.Errorf("evidence %+v fix %s mechanism %s", f.Evidence, f.Fix, f.Mechanism)
	}
	failed := nicMustFind(t, fs, "nccltests.failed", Error, "all_reduce.cu:471")
	if !strings.Contains(failed.Fix, "nccl.warn.error") {
		t.Errorf("the failure's fix does not point at the WARN lines: %s", failed.Fix)
	}
	// The WARN with NCCL's prefix and aws-ofi-nccl's function for location
	// (the line aws-ofi-nccl#990 quotes, SYNTHETIC host and counts).
	fs = synthFindings(t, Options{},
		"# synthetic",
		"h100-316:1747401:1751360 [3] accept_wait_for_connection(nccl_net_ofi_rdma_domain_t*, nccl_net_ofi_rdma_listen_comm_t*, nccl_net_ofi_rdma_recv_comm_t**):4909 NCCL WARN NET/OFI Unexpected number of remote rails for dev 3. Expected 4 but got 2")
	nicMustFind(t, fs, "nccl.warn.error", Warn, "different rail counts", "on h100-316")
}

// PyTorch's DistBackendError with NCCL's last error under it: the result
// and version are read and the last error is the WARN that returned that
// result through PyTorch's call. Before, each of these pastes was "in no
// format rocelab recognises".
func TestDistBackendErrorLastError(t *testing.T) {
	for _, c := range []struct {
		file, title, fix string
		lines            [2]int
	}{
		// NVIDIA/nccl#2076: the peer's connection reset (remote error).
		{"pytorch-distbackenderror-nccl-2.21.5-remote-error-last-error-recv-reset-by-peer-nccl2076.txt",
			"A peer closed its NCCL connection: the remote process exited, or the network to it failed: NCCL returned 6 (remote error) through NCCLUtils.hpp:268", "first failure among all ranks", [2]int{2, 5}},
		// hkproj/pytorch-transformer-distributed#1: no route to the peer.
		{"pytorch-distbackenderror-nccl-2.18.6-system-error-connect-no-route-to-host-hkproj1.txt",
			"NCCL's bootstrap connection between ranks failed: NCCL returned 2 (unhandled system error) through ProcessGroupNCCL.cpp:1333", "NCCL_SOCKET_IFNAME", [2]int{2, 5}},
		// awslabs/awsome-distributed-ai#192: one line, srun labels, a
		// connect to 127.0.0.1.
		{"pytorch-distbackenderror-nccl-2.18.5-one-line-srun-label-connect-loopback-abort-awsomedistai192.txt",
			"NCCL's ranks connect to a loopback address (127.0.0.1), which no other host can reach: NCCL returned 2 (unhandled system error) through ProcessGroupNCCL.cpp:1331", "NCCL_SOCKET_IFNAME", [2]int{2, 2}},
	} {
		fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/"+c.file)
		f := nicMustFind(t, fs, "nccl.warn.error", Error, c.title)
		if f.Evidence[0].Line != c.lines[0] || f.Evidence[len(f.Evidence)-1].Line != c.lines[1] || !strings.Contains(f.Fix, c.fix) {
			t.Errorf("%s: evidence %+v fix %s", c.file, f.Evidence, f.Fix)
		}
	}
	// Without NCCL's last error (SYNTHETIC: the first two lines of
	// nccl#2076's paste), the result alone is reported as such.
	fs := synthFindings(t, Options{},
		"# synthetic",
		"torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, remote process exited or there was a network error, NCCL version 2.21.5",
		"ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
		"[rank3]: Traceback (most recent call last):")
	nicMustFind(t, fs, "nccl.warn.error", Error, "PyTorch raised an NCCL error without NCCL's own reason: a peer process exited", "returned 6 (remote error) through NCCLUtils.hpp:268")
}

// PyTorch's error under Ray's worker and logger prefixes (NVIDIA/nccl
// #1247, NCCL 2.18.6): the prefix of the exception's line is stripped
// from the lines after it, so that "Last error:" and its text are read.
func TestDistBackendErrorUnderLoggerPrefix(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/pytorch-distbackenderror-nccl-2.18.6-internal-error-ray-prefix-busid-of-nic-not-found-nccl1247.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "(Attribute busid of node nic not found): NCCL returned 3 (internal error) through ProcessGroupNCCL.cpp:1333")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 7 || f.Evidence[1].Line != 10 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// The last error PyTorch prints repeats a WARN the log already holds with
// NCCL's prefix (SYNTHETIC prefix lines before the real hkproj#1 lines):
// one finding, the WARN's, with PyTorch's line as evidence.
func TestDistBackendErrorJoinsPrefixedWARN(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"h:1:2 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 192.168.19.14<52822> failed : No route to host",
		"h:1:2 [0] NCCL INFO misc/socket.cc:567 -> 2",
		"torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.6",
		"ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
		"Last error:",
		"socketStartConnect: Connect to 192.168.19.14<52822> failed : No route to host")
	got := nicFind(fs, "nccl.warn.error")
	if len(got) != 1 || len(got[0].Evidence) != 2 || got[0].Evidence[0].Line != 2 || got[0].Evidence[1].Line != 4 {
		t.Fatalf("want one finding with the WARN and PyTorch's line:\n%s", nicTitles(fs))
	}
}
