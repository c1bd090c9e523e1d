package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two processes of one host fail: rank 3 runs out of GPU memory, rank 0
// finds its socket to it closed (NVIDIA/nccl#1235). The closed connection
// is told under the out-of-memory failure, with its line, not beside it.
// Before, "A peer closed its NCCL connection" was a finding of its own,
// listed first.
func TestPeerClosedToldUnderItsCause(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.1x-cuda-out-of-memory-p2p-calloc-peer-closed-nccl1235.txt")
	nicMustNot(t, nicFind(fs, "nccl.warn.error", "A peer closed its NCCL connection"), "nccl.warn.error")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "NCCL could not allocate GPU memory")
	if !strings.Contains(f.Mechanism, "Its fallout, told here") || !cites(f, "", 3) {
		t.Errorf("the closed connection is not told under its cause: %s %+v", f.Mechanism, f.Evidence)
	}
}

// A peer's closed connection with no other failure in its log, or beside
// two failures of other kinds, stays a finding of its own (SYNTHETIC
// lines in NCCL's format).
func TestPeerClosedAloneOrAmbiguous(t *testing.T) {
	closed := "h1:10:20 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer h2<5>"
	ret := "h1:10:20 [0] NCCL INFO misc/socket.cc:749 -> 6"
	fs := synthFindings(t, Options{}, "# synthetic", closed, ret)
	nicMustFind(t, fs, "nccl.warn.error", Error, "A peer closed its NCCL connection")
	fs = synthFindings(t, Options{}, "# synthetic", closed, ret,
		"h1:11:21 [1] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'",
		"h1:11:21 [1] NCCL INFO transport/p2p.cc:204 -> 1",
		"h1:12:22 [2] misc/strongstream.cc:10 NCCL WARN Something else failed",
		"h1:12:22 [2] NCCL INFO misc/strongstream.cc:12 -> 3")
	nicMustFind(t, fs, "nccl.warn.error", Error, "A peer closed its NCCL connection")
}

// SYNTHETIC lines in NCCL's format, one file per host as a job's ranks
// leave them: h1's queue pair fails with retry exceeded, and h2 then finds
// its socket to h1 closed. h2's error is the fallout, told as a warning
// that names h1; the cause stays an error. A closed connection whose host
// the line does not name is left an error.
func TestRemoteFalloutFoldsUnderTransportFailure(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("# synthetic\n"+text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	h1 := write("h1.log", "h1:10:20 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<4242> with error 12, opcode 0, len 0, vendor err 129 (Recv)\nh1:10:20 [0] NCCL INFO transport/net.cc:1008 -> 6\n")
	h2 := write("h2.log", "h2:20:30 [0] misc/socket.cc:538 NCCL WARN Net : Connection closed by remote peer h1<47861>\nh2:20:30 [0] NCCL INFO misc/socket.cc:535 -> 6\n")
	fs := Diagnose([]string{h1, h2}, nil, Options{}).Findings
	nicMustFind(t, fs, "nccl.ib.retry_exceeded", Error, "from h1")
	f := nicMustFind(t, fs, "nccl.warn.error", Warn, "peer closed its NCCL connection", "fallout of the IB transport failure on h1", "on h2")
	if !strings.Contains(f.Mechanism, "1 line of NCCL's IB transport failing on h1") {
		t.Errorf("mechanism does not name the cause: %s", f.Mechanism)
	}
	// The transport failing on the closed connection's own host is no
	// other host's failure: the closed connection stays an error.
	own := write("h1b.log", "h1:11:21 [1] misc/socket.cc:538 NCCL WARN Net : Connection closed by remote peer h2<47862>\nh1:11:21 [1] NCCL INFO misc/socket.cc:535 -> 6\n")
	f = nicMustFind(t, Diagnose([]string{h1, own}, nil, Options{}).Findings, "nccl.warn.error", Error, "peer closed its NCCL connection", "on h1")
	if strings.Contains(f.Title, "fallout") {
		t.Errorf("a closed connection folded under its own host's failure: %s", f.Title)
	}
	// Real: PyTorch's remote error with its last error, no host named
	// (NVIDIA/nccl#2076).
	bare := nicTestdata("corpus/nccl-log/pytorch-distbackenderror-nccl-2.21.5-remote-error-last-error-recv-reset-by-peer-nccl2076.txt")
	fs = Diagnose([]string{h1, bare}, nil, Options{}).Findings
	f = nicMustFind(t, fs, "nccl.warn.error", Error, "peer closed its NCCL connection")
	if strings.Contains(f.Title, "fallout") {
		t.Errorf("a line of no host folded: %s", f.Title)
	}
}
