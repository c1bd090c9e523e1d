package ingest

import "strings"

// NCCL INFO messages that reach the input without NCCL's "host:pid:tid
// [dev] NCCL INFO" prefix: logs whose prefixes a log collector or the
// poster stripped (NVIDIA/nccl#1584 posts NCCL 2.24's init so). Only
// messages no other tool prints are read, each as NCCL would have logged
// it from an unnamed host.

// bareInfoPrefixes begin the INFO messages read without a prefix.
var bareInfoPrefixes = []string{
	"NET/",
	"Using network ",
	"Plugin Path : ",
	"P2P plugin ",
	"Bootstrap : Using ",
	"Bootstrap: Using ",
	"ncclCommInit",
	"GPU Direct RDMA ",
}

// feedBare reads a line that is one of NCCL's INFO messages without its
// prefix, and reports whether it was one.
func (l *NCCLLog) feedBare(ln Line, s string) bool {
	msg := strings.TrimSpace(s)
	if r, ok := strings.CutPrefix(msg, "INFO "); ok && bareInfo(strings.TrimSpace(r)) {
		// Quoted from NCCL's level word on, its "NCCL" cut with the prefix
		// (NVIDIA/nccl#1939: "INFO NET/IB : GPU Direct RDMA Disabled ...").
		msg = strings.TrimSpace(r)
	}
	if !bareInfo(msg) {
		return false
	}
	l.matrix = false
	l.lines.add(ln)
	ev := At(l.src, ln)
	l.feedInfo(origin{pid: -1, tid: -1, dev: -1}, l.intern("", ev), msg, ev)
	return true
}

// bareInfo reports whether msg is an NCCL INFO message that can be read
// without its prefix: one of bareInfoPrefixes, an environment echo
// ("NCCL_IB_HCA set by environment to mlx5_0"), a communicator line
// ("comm 0x5555 rank 0 nRanks 8 ...") or a connection ("Channel 00/0 :
// 0[0] -> 1[1] via NET/IB/0/GDRDMA").
func bareInfo(msg string) bool {
	for _, p := range bareInfoPrefixes {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	switch {
	case strings.HasPrefix(msg, "NCCL_"):
		name, _, ok := strings.Cut(msg, " set by environment to ")
		return ok && validEnvName(name)
	case strings.HasPrefix(msg, "comm 0x"):
		return strings.Contains(msg, " rank ")
	case strings.HasPrefix(msg, "Channel "):
		return strings.Contains(msg, " via ") || strings.Contains(msg, " -> ")
	}
	return false
}
