package ingest

import "testing"

// SYNTHETIC, in the format of `show switch counters` (switchstat's test
// vectors): an N/A count is no count, a switch of N/A only is named as
// not polled and kept out, and a count alone is kept without a sum.
func TestSwitchTrimSwitchTotal(t *testing.T) {
	hdr := []string{"admin@sonic:~$ show switch counters", "  TrimSent/pkts    TrimDrop/pkts", "---------------  ---------------"}
	s := feedSwitch("sw.txt", append(hdr, "            N/A            1,000")...)
	if s == nil || len(s.Trims) != 1 || !s.Trims[0].Switch || s.Trims[0].Port != "" || s.Trims[0].Sent != -1 || s.Trims[0].Dropped != 1000 || s.Trims[0].Trimmed != -1 || s.Trims[0].Evidence.Line != 4 {
		t.Fatalf("partial: %+v", s)
	}
	s = feedSwitch("sw.txt", append(hdr, "            N/A              N/A")...)
	if s == nil || len(s.Trims) != 0 {
		t.Fatalf("all N/A: %+v", s)
	}
	if w, _, only := s.Unpolled(); !only || w == "" {
		t.Errorf("all N/A not named: %q", w)
	}
}
