package nic

import (
	"math/rand/v2"
	"testing"

	"rocelab/internal/roce"
	"rocelab/internal/unit"
)

// The marks never claim a packet older than it is: every unacknowledged
// PSN falls in a run whose time is at or after the PSN's true first send
// (so end minus it is a lower bound on its age), the runs count exactly
// the unacknowledged PSNs, and a PSN sent long ago keeps an old mark after
// thousands of later sends, across the PSN wrap.
func TestSendMarksBoundAges(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var m sendMarks
	start := roce.PSNMask - 500 // wrap inside the run
	una, next := uint32(start), uint32(start)
	sentAt := map[uint32]unit.Time{}
	now := unit.Time(0)
	for step := 0; step < 20000; step++ {
		now += unit.Time(rng.IntN(2000)) * unit.Nanosecond
		if rng.IntN(3) > 0 || una == next {
			sentAt[next] = now
			m.sent(next, now)
			next = roce.PSNAdd(next, 1)
		} else if step < 15000 && rng.IntN(4) == 0 { // the tail after 15000 is never acknowledged
			una = roce.PSNAdd(una, 1+rng.IntN(int(roce.PSNDiff(next, una))))
			m.acked(una)
		}
		if step%997 != 0 {
			continue
		}
		runs := m.unacked(una, next, now)
		var n int64
		psn := una
		for _, r := range runs {
			for i := int64(0); i < r.Packets; i++ {
				if at := sentAt[psn]; r.At < at || r.At > now {
					t.Fatalf("step %d: PSN %d first sent at %v counted at %v", step, psn, at, r.At)
				}
				psn = roce.PSNAdd(psn, 1)
			}
			n += r.Packets
		}
		if want := int64(roce.PSNDiff(next, una)); n != want {
			t.Fatalf("step %d: runs count %d PSNs, %d unacknowledged", step, n, want)
		}
	}
	runs := m.unacked(una, next, now)
	if len(runs) == 0 || now-runs[0].At < (now-sentAt[una])/4 {
		t.Errorf("oldest unacknowledged PSN sent at %v, first run at %v (end %v): the bound lost most of its age", sentAt[una], runs[0].At, now)
	}
}
