package doctor

import (
	"strings"
	"testing"
)

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

// Cisco NX-OS, the real Nexus 5000 outputs of Matt Oswalt's FCoE post
// (testdata/corpus/switch/nxos-*): PFC operationally off in mode Auto on
// the uplinks (DCBX disagreed), pause counted over all priorities, and
// the no-drop qos-group 1 of Ethernet1/47 discarding 160104 packets at
// ingress, each finding naming its file and line. A synthetic table with
// PFC on priority 3 (bitmap 8) beside a host running PFC on 5 is a
// mismatch, and its TxPPP is pause on priority 3.
func TestNXOSPriorityFlowControl(t *testing.T) {
	const pfcFile, qFile = "corpus/switch/nxos-show-interface-pfc-auto-off-fcoe-n5k-mierdin.txt", "corpus/switch/nxos-show-queuing-rx-no-drop-discards-fcoe-n5k-mierdin.txt"
	fs := diagnoseFiles(t, Options{}, pfcFile, qFile)
	off := nicMustFind(t, fs, "switch.pfc.port_off", Warn, "PFC is operationally off on Ethernet1/47, Ethernet1/48, Ethernet4/15, Ethernet4/16 in mode Auto")
	if len(off.Evidence) != 4 || off.Evidence[0].Line != 8 || !strings.HasSuffix(off.Evidence[0].File, pfcFile) || !strings.Contains(off.Mechanism, "DCBX") {
		t.Errorf("port_off evidence %v", off.Evidence)
	}
	tx := nicMustFind(t, fs, "switch.pfc.tx_pause", Warn, "Ethernet1/47: sent 762946 PFC pause frames over all priorities", "(received 7316)")
	if tx.Evidence[0].Line != 8 {
		t.Errorf("tx_pause evidence %v", tx.Evidence)
	}
	d := nicMustFind(t, fs, "switch.queue.drops", Error, "Ethernet1/47 qos-group 1: 160104 packets discarded at ingress on no-drop qos-group 1")
	if d.Evidence[0].Line != 14 || !strings.HasSuffix(d.Evidence[0].File, qFile) {
		t.Errorf("drops evidence %v", d.Evidence)
	}
	nicMustNot(t, fs, "input.garbled")

	paths := writeFiles(t, map[string][]string{"nxos.txt": {
		"# synthetic: NX-OS show interface priority-flow-control, PFC on priority 3 (bitmap 8)",
		"============================================================",
		"Port               Mode Oper(VL bmap)  RxPPP      TxPPP",
		"============================================================",
		"",
		"Ethernet1/2        On   On  (8)       0          4088353",
	}})
	rep := Diagnose(append(paths, nicTestdata("corpus/ethtool/mlnx-qos-pfc5-ecn-tclass160-rdma-qos-script-spiderpool.txt")), nil, Options{})
	nicMustFind(t, rep.Findings, "switch.pfc.mismatch", Error, "PFC on priority 3 on the switch but 5")
	nicMustFind(t, rep.Findings, "switch.pfc.tx_pause", Warn, "sent 4088353 PFC pause frames on priority 3 (received 0)")
	nicMustNot(t, rep.Findings, "switch.pfc.port_off")
}

// NX-OS `show interface priority-flow-control detail` (synthetic, in the
// Nexus 9000's shape): pause counted per priority is pause on that
// priority, and its bitmap joins the hosts' mlnx_qos (PFC on 5 in
// spiderpool's script, as the switch's bitmap 20 says: no mismatch).
func TestNXOSPriorityFlowControlDetail(t *testing.T) {
	paths := writeFiles(t, map[string][]string{"n9k.txt": {
		"# synthetic: NX-OS show interface priority-flow-control detail, PFC on priority 5",
		"Ethernet1/51",
		"    Admin Mode: On",
		"    Oper Mode: On",
		"    VL bitmap: (20)",
		"    Total Rx PFC Frames: 0",
		"    Total Tx PFC Frames: 1500",
		"    ----------------------------------------------------------------------------------------------------",
		"        |  Priority0  |  Priority1  |  Priority2  |  Priority3  |  Priority4  |  Priority5  |  Priority6  |  Priority7  |",
		"    ----------------------------------------------------------------------------------------------------",
		"    Rx  |0            |0            |0            |0            |0            |0            |0            |0",
		"    ----------------------------------------------------------------------------------------------------",
		"    Tx  |0            |0            |0            |0            |0            |1500         |0            |0",
	}})
	rep := Diagnose(append(paths, nicTestdata("corpus/ethtool/mlnx-qos-pfc5-ecn-tclass160-rdma-qos-script-spiderpool.txt")), nil, Options{})
	tx := nicMustFind(t, rep.Findings, "switch.pfc.tx_pause", Warn, "Ethernet1/51: sent 1500 PFC pause frames on priority 5 (received 0)")
	if tx.Evidence[0].Line != 13 {
		t.Errorf("tx_pause evidence %v", tx.Evidence)
	}
	nicMustNot(t, rep.Findings, "switch.pfc.mismatch")
	nicMustNot(t, rep.Findings, "switch.pfc.port_off")
	nicMustNot(t, rep.Findings, "input.garbled")
}
