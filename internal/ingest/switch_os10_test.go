package ingest

import (
	"strings"
	"testing"
)

// Dell OS10 `show queuing statistics interface ethernet 1/1/4` (real, from
// a netdev thread's three-to-one DCTCP runs through OS10 switches): each
// queue's packets, bytes and drops, the port from its Interface line, the
// switch from the prompt.
func TestSwitchOS10Queuing(t *testing.T) {
	s, ok := readCorpus(t, "switch/os10-show-queuing-statistics-q5-drops-953632-netdev-dctcp-ecn-off.txt")[KindSwitch].(*SwitchCounters)
	if !ok {
		t.Fatal("no switch counters")
	}
	if len(s.Queues) != 8 || s.Switch != "hound-dirt" {
		t.Fatalf("switch %q, queues %+v", s.Switch, s.Queues)
	}
	q := s.Queues[5]
	q.Evidence = Evidence{}
	if want := (QueueCount{Port: "ethernet1/1/4", Queue: 5, Type: "ALL", OS10: true, Packets: 21037361, Bytes: 189283361906, DropPkts: 953632, DropBytes: 8583259654}); q != want {
		t.Errorf("queue 5 = %+v, want %+v", q, want)
	}
	if s.Queues[5].Evidence.Line != 11 {
		t.Errorf("evidence %+v, want line 11", s.Queues[5].Evidence)
	}
}

// SYNTHETIC: without its Interface line the echoed command names the port;
// a row that ends short, or holds what is no count, is reported at its
// line and column and read by no rule.
func TestSwitchOS10QueuingRows(t *testing.T) {
	s := readSwitchText(t,
		"leaf1# show queuing statistics interface ethernet 1/1/49:1",
		"Queue Packets                  Bytes                    Dropped-Packets          Dropped-Bytes",
		"0     10                       1000                     0                        0",
		"3     20                       2000                     5",
		"4     30                       3000                     x7                       0",
	)
	if len(s.Queues) != 1 || s.Queues[0].Port != "ethernet1/1/49:1" || s.Queues[0].Packets != 10 {
		t.Errorf("queues %+v", s.Queues)
	}
	if len(s.CutRows) != 2 || s.CutRows[0].Line != 4 || s.CutRows[0].Col != 1 || s.CutRows[1].Line != 5 || s.CutRows[1].Col != 57 || !strings.Contains(s.CutRows[1].Expected, "a count under Dropped-Packets") {
		t.Errorf("cut rows %+v", s.CutRows)
	}
}
