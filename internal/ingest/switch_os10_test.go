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
	// The paste holds two switches' tables for the same port, hound-dirt's
	// then fox-dirt's: each row keeps the switch of its own prompt.
	if len(s.Queues) != 16 || s.Switch != "hound-dirt" {
		t.Fatalf("switch %q, queues %+v", s.Switch, s.Queues)
	}
	for i, want := range []QueueCount{
		{Port: "ethernet1/1/4", Queue: 5, Type: "ALL", OS10: true, Host: "hound-dirt", Packets: 21037361, Bytes: 189283361906, DropPkts: 953632, DropBytes: 8583259654, Evidence: Evidence{Line: 11}},
		{Port: "ethernet1/1/4", Queue: 5, Type: "ALL", OS10: true, Host: "fox-dirt", Packets: 21026196, Bytes: 189216241992, DropPkts: 962777, DropBytes: 8667910211, Evidence: Evidence{Line: 24}},
	} {
		q := s.Queues[5+8*i]
		q.Evidence = Evidence{Line: q.Evidence.Line}
		if q != want {
			t.Errorf("queue 5 = %+v, want %+v", q, want)
		}
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

// SYNTHETIC: a row whose queue number OS10 does not have (past 15) is
// reported at its place, and the rows after it are still read; the echoed
// command's port is the words after `interface` alone, whatever follows
// (`| no-more`, `queue 5`).
func TestSwitchOS10QueuingNumberAndCommand(t *testing.T) {
	s := readSwitchText(t,
		"leaf1# show queuing statistics interface ethernet 1/1/4 | no-more",
		"Queue Packets                  Bytes                    Dropped-Packets          Dropped-Bytes",
		"16    10                       1000                     0                        0",
		"5     20                       2000                     3                        300",
	)
	if len(s.Queues) != 1 || s.Queues[0].Queue != 5 || s.Queues[0].Port != "ethernet1/1/4" {
		t.Errorf("queues %+v", s.Queues)
	}
	if len(s.CutRows) != 1 || s.CutRows[0].Line != 3 || s.CutRows[0].Col != 1 || !strings.Contains(s.CutRows[0].Expected, "queue number, 0-15") {
		t.Errorf("cut rows %+v", s.CutRows)
	}
	for args, want := range map[string]string{
		" interface ethernet 1/1/4 | no-more": "ethernet1/1/4",
		" interface ethernet 1/1/4 queue 5":   "ethernet1/1/4",
		" interface ethernet1/1/4 queue 5":    "ethernet1/1/4",
		" interface port-channel 10":          "port-channel10",
		" interface ethernet":                 "",
	} {
		if got := os10CmdPort(args); got != want {
			t.Errorf("os10CmdPort(%q) = %q, want %q", args, got, want)
		}
	}
}

// SYNTHETIC: a drop count of 2^63 and more (all ones here) is cut at its
// column, not wrapped to -1 ("not shown") by int64.
func TestSwitchOS10QueuingDropOverflow(t *testing.T) {
	s := readSwitchText(t,
		"leaf1# show queuing statistics interface ethernet 1/1/1",
		"Queue Packets                  Bytes                    Dropped-Packets          Dropped-Bytes",
		"0     10                       1000                     18446744073709551615     0",
		"1     10                       1000                     9223372036854775807      0",
	)
	if len(s.Queues) != 1 || s.Queues[0].Queue != 1 || s.Queues[0].DropPkts != 9223372036854775807 {
		t.Errorf("queues %+v", s.Queues)
	}
	if len(s.CutRows) != 1 || s.CutRows[0].Line != 3 || s.CutRows[0].Col != 57 || !strings.Contains(s.CutRows[0].Expected, "Dropped-Packets below 2^63") {
		t.Errorf("cut rows %+v", s.CutRows)
	}
}
