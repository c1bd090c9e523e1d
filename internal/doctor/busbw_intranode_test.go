package doctor

import (
	"os"
	"strings"
	"testing"
)

// NCCL_P2P_DISABLE=1 (with NCCL_SHM_DISABLE=1) on a multi-node run puts
// the node's own GPU traffic on host memory (on the NICs): the busbw
// judgement says so and the fix reruns without them first (a synthetic
// 2 x 8 run). Its mpirun names eight devices in NCCL_IB_HCA, so at 400G
// the limit is eight NICs' 400 GB/s and 35.09 GB/s is an error (9%), no
// longer a warning against one NIC assumed.
func TestBusBWIntraNodeOff(t *testing.T) {
	rel := "synthetic/allreduce-2n-16rank-p2p-shm-disabled-35GBps-synthetic.txt"
	for _, c := range []struct {
		opts      Options
		id        string
		sev       Severity
		mech, fix string
	}{
		{Options{}, "nccltests.busbw.unjudged", Info, "NCCL_P2P_DISABLE=1 and NCCL_SHM_DISABLE=1 are set", "Rerun without NCCL_P2P_DISABLE=1 and NCCL_SHM_DISABLE=1"},
		{Options{NICSpeed: 400e9}, "nccltests.busbw.low", Error, "every hop of a ring is a network hop", "Rerun without NCCL_P2P_DISABLE=1 and NCCL_SHM_DISABLE=1"},
	} {
		f := nicMustFind(t, diagnoseFiles(t, c.opts, rel), c.id, c.sev, "35.09 GB/s")
		if !strings.Contains(f.Mechanism, c.mech) || !strings.HasPrefix(f.Fix, c.fix) || !strings.Contains(f.Fix, "ACS must be off") || !strings.Contains(f.Fix, "iommu=pt") {
			t.Errorf("%s: fix %q\nmechanism %q", c.id, f.Fix, f.Mechanism)
		}
	}
	// P2P off alone: host shared memory.
	b, err := os.ReadFile(nicTestdata(rel))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), `-x NCCL_SHM_DISABLE=1 `, ``, 1)
	f := nicMustFind(t, diagnoseText(t, text).Findings, "nccltests.busbw.unjudged", Info, "35.09 GB/s")
	if !strings.Contains(f.Mechanism, "NCCL_P2P_DISABLE=1 is set: the GPUs of one node exchange data through host shared memory") {
		t.Errorf("mechanism %q", f.Mechanism)
	}
}
