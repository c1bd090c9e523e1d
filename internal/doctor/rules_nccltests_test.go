package doctor

import (
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

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

// #wrong above a million is printed with %g ("1.04858e+06"); those nine
// sizes of an in-network-compute plugin's run counted no wrong element.
func TestNCCLTestsWrongExponent(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/allreduce-rtx3090-2n-inc-plugin-wrong-float-exponent-108-failed.txt")
	nicMustFind(t, fs, "nccltests.wrong", Error, "1073741424 wrong elements in 27 sizes")
}

// Without rank lines an alltoall's share of off-node data is unknown: the
// MI355X tables of OCI's guide were said to have 'no NIC on their path'.
func TestAlltoallRanksUnknown(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/rccl-mi355x-pollara400-2n-4n-allreduce-alltoall-no-rank-lines-oci.txt")
	for _, f := range nicFind(fs, "nccltests.busbw.unjudged") {
		if strings.Contains(f.Title, "no NIC is on its path") {
			t.Errorf("judged on one node: %s", f.Title)
		}
	}
	nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "alltoall per-rank busbw plateau 86.68 GB/s", "the rank count is unknown")
}

// An nccl-tests output cut in its device list (nebius/soperator#428).
// Before, it gave no finding at all, as if the run were clean.
func TestNCCLTestsPreambleOnly(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/preamble-only-h100-2n-srun-mpi-cut-before-table-soperator428.txt")
	f := nicMustFind(t, fs, "nccltests.rows.none", Info, "ends in its preamble (12 rank lines)")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 4 || f.Evidence[1].Line != 18 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}
