package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// NCCL logs of the twenty-fifth sweep: each test on a real excerpt fails
// on the code before its fix.

// The WARNs of ranks out of step name the calls, never the network: NET/IB's
// "collective mismatch error" (NCCL 2.14.3 under a pdsh prefix that is an
// address, NVIDIA/nccl#969), NET/Socket's "message truncated" set in
// Markdown bold (2.4.7, #268) or without its host prefix and wrapped
// (2.10.3, #626), and 2.4's own "Mismatched collective detected" (#296).
// Before, #969 was a transport failure at init (a socket fallback) and
// the three others gave no finding at all.
func TestMismatchedCallsWarns(t *testing.T) {
	for _, c := range []struct {
		file  string
		sev   Severity
		frags []string
		line  int
	}{
		{"nccl-2.14.3-pdsh-ip-prefix-ib-collective-mismatch-nccl969.txt", Error, []string{"did not make the same NCCL calls", "collective mismatch error", "returned 5 (invalid usage)", "so-ucloud-10-10-23-10"}, 2},
		{"nccl-2.4.7-markdown-bold-socket-message-truncated-nccl268.txt", Warn, []string{"did not make the same NCCL calls", "instead of 32768)", "on hvd1"}, 3},
		{"nccl-2.10.3-bare-warn-socket-message-truncated-wrapped-nccl626.txt", Warn, []string{"did not make the same NCCL calls", "message truncated"}, 2},
		{"nccl-2.4.8-bare-warn-mismatched-collective-nccl296.txt", Warn, []string{"did not make the same NCCL calls", "around rank 39"}, 3},
	} {
		t.Run(c.file, func(t *testing.T) {
			fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/"+c.file)
			f := nicMustFind(t, fs, "nccl.warn.error", c.sev, c.frags...)
			if f.Evidence[0].Line != c.line {
				t.Errorf("evidence at line %d, want %d", f.Evidence[0].Line, c.line)
			}
			if !strings.Contains(f.Mechanism, "not a network fault") || !strings.Contains(f.Fix, "NCCL_DEBUG_SUBSYS=COLL") {
				t.Errorf("mechanism or fix does not say the calls differ:\n%s\n%s", f.Mechanism, f.Fix)
			}
			nicMustNot(t, fs, "nccl.transport.socket_fallback")
		})
	}
}

// A bootstrap message of another size than expected (NCCL 2.19.4 under
// srun --label, NVIDIA/nccl#1176, intermittent at init and gone with
// 2.18.6) is two ranks out of step in setup; before, it was called a
// failed bootstrap connection, whose fix (NCCL_SOCKET_IFNAME) cannot help.
func TestBootstrapMessageTruncated(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.19.4-srun-label-bootstrap-message-truncated-nccl1176.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "bootstrap messages crossed", "received 256 bytes instead of 4", "returned 3 (internal error) through bootstrap.cc:554")
	if e := f.Evidence[0]; e.Line != 2 || e.Col != 4 {
		t.Errorf("evidence at %d:%d, want 2:4 (after srun's label)", e.Line, e.Col)
	}
	if strings.Contains(f.Fix, "NCCL_SOCKET_IFNAME") || !strings.Contains(f.Fix, "same NCCL") {
		t.Errorf("fix is the bootstrap connection's, not the versions': %s", f.Fix)
	}
}

// SYNTHETIC lines in NCCL's format: a NET/IB WARN that names no peer,
// before any device list, is still the IB transport stopping at init; one
// about a request to a peer is not.
func TestIBInitWarnNamesNoPeer(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"h1:10:10 [0] transport/net_ib.cc:100 NCCL WARN NET/IB : Unable to open device mlx5_0",
		"h1:10:10 [0] NCCL INFO Using network Socket")
	nicMustFind(t, fs, "nccl.transport.socket_fallback", Warn, "falls back to TCP sockets")
	fs = synthFindings(t, Options{},
		"# synthetic",
		"h1:10:10 [0] transport/net_ib.cc:1038 NCCL WARN NET/IB : req 0/1 tag 0 peer 10.0.0.2<4242> collective mismatch error, local size 8 remote size 4")
	nicMustNot(t, fs, "nccl.transport.socket_fallback")
}

// A job's ranks often come as one file per host. NCCL before 2.2x prints
// its version without a prefix; in a file whose lines name one host it is
// that host's (real: NVIDIA/nccl#1129's node08 on 2.7.8), so a second
// host's file on another version (SYNTHETIC, h2 on 2.21.5) is a version
// mismatch across the two. Before, the bare version had no host and the
// mismatch was not found.
func TestVersionMismatchAcrossHostFiles(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "h2.log")
	if err := os.WriteFile(other, []byte("# synthetic\nh2:20:20 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fs := Diagnose([]string{nicTestdata("corpus/nccl-log/nccl-2.7.8-docker-ib-bare-version-one-host-nccl1129.txt"), other}, nil, Options{}).Findings
	nicMustFind(t, fs, "nccl.version.mismatch", Warn, "2.7.8 on node08", "2.21.5 on h2")
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

// NCCL 2.0-2.2 logs (no "NCCL" before the level) were no input; now their
// transport is judged: sockets with libibverbs missing (horovod/horovod#98)
// and over a sideband interface (#666), IB over a ConnectX-3 (#489).
func TestLegacyPrefixLogsJudged(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.0-2.2-no-nccl-marker-warn-libibverbs-bold-horovod98.txt")
	f := nicMustFind(t, fs, "nccl.transport.socket_fallback", Warn, "on 1 host")
	if f.Evidence[0].Line != 2 || !strings.Contains(f.Mechanism, "libibverbs") {
		t.Errorf("evidence %+v, mechanism %s", f.Evidence, f.Mechanism)
	}
	nicMustFind(t, diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.0-2.2-no-nccl-marker-socket-sideband-horovod666.txt"), "nccl.transport.socket_fallback", Warn)
	nicMustFind(t, diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.0-2.2-no-nccl-marker-ib-mlx4-horovod489.txt"), "nccl.transport.ib", Info, "mlx4_0:1")
}
