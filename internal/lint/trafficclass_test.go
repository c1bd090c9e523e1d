package lint

import (
	"path/filepath"
	"strings"
	"testing"
)

// An RDMA device's forced traffic class (sysfs tc/1/traffic_class, here
// Spiderpool's rdma-qos.sh setting 160: DSCP 40, priority 5, where its
// PFC is) is what RoCE carries whatever NCCL_IB_TC says: an NCCL env
// beside it without NCCL_IB_TC is not traffic class 0, and with
// NCCL_IB_TC=106 RoCE is still on priority 5.
func TestForcedTrafficClass(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "corpus", "ethtool", "mlnx-qos-pfc5-ecn-tclass160-rdma-qos-script-spiderpool.txt")
	for _, env := range []string{"export NCCL_IB_GID_INDEX=3\n", "export NCCL_IB_TC=106\n"} {
		rep := lintFiles(t, src, tempFile(t, "nccl-env-synthetic.sh", env))
		if hasID(rep, "nccl.ib_tc.unset") {
			t.Errorf("%q: nccl.ib_tc.unset, though mlx5_0 forces traffic class 160", env)
		}
		wide := false
		for _, fd := range rep.Findings {
			wide = wide || fd.ID == "nic.cc_prio_mask.wide" && strings.Contains(fd.Title, "not only RoCE's 5")
		}
		if !wide {
			t.Errorf("%q: %v, want nic.cc_prio_mask.wide naming RoCE's priority 5", env, rep.Findings)
		}
	}
}
