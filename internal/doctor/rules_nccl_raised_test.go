package doctor

import (
	"slices"
	"strings"
	"testing"
)

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

// PyTorch's error wrapped after the location's comma, its result and
// version on the next line (pytorch/pytorch#188567, NCCL 2.29.7): read as
// one error. Raised by PyTorch's NCCL symmetric-memory backend, it is a
// window registration that failed, not a collective's argument. Before,
// the paste was "in no format rocelab recognises".
func TestDistBackendErrorWrappedAfterLocation(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/pytorch-distbackenderror-nccl-2.29.7-wrapped-after-location-symm-mem-window-register-pytorch188567.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "PyTorch's NCCL symmetric memory failed to register a buffer as an NCCL window", "NCCL returned 4 (invalid argument) through NCCLSymmetricMemory.cu:174")
	if f.Evidence[0].Line != 3 || !strings.Contains(f.Fix, "eager init") || !strings.Contains(f.Mechanism, "ncclCommWindowRegister") {
		t.Errorf("evidence %+v\nwhy %s\nfix %s", f.Evidence, f.Mechanism, f.Fix)
	}
	// A location line that nothing completes is no error (SYNTHETIC).
	fs = synthFindings(t, Options{},
		"# synthetic",
		"torch.distributed.DistBackendError: NCCL error in: ../ProcessGroupNCCL.cpp:1333,",
		"Traceback (most recent call last):")
	if got := nicFind(fs, "nccl.warn.error"); len(got) != 0 {
		t.Errorf("an uncompleted location line read as an error:\n%s", nicTitles(fs))
	}
}

// SYNTHETIC errors in PyTorch's C10D_NCCL_CHECK form: the window
// registration is told by PyTorch's message under the error, wherever it
// was raised; NCCLSymmetricMemory.cu alone names the backend and the call
// its message names (ncclMemAlloc), or none; a remote error there is the
// peer's failure. Before, the file name alone chose the window class.
func TestRaisedSymmetricMemoryByMessage(t *testing.T) {
	raise := func(file, result, reason string) []Finding {
		lines := []string{"# synthetic", "torch.distributed.DistBackendError: NCCL error in: /c10d/" + file + ", " + result + " (run with NCCL_DEBUG=WARN for details), NCCL version 2.29.7"}
		if reason != "" {
			lines = append(lines, reason)
		}
		return synthFindings(t, Options{}, lines...)
	}
	nicMustFind(t, raise("NCCLSymmetricMemory.cu:190", "unhandled cuda error", "ncclMemAlloc failed"), "nccl.warn.error", Error, "PyTorch's NCCL symmetric-memory backend failed in ncclMemAlloc")
	nicMustFind(t, raise("NCCLSymmetricMemory.cu:300", "invalid usage", ""), "nccl.warn.error", Error, "PyTorch's NCCL symmetric-memory backend failed in an NCCL call")
	nicMustFind(t, raise("ProcessGroupNCCL.cpp:1333", "invalid argument", "Failed to window register segment with ptr 0x7f00, size 4096 on ncclComm_ 0x55"), "nccl.warn.error", Error, "failed to register a buffer as an NCCL window")
	nicMustFind(t, raise("NCCLSymmetricMemory.cu:300", "remote process exited or there was a network error", ""), "nccl.warn.error", Error, "without NCCL's own reason: a peer process exited")
}

// SYNTHETIC pastes of PyTorch's error wrapped over lines. One cut after
// the location's comma is no NCCL log (input.unrecognized, as before the
// wrap was read); blank lines between the parts are skipped; the message
// wrapped after "NCCL error in:" (pytorch/pytorch#181610's form) is read
// with its location on the next line. Before, the cut paste was an
// nccl-log with no findings.
func TestDistBackendErrorWrapCompletes(t *testing.T) {
	fs := synthFindings(t, Options{}, "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333,")
	nicMustFind(t, fs, "input.unrecognized", Warn)
	fs = synthFindings(t, Options{}, "# synthetic",
		"torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333,",
		"",
		"unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.6")
	nicMustFind(t, fs, "nccl.warn.error", Error, "through ProcessGroupNCCL.cpp:1333")
	fs = synthFindings(t, Options{}, "# synthetic",
		"torch.distributed.DistBackendError: NCCL error in:",
		"../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.21.5",
		"ncclCommInitRankConfig failed")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "through ProcessGroupNCCL.cpp:1333")
	// The completing line and the reason line are evidence beside the
	// first.
	var got []int
	for _, e := range f.Evidence {
		got = append(got, e.Line)
	}
	if !slices.Equal(got, []int{2, 3, 4}) {
		t.Errorf("evidence lines %v, want [2 3 4]", got)
	}
}
