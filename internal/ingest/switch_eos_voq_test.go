package ingest

import (
	"strings"
	"testing"
)

// Arista EOS `show interfaces counters queue` on a Jericho2 switch prints
// its virtual output queues above the egress queues (real outputs from an
// EANTC 2025 test, testdata/corpus/switch with their sources): each VoQ
// row is a queue of Type VOQ toward its egress port and traffic class,
// with the drops the egress table does not show; both tables' rows are
// EOS's.
func TestSwitchEOSVoQ(t *testing.T) {
	s := switchCorpus(t, "switch/eos-show-interfaces-counters-queue-voq-et31-tc1-drops-79.7m-eantc2025.txt")
	var voq, egress int
	for _, q := range s.Queues {
		if !q.EOS {
			t.Errorf("row not marked EOS: %+v", q)
		}
		switch q.Type {
		case "VOQ":
			voq++
			if q.Port == "Et31" && q.Queue == 1 && (q.Packets != 400916761 || q.Bytes != 38488009056 || q.DropPkts != 79745886 || q.DropBytes != 7655605056 || q.Evidence.Line != 7) {
				t.Errorf("Et31 TC1 VoQ: %+v", q)
			}
		case "UC":
			egress++
			if q.DropPkts != 0 {
				t.Errorf("egress drops: %+v", q)
			}
		}
	}
	if voq != 5 || egress != 5 {
		t.Errorf("%d VoQ rows and %d egress rows, want 5 and 5: %+v", voq, egress, s.Queues)
	}
	s = switchCorpus(t, "switch/eos-show-interfaces-counters-queue-voq-no-drops-olpfap0-eantc2025.txt")
	found := false
	for _, q := range s.Queues {
		found = found || q.Port == "OlpFap0" && q.Type == "VOQ" && q.Queue == 7 && q.Packets == 184
	}
	if !found {
		t.Errorf("no OlpFap0 TC7 VoQ row: %+v", s.Queues)
	}
}

// A SYNTHETIC paste of EOS `show priority-flow-control` ending at the next
// prompt with no blank line: the table ends there (it swallowed the VoQ
// table below), and each row carries the switch its prompt names.
func TestSwitchEOSPFCEndsAtPrompt(t *testing.T) {
	p := NewSwitchParser("eos.txt")
	for i, l := range strings.Split(`leaf1#show priority-flow-control
E: PFC Enabled, D: PFC Disabled, A: PFC Active, W: PFC Watchdog Enabled
Port       Status  Priorities  Action      Timeout  Recovery        Polling         Note
---------------------------------------------------------------------------------------
Et31       E A W   3           -           -        - / -           - / -
leaf2#show interfaces counters queue
Aggregate VoQ Counters
Egress                     Traffic               Pkts             Octets           DropPkts         DropOctets
Port                       Class
----------------------------------------------------------------------------------------
Et31                       TC1              400916761        38488009056           79745886         7655605056`, "\n") {
		p.Feed(Line{Num: i + 1, Text: l})
	}
	s := p.Result().(*SwitchCounters)
	if len(s.EOSPFC) != 1 || s.EOSPFC[0].Host != "leaf1" || s.EOSPFC[0].Evidence.Line != 5 {
		t.Errorf("PFC %+v", s.EOSPFC)
	}
	if len(s.Queues) != 1 || s.Queues[0].Host != "leaf2" || s.Queues[0].Type != "VOQ" {
		t.Errorf("queues %+v", s.Queues)
	}
}
