package ingest

import (
	"strings"
	"testing"
)

// Huawei CloudEngine `display abs-pfc` (real, the CE6800 configuration
// guide's antilocking PFC example; `display dcb pfc`'s table): queue 3 of
// 100GE1/0/1 received 118789880 PFC frames and sent none, each a
// SwitchPFC row on priority 3 with the line that shows it.
func TestSwitchVRPDCBPFCFrames(t *testing.T) {
	s := corpusAs[*SwitchCounters](t, "switch/huawei-ce-display-abs-pfc-100ge1-0-1-q3-rx-118.8m-config-guide-doc.txt", KindSwitch)
	if len(s.PFC) != 2 || len(s.CutRows) != 0 {
		t.Fatalf("pfc %+v cut %+v", s.PFC, s.CutRows)
	}
	if len(s.WD) != 0 {
		t.Errorf("no deadlock counted, watchdog rows %+v", s.WD)
	}
	rx, tx := s.PFC[0], s.PFC[1]
	if rx.Port != "100GE1/0/1" || rx.Dir != RX || rx.Prio != 3 || rx.Frames != 118789880 || rx.Link || rx.Platform != HuaweiVRP || rx.Evidence.Line != 8 {
		t.Errorf("rx %+v", rx)
	}
	if tx.Port != "100GE1/0/1" || tx.Dir != TX || tx.Prio != 3 || tx.Frames != 0 || tx.Platform != HuaweiVRP || tx.Evidence.Line != 9 {
		t.Errorf("tx %+v", tx)
	}
	s = corpusAs[*SwitchCounters](t, "switch/huawei-ce-display-dcb-pfc-100ge1-0-1-q5-no-pause-command-reference-doc.txt", KindSwitch)
	if len(s.PFC) != 2 || s.PFC[0].Prio != 5 || s.PFC[0].Port != "100GE1/0/1" || s.PFC[0].Frames != 0 || s.PFC[1].Dir != TX {
		t.Errorf("display dcb pfc %+v", s.PFC)
	}
}

// `display qos queue statistics slot 1` (real, the CE6800 command
// reference): the eight queues of 10GE1/0/1, each a QueueCount of its
// passed packets and bytes and its drops, queue 6's 1330 packets.
func TestSwitchVRPQueueStatistics(t *testing.T) {
	s := corpusAs[*SwitchCounters](t, "switch/huawei-ce-display-qos-queue-statistics-slot1-q6-1330-no-drops-command-reference-doc.txt", KindSwitch)
	if len(s.Queues) != 8 || len(s.CutRows) != 0 {
		t.Fatalf("queues %+v cut %+v", s.Queues, s.CutRows)
	}
	for i, q := range s.Queues {
		if q.Port != "10GE1/0/1" || q.Queue != i || q.Type != "ALL" || q.Platform != HuaweiVRP || q.DropPkts != 0 || q.DropBytes != 0 || q.Evidence.Line != 9+3*i {
			t.Errorf("queue %d %+v", i, q)
		}
	}
	if q := s.Queues[6]; q.Packets != 1330 || q.Bytes != 195356 {
		t.Errorf("queue 6 %+v", q)
	}
}

// SYNTHETIC rows in the layouts above: a PFC table whose second queue of
// a port leaves the Interface cell blank, a queue table whose port comes
// from the echoed command alone, its Drop Time a timestamp, its rates "-"
// where the switch could not collect them (the command reference's Pass
// Rate); and rows that begin as rows and do not go on as one, reported at
// line and column.
func TestSwitchVRPDCBLayoutsAndBadRows(t *testing.T) {
	const pfc = "[~leaf1] display dcb pfc\n" +
		"Interface         Queue         Received(Frames)        ReceivedRate(pps)     DeadlockNum\n" +
		"                             Transmitted(Frames)     TransmittedRate(pps)     RecoveryNum\n" +
		"-----------------------------------------------------------------------------------------\n" +
		"100GE1/0/2            3                     120                        0               0\n" +
		"                                            4500                        0               0\n" +
		"                      4                       0                        0               0\n" +
		"                                               7                        0               0\n" +
		"-----------------------------------------------------------------------------------------\n"
	const queues = "<leaf1> display qos queue statistics interface 100ge 1/0/3\n" +
		" Queue   CIR/PIR              Passed     Pass Rate             Dropped     Drop Rate  Drop Time\n" +
		"     (% or kbps)     (Packets/Bytes)     (pps/bps)     (Packets/Bytes)     (pps/bps)\n" +
		"     3         0               90000             0                  10             0  2024-01-02 03:04:05\n" +
		"       100000000             9000000             0                1000             0\n" +
		"     4         0               9x000             0                   0             0          -\n" +
		"       100000000                   0             0                   0             0\n" +
		"     5         0                 500             -                   2             -          -\n" +
		"       100000000               64000             -                 256             -\n"
	s := readSwitchText(t, strings.Split(strings.TrimSuffix(pfc+queues, "\n"), "\n")...)
	want := []struct {
		prio   int
		dir    Dir
		frames uint64
	}{{3, RX, 120}, {3, TX, 4500}, {4, RX, 0}, {4, TX, 7}}
	if len(s.PFC) != len(want) {
		t.Fatalf("pfc %+v", s.PFC)
	}
	for i, w := range want {
		if p := s.PFC[i]; p.Port != "100GE1/0/2" || p.Prio != w.prio || p.Dir != w.dir || p.Frames != w.frames {
			t.Errorf("pfc %d %+v, want %+v", i, p, w)
		}
	}
	if len(s.Queues) != 2 || s.Queues[0].Port != "100GE1/0/3" || s.Queues[0].Queue != 3 || s.Queues[0].DropPkts != 10 || s.Queues[0].Bytes != 9000000 {
		t.Fatalf("queues %+v", s.Queues)
	}
	if q := s.Queues[1]; q.Port != "100GE1/0/3" || q.Queue != 5 || q.Packets != 500 || q.Bytes != 64000 || q.DropPkts != 2 || q.DropBytes != 256 {
		t.Errorf("queue 5, rates \"-\": %+v", q)
	}
	if len(s.CutRows) != 1 || s.CutRows[0].Line != 15 || s.CutRows[0].Col != 32 || !strings.Contains(s.CutRows[0].Expected, "Passed") {
		t.Errorf("cut %+v", s.CutRows)
	}
}

// SYNTHETIC: a queue table pasted right after a PFC table, without its
// echoed command or "Queue statistics info" line, is not put on the PFC
// table's last port: its port is unknown.
func TestSwitchVRPQueuesAfterPFCTableNoPort(t *testing.T) {
	s := readSwitchText(t,
		"Interface         Queue         Received(Frames)        ReceivedRate(pps)     DeadlockNum",
		"                             Transmitted(Frames)     TransmittedRate(pps)     RecoveryNum",
		"-----------------------------------------------------------------------------------------",
		"100GE1/0/2            3                     120                        0               0",
		"                                            4500                        0               0",
		"-----------------------------------------------------------------------------------------",
		" Queue   CIR/PIR              Passed     Pass Rate             Dropped     Drop Rate  Drop Time",
		"     (% or kbps)     (Packets/Bytes)     (pps/bps)     (Packets/Bytes)     (pps/bps)",
		"     3         0               90000             0                  10             0          -",
		"       100000000             9000000             0                1000             0",
	)
	if len(s.PFC) != 2 || len(s.Queues) != 1 || s.Queues[0].Port != "?" || s.Queues[0].DropPkts != 10 {
		t.Errorf("pfc %+v queues %+v", s.PFC, s.Queues)
	}
}
