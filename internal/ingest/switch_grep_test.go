package ingest

import (
	"fmt"
	"maps"
	"testing"
)

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
		// SYNTHETIC: the same rows under no command and under an
		// unfiltered one (its header would follow).
		"no-command":   "Ethernet0    UC3    10    20    1    2\n",
		"not-filtered": "admin@sw:~$ show queue counters\nEthernet0    UC3    10    20    1    2\n",
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
	// SYNTHETIC: a host name holding "show".
	res = nicReadText(t, "show-host", "admin@showroom-leaf1:~$ show queue counters | grep Ethernet0\n"+
		"Ethernet0    UC3    10    20    1    2\n")
	if s := nicArtifact[*SwitchCounters](t, res); len(s.Queues) != 1 || s.Switch != "showroom-leaf1" {
		t.Errorf("queues %+v, switch %q", s.Queues, s.Switch)
	}
}

// TestSwitchFilteredPFC reads `show pfc counters | grep PORT`: SONiC prints
// the Rx table and then the Tx table, so a port's first row is what it
// received and its second what it sent. A third row of a port is not read.
func TestSwitchFilteredPFC(t *testing.T) {
	// SYNTHETIC: the rows pfcstat prints for two ports, filtered by grep,
	// with the "Last cached time" note of each table in between.
	res := nicReadText(t, "pfc", "admin@leaf1:~$ show pfc counters | grep -E 'Ethernet0 |Ethernet8 '\n"+
		"  Ethernet0       0       0       0   1,234       0       0       0       0\n"+
		"  Ethernet8       0       0       0       0       5       0       0       0\n"+
		"Last cached time was 2024-12-03T20:09:17\n"+
		"  Ethernet0       0       0       0      15       0       0       0       0\n"+
		"  Ethernet8       0       0       0       0       0       0       0       0\n"+
		"  Ethernet0       0       0       0      99       0       0       0       0\n")
	s := nicArtifact[*SwitchCounters](t, res)
	got := map[string]uint64{}
	for _, c := range s.PFC {
		if c.Frames > 0 {
			got[fmt.Sprintf("%s %v %d", c.Port, c.Dir, c.Prio)] = c.Frames
		}
	}
	want := map[string]uint64{fmt.Sprintf("Ethernet0 %v 3", RX): 1234, fmt.Sprintf("Ethernet8 %v 4", RX): 5, fmt.Sprintf("Ethernet0 %v 3", TX): 15}
	if !maps.Equal(got, want) || len(s.PFC) != 4*8 {
		t.Errorf("%d PFC counters, nonzero %v, want %v", len(s.PFC), got, want)
	}
}

// A command that cuts the Tx table out before grep names the rows' table.
func TestSwitchFilteredPFCNamed(t *testing.T) {
	// SYNTHETIC output under the command sonic-mgmt's snappi helpers
	// (get_pfc_frame_count, get_pfc_count) run to read one port's Tx
	// PFC counters.
	res := nicReadText(t, "pfc-tx", "admin@leaf1:~$ show pfc counters | sed -n '/Port Tx/,/^$/p' | grep Ethernet0\n"+
		"  Ethernet0       0       0       0      15       0       0       0       0\n")
	s := nicArtifact[*SwitchCounters](t, res)
	if len(s.PFC) != 8 || s.PFC[3].Dir != TX || s.PFC[3].Frames != 15 || s.PFC[3].Port != "Ethernet0" {
		t.Errorf("PFC counters %+v, want Ethernet0's Tx row", s.PFC)
	}
}
