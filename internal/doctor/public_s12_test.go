package doctor

import (
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// Artifacts of the twelfth sweep: public nccl-tests and rccl-tests
// outputs. Each test failed before the change it covers.

// An alltoall whose time sits near 0.1 s from 16 MiB to 2 GiB while 8 MiB
// took 0.29 ms (two hosts of eight ConnectX-8 through the Spectrum-X
// plugin): the sizes waited and the larger ones climb back to 34 GB/s, so
// it is a stall although no larger size is faster. NVIDIA/nccl#1453's
// table, whose rate stays low from 64 MiB on, is a rate, not a stall.
func TestNCCLTestsStallDip(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/alltoall-2.18.3-2n-16gpu-cx8-spcx-plugin-collapse-8m-1g-mpirun-help.txt")
	f := nicMustFind(t, fs, "nccltests.time.stall", Warn, "alltoall: 16MiB-512MiB took 10.60 ms-99.15 ms", "what the rate of the smaller 8MiB (0.29 ms) gives")
	if len(f.Evidence) != 7 {
		t.Errorf("evidence %d, want the 6 stalled rows and the 8MiB one", len(f.Evidence))
	}
	nicMustNot(t, diagnoseFiles(t, Options{}, "corpus/threads/allreduce-rank-tag-repeated-midline-nccl1453.txt"), "nccltests.time.stall")
}

// MetaX's mccl-tests prints nothing in the redop column of all_gather;
// the rows were read with -1 as the redop and the time as the root, then
// dropped as cut (21 rows, no finding said so).
func TestNCCLTestsBlankRedop(t *testing.T) {
	rel := "corpus/nccl-tests/metax-c500-1n-8gpu-mccl-tests-allgather-blank-redop.txt"
	runs := nicReadArtifacts(t, rel)[0].(*ingest.NCCLTests).Runs
	if len(runs) != 3 {
		t.Fatalf("%d runs, want 3", len(runs))
	}
	ag := runs[1]
	if ag.Collective != "all_gather" || len(ag.Rows) != 21 || len(ag.Truncated) != 0 || ag.Rows[20].Redop != "" || ag.Rows[20].Root != -1 || ag.Rows[20].Out.Time != 14553.37 {
		t.Errorf("all_gather %s: %d rows, %d cut, last %+v", ag.Collective, len(ag.Rows), len(ag.Truncated), ag.Rows[len(ag.Rows)-1])
	}
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

// Two ranks on GPU 0 of one host, made to look like two hosts with
// NCCL_HOSTID (nccl-eBPF's socket experiments): the run read as an
// ordinary one-node all_reduce. Eight ranks on eight GPUs are no finding.
func TestRanksSharedGPU(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/allreduce-2.18.0-mpirun-tag-output-stderr-two-ranks-one-gpu-socket-rtx5090.txt")
	f := nicMustFind(t, fs, "nccltests.ranks.shared_gpu", Warn, "ranks 0 and 1 on lab device 0 share one GPU")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 15 || f.Evidence[1].Line != 16 {
		t.Errorf("evidence %v, want the two rank lines", f.Evidence)
	}
	nicMustNot(t, diagnoseFiles(t, Options{}, "corpus/nccl-tests/metax-c500-1n-8gpu-mccl-tests-allgather-blank-redop.txt"), "nccltests.ranks.shared_gpu")
}
