package ingest

import (
	"testing"
)

// TestSwitchPGTables reads the per-PG and per-queue tables of SONiC's
// real outputs: multi-ASIC titles with their namespace, PG drops, WRED and
// ECN counters; and PG columns by their header.
func TestSwitchPGTables(t *testing.T) {
	sw := func(rel string) *SwitchCounters { t.Helper(); return switchCorpus(t, rel) }
	// Two namespaces, each "Ingress headroom per PG: (Namespace asicN)",
	// sixteen PGs of six ports: 96 headroom watermarks, none shared.
	hd := sw("switch/sonic-pg-watermark-headroom-masic-namespace-titles-sonic-utilities.txt").PGs
	if len(hd) != 96 || !hd[0].Headroom || hd[3].PG != 3 || hd[3].Bytes != 103 || hd[95].Port != "Ethernet-BP260" || hd[95].PG != 15 || hd[95].Bytes != 215 {
		t.Errorf("headroom watermarks %d: first %+v last %+v", len(hd), hd[0], hd[len(hd)-1])
	}
	drops := sw("switch/sonic-pg-drop-masic-pg3-13.7m-sonicutilities3782.txt")
	var big []PGDrop
	for _, d := range drops.PGDrops {
		if d.Packets > 0 {
			big = append(big, d)
		}
	}
	if len(drops.PGDrops) != 80 || len(big) != 1 || big[0].Port != "Ethernet112" || big[0].PG != 3 || big[0].Packets != 13681484 || big[0].Evidence.Line != 9 || len(drops.PGs) != 0 {
		t.Errorf("pg drops %d, nonzero %+v, watermarks %d", len(drops.PGDrops), big, len(drops.PGs))
	}
	w := sw("switch/sonic-queue-wredcounters-ecn-marked-uc0-sonicutilities4181.txt").WRED
	if len(w) != 7 || w[0].ECNMarks != 20 || w[0].WREDDrop != 0 || w[1].WREDDrop != 1 || w[1].Queue != 1 || w[1].Type != "UC" || w[6].Queue != 6 {
		t.Errorf("wred %+v", w)
	}
	// SYNTHETIC, in the format of sonic-utilities#2568 (202205 on: only the
	// configured PGs are columns): PG3's headroom is PG3's, not PG1's.
	p := NewSwitchParser("pg.txt")
	for i, l := range []string{
		"Ingress headroom per PG:",
		"       Port    PG0    PG3    PG4",
		"-----------  -----  -----  -----",
		"  Ethernet0      0  40960      7",
	} {
		p.Feed(Line{Num: i + 1, Text: l})
	}
	s := p.Result().(*SwitchCounters)
	if len(s.PGs) != 3 || s.PGs[1].PG != 3 || s.PGs[1].Bytes != 40960 || s.PGs[2].PG != 4 || !s.PGs[1].Headroom {
		t.Errorf("subset columns %+v", s.PGs)
	}
}

// A PG table of a switch that prints its ports by alias ("fortyGigE0/0")
// is read, so its drops are judged. SYNTHETIC, in the format of the real
// tables above.
func TestSwitchPGAliasPorts(t *testing.T) {
	p := NewSwitchParser("pg.txt")
	for i, l := range []string{"Ingress PG dropped packets:", "        Port    PG0    PG1    PG2    PG3", "------------  -----  -----  -----  -----", "fortyGigE0/0      0      0      0    800", "fortyGigE0/4    N/A    N/A    N/A    N/A"} {
		p.Feed(Line{Num: i + 1, Text: l})
	}
	s, _ := p.Result().(*SwitchCounters)
	if s == nil || len(s.PGDrops) != 4 || s.PGDrops[3].Port != "fortyGigE0/0" || s.PGDrops[3].PG != 3 || s.PGDrops[3].Packets != 800 || s.PGDrops[3].Evidence.Line != 4 {
		t.Errorf("alias PG drops: %+v", s)
	}
}
