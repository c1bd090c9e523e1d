package ingest

import "testing"

// NVIDIA Cumulus Linux `nv show interface swp1 counters qos` as the 5.9
// user guide prints it: its Egress Queue Statistics are the port's queues
// per traffic class, counts with units ("0 Bytes") one cell each; its
// Ingress Buffer Statistics the drops of its 8 priority groups, its port
// statistics the port's pause counter each way beside the 16 PFC rows.
func TestSwitchNVUEEgressQueues(t *testing.T) {
	s, ok := readCorpus(t, "switch/cumulus-nv-show-counters-qos-swp1-ingress-egress-queue-stats-cl59-doc.txt")[KindSwitch].(*SwitchCounters)
	if !ok {
		t.Fatal("no switch counters")
	}
	if len(s.Queues) != 8 || len(s.WRED) != 8 || len(s.PFC) != 18 || len(s.PGDrops) != 8 || len(s.CutRows) != 0 {
		t.Fatalf("queues %d, wred %d, pfc %d, PG drops %d, cut %+v", len(s.Queues), len(s.WRED), len(s.PFC), len(s.PGDrops), s.CutRows)
	}
	for i, q := range s.Queues {
		if q.Port != "swp1" || q.Queue != i || q.Type != "UC" || q.DropPkts != 0 || q.DropsApprox || q.Evidence.Line != 21+i {
			t.Errorf("queue %+v", q)
		}
		if w := s.WRED[i]; w.Queue != i || w.WREDDrop != 0 || w.ECNMarks != -1 {
			t.Errorf("wred %+v", w)
		}
	}
}

// Synthetic egress-queue-stats of a later release, with its
// ecn-marked-frames column: a discard count printed with a byte unit is
// read back (75.19 KB: 76995 frames) and marked approximate; a row short
// of the header's cells is reported.
func TestSwitchNVUEEgressQueueShapes(t *testing.T) {
	s := readSwitchText(t,
		"cumulus@leaf1:mgmt:~$ nv show interface swp37s0 counters qos egress-queue-stats",
		"    traffic-class  tx-frames  tx-bytes   tx-uc-buffer-discards  ecn-marked-frames  wred-discards",
		"    -------------  ---------  ---------  ---------------------  -----------------  -------------",
		"    0              1200       1.17 KB    0 Bytes                0                  0",
		"    3              98000000   93.46 GB   75.19 KB               16660000           12",
		"    4              5          4 Bytes    2")
	if len(s.Queues) != 2 || s.Queues[1] != (QueueCount{Port: "swp37s0", Queue: 3, Type: "UC", Packets: 98000000, Bytes: 100351910871, DropPkts: 76995, DropBytes: -1, DropsApprox: true, Evidence: s.Queues[1].Evidence}) {
		t.Errorf("queues %+v", s.Queues)
	}
	if len(s.WRED) != 2 || s.WRED[1].WREDDrop != 12 || s.WRED[1].ECNMarks != 16660000 {
		t.Errorf("wred %+v", s.WRED)
	}
	if len(s.CutRows) != 1 || s.CutRows[0].Line != 6 || s.CutRows[0].Col != 5 {
		t.Errorf("cut %+v", s.CutRows)
	}
}
