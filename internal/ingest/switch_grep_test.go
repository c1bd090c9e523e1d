package ingest

import "testing"

// TestSwitchFilteredShow reads SONiC show output filtered through grep,
// header-less, by the command echoed above it (sonic-buildimage#15198 and
// #23566); rows of the same shape without such a command stay unread.
func TestSwitchFilteredShow(t *testing.T) {
	q := switchCorpus(t, "switch/sonic-show-queue-counters-grep-no-header-blank-lines-voq-buildimage15198.txt").Queues
	if len(q) != 7 || q[0].Port != "Ethernet132" || q[0].Type != "UC" || q[0].Queue != 0 || q[0].Packets != 1094660240 || q[0].DropPkts != 29124 || q[6].Queue != 6 || q[6].Evidence.Line != 17 {
		t.Errorf("%d queue rows: %+v", len(q), q)
	}
	w := switchCorpus(t, "switch/sonic-show-queue-wredcounters-grep-uc3-ecn-marked-multiasic-buildimage23566.txt").WRED
	if len(w) != 10 || w[6].Port != "Ethernet48" || w[6].Queue != 3 || w[6].ECNMarks != 678 || w[6].WREDDrop != -1 || len(switchCorpus(t, "switch/sonic-show-queue-wredcounters-grep-uc3-ecn-marked-multiasic-buildimage23566.txt").Queues) != 0 {
		t.Errorf("%d WRED rows: %+v", len(w), w)
	}
	for name, text := range map[string]string{
		// SYNTHETIC: the same rows under no command, under an unfiltered
		// one (its header would follow), and under a filtered command
		// whose rows could belong to either of two tables.
		"no-command":   "Ethernet0    UC3    10    20    1    2\n",
		"not-filtered": "admin@sw:~$ show queue counters\nEthernet0    UC3    10    20    1    2\n",
		"pfc":          "admin@sw:~$ show pfc counters | grep Ethernet0\nEthernet0    0    0    0    7    0    0    0    0\n",
	} {
		res := nicReadText(t, name, text)
		for _, a := range res.Artifacts {
			if s, ok := a.(*SwitchCounters); ok && len(s.Queues)+len(s.PFC)+len(s.WRED) > 0 {
				t.Errorf("%s: rows read without their header: %+v %+v %+v", name, s.Queues, s.PFC, s.WRED)
			}
		}
	}
	// SYNTHETIC: SONiC's word prefixes, a "Last cached time" note the grep
	// kept, and `show interfaces counters` rows whose rates take two fields.
	res := nicReadText(t, "prefixes", "admin@leaf1:~$ show int counter | grep Ethernet0\n"+
		"Last cached time was 2024-12-03T20:09:17\n"+
		"  Ethernet0        U  61,115,381  286.58 KB/s      0.00%         0         0         0  51,847,244  233.95 KB/s      0.00%         0  9,268,210         0\n")
	s := nicArtifact[*SwitchCounters](t, res)
	if len(s.Ports) != 1 || s.Ports[0].Port != "Ethernet0" || s.Ports[0].TxDrop != 9268210 || s.Switch != "leaf1" {
		t.Errorf("ports %+v, switch %q", s.Ports, s.Switch)
	}
}
