package doctor

import (
	"fmt"
	"strings"
	"testing"
)

// Huawei CloudEngine's `display abs-pfc` (real, the CE6800 configuration
// guide: 118789880 PFC frames received on queue 3, none sent), `display
// dcb pfc` and `display qos queue statistics` (real, the command
// reference: no pause, no drops): a port paused by its peer but sending
// no pause and dropping nothing raises nothing.
func TestHuaweiDCBCountersHealthy(t *testing.T) {
	for _, file := range []string{
		"corpus/switch/huawei-ce-display-abs-pfc-100ge1-0-1-q3-rx-118.8m-config-guide-doc.txt",
		"corpus/switch/huawei-ce-display-dcb-pfc-100ge1-0-1-q5-no-pause-command-reference-doc.txt",
		"corpus/switch/huawei-ce-display-qos-queue-statistics-slot1-q6-1330-no-drops-command-reference-doc.txt",
	} {
		if fs := diagnoseFiles(t, Options{}, file); len(fs) != 0 {
			t.Errorf("%s: findings %s", file, nicTitles(fs))
		}
	}
}

// vrpPFCPaste is a SYNTHETIC `display dcb pfc` in the layout of the real
// one: queue 3 of 100GE1/0/2 with the counts given.
func vrpPFCPaste(rx, deadlocks, tx, recoveries string) []string {
	return []string{
		"[~leaf1] display dcb pfc interface 100ge 1/0/2",
		"Interface         Queue         Received(Frames)        ReceivedRate(pps)     DeadlockNum",
		"                             Transmitted(Frames)     TransmittedRate(pps)     RecoveryNum",
		"-----------------------------------------------------------------------------------------",
		"100GE1/0/2            3" + fmt.Sprintf("%24s%25s%16s", rx, "0", deadlocks),
		fmt.Sprintf("%48s%25s%16s", tx, "0", recoveries),
		"-----------------------------------------------------------------------------------------",
	}
}

// A port that sent 4500 PFC frames on queue 3 and received 120 is told,
// on priority 3, with Huawei's commands to follow it.
func TestHuaweiDCBPFCSent(t *testing.T) {
	fs := synthFindings(t, Options{}, vrpPFCPaste("120", "0", "4500", "0")...)
	f := nicMustFind(t, fs, "switch.pfc.tx_pause", Warn, "100GE1/0/2", "sent 4500 PFC pause frames on priority 3 (received 120)")
	if !strings.Contains(f.Fix, "`display qos queue statistics interface 100GE1/0/2`") || !strings.Contains(f.Fix, "`display dcb pfc interface 100GE1/0/2`") {
		t.Errorf("fix %q", f.Fix)
	}
}

// vrpQueueDropsPaste is a SYNTHETIC `display qos queue statistics` in the
// layout of the real one: queue 3 of 100GE1/0/1 dropped a tenth.
var vrpQueueDropsPaste = []string{
	"<leaf1> display qos queue statistics interface 100GE 1/0/1",
	" Queue statistics info: interface 100GE1/0/1",
	" Queue   CIR/PIR              Passed     Pass Rate             Dropped     Drop Rate  Drop Time",
	"     (% or kbps)     (Packets/Bytes)     (pps/bps)     (Packets/Bytes)     (pps/bps)",
	"     3         0            90000000             0            10000000             0  2024-01-02 03:04:05",
	"       100000000         90000000000             0         10000000000             0",
}

// Drops on queue 3 are a warning with their share, not an error by
// SONiC's default lossless queues 3 and 4: a CloudEngine port runs PFC
// only under a `dcb pfc enable` profile no input here shows.
func TestHuaweiQueueDropsNotSONiCLossless(t *testing.T) {
	fs := synthFindings(t, Options{}, vrpQueueDropsPaste...)
	f := nicMustFind(t, fs, "switch.queue.drops", Warn, "100GE1/0/1 queue 3", "10000000 packets dropped, 10.0% of the 100000000", "lossless or not, no input says")
	if !strings.Contains(f.Mechanism, "`dcb pfc enable`") || !strings.Contains(f.Fix, "`display dcb pfc interface 100GE1/0/1`") {
		t.Errorf("finding %+v", f)
	}
	nicMustNot(t, fs, "switch.queue.lossy_traffic")
}

// Queue 3 counted 2 PFC deadlocks and recovered from 1: in a deadlock
// now, told with Huawei's deadlock commands and no drop counts, which the
// table does not give, and with what CloudEngine does meanwhile (forward
// or discard by model, `dcb pfc deadlock recovery-behavior`), not the
// SONiC watchdog's default drop.
func TestHuaweiDCBPFCDeadlock(t *testing.T) {
	fs := synthFindings(t, Options{}, vrpPFCPaste("9000000", "2", "0", "1")...)
	f := nicMustFind(t, fs, "switch.pfcwd.storm", Error, "100GE1/0/2 queue 3: PFC deadlock detection: in a deadlock now (2 deadlocks detected, 1 recovered)")
	if strings.Contains(f.Title, "dropped") || !strings.Contains(f.Fix, "`display dcb pfc interface 100GE1/0/2`") || !strings.Contains(f.Fix, "deadlock-detect") {
		t.Errorf("finding %+v", f)
	}
	if !strings.Contains(f.Mechanism, "`dcb pfc deadlock recovery-behavior`") || strings.Contains(f.Mechanism, "default action `drop`") || strings.Contains(f.Mechanism, "TX OK/DROP") {
		t.Errorf("mechanism %q", f.Mechanism)
	}
}
