package doctor

import (
	"fmt"
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
		"    4              9000       8.79 KB    90 Bytes               0")
	f := nicMustFind(t, fs, "switch.queue.drops", Error, "swp1 UC3: 7 packets dropped on lossless queue 3")
	if !strings.Contains(f.Mechanism, "Cumulus Linux's RoCE default") {
		t.Errorf("mechanism: %s", f.Mechanism)
	}
	nicMustFind(t, fs, "switch.queue.drops", Warn, "swp1 UC4: 90 packets dropped on lossy queue 4")
}

// The Cumulus 5.4 user guide's `nv show interface swp16 qos roce
// counters` (real): the port's RoCE tree, whose tx-roce-stats count 663
// billion Tx buffer discards for RoCE traffic, lossless traffic class 3
// under NVUE's RoCE mode, and whose tx-ecn-stats count its ECN marks.
// Before, the tree was taken for a garbled `nv show qos roce`
// (input.garbled) and nothing of it was read.
func TestNVUERoCECounters(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/cumulus-nv-show-interface-swp16-qos-roce-counters-663g-discards-cl54-doc.txt")
	f := nicMustFind(t, fs, "switch.queue.drops", Error, "swp16 UC3: 663060754115 packets dropped on lossless queue 3 (of 803785675319 sent)")
	if len(f.Evidence) == 0 || f.Evidence[0].Line != 47 {
		t.Errorf("evidence %+v, want the unicast-no-buffer-discard row at line 47", f.Evidence)
	}
	nicMustFind(t, fs, "switch.ecn.marks", Info, "693777677344 packets marked CE")
	for _, f := range fs {
		if f.ID == "input.garbled" {
			t.Errorf("garbled: %s", f.Title)
		}
	}
	// With `nv show qos roce` in the same paste, each table is read on
	// its own: its PFC priority and ECN thresholds as before.
	fs = diagnoseFiles(t, Options{}, "corpus/switch/cumulus-nv-show-qos-roce-description-column-cl54-doc.txt",
		"corpus/switch/cumulus-nv-show-interface-swp16-qos-roce-counters-663g-discards-cl54-doc.txt")
	nicMustFind(t, fs, "switch.ecn.thresholds", Info, "ECN marks from 149996B to 1499464B")
	// The per-port `nv show interface swp16 qos roce status` of the same
	// guide, operational column only, reads as `nv show qos roce` does.
	fs = diagnoseFiles(t, Options{}, "corpus/switch/cumulus-nv-show-interface-swp16-qos-roce-status-cl54-doc.txt")
	nicMustFind(t, fs, "switch.ecn.thresholds", Info, "ECN marks from 153KiB to 1499464B")
}

// SYNTHETIC: a RoCE counter tree whose count does not read is garbled at
// its place, and a CNP discard is read on traffic class 6.
func TestNVUERoCECountersGarbled(t *testing.T) {
	fs := synthFindings(t, Options{},
		"cumulus@leaf1:mgmt:~$ nv show interface swp2 qos roce counters",
		"                               operational   applied  description",
		"-----------------------------  ------------  -------  ------------------------------------------------------",
		"tx-stats",
		"  tx-cnp-stats",
		"    cnp-packets                900                    Tx CNP Packets",
		"    unicast-no-buffer-discard  4                      Tx buffer discards for CNP traffic",
		"  tx-roce-stats",
		"    roce-packets               12x                    Tx RoCE Packets")
	g := nicMustFind(t, fs, "input.garbled", Warn, "")
	if !strings.Contains(g.Fix, "nv show interface <swp> qos roce counters") {
		t.Errorf("the fix names another command: %s", g.Fix)
	}
	for _, f := range fs {
		if f.ID == "input.garbled" && !strings.Contains(f.Evidence[0].Text, "12x") {
			t.Errorf("garbled at %+v, want the roce-packets row", f.Evidence)
		}
	}
}

