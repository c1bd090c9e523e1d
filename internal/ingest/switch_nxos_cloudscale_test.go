package ingest

import (
	"testing"
)

// Cisco NX-OS `show queuing interface` of a Nexus 93180FX2 (zartbot's
// RoCEv2 AllReduce article): the egress QOS GROUP 5 block and the ingress
// side, each pasted as a grep of the command.
func TestSwitchNXOSCloudScaleQueuing(t *testing.T) {
	s, ok := readCorpus(t, "switch/nxos-show-queuing-interface-n9k-qos-group-5-overflow-19490-txppp-150-zartbot.txt")[KindSwitch].(*SwitchCounters)
	if !ok {
		t.Fatal("no switch counters")
	}
	want := []QueueCount{
		{Port: "Ethernet1/51", Queue: 5, Type: "UC", Packets: 202328436, Bytes: 203884632744, QoSGroup: true, DropType: "no-drop"},
		{Port: "Ethernet1/51", Queue: 5, Type: "MC", QoSGroup: true, DropType: "no-drop"},
	}
	if len(s.Queues) != len(want) {
		t.Fatalf("queues %+v", s.Queues)
	}
	for i, w := range want {
		g := s.Queues[i]
		g.Evidence = Evidence{}
		if g != w {
			t.Errorf("queue[%d] = %+v, want %+v", i, g, w)
		}
	}
	if s.Queues[0].Evidence.Line != 11 {
		t.Errorf("queue evidence %+v, want the drop row, line 11", s.Queues[0].Evidence)
	}
	if len(s.PGDrops) != 1 || s.PGDrops[0].PG != -1 || s.PGDrops[0].Packets != 19490 || s.PGDrops[0].Counter != "Ingress Overflow Drop Pkts" || s.PGDrops[0].NoDropMask != 1<<5 || s.PGDrops[0].Evidence.Line != 37 {
		t.Errorf("port drops %+v (the per-slice 71206 is no port's)", s.PGDrops)
	}
	if len(s.PFC) != 16 {
		t.Fatalf("pfc %+v", s.PFC)
	}
	for _, p := range s.PFC {
		want := uint64(0)
		if p.Prio == 5 && p.Dir == TX {
			want = 150
		}
		if p.Port != "Ethernet1/51" || p.Frames != want {
			t.Errorf("pfc %+v", p)
		}
	}
}

// Synthetic Nexus 9000 queuing output in the shapes NX-OS prints (the
// full command's titles, an OOBFC Unicast column, older releases' Dropped
// Pkts, the PFC table with a PG column) and rows it does not: a row of
// too few cells, a count that is no number, a PFC row cut short.
func TestSwitchNXOSCloudScaleShapes(t *testing.T) {
	s := readSwitchText(t,
		"# synthetic: NX-OS show queuing interface in the Nexus 9000's shape",
		"leaf1# show queuing interface ethernet 1/2",
		"Egress Queuing for Ethernet1/2 [System]",
		"+-------------------------------------------------------------------+",
		"|                              QOS GROUP 3                          |",
		"+-------------------------------------------------------------------+",
		"|                |  Unicast       | OOBFC Unicast  |  Multicast     |",
		"+-------------------------------------------------------------------+",
		"|        Tx Pkts |        1,000,000|             22|              34|",
		"|   Dropped Pkts |              77|               0|               2|",
		"|   Dropped Byts |              77|",
		"|     Other Pkts |               x|               0|               0|",
		"Ingress Queuing for Ethernet1/2",
		"QoS-Group#                 Pause",
		"           Buff Size       Pause Th      Resume Th",
		"      3         348608        77376        75712",
		"      0              -            -            -",
		"",
		"Per Port Ingress Statistics",
		"Ingress MMU Drop Pkts 10",
		"Ingress MMU Drop Bytes many",
		"PFC Statistics",
		"COS QOS Group        PG   TxPause   TxCount         RxPause         RxCount",
		"   3         3         3  Active           7        Active                 8",
		"   4         -         -  Inactive",
		"leaf1# show interface priority-flow-control",
		"| 9 |")
	if len(s.Queues) != 3 || s.Queues[0].Type != "UC" || s.Queues[0].Packets != 1000000 || s.Queues[0].DropPkts != 77 || s.Queues[0].DropType != "no-drop" || s.Queues[1].Type != "OOBFC" || s.Queues[2].Type != "MC" || s.Queues[2].DropPkts != 2 {
		t.Errorf("queues %+v", s.Queues)
	}
	if len(s.PGDrops) != 1 || s.PGDrops[0].Packets != 10 || s.PGDrops[0].Counter != "Ingress MMU Drop Pkts" || s.PGDrops[0].NoDropMask != 1<<3 {
		t.Errorf("port drops %+v", s.PGDrops)
	}
	if len(s.PFC) != 2 || s.PFC[0] != (SwitchPFC{Port: "Ethernet1/2", Dir: RX, Prio: 3, Frames: 8, Evidence: s.PFC[0].Evidence}) || s.PFC[1].Frames != 7 {
		t.Errorf("pfc %+v", s.PFC)
	}
	var cut []int
	for _, g := range s.CutRows {
		cut = append(cut, g.Line)
	}
	if len(cut) != 4 || cut[0] != 11 || cut[1] != 12 || cut[2] != 21 || cut[3] != 25 {
		t.Errorf("cut rows %+v", s.CutRows)
	}
}

