package doctor

import (
	"strings"
	"testing"
)

// NVIDIA Cumulus Linux `ethtool -S swpN`, Cumulus's own knowledge base:
// swp1 with 15682741 frames received with errors (0.204% of its frames)
// and 1439 ingress discards is switch.link.errors and switch.queue.drops,
// citing their lines (before, the dump was read as a NIC's and nothing
// was said); swp13 and swp14, whose only drops are ACL drops, raise
// nothing; its `cl-netstat` (swp1-4 with RX_ERR and RX_DRP) is the same
// rules' per port. A synthetic Spectrum port that sent PFC pause on priority 3 is
// the same switch.pfc.tx_pause SONiC's tables give.
func TestCumulusEthtool(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/cumulus-ethtool-S-swp1-hwifinerrors-15.7m.txt")
	e := nicMustFind(t, fs, "switch.link.errors", Warn, "swp1: 15682741 frames received with errors (HwIfInErrors), 0.204% of the 7685659103 received")
	if e.Evidence[0].Line != 18 {
		t.Errorf("errors evidence %v", e.Evidence)
	}
	d := nicMustFind(t, fs, "switch.queue.drops", Warn, "swp1: 1439 packets dropped at ingress (HwIfInDiscards; HwIfIn*castPkts 7669976362)")
	if d.Evidence[0].Line != 13 {
		t.Errorf("drops evidence %v", d.Evidence)
	}
	for _, f := range fs {
		if strings.HasPrefix(f.ID, "counters.") {
			t.Errorf("a NIC's finding on a switch port: %s %s", f.ID, f.Title)
		}
	}

	quiet := diagnoseFiles(t, Options{}, "corpus/switch/cumulus-ethtool-S-swp13-swp14-acl-drops.txt")
	for _, f := range quiet {
		if f.Severity != Info {
			t.Errorf("%s %s: %s", f.Severity, f.ID, f.Title)
		}
	}

	netstat := diagnoseFiles(t, Options{}, "corpus/switch/cumulus-cl-netstat-swp1-4-rx-err.txt")
	n := nicMustFind(t, netstat, "switch.link.errors", Warn, "swp2: 10728822 frames received with errors (RX_ERR), 0.354% of the 3034396592 received")
	if n.Evidence[0].Line != 10 || !strings.Contains(n.Fix, "ethtool -m swp2") {
		t.Errorf("cl-netstat errors: evidence %v, fix %q", n.Evidence, n.Fix)
	}
	nicMustFind(t, netstat, "switch.queue.drops", Warn, "swp4: 897 packets dropped at ingress (RX_DRP; RX_OK 13869960451)")
	if got := len(nicFind(netstat, "switch.link.errors")) + len(nicFind(netstat, "switch.queue.drops")); got != 8 {
		t.Errorf("%d findings on swp1-4's errors and drops, want 8: eth0 and lo are the switch's own", got)
	}

	paths := writeFiles(t, map[string][]string{"leaf.txt": {
		"# synthetic: Cumulus Linux ethtool -S of a Spectrum port with PFC",
		"cumulus@leaf1:mgmt:~$ sudo ethtool -S swp7",
		"NIC statistics:",
		"     HwIfInUcastPkts: 5000000",
		"     HwIfInPfc3Pkt: 0",
		"     HwIfOutPfc3Pkt: 9000",
	}})
	rep := Diagnose(paths, nil, Options{})
	tx := nicMustFind(t, rep.Findings, "switch.pfc.tx_pause", Warn, "leaf1 swp7: sent 9000 PFC pause frames on priority 3 (received 0)")
	if tx.Evidence[0].Line != 6 {
		t.Errorf("tx_pause evidence %v", tx.Evidence)
	}
}
