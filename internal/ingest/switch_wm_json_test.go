package ingest

import (
	"strings"
	"testing"
)

// TestSwitchWatermarkJSON reads SONiC's watermarks in JSON (watermarkstat
// -j, sonic-utilities#3875): per-port objects of PGn or UCn/MCn/ALLn keys,
// the PG buffer named by the command echoed above the list.
func TestSwitchWatermarkJSON(t *testing.T) {
	h := switchCorpus(t, "switch/sonic-pg-watermark-headroom-json-pg3-403-sonic-utilities.txt")
	if len(h.PGs) != 24 {
		t.Fatalf("%d PG watermarks, want 3 ports x 8", len(h.PGs))
	}
	g := h.PGs[11] // Ethernet4 PG3
	if g.Port != "Ethernet4" || g.PG != 3 || g.Bytes != 403 || !g.Headroom || g.Untitled || g.Evidence.Line != 22 {
		t.Errorf("Ethernet4 PG3 %+v, want 403 bytes of headroom from line 22", g)
	}
	u := switchCorpus(t, "switch/sonic-pg-persistent-watermark-json-untitled-sonic-utilities.txt")
	if len(u.PGs) != 24 || !u.PGs[0].Untitled || u.PGs[0].Headroom || u.PGs[11].Bytes != 503 {
		t.Errorf("untitled PGs %d, first %+v, Ethernet4 PG3 %+v", len(u.PGs), u.PGs[0], u.PGs[11])
	}
	q := switchCorpus(t, "switch/sonic-queue-watermark-unicast-json-sonic-utilities.txt")
	if len(q.QueueWMs) != 30 || len(q.PGs) != 0 {
		t.Fatalf("%d queue watermarks, %d PGs, want 3 ports x 10 queues", len(q.QueueWMs), len(q.PGs))
	}
	if w := q.QueueWMs[13]; w.Port != "Ethernet4" || w.Type != "UC" || w.Queue != 3 || w.Bytes != 1986 || w.Evidence.Line != 24 {
		t.Errorf("Ethernet4 UC3 %+v, want 1986 bytes from line 24", w)
	}
	a := switchCorpus(t, "switch/sonic-queue-persistent-watermark-all-json-sonic-utilities.txt")
	if len(a.QueueWMs) != 30 || a.QueueWMs[0].Type != "ALL" || a.QueueWMs[0].Queue != 20 {
		t.Errorf("all-queue watermarks %d, first %+v", len(a.QueueWMs), a.QueueWMs[0])
	}
}

// TestSwitchWatermarkJSONCommands tells the PG buffer from the echoed
// command in its forms, and drops an object that is not watermarkstat's.
// SYNTHETIC lines, in the format of the real output above.
func TestSwitchWatermarkJSONCommands(t *testing.T) {
	list := []string{"[", "    {", `        "Port": "Ethernet0",`, `        "PG3": "7",`, `        "PG4": "N/A"`, "    }", "]"}
	for _, c := range []struct {
		cmd                string
		headroom, untitled bool
	}{
		{"admin@sonic:~$ show priority-group watermark shared -j", false, false},
		{"admin@sonic:~$ show priority-group persistent-watermark head --json", true, false},
		{"root@sonic:/home/admin# watermarkstat -p -t pg_headroom -j", true, false},
		{"show priority-group watermark headroom -j", true, false},
		{"admin@sonic:~$ show queue counters -j", false, true},
		{"", false, true},
		{"admin@sonic:~$ sudo show priority-group watermark shared -j", false, false},
		{"sudo show priority-group watermark headroom -j", true, false},
		// A headroom command, then a line that is no PG watermark command
		// (another command, its output): the list is not the headroom's.
		{"admin@sonic:~$ show priority-group watermark headroom -j\nadmin@sonic:~$ sudo su", false, true},
		{"admin@sonic:~$ show priority-group watermark headroom -j\nsome output", false, true},
	} {
		p := NewSwitchParser("wm.txt")
		cmds := strings.Split(c.cmd, "\n")
		for i, l := range append(cmds, list...) {
			p.Feed(Line{Num: i + 1, Text: l})
		}
		s, _ := p.Result().(*SwitchCounters)
		if s == nil || len(s.PGs) != 1 {
			t.Errorf("%q: %+v", c.cmd, s)
			continue
		}
		if g := s.PGs[0]; g.Headroom != c.headroom || g.Untitled != c.untitled || g.Bytes != 7 || g.PG != 3 || g.Evidence.Line != len(cmds)+4 {
			t.Errorf("%q: %+v, want headroom %v untitled %v", c.cmd, g, c.headroom, c.untitled)
		}
	}
	// Another tool's list of objects with a Port key is not read.
	p := NewSwitchParser("other.txt")
	for i, l := range []string{"[", "  {", `    "Port": "Ethernet0",`, `    "PG3": "7",`, `    "speed": "100G"`, "  }", "]"} {
		p.Feed(Line{Num: i + 1, Text: l})
	}
	if s, _ := p.Result().(*SwitchCounters); s != nil {
		t.Errorf("read %+v", s)
	}
}

// A port named by its alias ("fortyGigE0/0", as the PG tables accept it)
// is read in watermarkstat's JSON too; before, the object was dropped.
// SYNTHETIC lines, in the format of the real output above.
func TestSwitchWatermarkJSONAliasPort(t *testing.T) {
	p := NewSwitchParser("wm.txt")
	for i, l := range []string{"admin@sonic:~$ show priority-group watermark shared -j", "[", "    {", `        "Port": "fortyGigE0/0",`, `        "PG3": "7"`, "    }", "]"} {
		p.Feed(Line{Num: i + 1, Text: l})
	}
	s, _ := p.Result().(*SwitchCounters)
	if s == nil || len(s.PGs) != 1 || s.PGs[0].Port != "fortyGigE0/0" || s.PGs[0].Bytes != 7 {
		t.Errorf("alias port: %+v", s)
	}
}
