package doctor

import (
	"strings"
	"testing"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// Real artifacts of kinds diagnose had seen little of (NCCL and RCCL logs
// of recent releases, nccl-tests behind log wrappers, counters of other
// drivers); the headers of the files under testdata/corpus name each
// source. Each test failed before the change it covers.

// Output a log wrapper indents before Open MPI's tag (a Go test log
// quoting an MPIJob's pods: aws/aws-k8s-tester#464,
// bottlerocket-os/bottlerocket-kernel-kit#424): the nccl-tests rows were
// "in no format rocelab recognises" and the NCCL lines kept the tag.
func TestIndentedMPITags(t *testing.T) {
	arts := nicReadArtifacts(t, "corpus/nccl-tests/alltoall-none-inplace-na-go-test-indent-mpi-tag-bottlerocket424.txt")
	if len(arts) == 0 {
		t.Fatal("no artifact read")
	}
	nt, ok := arts[0].(*ingest.NCCLTests)
	if !ok {
		t.Fatalf("first artifact %T, want nccl-tests", arts[0])
	}
	if n := len(nt.Runs); n != 1 || len(nt.Runs[0].Rows) != 9 || nt.Runs[0].Rows[0].Redop != "none" {
		t.Fatalf("runs %d: %+v", n, *nt.Runs[0])
	}
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-socket-eks-go-test-indent-mpi-tag-awsk8stester464.txt")
	f := nicMustFind(t, fs, "nccl.transport.socket_fallback", Error)
	if !strings.HasPrefix(f.Evidence[0].Text, "multi-node-nccl-test-worker-0:22:28 [0] NCCL INFO") {
		t.Errorf("evidence keeps the wrapper's indentation or tag: %q", f.Evidence[0].Text)
	}
}

// A table of independent 1-rank jobs (nccl-tests without MPI=1 under
// mpirun: NVIDIA/nccl-tests#294, busbw 0.00 on every row, each size twice)
// was judged "0% of what 100Gbps allows" (error nccltests.busbw.low) beside
// the finding that says its bandwidth is meaningless.
func TestSplitRunBusBWNotJudged(t *testing.T) {
	const file = "corpus/nccl-tests/allreduce-busbw-zero-duplicate-rows-one-rank-each-nccltests294.txt"
	fs := diagnoseFiles(t, Options{NICSpeed: 100 * unit.Gbps}, file)
	nicMustFind(t, fs, "nccltests.ranks.split", Error)
	nicMustNot(t, fs, "nccltests.busbw.low")
	nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "not judged", "independent jobs")
}
