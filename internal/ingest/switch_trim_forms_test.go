package ingest

import (
	"strings"
	"testing"
)

// `show switch counters -j` and `--detail` (switchstat), real output of
// sonic-utilities' tests: each form reads as the table does, one trim
// total per ASIC, its trimmed packets the sum of those sent on (2,000)
// and dropped after trimming (1,000), each on the line that printed it.
func TestSwitchTrimSwitchForms(t *testing.T) {
	for _, c := range []struct {
		file  string
		ns    []string
		lines []int
	}{
		{"switch/sonic-show-switch-counters-json-trimdrop-1000-sonic-utilities.txt", []string{""}, []int{6}},
		{"switch/sonic-show-switch-counters-masic-json-sonic-utilities.txt", []string{"asic0", "asic1", "asic2"}, []int{7, 11, 15}},
		{"switch/sonic-show-switch-counters-detail-trimdrop-1000-sonic-utilities.txt", []string{""}, []int{5}},
		{"switch/sonic-show-switch-counters-masic-detail-sonic-utilities.txt", []string{"asic0", "asic1", "asic2"}, []int{7, 12, 17}},
	} {
		s := switchCorpus(t, c.file)
		if len(s.Trims) != len(c.ns) || len(s.Ports) != 0 {
			t.Errorf("%s: %d trims, %d ports; want %d, 0: %+v", c.file, len(s.Trims), len(s.Ports), len(c.ns), s)
			continue
		}
		for i, q := range s.Trims {
			if !q.Switch || q.Port != "" || q.Queue != -1 || q.Sent != 2000 || q.Dropped != 1000 || q.Trimmed != 3000 || q.Namespace != c.ns[i] || q.Evidence.Line != c.lines[i] {
				t.Errorf("%s: trim %d = %+v, want %s's 2000 sent, 1000 dropped at line %d", c.file, i, q, c.ns[i], c.lines[i])
			}
		}
	}
	// Both N/A: no total, named as not polled.
	s := switchCorpus(t, "switch/sonic-show-switch-counters-json-na-sonic-utilities.txt")
	if len(s.Trims) != 0 {
		t.Errorf("N/A: %+v", s.Trims)
	}
	if w, _, only := s.Unpolled(); !only || !strings.Contains(w, "`show switch counters`) with every count N/A") {
		t.Errorf("N/A not named: %q", w)
	}
}

// `show interfaces counters detailed PORT` prints the port's trim counts
// (Trimmed Packets 100, Sent 50, Dropped 50 in sonic-utilities' test
// output): a QueueTrim of the port, beside its PortCount.
func TestSwitchDetailedTrim(t *testing.T) {
	s := switchCorpus(t, "switch/sonic-show-int-counters-detailed-wred-101-sonic-utilities.txt")
	if len(s.Ports) != 1 || len(s.Trims) != 1 {
		t.Fatalf("%d ports, %d trims; want 1, 1", len(s.Ports), len(s.Trims))
	}
	if q := s.Trims[0]; q.Port != "Ethernet0" || q.Switch || q.Queue != -1 || q.Type != "" || q.Trimmed != 100 || q.Sent != 50 || q.Dropped != 50 || q.Evidence.Line != 47 {
		t.Errorf("trim = %+v", q)
	}
}

// SYNTHETIC, in switchstat's --detail form after `sonic-clear switch
// counters` (the diff, then the time since the clear): the block ends at
// its last line and reads as the plain one; a count N/A is no count.
func TestSwitchTrimSwitchDetailDiff(t *testing.T) {
	s := feedSwitch("sw.txt",
		"The switch stats are calculated within 1 seconds period",
		"Trimmed Sent Packets........................... N/A",
		"Trimmed Dropped Packets........................ 500",
		"",
		"Time Since Counters Last Cleared............... 2025-08-12 10:00:00")
	if s == nil || len(s.Trims) != 1 || len(s.Ports) != 0 {
		t.Fatalf("%+v", s)
	}
	if q := s.Trims[0]; !q.Switch || q.Sent != -1 || q.Dropped != 500 || q.Trimmed != -1 || q.Evidence.Line != 2 {
		t.Errorf("trim = %+v", q)
	}
}
