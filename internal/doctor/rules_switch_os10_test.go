package doctor

import (
	"strings"
	"testing"
)

// Dell OS10 `show queuing statistics` (real, a netdev thread's DCTCP runs
// through OS10 switches): queue 5's drops are reported with what no input
// says (whether the queue is lossless: OS10 keeps none so unless
// configured), not as SONiC's "lossy queue 5" beside lossless queues 3 and
// 4 the switch does not have; the run with ECN on, no drops, gives none.
func TestOS10QueuingDrops(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/os10-show-queuing-statistics-q5-drops-953632-netdev-dctcp-ecn-off.txt")
	f := nicMustFind(t, fs, "switch.queue.drops", Warn, "hound-dirt ethernet1/1/4 queue 5: 953632 packets dropped, 4.3% of the 21990993 it took (21037361 sent, which OS10's Packets counts, and the drops); lossless or not, no input says")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 11 {
		t.Errorf("evidence %+v, want the queue 5 row, line 11", f.Evidence)
	}
	// The same paste's second switch, fox-dirt, same port: its own finding.
	f = nicMustFind(t, fs, "switch.queue.drops", Warn, "fox-dirt ethernet1/1/4 queue 5: 962777 packets dropped, 4.4% of the 21988973 it took")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 24 {
		t.Errorf("evidence %+v, want fox-dirt's queue 5 row, line 24", f.Evidence)
	}
	nicMustNot(t, fs, "switch.queue.lossy_traffic")
	if fs := diagnoseFiles(t, Options{}, "corpus/switch/os10-show-queuing-statistics-q5-22m-no-drops-netdev-dctcp-ecn-on.txt"); len(fs) != 0 {
		t.Errorf("no drops: findings %+v", fs)
	}
	// Beside a SONiC switch's queues, whose lossless queues are SONiC's
	// default, OS10's are still not judged by it.
	fs = diagnoseFiles(t, Options{}, "corpus/switch/os10-show-queuing-statistics-q5-22m-no-drops-netdev-dctcp-ecn-on.txt", "corpus/switch/os10-show-queuing-statistics-q5-drops-953632-netdev-dctcp-ecn-off.txt", "corpus/switch/sonic-queue-counters-sonic-utilities.txt")
	nicMustFind(t, fs, "switch.queue.drops", Warn, "hound-dirt ethernet1/1/4 queue 5:", "lossless or not, no input says")
	for _, f := range fs {
		if f.ID == "switch.queue.lossy_traffic" && strings.Contains(f.Title, "ethernet1/1/4") {
			t.Errorf("OS10 port judged by SONiC's lossless queues: %s", f.Title)
		}
	}
}
