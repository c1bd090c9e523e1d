package ingest

import "testing"

// TestSwitchQueueWatermarks reads `show queue [persistent-]watermark`
// (sonic-utilities' own vectors, and SONiC#482's paste with its spacing
// collapsed and its rule lost to a blank line), `show pfc counters
// --history`, and a PG table quoted without its title (sonic-utilities
// #2568).
func TestSwitchQueueWatermarks(t *testing.T) {
	sw := func(rel string) *SwitchCounters { t.Helper(); return switchCorpus(t, rel) }
	// Three ports of UC0-UC9, then the persistent table replaces the
	// user one (same queues), then MC10-MC19 all N/A: 30 UC + 30 MC.
	q := sw("switch/sonic-queue-watermark-uc-mc-persistent-sonic-utilities.txt").QueueWMs
	var uc4 QueueWatermark
	na := 0
	for _, w := range q {
		if w.Port == "Ethernet4" && w.Type == "UC" && w.Queue == 4 {
			uc4 = w
		}
		if w.Type == "MC" && w.Bytes == -1 {
			na++
		}
	}
	if len(q) != 60 || uc4.Bytes != 3567 || uc4.Evidence.Line != 16 || na != 30 || q[0].Bytes != 3057328 {
		t.Errorf("%d queue watermarks, Ethernet4 UC4 %+v, %d MC N/A, first %+v", len(q), uc4, na, q[0])
	}
	c := sw("switch/sonic-queue-watermark-multicast-all-na-collapsed-sonic482.txt").QueueWMs
	if len(c) != 160 || c[0].Type != "MC" || c[0].Queue != 8 || c[159].Port != "Ethernet76" || c[159].Queue != 15 || c[159].Bytes != -1 {
		t.Errorf("%d collapsed watermarks: first %+v last %+v", len(c), c[0], c[len(c)-1])
	}
	h := sw("switch/sonic-pfc-counters-history-sonic-utilities.txt").PFCHist
	if len(h) != 24 || h[11].Port != "Ethernet4" || h[11].Prio != 3 || h[11].Transitions != 43 || h[11].TotalUS != 40000003 || h[11].RecentUS != 4000003 {
		t.Errorf("%d history rows, Ethernet4 PFC3 %+v", len(h), h[min(11, len(h)-1)])
	}
	pg := sw("switch/sonic-pg-watermark-untitled-sonicutilities2568.txt").PGs
	if len(pg) != 35 || !pg[0].Untitled || pg[0].Headroom || pg[34].Port != "Ethernet32" || pg[34].PG != 4 {
		t.Errorf("%d untitled PG watermarks: first %+v", len(pg), pg[0])
	}
	// SYNTHETIC, in the format above: a PG header saved without its rule
	// starts the table as it does with the rule (rows read as untitled
	// watermarks, shared or headroom not told).
	p := NewSwitchParser("pg.txt")
	for i, l := range []string{"     Port    PG0    PG3", "Ethernet0      0      7"} {
		p.Feed(Line{Num: i + 1, Text: l})
	}
	if a, _ := p.Result().(*SwitchCounters); a == nil || len(a.PGs) != 2 || !a.PGs[1].Untitled || a.PGs[1].Bytes != 7 {
		t.Errorf("bare PG header read as %+v", a)
	}
}
