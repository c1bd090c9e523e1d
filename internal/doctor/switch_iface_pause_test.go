package doctor

import (
	"strings"
	"testing"
)

// The pause counters of `show interface` (real NX-OS outputs,
// testdata/corpus/switch): a port that sent pause is reported, over all
// priorities and without telling PFC from 802.3x pause; a port that
// received pause and dropped at egress says so beside the drops, each
// finding on its own counter's line. Ports that counted no pause say
// nothing of it.
func TestSwitchIfacePause(t *testing.T) {
	const crc = "corpus/switch/nxos-show-interface-crc-2211122-rx-pause-122-tx-pause-69-ntctemplates.txt"
	fs := diagnoseFiles(t, Options{}, crc)
	tx := nicMustFind(t, fs, "switch.pfc.tx_pause", Info, "Ethernet1/1: sent 69 pause frames", "(received 122)")
	if tx.Evidence[0].Line != 46 || !strings.Contains(tx.Mechanism, "does not split frames by priority") {
		t.Errorf("tx_pause %v %q", tx.Evidence, tx.Mechanism)
	}
	d := nicMustFind(t, fs, "switch.queue.drops", Warn, "Ethernet1/1: 33 packets dropped at egress")
	if len(d.Evidence) != 2 || d.Evidence[0].Line != 38 || d.Evidence[1].Line != 45 || !strings.Contains(d.Mechanism, "received 122 pause frames") {
		t.Errorf("egress drops %v %q", d.Evidence, d.Mechanism)
	}

	fex := diagnoseFiles(t, Options{}, "corpus/switch/nxos-show-interface-fex-rx-pause-504222-output-discard-28m-yandexnoc.txt")
	d = nicMustFind(t, fex, "switch.queue.drops", Warn, "Ethernet1/1/3: 27709383 packets dropped at egress")
	if !strings.Contains(d.Mechanism, "received 504222 pause frames") || len(d.Evidence) != 2 || d.Evidence[0].Line != 108 || d.Evidence[1].Line != 114 {
		t.Errorf("fex drops %v %q", d.Evidence, d.Mechanism)
	}
	nicMustNot(t, fex, "switch.pfc.tx_pause") // Tx pause 0 on every port

	for _, healthy := range []string{
		"corpus/switch/nxos-show-interface-healthy-ntctemplates.txt",
		"corpus/switch/eos-show-interfaces-pause-0-ntctemplates.txt",
		"corpus/switch/junos-show-interfaces-extensive-ge-0-0-0-mac-pause-0-genieparser.txt",
	} {
		if fs := diagnoseFiles(t, Options{}, healthy); len(fs) != 0 {
			t.Errorf("%s: %s", healthy, nicTitles(fs))
		}
	}
}

// `show interface` pasted with `show interface priority-flow-control`:
// the port's pause is the per-priority table's, reported once, not again
// by the interface counter that counts the same frames. Synthetic paste
// in the two commands' real forms.
func TestSwitchIfacePauseWithPFCTable(t *testing.T) {
	paths := writeFiles(t, map[string][]string{"nxos.txt": {
		"# synthetic: NX-OS show interface and show interface priority-flow-control of one port",
		"Ethernet1/1 is up",
		"admin state is up, Dedicated Interface",
		"  RX",
		"    6392635 input packets  827345973 bytes",
		"    122 Rx pause",
		"  TX",
		"    138299756 output packets  16581146467 bytes",
		"    4069 Tx pause",
		"",
		"============================================================",
		"Port               Mode Oper(VL bmap)  RxPPP      TxPPP",
		"============================================================",
		"",
		"Ethernet1/1        On   On  (8)       122        4069",
	}})
	fs := Diagnose(paths, nil, Options{}).Findings
	var n int
	for _, f := range fs {
		if f.ID == "switch.pfc.tx_pause" {
			n++
		}
	}
	tx := nicMustFind(t, fs, "switch.pfc.tx_pause", Warn, "Ethernet1/1: sent 4069 PFC pause frames on priority 3 (received 122)")
	if n != 1 || tx.Evidence[0].Line != 15 {
		t.Errorf("%d tx_pause findings, want 1; evidence %v", n, tx.Evidence)
	}
}

// Junos counts PFC apart from 802.3x pause: its "MAC pause frames" row is
// global pause only, and says so, not that the two are not told apart.
// Synthetic, in the form of the real genieparser input.
func TestJunosGlobalPause(t *testing.T) {
	paths := writeFiles(t, map[string][]string{"junos.txt": {
		"# synthetic: Junos show interfaces extensive, MAC statistics of a port that sent 802.3x pause",
		"Physical interface: et-0/0/7, Enabled, Physical link is Up",
		"  MAC statistics:                      Receive         Transmit",
		"    Total packets                      5000000          6000000",
		"    MAC pause frames                         0             2500",
	}})
	tx := nicMustFind(t, Diagnose(paths, nil, Options{}).Findings, "switch.pfc.tx_pause", Warn, "et-0/0/7: sent 2500 802.3x pause frames (global pause")
	if strings.Contains(tx.Mechanism, "not told apart") || strings.Contains(tx.Title, "not told apart") || !strings.Contains(tx.Mechanism, "802.3x global pause only") || tx.Evidence[0].Line != 5 {
		t.Errorf("%q %q %v", tx.Title, tx.Mechanism, tx.Evidence)
	}
}