// Synthetic Nexus 9000 egress side in full: the numbered groups end with
// the CONTROL and SPAN QOS GROUP blocks, read without being taken for a
// data class (their drops are no qos-group 7's) or for cut rows.
func TestSwitchNXOSCloudScaleControlSpan(t *testing.T) {
	s := readSwitchText(t,
		"# synthetic: NX-OS show queuing interface, the egress side's last blocks",
		"Egress Queuing for Ethernet1/2 [System]",
		"+-------------------------------------------------------------+",
		"|                              QOS GROUP 7                    |",
		"+-------------------------------------------------------------+",
		"|                           |  Unicast       |Multicast       |",
		"+-------------------------------------------------------------+",
		"|                   Tx Pkts |              10|               0|",
		"| WRED/AFD & Tail Drop Pkts |               1|               0|",
		"+-------------------------------------------------------------+",
		"|                      CONTROL QOS GROUP                      |",
		"+-------------------------------------------------------------+",
		"|                           |  Unicast       |Multicast       |",
		"+-------------------------------------------------------------+",
		"|                   Tx Pkts |            4208|               0|",
		"| WRED/AFD & Tail Drop Pkts |               0|               0|",
		"+-------------------------------------------------------------+",
		"|                         SPAN QOS GROUP                      |",
		"+-------------------------------------------------------------+",
		"|                           |  Unicast       |Multicast       |",
		"+-------------------------------------------------------------+",
		"|                   Tx Pkts |               0|            9000|",
		"| WRED/AFD & Tail Drop Pkts |               0|            5000|",
		"+-------------------------------------------------------------+",
		"Ingress Queuing for Ethernet1/2",
		"QoS-Group#                 Pause",
		"           Buff Size       Pause Th      Resume Th",
		"      7         348608        77376        75712")
	if len(s.Queues) != 2 || s.Queues[0].Queue != 7 || s.Queues[0].Packets != 10 || s.Queues[0].DropPkts != 1 || s.Queues[1].DropPkts != 0 || s.Queues[1].Packets != 0 {
		t.Errorf("queues %+v, want only qos-group 7's", s.Queues)
	}
	if len(s.CutRows) != 0 {
		t.Errorf("cut rows %+v", s.CutRows)
	}
}

// Synthetic: an egress drop count of 2^63 and more is cut at its cell, not
// wrapped to -1 ("not shown") by int64.
func TestSwitchNXOSCloudScaleDropOverflow(t *testing.T) {
	s := readSwitchText(t,
		"leaf1# show queuing interface ethernet 1/2",
		"Egress Queuing for Ethernet1/2 [System]",
		"|                              QOS GROUP 3                          |",
		"|                |  Unicast       |",
		"|        Tx Pkts |              10|",
		"|   Dropped Pkts |9223372036854775808|",
		"|   Dropped Byts |18446744073709551615|")
	if len(s.Queues) != 1 || s.Queues[0].DropPkts != -1 || s.Queues[0].DropBytes != -1 {
		t.Errorf("queues %+v", s.Queues)
	}
	if len(s.CutRows) != 2 || s.CutRows[0].Line != 6 || s.CutRows[0].Col != 19 || s.CutRows[0].Expected != "a count under Unicast below 2^63" {
		t.Errorf("cut rows %+v", s.CutRows)
	}
}
