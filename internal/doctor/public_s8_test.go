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

// A verbs call that registers memory is not queue-pair setup: NCCL
// 2.27.3's 'Call to ibv_reg_mr_iova2 failed with error Invalid argument'
// (NVIDIA/nccl#1842) read as "Queue pair setup failed" with a GID fix.
func TestRegistrationFailureNotQPSetup(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.27.3-reg-mr-iova2-einval-driver470-nccl1842.txt")
	nicMustNot(t, fs, "nccl.ib.qp_setup_failed")
	f := nicMustFind(t, fs, "nccl.ib.alloc_failed", Error, "refused to register", "ibv_reg_mr_iova2: Invalid argument")
	if !strings.Contains(f.Fix, "NCCL_NET_GDR_LEVEL=LOC") || strings.Contains(f.Fix, "show_gids") {
		t.Errorf("fix %q", f.Fix)
	}
}

// WARN lines no rule read were dropped, so a job NCCL failed read as "No
// findings" or only "RDMA in use": a bootstrap address of no IP family
// (NVIDIA/nccl-tests#294, returned 3 through bootstrap.cc) and an
// aws-ofi-nccl memory registration out of memory whose location is a
// function name (NVIDIA/nccl#563, behind a doubled pdsh prefix).
func TestWarnErrorReported(t *testing.T) {
	for _, c := range []struct {
		file, fix string
		title     []string
	}{
		{"corpus/nccl-log/nccltests-ibext-v6-sharp-bootstrap-family-33621-nccltests294.txt", "make MPI=1",
			[]string{"no IP address", "returned 3 (internal error) through bootstrap.cc:256", "on h100-4; 2 lines"}},
		{"corpus/nccl-log/nccl-ofi-register-memory-enomem-pdsh-host-prefix-nccl563.txt", "memlock unlimited",
			[]string{"could not pin memory", "returned 2 (unhandled system error)", "on ip-10-0-87-143"}},
	} {
		f := nicMustFind(t, diagnoseFiles(t, Options{}, c.file), "nccl.warn.error", Error, c.title...)
		if !strings.Contains(f.Fix, c.fix) {
			t.Errorf("%s: fix %q", c.file, f.Fix)
		}
	}
}

// The HPC-X SHARP plugin lists its devices as "[0]mlx5_1:1/IB/SHARP"
// (NVIDIA/nccl-tests#294): the link layer read as "IB/SHARP", a third
// kind beside IB and RoCE.
func TestSHARPDeviceLinkLayer(t *testing.T) {
	l := nicReadArtifacts(t, "corpus/nccl-log/nccltests-ibext-v6-sharp-bootstrap-family-33621-nccltests294.txt")[0].(*ingest.NCCLLog)
	if len(l.IBDevices) == 0 {
		t.Fatal("no IB devices")
	}
	for _, d := range l.IBDevices {
		if d.LinkLayer != "IB" || d.Port != 1 || !strings.HasPrefix(d.Name, "mlx5_") {
			t.Errorf("device %+v, want mlx5_N port 1 link layer IB", d)
		}
	}
}
