package ingest

import "testing"

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
