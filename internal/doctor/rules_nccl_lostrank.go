package doctor

import (
	"fmt"
	"strconv"
	"strings"

	"rocelab/internal/ingest"
)

// The proxy service thread's WARNs about its own local ranks'
// connections: teardown noise through NCCL 2.22, a local rank lost from
// 2.23 on.

// proxyTeardownWarn reports the proxy service thread's WARNs about its
// own local ranks' connections (proxy.cc), which it closes and goes on
// from, returning no error: its listening socket's accept finding nothing
// ("[Service thread] Accept failed Resource temporarily unavailable"), a
// local rank's connection that broke ("[Service thread] Could not receive
// type from localRank 0, res=3, closed=0": that rank closed or died; its
// own lines tell why) and a rank's Close operation failing ("[Proxy
// Service 0] Failed to execute operation Close from rank 0, retcode 3").
// Through 2.22 every ncclCommAbort, which PyTorch calls at exit, could
// print all three (NVIDIA/nccl#1668, deepseek-ai/DeepEP#41); 2.23 skips
// the last two while aborting and 2.30 prints the accept at INFO.
func proxyTeardownWarn(msg string) bool {
	if strings.Contains(msg, "[Service thread] Accept failed Resource temporarily unavailable") ||
		strings.Contains(msg, "[Service thread] Could not receive type from localRank ") {
		return true
	}
	_, op, ok := strings.Cut(msg, "] Failed to execute operation ")
	return ok && strings.Contains(msg, "[Proxy Service ") && strings.HasPrefix(op, "Close from rank")
}

// lostRankFrom is the NCCL release from which the proxy service thread
// skips "Could not receive type from localRank N" while its communicator
// aborts (src/proxy.cc:1630-1631 at v2.23.4-1, 1675-1676 at v2.27.3-1;
// printed unconditionally at proxy.cc:1497 through v2.22.3-1).
var lostRankFrom = [2]int{2, 23}

// resetIsClose is the NCCL release from which socketProgressOpt reads a
// recv's ECONNRESET as the peer closing (misc/socket.cc:41-43 at
// v2.24.3-1): a local rank that died then shows as the proxy's INFO
// "Connection closed by localRank N", and the WARN is left to the other
// socket errors.
var resetIsClose = [2]int{2, 24}

// lostLocalRank reads N from the proxy service thread's "[Service thread]
// Could not receive type from localRank N, res=6, closed=0".
func lostLocalRank(msg string) (int, bool) {
	_, after, ok := strings.Cut(msg, "[Service thread] Could not receive type from localRank ")
	if !ok {
		return 0, false
	}
	n, _, _ := strings.Cut(after, ",")
	r, err := strconv.Atoi(strings.TrimSpace(n))
	return r, err == nil && r >= 0
}

// proxyLostRank classifies "Could not receive type from localRank N" on
// a log whose NCCL version line says 2.23 or later (one version, the
// same on every log of the incident): local rank N's connection to this
// process's proxy broke while the communicator was not aborting: on 2.23
// a reset, that rank's process gone with the socket (a clean close is
// INFO's "Connection closed by localRank N"); from 2.24, which reads a
// reset as a close, a socket error of another kind. Before 2.23, or with
// no version line, the line is abort noise (proxyTeardownWarn).
func proxyLostRank(l *ingest.NCCLLog, w ingest.Warning, versionsDiffer bool) (failureClass, bool) {
	rank, ok := lostLocalRank(w.Message)
	if !ok || versionsDiffer {
		return failureClass{}, false
	}
	if atLeast, known := l.VersionAtLeast(lostRankFrom[0], lostRankFrom[1]); !atLeast || !known {
		return failureClass{}, false
	}
	host := w.Host
	if host == "" {
		host = "its host"
	}
	why, how := "that rank's process died and its connection was reset",
		fmt.Sprintf("This log's NCCL is 2.23, which still reports a reset connection (ECONNRESET, res=6) here: local rank %d went away while the job ran (an out-of-memory kill, a crash, a signal from the launcher) without the Close NCCL sends at ncclCommDestroy; a clean close would be INFO's 'Connection closed by localRank %d'. The failure is that rank's; this proxy only saw it go, and the ranks waiting on it hang or fail next.", rank, rank)
	if atLeast, _ := l.VersionAtLeast(resetIsClose[0], resetIsClose[1]); atLeast {
		why, how = "the socket failed with an error other than a reset",
			fmt.Sprintf("This log's NCCL is 2.24 or later, which reads a reset as the rank closing (INFO's 'Connection closed by localRank %d', misc/socket.cc at v2.24.3-1), so a rank that merely died prints no WARN here: the recv failed with another socket error, and local rank %d's requests to this proxy fail from here on.", rank, rank)
	}
	return failureClass{fmt.Sprintf("local rank %d on %s lost its connection to NCCL's proxy while the communicator was running: %s", rank, host, why),
		fmt.Sprintf("The proxy service thread of each NCCL process serves the ranks of its node over one socket each; 'Could not receive type from localRank %d' is the proxy failing to read local rank %d's next request. Through NCCL 2.22 every ncclCommAbort printed it (res=3, the abort itself); from 2.23 NCCL skips it while the communicator aborts (src/proxy.cc, v2.23.4-1). %s", rank, rank, how),
		fmt.Sprintf("Find local rank %d's own lines on %s (its last NCCL WARN, a Python traceback or CUDA error, the launcher's 'Killed' or exit code for that rank); then on %s read `dmesg -T | grep -iE 'out of memory|oom-kill|killed process|segfault|xid'` and `journalctl -k` around that time for an OOM kill or a crash of that process, and the job's memory limit (cgroup, container); rerun with NCCL_DEBUG=INFO on every rank so that rank logs its own failure.", rank, host, host)}, true
}

// proxyRecvOf reports whether the i-th WARN of l is the proxy service
// thread's failed read of a local rank that the next WARN of its thread
// reports as lost (socketProgressOpt's "Call to recv from ... failed :
// Connection reset by peer", misc/socket.cc:30 at v2.23.4-1, which 2.24
// turned into a closed connection): part of that lost rank, not a cause
// of its own.
func proxyRecvOf(l *ingest.NCCLLog, i int, versionsDiffer bool) bool {
	w := l.Warnings[i]
	if w.PID < 0 || w.TID < 0 || !strings.Contains(w.Message, "Call to recv from ") {
		return false
	}
	for _, n := range l.Warnings[i+1:] {
		if n.Host == w.Host && n.PID == w.PID && n.TID == w.TID {
			_, lost := proxyLostRank(l, n, versionsDiffer)
			return lost
		}
	}
	return false
}
