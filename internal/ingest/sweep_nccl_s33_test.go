package ingest

import "testing"

// A log console's export stamps each line to the minute ("2025-02-18
// 12:54 ", NVIDIA/nccl#1610) before PyTorch's "[rank13]:" tag: both come
// off, the column points past them, and the watchdog lines keep the
// job-wide rank of the tag beside the group's rank and the group's GUID.
func TestMinuteStampAndPyTorchRankTag(t *testing.T) {
	l := ncclLog(t, "nccl-log/pytorch-timestamp-rank-prefix-alltoall-two-pgs-watchdog-socket-chain-nccl1610.txt")
	if len(l.Timeouts) != 2 || l.Timeouts[0].Global != 13 || l.Timeouts[0].Rank != 1 || l.Timeouts[1].Global != 15 {
		t.Fatalf("timeouts %+v", l.Timeouts)
	}
	if l.Timeouts[0].Evidence.Col != 28 {
		t.Errorf("column %d, want 28 (past the stamp and the tag)", l.Timeouts[0].Evidence.Col)
	}
	if len(l.Progress) != 2 || l.Progress[0].GUID != "119" || l.Progress[0].PG != "11" || l.Progress[1].GUID != "112" || l.Progress[1].Global != 15 {
		t.Errorf("progress %+v", l.Progress)
	}
	// A paste's line number before the tag ("[1784] [rank0]:") is no rank.
	p := ncclLog(t, "nccl-log/pytorch-line-number-prefix-failure-detected-by-watchdog-flightrecorder-off-llamafactory8261.txt")
	if len(p.Timeouts) != 1 || p.Timeouts[0].Global != 2 || len(p.Progress) != 2 || p.Progress[0].Global != 0 || p.Progress[0].GUID != "1" {
		t.Errorf("timeouts %+v progress %+v", p.Timeouts, p.Progress)
	}
}

// aws-ofi-nccl's own logger before it logged through NCCL's
// (aws/aws-ofi-nccl#22, #67): "INFO: Function: f Line: n: NET/OFI ...".
func TestOFILegacyLines(t *testing.T) {
	for _, c := range []struct {
		s, loc, msg string
		warn        bool
	}{
		{"INFO: Function: ofi_init Line: 686: NET/OFI Selected Provider is efa", "ofi_init:686", "NET/OFI Selected Provider is efa", false},
		{"WARN: Function: find_ofi_provider Line: 543: NET/OFI Couldn't find any optimal provider", "find_ofi_provider:543", "NET/OFI Couldn't find any optimal provider", true},
	} {
		loc, warn, msg, ok := ofiLegacySplit(c.s)
		if !ok || loc != c.loc || warn != c.warn || msg != c.msg {
			t.Errorf("%q: %q %v %q %v", c.s, loc, warn, msg, ok)
		}
	}
	for _, s := range []string{"INFO: Function: main Line: 49: Process rank 0 started", "WARN: Function: a b Line: 1: NET/OFI x", "INFO: Function: f Line: x: NET/OFI y"} {
		if _, _, _, ok := ofiLegacySplit(s); ok {
			t.Errorf("%q read as aws-ofi-nccl's", s)
		}
	}
	l := ncclLog(t, "nccl-log/nccl-ofi-old-function-line-format-pdsh-prefix-no-optimal-provider-p4d-awsofinccl67.txt")
	if l.PluginInitFailures.Count != 1 || l.Lines() != 4 {
		t.Errorf("init failures %d, lines %d", l.PluginInitFailures.Count, l.Lines())
	}
	a := ncclLog(t, "nccl-log/nccl-ofi-old-function-line-format-open-av-einval-efa-1.5-awsofinccl22.txt")
	if len(a.Warnings) != 2 || a.Warnings[0].Where != "create_nccl_ofi_component:459" {
		t.Errorf("warnings %+v", a.Warnings)
	}
}
