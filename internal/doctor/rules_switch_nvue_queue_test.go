package doctor

import (
	"strings"
	"testing"
)

// SYNTHETIC: NVUE's egress-queue-stats of a RoCE port, in the shape a
// later Cumulus release prints it (with ecn-marked-frames): unicast
// buffer discards on the lossless class, printed with a byte unit, are
// errors said to be approximate; its WRED discards an error too; its ECN
// marks the evidence that marking is in effect.
func TestNVUEEgressQueueStats(t *testing.T) {
	fs := synthFindings(t, Options{},
		"cumulus@leaf1:mgmt:~$ nv show interface swp37s0 counters qos egress-queue-stats",
		"    traffic-class  tx-frames  tx-bytes   tx-uc-buffer-discards  ecn-marked-frames  wred-discards",
		"    -------------  ---------  ---------  ---------------------  -----------------  -------------",
		"    0              1200       1.17 KB    0 Bytes                0                  0",
		"    3              98000000   93.46 GB   75.19 KB               16660000           12")
	f := nicMustFind(t, fs, "switch.queue.drops", Error, "leaf1 swp37s0 UC3: about 76995 packets dropped on lossless queue 3")
	if !strings.Contains(f.Mechanism, "75.19 KB") {
		t.Errorf("mechanism does not say the count is read back from a byte unit: %s", f.Mechanism)
	}
	nicMustFind(t, fs, "switch.queue.drops", Error, "WRED dropped 12 packets on lossless queue 3")
	nicMustFind(t, fs, "switch.ecn.marks", Info, "16660000 packets marked CE")
}

// The Cumulus 5.9 user guide's `nv show interface swp1 counters qos`
// (real, every counter 0): all four tables read, nothing to report.
func TestNVUECountersQoSIdle(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/cumulus-nv-show-counters-qos-swp1-ingress-egress-queue-stats-cl59-doc.txt")
	if len(fs) != 0 {
		t.Errorf("findings on an idle port: %s", nicTitles(fs))
	}
}

// SYNTHETIC: on a Cumulus switch whose RoCE priorities no input states,
// the lossless class is Cumulus' RoCE default, traffic class 3, not
// SONiC's 3 and 4: discards on traffic class 4 are a lossy queue's.
func TestNVUELosslessDefault(t *testing.T) {
	fs := synthFindings(t, Options{},
		"cumulus@leaf1:mgmt:~$ nv show interface swp1 counters qos egress-queue-stats",
		"    traffic-class  tx-frames  tx-bytes   tx-uc-buffer-discards  wred-discards",
		"    -------------  ---------  ---------  ---------------------  -------------",
		"    3              5000       4.88 KB    7 Bytes                0",
		"    4              9000       8.79 KB    9 Bytes                0")
	f := nicMustFind(t, fs, "switch.queue.drops", Error, "swp1 UC3: 7 packets dropped on lossless queue 3")
	if !strings.Contains(f.Mechanism, "Cumulus Linux's RoCE default") {
		t.Errorf("mechanism: %s", f.Mechanism)
	}
	nicMustFind(t, fs, "switch.queue.drops", Warn, "swp1 UC4: 9 packets dropped on lossy queue 4")
}
