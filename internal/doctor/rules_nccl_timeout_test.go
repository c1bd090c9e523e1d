package doctor

import (
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// Two ranks time out at the same SeqNum in different collectives (rank 7 in
// a BROADCAST of 5056 elements, rank 3 in an ALLREDUCE of 2106881): the
// program diverged, which no network fix helps. rocelab listed both
// operations and sent the reader to the RDMA counters.
func TestTimeoutCollectiveMismatch(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/pytorch-watchdog-broadcast-vs-allreduce-same-seq-nccl1409.txt")
	f := nicMustFind(t, fs, "nccl.collective.timeout", Error, "wait in different collectives")
	for _, want := range []string{"rank 7 in BROADCAST of 5056 elements", "rank 3 in ALLREDUCE of 2106881 elements", "program diverged", "rank 7 completed work 80077 and had enqueued up to 80078"} {
		if !strings.Contains(f.Mechanism, want) {
			t.Errorf("mechanism lacks %q: %s", want, f.Mechanism)
		}
	}
	if !strings.HasPrefix(f.Fix, "Make every rank of the group issue the same collectives") || !strings.Contains(f.Fix, "TORCH_DISTRIBUTED_DEBUG=DETAIL") {
		t.Errorf("fix %q", f.Fix)
	}
	// Ranks in the same collective are no mismatch.
	f = nicMustFind(t, diagnoseFiles(t, Options{}, "corpus/nccl-log/pytorch-watchdog-timeout-allreduce-seq1580-llamafactory7396.txt"), "nccl.collective.timeout", Error)
	if strings.Contains(f.Title, "different collectives") {
		t.Errorf("one ALLREDUCE read as a mismatch: %s", f.Title)
	}
}

// PyTorch's progress lines after a timeout, in the 2.2-2.5 form ("[PG ID 0
// PG GUID 0(default_pg) Rank 1] Exception ... at work: 808, last enqueued
// NCCL work: 811, last completed NCCL work: 807.") and the 2.6+ one
// ("failure detected by watchdog at work sequence id: 2398459 PG status:
// last enqueued work: 2398578, last completed work: 2398458"), were not
// read: the finding told the reader to compare them by hand.
func TestWatchdogProgress(t *testing.T) {
	arts := nicReadArtifacts(t, "corpus/nccl-log/pytorch-2.6-watchdog-pg-guid-progress-basicsr737.txt")
	ps := arts[0].(*ingest.NCCLLog).Progress
	if len(ps) != 2 || ps[0].Rank != 1 || ps[0].PG != "0" || ps[0].At != 808 || ps[0].Enqueued != 811 || ps[0].Completed != 807 || ps[1].Rank != 0 {
		t.Fatalf("progress %+v", ps)
	}
	f := nicMustFind(t, diagnoseFiles(t, Options{}, "corpus/nccl-log/pytorch-2.6-watchdog-pg-guid-progress-basicsr737.txt"), "nccl.collective.timeout", Error, "ranks 0, 1, 2")
	if !strings.Contains(f.Mechanism, "2 ranks completed work 807 and no further") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
	rel := "corpus/nccl-log/ncclras-2.26.2-running-ok-pytorch-timeout-pg-status-nccl1730.txt"
	ps = nil
	for _, a := range nicReadArtifacts(t, rel) {
		if l, ok := a.(*ingest.NCCLLog); ok {
			ps = l.Progress
		}
	}
	if len(ps) != 1 || ps[0].Rank != 118 || ps[0].PG != "0" || ps[0].At != 2398459 || ps[0].Enqueued != 2398578 || ps[0].Completed != 2398458 {
		t.Fatalf("progress %+v", ps)
	}
	f = nicMustFind(t, diagnoseFiles(t, Options{}, rel), "nccl.collective.timeout", Error, "rank 118")
	if !strings.Contains(f.Mechanism, "rank 118 completed work 2398458 and had enqueued up to 2398578: it launched the collective") || len(f.Evidence) != 2 {
		t.Errorf("mechanism %s evidence %v", f.Mechanism, f.Evidence)
	}
}

// PyTorch's heartbeat monitor (ArcticTraining#219): rank 7's watchdog
// thread made no progress for 480 s after rank 2's all-gather timed out.
// Before, the heartbeat line was not read at all.
func TestWatchdogStuckJoinsTheTimeout(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/pytorch-watchdog-stuck-480s-heartbeat-allgather-timeout-arctictraining219.txt")
	f := nicMustFind(t, fs, "nccl.collective.timeout", Error, "_ALLGATHER_BASE (SeqNum 120049)", "on rank 2")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 3 || !strings.Contains(f.Mechanism, "on rank 7 (480 s) PyTorch's heartbeat monitor found the watchdog thread itself blocked") {
		t.Errorf("heartbeat line not joined: %+v\n%s", f.Evidence, f.Mechanism)
	}
	// The heartbeat line alone (SYNTHETIC: the real line without the
	// timeout before it) is a hang of its own.
	fs = synthFindings(t, Options{},
		"# synthetic",
		"[rank5]:[E626 05:14:36.393819762 ProcessGroupNCCL.cpp:1743] [PG ID 0 PG GUID 0(default_pg) Rank 5] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives.")
	nicMustFind(t, fs, "nccl.collective.timeout", Error, "watchdog got stuck on rank 5 (480 s)")
}

// The watchdog's line wrapped by a terminal (huggingface/open-r1#620): the
// WorkNCCL fields end one line, "Timeout(ms)=... ran for ..." starts the
// next. Before, the file was "in no format rocelab recognises".
func TestWrappedWatchdogLine(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/pytorch-watchdog-terminate-wrapped-130-columns-broadcast-seq4-openr1-620.txt")
	f := nicMustFind(t, fs, "nccl.collective.timeout", Error, "BROADCAST (SeqNum 4) on rank 2")
	if f.Evidence[0].Line != 4 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// PyTorch's ProcessGroupNCCL watchdog lines are read: a file of them was
// "in no format rocelab recognises" (exit 2). PyTorch 2.2+'s form
// (hiyouga/LlamaFactory#7396, with NumelIn/NumelOut) and the older one
// behind a progress bar (pytorch/pytorch#118369, ranks at different
// sequence numbers).
func TestCollectiveTimeout(t *testing.T) {
	arts := nicReadArtifacts(t, "corpus/nccl-log/pytorch-watchdog-timeout-allreduce-seq1580-llamafactory7396.txt")
	l := arts[0].(*ingest.NCCLLog)
	if len(l.Timeouts) != 2 || l.TimeoutCount != 2 {
		t.Fatalf("timeouts %+v", l.Timeouts)
	}
	if w := l.Timeouts[1]; w.Rank != 4 || w.SeqNum != 1580 || w.OpType != "ALLREDUCE" || w.NumelIn != 466119168 || w.NumelOut != 466119168 || w.TimeoutMS != 600000 || w.RanMS != 600067 {
		t.Errorf("second timeout %+v", w)
	}
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/pytorch-watchdog-timeout-allreduce-seq1580-llamafactory7396.txt")
	// Rank 3's timeout line is not in the excerpt, but its watchdog's
	// progress line stopped at work 1580: it reports the same collective.
	nicMustFind(t, fs, "nccl.collective.timeout", Error, "ALLREDUCE (SeqNum 1580)", "within 600.0 s", "ranks 0, 3, 4")

	old := nicReadArtifacts(t, "corpus/nccl-log/pytorch-watchdog-timeout-old-format-progress-bar-pytorch118369.txt")[0].(*ingest.NCCLLog)
	if len(old.Timeouts) != 4 || old.TimeoutCount != 5 || old.Timeouts[0].SeqNum != 96120 || old.Timeouts[0].NumelIn != -1 || old.Timeouts[3].Rank != 7 {
		t.Fatalf("old-format timeouts %+v (count %d)", old.Timeouts, old.TimeoutCount)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/pytorch-watchdog-timeout-old-format-progress-bar-pytorch118369.txt")
	f := nicMustFind(t, fs, "nccl.collective.timeout", Error, "1800.0 s", "ranks 0, 7")
	if !strings.Contains(f.Mechanism, "different sequence numbers") {
		t.Errorf("mechanism %q", f.Mechanism)
	}
}

// Each process group numbers its collectives on its own: a progress line
// of group 2 that stopped at work 5 is not a rank of group 1's timeout at
// SeqNum 5, and timeouts of one group at different numbers are at
// different points of the job however many groups the progress lines
// are of. Synthetic, in PyTorch 2.6's line forms.
func TestTimeoutGroupsApart(t *testing.T) {
	const pre = "[E1205 01:00:00.000000000 ProcessGroupNCCL.cpp:632] "
	paths := writeFiles(t, map[string][]string{"train.log": {
		"[rank0]:" + pre + "[PG ID 1 PG GUID 1 Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1024, NumelOut=1024, Timeout(ms)=600000) ran for 600010 milliseconds before timing out.",
		"[rank1]:" + pre + "[PG ID 1 PG GUID 1 Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=1024, NumelOut=1024, Timeout(ms)=600000) ran for 600010 milliseconds before timing out.",
		"[rank0]:" + pre + "[PG ID 1 PG GUID 1 Rank 0]  failure detected by watchdog at work sequence id: 5 PG status: last enqueued work: 5, last completed work: 4",
		"[rank1]:" + pre + "[PG ID 1 PG GUID 1 Rank 1]  failure detected by watchdog at work sequence id: 9 PG status: last enqueued work: 9, last completed work: 8",
		"[rank2]:" + pre + "[PG ID 2 PG GUID 2 Rank 0]  failure detected by watchdog at work sequence id: 5 PG status: last enqueued work: 6, last completed work: 4",
	}})
	f := nicMustFind(t, Diagnose(paths, nil, Options{}).Findings, "nccl.collective.timeout", Error)
	if !strings.HasSuffix(f.Title, "on ranks 0, 1") || !strings.Contains(f.Mechanism, "they are not at the same point of the job") || strings.Contains(f.Mechanism, "each numbering its collectives on its own") {
		t.Errorf("%s\n%s", f.Title, f.Mechanism)
	}
}