// nvueRoCEShow is `nv show qos roce` in the shape of the Cumulus 5.4 user
// guide's, with its mode, PFC priority and SP->TC map given.
func nvueRoCEShow(mode, pfc string, sptc [8]int) []string {
	lines := []string{"cumulus@leaf1:mgmt:~$ nv show qos roce",
		"                    operational  applied   description",
		"------------------  -----------  --------  ------------------------------------------------------",
		"enable                           on        Turn the feature 'on' or 'off'.  The default is 'off'.",
		"mode                " + mode + "     " + mode + "  Roce Mode",
		"pfc",
		"  pfc-priority      " + pfc + "                      switch-prio on which PFC is enabled",
		"RoCE SP->TC mapping and ETS configurations",
		"=============================================",
		"        switch-prio  traffic-class  scheduler-weight",
		"    --  -----------  -------------  ----------------"}
	for sp, tc := range sptc {
		lines = append(lines, fmt.Sprintf("    %d   %d            %d              DWRR-50%%", sp, sp, tc))
	}
	return append(lines, "cumulus@leaf1:mgmt:~$ nv show interface swp1 qos roce counters",
		"                               operational   applied  description",
		"tx-stats",
		"  tx-pfc-stats",
		"    pause-packets              40                     Tx PFC pause packets for RoCE traffic",
		"  tx-roce-stats",
		"    roce-packets               9000000                Tx RoCE Packets",
		"    unicast-no-buffer-discard  700                    Tx buffer discards for RoCE traffic")
}

// SYNTHETIC, in the shape of the Cumulus user guide's "change the default
// lossless priority to 2" example: `nv show qos roce` in the same paste
// puts PFC on switch priority 2, leaving by traffic class 2, so the RoCE
// counters' discards are class 2's, lossless, and its pause frames
// priority 2's.
func TestNVUERoCECountersMovedPriority(t *testing.T) {
	fs := synthFindings(t, Options{}, nvueRoCEShow("lossless", "2", [8]int{0, 0, 2, 0, 0, 0, 6, 0})...)
	nicMustFind(t, fs, "switch.queue.drops", Error, "leaf1 swp1 UC2: 700 packets dropped on lossless queue 2")
	for _, f := range fs {
		if strings.Contains(f.Title, "queue 3") || strings.Contains(f.Title, "UC3") {
			t.Errorf("RoCE still taken as class 3: %s", f.Title)
		}
	}
}

// SYNTHETIC: in RoCE mode lossy no class is lossless: the discards are a
// lossy queue's, no error.
func TestNVUERoCECountersLossy(t *testing.T) {
	fs := synthFindings(t, Options{}, nvueRoCEShow("lossy   ", "-", [8]int{0, 0, 0, 3, 0, 0, 6, 0})...)
	for _, f := range fs {
		if f.ID == "switch.queue.drops" && f.Severity == Error || strings.Contains(f.Title, "lossless queue") {
			t.Errorf("lossy mode judged lossless: %s", f.Title)
		}
	}
	nicMustFind(t, fs, "switch.queue.drops", Warn, "swp1 UC3")
}

// SYNTHETIC: rx-roce-stats' no-buffer-discard is RoCE dropped at ingress
// (the lossless priority group's buffer and headroom overflowed): read as
// a lossless PG's drops.
func TestNVUERoCEIngressDiscards(t *testing.T) {
	fs := synthFindings(t, Options{},
		"cumulus@leaf1:mgmt:~$ nv show interface swp5 qos roce counters",
		"                               operational   applied  description",
		"rx-stats",
		"  rx-roce-stats",
		"    no-buffer-discard          812                    Rx buffer discards for RoCE traffic",
		"    roce-packets               7000000                Rx RoCE Packets")
	nicMustFind(t, fs, "switch.queue.drops", Error, "leaf1 swp5 PG3: 812 packets dropped at ingress on lossless priority group 3")
}
