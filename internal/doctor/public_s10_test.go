package doctor

import (
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// Artifacts of the tenth sweep: logs of recent NCCL (2.24-2.27) and
// PyTorch (2.4-2.7) releases. Each test failed before the change it covers.

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

// NCCL 2.24.3's init as NVIDIA/nccl#1584 posts it, every "host:pid:tid
// [dev] NCCL INFO" prefix stripped: rocelab read the version and nothing
// else ("No findings"). The messages only NCCL prints are now read without
// their prefix; "ncclCommInitRankConfig comm ..." is read with or without.
func TestStrippedNCCLPrefixes(t *testing.T) {
	rel := "corpus/nccl-log/nccl-2.24.3-prefixes-stripped-ibext-v8-sharp-ras-profiler-nccl1584.txt"
	l := nicReadArtifacts(t, rel)[0].(*ingest.NCCLLog)
	if l.Comm.Ranks != 8 || len(l.Networks) != 1 || l.Networks[0].Name != "IBext_v8" || len(l.EnvValues("NCCL_IB_PCI_RELAXED_ORDERING")) != 1 {
		t.Errorf("comm %+v networks %+v", l.Comm, l.Networks)
	}
	f := nicMustFind(t, diagnoseFiles(t, Options{}, rel), "nccl.transport.ib", Info, "NET/IBext_v8 over InfiniBand", "4 more")
	if f.Evidence[0].Line != 15 || !strings.Contains(f.Mechanism, "8 ranks") {
		t.Errorf("evidence %v mechanism %s", f.Evidence, f.Mechanism)
	}
}

// The tail of a 2-GPU all_reduce_perf on one host (NVIDIA/nccl#1706: the
// 4-GPU run hung until NCCL_NVLS_ENABLE=0), its rank lines not pasted:
// rocelab judged the 25.88 GB/s plateau as a network figure awaiting the
// NIC speed. NCCL's "comm ... rank 0 nranks 2" and "rank 1 nranks 2"
// lines, both from host deepseek, show the job never left that node.
func TestOneHostHoldsEveryRank(t *testing.T) {
	rel := "corpus/nccl-tests/nccltests-tail-destroy-complete-one-host-2-ranks-nvls-hang-nccl1706.txt"
	var l *ingest.NCCLLog
	for _, a := range nicReadArtifacts(t, rel) {
		if x, ok := a.(*ingest.NCCLLog); ok {
			l = x
		}
	}
	if h, ev, ok := l.Comm.SingleHost(); !ok || h != "deepseek" || ev.Line != 4 {
		t.Fatalf("single host %q line %d ok %v", h, ev.Line, ok)
	}
	f := nicMustFind(t, diagnoseFiles(t, Options{}, rel), "nccltests.busbw.unjudged", Info, "25.88 GB/s", "host deepseek prints both ranks of the communicator", "no NIC is on its path")
	if !strings.Contains(f.Mechanism, "NVLink or PCIe") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
	// SYNTHETIC: ranks of one communicator on two hosts are no single host.
	res, err := ingest.Read("two", strings.NewReader("a:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId f000 - Destroy COMPLETE\nb:1:1 [0] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 0 busId f000 - Destroy COMPLETE\n"))
	if err != nil || len(res.Artifacts) != 1 {
		t.Fatal(err, res)
	}
	if h, _, ok := res.Artifacts[0].(*ingest.NCCLLog).Comm.SingleHost(); ok {
		t.Errorf("two hosts read as one: %q", h)
	}
}

// nccl-tests 2.13.6's all_gather on one RTX 4090 (NixOS/nixpkgs#251856):
// busbw 0.00, an in-place algbw of 619657 GB/s. rocelab said only that
// 32MiB was too small to judge; one rank measures no transport at all.
func TestOneRankRun(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/nccltests-2.13.6-one-rank-all-gather-busbw-zero-rtx4090-nixpkgs251856.txt")
	f := nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "all_gather ran on one rank (nixos-desktop device 0)", "busbw is 0 by definition")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 5 || f.Evidence[1].Line != 10 {
		t.Errorf("evidence %v", f.Evidence)
	}
	nicMustNot(t, fs, "nccltests.sizes.small")
}
