package doctor

import (
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// Artifacts of the tenth sweep: logs of recent NCCL (2.24-2.27) and
// PyTorch (2.4-2.7) releases. Each test failed before the change it covers.

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
