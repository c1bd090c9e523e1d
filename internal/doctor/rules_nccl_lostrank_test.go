package doctor

import (
	"strings"
	"testing"
)

// From NCCL 2.23 the proxy service thread's "Could not receive type from
// localRank N" is printed only while the communicator is not aborting
// (proxy.cc, v2.23.4-1): on such a log it is local rank N's process gone
// while the job ran, an error that names the rank and the host. Before,
// it was never a cause, whatever the version. The 2.23 fixture is
// SYNTHETIC, from NCCL's source strings.
func TestProxyLostLocalRankFrom223(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "synthetic/nccl-2.23.4-proxy-service-local-rank-1-connection-reset-synthetic.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "Local rank 1 on gpu-a", "died and its connection was reset")
	if strings.Contains(f.Title, "NCCL returned") || !strings.Contains(f.Fix, "dmesg") || !strings.Contains(f.Fix, "journalctl -k") ||
		!strings.Contains(f.Fix, "local rank 1's own") || len(f.Evidence) != 2 || f.Evidence[0].Line != 6 || f.Evidence[1].Line != 9 {
		t.Errorf("title %s evidence %+v fix %s", f.Title, f.Evidence, f.Fix)
	}
	if n := len(nicFind(fs, "nccl.warn.error")); n != 1 {
		t.Errorf("%d nccl.warn.error findings, want 1 (the proxy's failed recv is part of it):\n%s", n, nicTitles(fs))
	}

	lines := []string{
		"gpu-a:4401:4401 [0] NCCL INFO NCCL version 2.27.3+cuda12.9",
		"gpu-a:4401:4460 [0] proxy.cc:1676 NCCL WARN [Service thread] Could not receive type from localRank 3, res=6, closed=0",
		"gpu-a:4401:4460 [0] proxy.cc:1701 NCCL WARN [Proxy Service 0] Failed to execute operation Close from rank 3, retcode 6",
	}
	// From 2.24 a reset reads as a close: the WARN is another socket
	// error, not a rank that died (misc/socket.cc, v2.24.3-1).
	f = nicMustFind(t, synthFindings(t, Options{}, lines...), "nccl.warn.error", Error, "Local rank 3 on gpu-a", "other than a reset")
	if strings.Contains(f.Title, "died") || !strings.Contains(f.Mechanism, "Connection closed by localRank 3") {
		t.Errorf("2.27 lost rank: %s\n%s", f.Title, f.Mechanism)
	}

	// The log names the rank's own failure: the lost connection is told
	// under it, not on its own.
	own := append(append([]string{}, lines...),
		"gpu-a:4404:4404 [3] include/alloc.h:125 NCCL WARN Cuda failure 'out of memory'",
		"gpu-a:4404:4404 [3] NCCL INFO init.cc:400 -> 1")
	fs = synthFindings(t, Options{}, own...)
	if got := nicFind(fs, "nccl.warn.error", "Local rank 3"); len(got) > 0 {
		t.Errorf("lost rank told beside its own failure: %s", got[0].Title)
	}
	f = nicMustFind(t, fs, "nccl.warn.error", Error, "out of memory")
	if !strings.Contains(f.Mechanism, "Could not receive type from localRank 3") {
		t.Errorf("the lost connection is not told under the rank's failure: %s", f.Mechanism)
	}

	// Through 2.22, and with no version line, every abort printed it.
	for _, head := range []string{"gpu-a:4401:4401 [0] NCCL INFO NCCL version 2.22.3+cuda12.4", "gpu-a:4401:4401 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.11<0>"} {
		nicMustNot(t, synthFindings(t, Options{}, append([]string{head}, lines[1:]...)...), "nccl.warn.error")
	}
}
