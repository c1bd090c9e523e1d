package doctor

import "testing"

// A Nexus 9000's `show queuing interface` (real, zartbot's Nexus
// 93180FX2): the port's ingress overflow drops are judged without a class
// (the counter counts all qos-groups together), beside the PFC it sent on
// the no-drop group's CoS; its qos-group 5, which carries all the port's
// traffic, is no SONiC queue 5 and not "lossy" by SONiC's defaults.
func TestNXOSCloudScaleQueuing(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/nxos-show-queuing-interface-n9k-qos-group-5-overflow-19490-txppp-150-zartbot.txt")
	f := nicMustFind(t, fs, "switch.queue.drops", Warn, "Ethernet1/51: 19490 packets dropped at ingress (Ingress Overflow Drop Pkts, all qos-groups together")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 37 || f.Evidence[1].Line != 54 {
		t.Errorf("evidence %+v, want the drop line and the CoS 5 PFC row", f.Evidence)
	}
	nicMustFind(t, fs, "switch.pfc.tx_pause", Info, "Ethernet1/51: sent 150 PFC pause frames on priority 5")
	nicMustNot(t, fs, "switch.queue.lossy_traffic")
}

// SYNTHETIC: egress drops of a qos-group the same output gives a pause
// buffer are an error; of one it gives none, a warning; of a multicast
// queue, info.
func TestNXOSCloudScaleGroupDrops(t *testing.T) {
	fs := synthFindings(t, Options{},
		"leaf1# show queuing interface ethernet1/2",
		"Egress Queuing for Ethernet1/2 [System]",
		"|                              QOS GROUP 3                    |",
		"|                           |  Unicast       |Multicast       |",
		"|                   Tx Pkts |         5000000|              10|",
		"| WRED/AFD & Tail Drop Pkts |              42|               3|",
		"|                              QOS GROUP 0                    |",
		"|                           |  Unicast       |Multicast       |",
		"|                   Tx Pkts |         9000000|               0|",
		"| WRED/AFD & Tail Drop Pkts |             900|               0|",
		"Ingress Queuing for Ethernet1/2",
		"QoS-Group#                 Pause",
		"           Buff Size       Pause Th      Resume Th",
		"      3         348608        77376        75712",
		"      0              -            -            -",
	)
	nicMustFind(t, fs, "switch.queue.drops", Error, "Ethernet1/2 qos-group 3 unicast: 42 packets dropped on no-drop qos-group 3")
	nicMustFind(t, fs, "switch.queue.drops", Warn, "Ethernet1/2 qos-group 0 unicast: 900 packets dropped on drop qos-group 0")
	nicMustFind(t, fs, "switch.queue.drops", Info, "Ethernet1/2 qos-group 3 multicast: 3 packets dropped on multicast")
}
