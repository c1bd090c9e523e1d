package ingest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// graph/paths.cc's INFO for a PCIe pair is kept with its host; the NVLink
// twin is a WARN, kept as one, not among the INFO lines; a line without
// the pair is still the same line kind.
func TestP2PDisabledLines(t *testing.T) {
	l := parseLog(t, "a:1:2 [0] NCCL INFO P2P is disabled between connected GPUs 2 and 1. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.\n"+
		"b:3:4 [1] NCCL INFO P2P is disabled between connected GPUs 0 and 1. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.\n"+
		"b:3:4 [1] NCCL INFO P2P Chunksize set to 131072\n"+
		"b:3:4 [1] graph/paths.cc:396 NCCL WARN P2P is disabled between NVLINK connected GPUs 1 and 0. This should not be the case given their connectivity, and is probably due to a hardware issue. If you still want to proceed, you can set NCCL_IGNORE_DISABLED_P2P=1.\n")
	p := l.P2PDisabled
	if len(p) != 2 || p[0].Host != "a" || p[1].Host != "b" || p[0].Count != 1 || p[1].Count != 1 ||
		p[0].Pairs[0] != [2]int{1, 2} || p[1].Pairs[0] != [2]int{0, 1} || p[1].Lines[0].Line != 2 {
		t.Errorf("P2PDisabled %+v", p)
	}
	if l.WarningCount != 1 || l.Warnings[0].Where != "graph/paths.cc:396" {
		t.Errorf("warnings %+v", l.Warnings)
	}
}

// Two machines that print one host name: the first one's P2P line, read
// before the second machine's address showed the name stands for two, is
// attributed to the first machine's address by finishHosts.
func TestP2PDisabledHostOfSharedName(t *testing.T) {
	l := parseLog(t, "node:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"+
		"node:1:1 [0] NCCL INFO P2P is disabled between connected GPUs 0 and 1. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.\n"+
		"node:2:2 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>\n"+
		"node:2:2 [0] NCCL INFO P2P is disabled between connected GPUs 1 and 0. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.\n")
	if p := l.P2PDisabled; len(p) != 2 || p[0].Host != "node (10.0.0.1)" || p[1].Host != "node (10.0.0.2)" {
		t.Errorf("P2PDisabled %+v", p)
	}
}

// p2pPair reads both orders and refuses a line without two indices.
func TestP2PPair(t *testing.T) {
	for _, c := range []struct {
		line string
		a, b int
		ok   bool
	}{
		{"P2P is disabled between connected GPUs 2 and 1. You can repress this message", 2, 1, true},
		{"P2P is disabled between connected GPUs 10 and 3.", 10, 3, true},
		{"P2P is disabled between connected GPUs 2", 0, 0, false},
		{"P2P is disabled between connected GPUs x and 1.", 0, 0, false},
	} {
		a, b, ok := p2pPair(c.line)
		if ok != c.ok || ok && (a != c.a || b != c.b) {
			t.Errorf("%q: %d %d %v", c.line, a, b, ok)
		}
	}
}

// Every rank of a node prints the line for each pair it checks, and a job
// that makes many communicators prints them again for each: a pair first
// named after the first 64 lines is still read, the count is every line,
// and the lines kept are the first of each pair (synthetic lines in
// graph/paths.cc's form).
func TestP2PPairsFromWholeLog(t *testing.T) {
	const line = "a:1:2 [0] NCCL INFO P2P is disabled between connected GPUs %d and %d. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.\n"
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, line, i%2, 1-i%2)
	}
	fmt.Fprintf(&b, line, 3, 2)
	p := parseLog(t, b.String()).P2PDisabled
	if len(p) != 1 || p[0].Count != 101 || !slices.Equal(p[0].Pairs, [][2]int{{0, 1}, {2, 3}}) ||
		len(p[0].Lines) != 2 || p[0].Lines[0].Line != 1 || p[0].Lines[1].Line != 101 {
		t.Errorf("P2PDisabled %+v", p)
	}
}

// A machine's lines read before its name was known to stand for two
// machines, and those read after, are one host's: finishHosts renames the
// first to the name and address the second already has, and the two are
// joined.
func TestP2PDisabledJoinedAfterRename(t *testing.T) {
	l := parseLog(t, "node:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"+
		"node:1:1 [0] NCCL INFO P2P is disabled between connected GPUs 0 and 1. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.\n"+
		"node:2:2 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>\n"+
		"node:1:1 [0] NCCL INFO P2P is disabled between connected GPUs 2 and 1. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.\n"+
		"node:2:2 [0] NCCL INFO P2P is disabled between connected GPUs 3 and 0. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.\n")
	p := l.P2PDisabled
	if len(p) != 2 || p[0].Host != "node (10.0.0.1)" || p[0].Count != 2 || !slices.Equal(p[0].Pairs, [][2]int{{0, 1}, {1, 2}}) ||
		p[1].Host != "node (10.0.0.2)" || !slices.Equal(p[1].Pairs, [][2]int{{0, 3}}) {
		t.Errorf("P2PDisabled %+v", p)
	}
}
