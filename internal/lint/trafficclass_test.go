package lint

import (
	"os"
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

// NCCL_IB_TC written as a DSCP: 26 beside netarbiter's mlnx_qos (trust
// dscp, PFC on 3: DSCP 24–31 lossless) is DSCP 6, priority 0; 3 beside
// SONiC's rendered SN4600C QoS (DSCP 3 in lossless TC 3) is DSCP 0, TC 1.
// The byte itself (106), a value neither reading makes lossless (24 on
// the SN4600C, whose DSCP 24 is TC 1) and one both readings make lossless
// (20 beside Mellanox's mlnx_qos page, PFC on 0, 2, 6 and 7: DSCP 20 is
// priority 2, DSCP 5 priority 0) say nothing, nor does 40 beside a NIC
// that forces traffic class 160 (DSCP 40) whatever NCCL_IB_TC says, nor
// 12 beside the SN4600C edited to put DSCP 12 in TC 3 as well.
func TestTCAsDSCP(t *testing.T) {
	nic := filepath.Join("..", "..", "testdata", "corpus", "ethtool", "mlnx-qos-set-x-trace-trust-dscp-then-pfc3-tsa-vendor-netarbiter.txt")
	sw := filepath.Join("..", "..", "testdata", "lint", "sonic-pfc-queue-unpaused", "fixed", "sn4600c-c64-t1-qos-buffers.json")
	both := filepath.Join("..", "..", "testdata", "corpus", "ethtool", "mlnx-qos-ofed4.2-blank-lines-pfc-0-2-6-7-mellanox-doc2792.txt")
	data, err := os.ReadFile(sw)
	if err != nil {
		t.Fatal(err)
	}
	// DSCP 12 in lossless TC 3 too: 12 is lossless read as a DSCP and as
	// the byte (DSCP 3).
	both12 := tempFile(t, "sn4600c-dscp12-tc3-synthetic.json", strings.ReplaceAll(string(data), `"12": "1"`, `"12": "3"`))
	forced := filepath.Join("..", "..", "testdata", "corpus", "ethtool", "mlnx-qos-pfc5-ecn-tclass160-rdma-qos-script-spiderpool.txt")
	for _, c := range []struct {
		cfg, tc, want string
	}{
		{nic, "26", "NCCL_IB_TC=26 looks like a DSCP: it is the traffic class byte, DSCP 6; DSCP 26 is lossless in the NICs' mlnx_qos"},
		{nic, "106", ""},
		{sw, "3", "NCCL_IB_TC=3 looks like a DSCP: it is the traffic class byte, DSCP 0; DSCP 3 is lossless in"},
		{sw, "24", ""},
		{both, "20", ""},
		{both, "56", "NCCL_IB_TC=56 looks like a DSCP: it is the traffic class byte, DSCP 14; DSCP 56 is lossless in the NICs' mlnx_qos"},
		{both12, "12", ""},
		{forced, "40", ""}, // DSCP 40 is lossless there, but mlx5_0 forces traffic class 160 over NCCL_IB_TC
	} {
		rep := lintFiles(t, c.cfg, tempFile(t, "nccl-env-synthetic.sh", "export NCCL_IB_TC="+c.tc+"\n"))
		var got []string
		for _, f := range rep.Findings {
			if f.ID == "nccl.ib_tc.dscp" {
				got = append(got, f.Title)
			}
		}
		if c.want == "" && len(got) != 0 || c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)) {
			t.Errorf("NCCL_IB_TC=%s beside %s: %q, want %q", c.tc, filepath.Base(c.cfg), got, c.want)
		}
	}
}

// A mask without RoCE's priority is the finding diagnose gives (one
// helper, doctor.CCPrioMissing): its fix adds the priority to the mask,
// keeping the other priorities' congestion control (0x10 -> 0x18), not a
// mask of RoCE's priority alone. Synthetic.
func TestCCPrioMissingKeepsOtherPriorities(t *testing.T) {
	rep := lintFiles(t, tempFile(t, "nic-firmware-synthetic.txt", "mlxconfig -d /dev/mst/mt4123_pciconf0 set ROCE_CC_PRIO_MASK=0x10\n"))
	for _, f := range rep.Findings {
		if f.ID != "nic.cc_prio_mask.missing" {
			continue
		}
		if !strings.Contains(f.Title, "leaves out priority 3, where RoCE rides: DCQCN is off for RoCE") || !strings.Contains(f.Fix, "ROCE_CC_PRIO_MASK_P1=0x18 (and _P2): priority 3 added") || !strings.Contains(f.Fix, "mlxconfig -d /dev/mst/mt4123_pciconf0") {
			t.Errorf("%s\n%s", f.Title, f.Fix)
		}
		return
	}
	t.Errorf("no nic.cc_prio_mask.missing: %v", rep.Findings)
}
