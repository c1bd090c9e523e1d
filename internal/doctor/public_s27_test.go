package doctor

import (
	"fmt"
	"strings"
	"testing"
)

// Artifacts of the twenty-seventh sweep: each test fails on the code
// before its fix.

// A connection to the bootstrap listener that closed before sending NCCL's
// magic (NVIDIA/nccl#1612: a port scan, nmap -sT) fails init in NCCL
// before 2.27.3. Its error returns through four socket.cc lines before
// bootstrap.cc; the chain kept only those four, so the WARN read as a
// peer rank that died ("A peer closed its NCCL connection") and its fix
// sent the reader to the peer's logs.
func TestBootstrapProbeNotRankCrash(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.2x-bootstrap-scanner-probe-closed-before-magic-nccl1612.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "port scan or probe")
	if !strings.Contains(f.Title, "through socket.cc:80, bootstrap.cc:701, init.cc:1402, group.cc:75") {
		t.Errorf("title %q", f.Title)
	}
	if !strings.Contains(f.Fix, "2.27.3") || strings.Contains(f.Title, "remote process exited") {
		t.Errorf("fix %q", f.Fix)
	}
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 3 || f.Evidence[0].Col != 5 {
		t.Errorf("evidence %v", f.Evidence)
	}
	// A socket closed later in the run, through the proxy, stays a peer
	// that died (NVIDIA/nccl#1235).
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.1x-cuda-out-of-memory-p2p-calloc-peer-closed-nccl1235.txt")
	for _, f := range fs {
		if strings.Contains(f.Title, "port scan") {
			t.Errorf("%s", f.Title)
		}
	}
}

// stallTable is a SYNTHETIC nccl-tests all_reduce table of eight sizes,
// both halves at 100 us plus the size's share at 20 GB/s, with the
// out-of-place and in-place times of row slow (0-based) replaced.
func stallTable(slow int, out, in float64) []string {
	lines := []string{
		"# synthetic: nccl-tests all_reduce_perf table, one row's half stalled",
		"#                                                              out-of-place                       in-place          ",
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
		"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       ",
	}
	for i := range 8 {
		size := 1 << (20 + i)
		o := 100 + float64(size)/20e3
		n := o
		if i == slow {
			o, n = out, in
		}
		bw := func(t float64) float64 { return float64(size) / t / 1e3 }
		lines = append(lines, fmt.Sprintf("%12d  %12d     float     sum      -1  %7.1f  %6.2f  %6.2f      0  %7.1f  %6.2f  %6.2f      0",
			size, size/4, o, bw(o), bw(o)*2*7/8, n, bw(n), bw(n)*2*7/8))
	}
	return append(lines, "# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 10.0 ", "#")
}

// The first row's out-of-place half is the run's first collective: a
// slow one there is warm-up (connection setup nccl-tests' -w did not
// cover), not a stall. Before, a 25 ms first call raised
// nccltests.pass.stalled.
func TestStalledPassFirstRowWarmUp(t *testing.T) {
	fs := synthFindings(t, Options{}, stallTable(0, 25000, 152.4)...)
	nicMustNot(t, fs, "nccltests.pass.stalled")
	// The same stall on a later row, or on the first row's in-place half,
	// is one.
	fs = synthFindings(t, Options{}, stallTable(3, 25000, 519.3)...)
	nicMustFind(t, fs, "nccltests.pass.stalled", Warn, "at 8MiB the out-of-place pass took 25000 us")
	fs = synthFindings(t, Options{}, stallTable(0, 152.4, 25000)...)
	nicMustFind(t, fs, "nccltests.pass.stalled", Warn, "at 1MiB the in-place pass took 25000 us")
}
