package sim

import (
	"testing"

	"rocelab/internal/unit"
)

type timerOwner struct {
	s     *Scheduler
	tm    Timer
	fired []unit.Time
}

func (o *timerOwner) Handle(now unit.Time, tag uint64) {
	if o.tm.Fire(o.s, now) {
		o.fired = append(o.fired, now)
	}
}

// Moving a timer later many times costs no scheduler events beyond one
// re-queue, and it fires once, at the last deadline.
func TestTimerLazyRearm(t *testing.T) {
	s := NewScheduler()
	o := &timerOwner{s: s}
	o.tm.Set(s, 100, 0, o, 0)
	for i := unit.Time(1); i <= 1000; i++ {
		o.tm.Set(s, 100+i, 0, o, 0)
	}
	if s.Pending() != 1 {
		t.Fatalf("pending %d after 1000 later re-arms, want 1", s.Pending())
	}
	s.Run()
	if len(o.fired) != 1 || o.fired[0] != 1100 {
		t.Fatalf("fired at %v, want once at 1100", o.fired)
	}
	if s.Executed() != 2 {
		t.Errorf("executed %d events, want 2 (the stale one and the real one)", s.Executed())
	}
}

// Re-arming earlier moves the event; stopping suppresses it; a stopped
// timer can be set again.
func TestTimerEarlierAndStop(t *testing.T) {
	s := NewScheduler()
	o := &timerOwner{s: s}
	o.tm.Set(s, 500, 0, o, 0)
	o.tm.Set(s, 200, 0, o, 0)
	s.RunUntil(300)
	if len(o.fired) != 1 || o.fired[0] != 200 {
		t.Fatalf("fired %v, want [200]", o.fired)
	}
	o.tm.Set(s, 400, 0, o, 0)
	o.tm.Stop()
	s.RunUntil(1000)
	if len(o.fired) != 1 {
		t.Fatalf("stopped timer fired: %v", o.fired)
	}
	o.tm.Set(s, 1500, 0, o, 0)
	s.Run()
	if len(o.fired) != 2 || o.fired[1] != 1500 {
		t.Fatalf("fired %v, want a second firing at 1500", o.fired)
	}
}

// A timer re-armed on every "ACK" allocates nothing.
func TestTimerNoAlloc(t *testing.T) {
	s := NewScheduler()
	o := &timerOwner{s: s}
	now := unit.Time(0)
	allocs := testing.AllocsPerRun(1000, func() {
		now += 10
		o.tm.Set(s, now+1000, 0, o, 0)
		s.RunUntil(now)
	})
	if allocs > 0 {
		t.Errorf("%.1f allocations per re-arm", allocs)
	}
}
