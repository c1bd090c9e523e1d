package doctor

import (
	"os"
	"strings"
	"testing"
)

// An mlnx_qos dump that ends before its PFC table says so instead of
// passing without a word; the whole dump is judged as before
// (att/netarbiter's sample output, and its first dump cut before "Cable
// len" by this test).
func TestMlnxQoSWithoutPFCSaid(t *testing.T) {
	const rel = "corpus/ethtool/mlnx-qos-set-x-trace-trust-dscp-then-pfc3-tsa-vendor-netarbiter.txt"
	fs := Diagnose([]string{nicTestdata(rel)}, nil, Options{}).Findings
	nicMustFind(t, fs, "qos.ok", Info, "eth4: PFC on priority 3 only, trust dscp")
	for _, f := range fs {
		if f.ID == "qos.pfc.unshown" {
			t.Errorf("whole dump: %s", f.Title)
		}
	}
	b, err := os.ReadFile(nicTestdata(rel))
	if err != nil {
		t.Fatal(err)
	}
	cut, _, _ := strings.Cut(string(b), "Cable len")
	fs = Diagnose([]string{"-"}, strings.NewReader(cut), Options{}).Findings
	f := nicMustFind(t, fs, "qos.pfc.unshown", Info, "eth4: the mlnx_qos dump has no PFC configuration, so whether PFC protects priority 3, where DSCP 26")
	if len(f.Evidence) == 0 || !strings.Contains(f.Evidence[len(f.Evidence)-1].Text, "Priority trust state: dscp") {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// show_gids beside an mlnx_qos dump its author cut before the PFC table
// (host-bench/husky): the v2 IPv4 GID is index 3, and PFC is said to be
// unshown, not off.
func TestMlnxQoSCutBeforePFC(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/show-gids-mlnx-qos-cut-before-pfc-husky.txt")
	nicMustFind(t, fs, "gid.index.roce_v2", Info, "index 3 (mlx5_0 192.168.211.242)")
	nicMustFind(t, fs, "qos.pfc.unshown", Info, "rdma0: the mlnx_qos dump has no PFC configuration")
	for _, f := range fs {
		if strings.HasPrefix(f.ID, "qos.pfc.") && f.ID != "qos.pfc.unshown" {
			t.Errorf("%s: %s", f.ID, f.Title)
		}
	}
}

// The traffic class a device forces decides where RoCE lands: spiderpool's
// rdma-qos.sh sets tclass 160 (DSCP 40, priority 5) and PFC on priority 5;
// the doctor assumed NCCL_IB_TC=106 and warned that PFC missed priority 3.
func TestForcedTrafficClass(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/mlnx-qos-pfc5-ecn-tclass160-rdma-qos-script-spiderpool.txt")
	nicMustNot(t, fs, "qos.pfc.disabled")
	f := nicMustFind(t, fs, "qos.ok", Info, "PFC on priority 5 only")
	if !strings.Contains(f.Mechanism, "traffic_class 160 (DSCP 40)") {
		t.Errorf("mechanism %q", f.Mechanism)
	}
}
