package doctor

import (
	"testing"
)

// Juniper Junos: genieparser's real `show interfaces extensive` and `show
// interfaces queue` (all counters 0 but queue 0's traffic) raise no error
// or warning and nothing garbled; a synthetic QFX port that sent PFC
// pause on priority 3 and dropped on the no-loss queue 4 is the same
// switch.pfc.tx_pause and switch.queue.drops SONiC's tables give.
func TestJunosInterfaces(t *testing.T) {
	fs := diagnoseFiles(t, Options{},
		"corpus/switch/junos-show-interfaces-extensive-et-0-0-0-queue-counters-genieparser.txt",
		"corpus/switch/junos-show-interfaces-queue-ge-0-0-2-bronze-1.47g-genieparser.txt")
	for _, f := range fs {
		if f.Severity != Info {
			t.Errorf("%s %s: %s", f.Severity, f.ID, f.Title)
		}
	}
	nicMustNot(t, fs, "input.garbled")
	nicMustNot(t, fs, "input.unrecognized")

	paths := writeFiles(t, map[string][]string{"qfx.txt": {
		"# synthetic: Junos show interfaces extensive of a QFX port",
		"Physical interface: et-0/0/5, Enabled, Physical link is Up",
		"  Queue counters:       Queued packets  Transmitted packets      Dropped packets",
		"    0                             100                  100                    0",
		"    4                         5000000              4999000                 1000",
		"  MAC Priority Flow Control Statistics:",
		"    Priority :  3                             0             9000",
	}})
	rep := Diagnose(paths, nil, Options{})
	d := nicMustFind(t, rep.Findings, "switch.queue.drops", Error, "et-0/0/5 UC4: 1000 packets dropped on lossless queue 4 (of 4999000 sent)")
	if d.Evidence[0].Line != 5 {
		t.Errorf("drops evidence %v", d.Evidence)
	}
	tx := nicMustFind(t, rep.Findings, "switch.pfc.tx_pause", Warn, "et-0/0/5: sent 9000 PFC pause frames on priority 3 (received 0)")
	if tx.Evidence[0].Line != 7 {
		t.Errorf("tx_pause evidence %v", tx.Evidence)
	}
}
