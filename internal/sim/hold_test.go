package sim

import (
	"testing"

	"rocelab/internal/unit"
)

// In a linked round whose control side publishes a lead past its bound
// (Windows.Lead), a part that wrote what may stop the run at h
// (Scheduler.Hold) publishes no later than h less the lookahead, so that
// no part runs at or past h, until the control side has run past h; a
// hold at or past the round's end holds nothing, and without a lead no
// part keeps holds.
func TestWindowsLinkedHold(t *testing.T) {
	r := newRing(2)
	w := ringWindows(r, &Windows{Workers: 2, LinkedBelow: 2, Reply: 2 * ringLook, Lead: func() unit.Time { return ringLook }})
	w.parts = make([]partState, 2)
	for i := range w.parts {
		w.parts[i].sched = w.Parts[i].Scheduler()
	}
	s := w.parts[0].sched
	s.holding = true
	const h, end = 1000, 10000
	s.Hold(h)
	w.ctl.pub.Store(5000)
	w.parts[1].pub.Store(4000)
	free := unit.Time(4000 + ringLook) // the bound without the hold
	w.ctl.ran.Store(h)                 // it ran its events before h
	if b, _ := w.linkedBound(0, end); b != h-ringLook {
		t.Errorf("held at %d, the control side run before it: bound %d, want %d", h, b, h-ringLook)
	}
	if b, _ := w.linkedBound(0, h); b != min(h, free) {
		t.Errorf("held at %d, the round ending there: bound %d, want %d", h, b, min(h, free))
	}
	w.ctl.ran.Store(h + 1)
	if b, _ := w.linkedBound(0, end); b != free {
		t.Errorf("the control side run past the hold: bound %d, want %d", b, free)
	}
	if len(s.holds) != 0 {
		t.Errorf("%d holds kept after the control side ran past them", len(s.holds))
	}
	s.holding = false
	s.Hold(h)
	if len(s.holds) != 0 {
		t.Error("a scheduler not holding kept a hold")
	}
}
