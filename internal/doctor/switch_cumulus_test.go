package doctor

import "testing"

// NVIDIA Cumulus Linux, read by package nvue's reader (the one lint
// uses): the user guide's `nv show qos roce` runs PFC on switch priority 3
// and marks traffic class 3 from 150000 to 1500000 bytes; beside the
// hosts' mlnx_qos (PFC on 5 in spiderpool's script) that is a mismatch, as
// SONiC's `show pfc priority` and Onyx's `show roce` are. The guide's
// `nv show interface swp1 counters qos` counts no pause: no PFC finding.
func TestCumulusShowRoCE(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/cumulus-nv-show-qos-roce-single-ipool.txt", "corpus/ethtool/mlnx-qos-pfc5-ecn-tclass160-rdma-qos-script-spiderpool.txt")
	nicMustFind(t, fs, "switch.pfc.mismatch", Error, "PFC on priority 3 on the switch but 5")
	nicMustFind(t, fs, "switch.ecn.thresholds", Info, "ECN marks from 149996B to 1499464B")
	counters := diagnoseFiles(t, Options{}, "corpus/switch/cumulus-nv-show-counters-qos-swp1.txt")
	for _, f := range counters {
		if f.Severity > Info {
			t.Errorf("zero pause counters gave %s: %s", f.ID, f.Title)
		}
	}
}
