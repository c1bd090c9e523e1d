package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SYNTHETIC Arista EOS pastes in the shape of EANTC 2025's: `show
// priority-flow-control` and `show interfaces counters queue` (VoQ and
// egress tables), each under the prompt of the switch it came from.
func eosPFCPaste(host, prio string) string {
	return host + "#show priority-flow-control\nGlobal PFC : Enabled\n\nE: PFC Enabled, D: PFC Disabled, A: PFC Active, W: PFC Watchdog Enabled\n" +
		"Port       Status  Priorities  Action      Timeout  Recovery        Polling         Note\n" +
		"                                                  Interval/Mode   Config/Oper\n" +
		"---------------------------------------------------------------------------------------\n" +
		"Et31       E A W   " + prio + "           -           -        - / -           - / -\n"
}

func eosVoQPaste(host string) string {
	return host + "#show interfaces counters queue\nAggregate VoQ Counters\n" +
		"Egress                     Traffic               Pkts             Octets           DropPkts         DropOctets\n" +
		"Port                       Class\n" +
		"--------------------------------------------------------------------------------------------------------------\n" +
		"Et31                       TC1              400916761        38488009056           79745886         7655605056\n" +
		"Et31                       TC6                1355402          130118592                  0                  0\n\n" +
		"Egress Queue Counters\n" +
		"Port                 Traffic DropPrec   DestType          OutEnqPkts      OutEnqOctets       OutDropPkts     OutDropOctets\n" +
		"                     Class\n" +
		"Et31                 TC1     DP0-3      UC                 400916761       38488009056                 0                 0\n" +
		"Et31                 TC6     DP0-3      UC                   1355530         130130880                 0                 0\n\n"
}

// eosDiagnose writes each text to its own file and diagnoses them.
func eosDiagnose(t *testing.T, texts ...string) []Finding {
	t.Helper()
	var paths []string
	for i, x := range texts {
		p := filepath.Join(t.TempDir(), "synthetic-eos-"+string(rune('a'+i))+".txt")
		if err := os.WriteFile(p, []byte(x), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return diagnose(t, Options{}, paths...).Findings
}

// The VoQ table and `show priority-flow-control` of one switch (leaf1's
// prompt on both) in two files: the queue is judged by that switch's PFC
// (priority 0, which EOS's default CoS → traffic class map puts in class
// 1), not "lossless or not, no input says".
func TestEOSQueuePFCOfSamePromptAcrossFiles(t *testing.T) {
	fs := eosDiagnose(t, eosVoQPaste("leaf1"), eosPFCPaste("leaf1", "0"))
	f := nicMustFind(t, fs, "switch.queue.drops", Error, "leaf1 Et31 VOQ1", "lossless queue 1")
	if !strings.Contains(f.Mechanism, "CoS 0 → class 1") {
		t.Errorf("mechanism %q", f.Mechanism)
	}
}

// One paste with leaf1's PFC and leaf2's VoQ table: leaf2's queue is not
// judged by leaf1's PFC.
func TestEOSQueuePFCOfOtherSwitchInOnePaste(t *testing.T) {
	fs := eosDiagnose(t, eosPFCPaste("leaf1", "1")+"\n"+eosVoQPaste("leaf2"))
	nicMustFind(t, fs, "switch.queue.drops", Warn, "leaf2 Et31 VOQ1", "lossless or not, no input says")
	if got := nicFind(fs, "switch.queue.drops", "lossless queue"); len(got) > 0 {
		t.Errorf("judged by another switch's PFC: %s", got[0].Title)
	}
}

// EOS PFC priority 1 is traffic class 0: the drops on class 1 are on a
// lossy queue, and the share check weighs the port against its own
// switch's lossless class 0, not the SONiC watchdog's queues 3 and 4 in
// another input (sonic-utilities' pfcwd stats).
func TestEOSQueueShareByOwnSwitch(t *testing.T) {
	sonic, err := os.ReadFile(nicTestdata("corpus/switch/sonic-pfcwd-stats-sonic-utilities.txt"))
	if err != nil {
		t.Fatal(err)
	}
	fs := eosDiagnose(t, eosPFCPaste("leaf1", "1")+eosVoQPaste("leaf1"), string(sonic))
	nicMustFind(t, fs, "switch.queue.drops", Warn, "leaf1 Et31 VOQ1", "lossy queue 1")
	nicMustFind(t, fs, "switch.queue.lossy_traffic", Info, "leaf1 Et31", "lossless queues 0:")
}

// Neither table names a switch and there is one PFC table: it is used,
// and its file named.
func TestEOSQueuePFCOnlyTableUnnamed(t *testing.T) {
	strip := func(s string) string { _, rest, _ := strings.Cut(s, "\n"); return rest }
	fs := eosDiagnose(t, strip(eosVoQPaste("x")), strip(eosPFCPaste("x", "0")))
	f := nicMustFind(t, fs, "switch.queue.drops", Error, "Et31 VOQ1", "lossless queue 1")
	if !strings.Contains(f.Mechanism, "the only `show priority-flow-control` given (") || !strings.Contains(f.Mechanism, "synthetic-eos-b.txt") {
		t.Errorf("mechanism %q", f.Mechanism)
	}
}
