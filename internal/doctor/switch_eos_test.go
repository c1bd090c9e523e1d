package doctor

import "testing"

// Arista EOS `show priority-flow-control`, read by package sonic's
// collector (the one lint uses): the real table of democratic-csi#241
// lists Et1 with PFC disabled; a synthetic one with Et2 on 3,4 joins the
// hosts' mlnx_qos (PFC on 5 in spiderpool's script) as a mismatch.
func TestEOSPriorityFlowControl(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/eos-show-priority-flow-control-port-disabled-democraticcsi241.txt")
	f := nicMustFind(t, fs, "switch.pfc.port_off", Warn, "PFC is disabled on Et1")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 19 {
		t.Errorf("evidence %v", f.Evidence)
	}
	nicMustNot(t, fs, "switch.pfc.mismatch")

	paths := writeFiles(t, map[string][]string{"eos.txt": {
		"# synthetic: EOS show priority-flow-control, Et1 off, Et2 on 3 and 4",
		"leaf1#show priority-flow-control",
		"Global PFC : Enabled",
		"",
		"E: PFC Enabled, D: PFC Disabled, A: PFC Active, W: PFC Watchdog Enabled",
		"Port       Status  Priorities  Action      Timeout  Recovery        Polling         Note",
		"                                                  Interval/Mode   Config/Oper",
		"---------------------------------------------------------------------------------------",
		"Et1        D - -               -           -        - / -           - / -",
		"Et2        E A W   3,4         drop        0.2      0.4 / auto      0.1 / 0.1",
	}})
	rep := Diagnose(append(paths, nicTestdata("corpus/ethtool/mlnx-qos-pfc5-ecn-tclass160-rdma-qos-script-spiderpool.txt")), nil, Options{})
	nicMustFind(t, rep.Findings, "switch.pfc.port_off", Warn, "PFC is disabled on Et1 while 1 port runs it on priority 3,4")
	nicMustFind(t, rep.Findings, "switch.pfc.mismatch", Error, "PFC on priority 3,4 on the switch but 5")
}
