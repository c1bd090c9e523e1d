package doctor

import (
	"os"
	"strings"
	"testing"
)

// qosPFC5 is an mlnx_qos dump with PFC on priority 5 and DSCP trust, in
// mlnx_qos's layout. Synthetic.
var qosPFC5 = []string{
	"$ mlnx_qos -i eth0",
	"DCBX mode: OS controlled",
	"Priority trust state: dscp",
	"dscp2prio mapping:",
	"        prio:0 dscp:07,06,05,04,03,02,01,00,",
	"        prio:1 dscp:15,14,13,12,11,10,09,08,",
	"        prio:2 dscp:23,22,21,20,19,18,17,16,",
	"        prio:3 dscp:31,30,29,28,27,25,24,",
	"        prio:4 dscp:39,38,37,36,35,34,33,32,",
	"        prio:5 dscp:47,46,45,44,43,42,41,40,26,",
	"        prio:6 dscp:55,54,53,52,51,50,49,48,",
	"        prio:7 dscp:63,62,61,60,59,58,57,56,",
	"PFC configuration:",
	"        priority    0   1   2   3   4   5   6   7",
	"        enabled     0   0   0   0   0   1   0   0",
}

func with(a []string, b ...string) []string { return append(append([]string{}, a...), b...) }

// Congestion control judged on a host's artifacts: a mask or a sysfs
// enable that leaves out the priority RoCE's DSCP maps to on the same
// host is an error naming both and a fix that adds it; a mask of 0 is off
// (info); a mask that covers RoCE's priority is silent. Synthetic.
// Before, diagnose read mlxconfig and DCQCN sysfs for lint only and said
// nothing.
func TestCCPrioJudged(t *testing.T) {
	mlx := func(v string) []string {
		return []string{"$ mlxconfig -d 0000:3b:00.0 query", "Device #1:", "----------", "", "Device type:    ConnectX6DX", "Device:         0000:3b:00.0", "",
			"Configurations:                              Next Boot", "         ROCE_CC_PRIO_MASK_P1                " + v}
	}
	f := nicMustFind(t, synthFindings(t, Options{}, with(qosPFC5, mlx("8")...)...), "nic.cc_prio_mask.missing", Error,
		"0000:3b:00.0 ROCE_CC_PRIO_MASK_P1 leaves out priority 5, where RoCE rides", "maps DSCP 26 (NCCL_IB_TC=106 assumed")
	if !strings.Contains(f.Fix, "mlxconfig -d 0000:3b:00.0 set ROCE_CC_PRIO_MASK_P1=0x28") || len(f.Evidence) != 3 {
		t.Errorf("finding %+v", f)
	}
	nicMustNot(t, synthFindings(t, Options{}, with(qosPFC5, mlx("255")...)...), "nic.cc_prio_mask.missing")
	nicMustFind(t, synthFindings(t, Options{}, mlx("0")...), "nic.cc_prio_mask.off", Info, "congestion control is off on every priority")
	// The mask alone: RoCE's priority is not known, nothing to judge.
	nicMustNot(t, synthFindings(t, Options{}, mlx("8")...), "nic.cc_prio_mask.missing")

	sysfs := with(qosPFC5, "$ grep . /sys/class/net/eth0/ecn/roce_rp/enable/*",
		"/sys/class/net/eth0/ecn/roce_rp/enable/3:1", "/sys/class/net/eth0/ecn/roce_rp/enable/5:0")
	f = nicMustFind(t, synthFindings(t, Options{}, sysfs...), "nic.cc_prio_mask.missing", Error, "eth0 roce_rp/enable leaves out priority 5")
	if !strings.Contains(f.Fix, "echo 1 > /sys/class/net/eth0/ecn/roce_rp/enable/5") {
		t.Errorf("fix %q", f.Fix)
	}
}

// Real pastes whose congestion control covers RoCE's priority raise no
// finding: the firmware default mask 255 of an mlxconfig query, pasted
// with the synthetic mlnx_qos dump that puts RoCE on priority 5 (without
// one in the same input the rule has no priority to judge), and a
// script's dump of every roce_rp/enable at 1 beside PFC on priority 5.
// The same paste with the mask at 8 is judged, so the pair can fire.
func TestCCPrioCorpusCovered(t *testing.T) {
	raw, err := os.ReadFile(nicTestdata("corpus/mlxconfig/mlxconfig-query-cx5-cc-defaults-dpservice26.txt"))
	if err != nil {
		t.Fatal(err)
	}
	query := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	mask8 := strings.Split(strings.ReplaceAll(strings.Join(query, "\n"), "                255", "                8"), "\n")
	paths := writeFiles(t, map[string][]string{"mask255.txt": with(query, qosPFC5...), "mask8.txt": with(mask8, qosPFC5...)})
	nicMustFind(t, diagnose(t, Options{}, paths[1]).Findings, "nic.cc_prio_mask.missing", Error, "ROCE_CC_PRIO_MASK_P1 leaves out priority 5")
	for _, fs := range [][]Finding{
		diagnose(t, Options{}, paths[0]).Findings,
		diagnoseFiles(t, Options{}, "corpus/ethtool/mlnx-qos-pfc5-ecn-tclass160-rdma-qos-script-spiderpool.txt"),
	} {
		nicMustFind(t, fs, "qos.ok", Info)
		nicMustNot(t, fs, "nic.cc_prio_mask.missing")
		nicMustNot(t, fs, "nic.cc_prio_mask.off")
	}
}
