package ingest

import "testing"

// graph/paths.cc's INFO for a PCIe pair is kept with its host; the NVLink
// twin is a WARN, kept as one, not among the INFO lines; a line without
// the pair is still the same line kind.
func TestP2PDisabledLines(t *testing.T) {
	l := parseLog(t, "a:1:2 [0] NCCL INFO P2P is disabled between connected GPUs 2 and 1. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.\n"+
		"b:3:4 [1] NCCL INFO P2P is disabled between connected GPUs 0 and 1. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.\n"+
		"b:3:4 [1] NCCL INFO P2P Chunksize set to 131072\n"+
		"b:3:4 [1] graph/paths.cc:396 NCCL WARN P2P is disabled between NVLINK connected GPUs 1 and 0. This should not be the case given their connectivity, and is probably due to a hardware issue. If you still want to proceed, you can set NCCL_IGNORE_DISABLED_P2P=1.\n")
	p := l.P2PDisabled
	if p.Count != 2 || len(p.Hosts) != 2 || p.Hosts[0] != "a" || p.Hosts[1] != "b" || p.Lines[1].Line != 2 {
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
	if h := l.P2PDisabled.Hosts; len(h) != 2 || h[0] != "node (10.0.0.1)" || h[1] != "node (10.0.0.2)" {
		t.Errorf("hosts %q", h)
	}
}
