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
