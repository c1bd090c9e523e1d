package sim

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"rocelab/internal/unit"
)

// newTestScheduler returns a Scheduler that compacts after minCompact
// tombstones, so that small tests reach compaction.
func newTestScheduler(minCompact int) *Scheduler {
	s := NewScheduler()
	s.minCompact = minCompact
	return s
}

func randomProgram(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// TestDifferential runs random programs of At, After, Cancel (of pending,
// fired, cancelled and unknown ids), Step, RunUntil, Run and Stop, also from
// inside handlers, against the naive reference and requires identical
// traces: execution order, return values, Now, Pending and Executed.
func TestDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := range 1000 {
		n := 10 + r.IntN(200) // short programs reach corner states
		if i%4 == 0 {
			n = 50 + r.IntN(4000)
		}
		data := randomProgram(r, n)
		for _, minCompact := range []int{0, 3, defaultMinCompact} {
			ref := &world{s: &refScheduler{}}
			got := &world{s: newTestScheduler(minCompact)}
			if err := runProgram(data, ref, got); err != nil {
				t.Fatalf("program %d (minCompact %d): %v", i, minCompact, err)
			}
		}
	}
}

// firing records one event run by TestOrderProperties.
type firing struct {
	t, seq unit.Time
}

type orderChecker struct {
	s     *Scheduler
	r     *rand.Rand
	seq   unit.Time
	fired []firing
	t     *testing.T
	ids   []EventID
}

// Handle checks Now, then schedules more events, often at Now itself, and
// cancels some, all from inside the handler.
func (c *orderChecker) Handle(now unit.Time, tag uint64) {
	if c.s.Now() != now {
		c.t.Fatalf("Now() = %d inside a handler for time %d", c.s.Now(), now)
	}
	c.fired = append(c.fired, firing{now, unit.Time(tag)})
	if len(c.fired) < 20000 {
		for range c.r.IntN(3) {
			c.schedule(now + unit.Time(c.r.IntN(3)))
		}
	}
	if c.r.IntN(4) == 0 {
		c.s.Cancel(c.ids[c.r.IntN(len(c.ids))])
	}
}

func (c *orderChecker) schedule(t unit.Time) {
	c.ids = append(c.ids, c.s.At(t, 0, c, uint64(c.seq)))
	c.seq++
}

// TestOrderProperties checks, over many equal times, that events run in
// strictly increasing (time, insertion sequence) order, so equal times run
// first-in first-out, and that Now never goes back.
func TestOrderProperties(t *testing.T) {
	for seed := range uint64(20) {
		s := newTestScheduler(int(seed % 4))
		c := &orderChecker{s: s, r: rand.New(rand.NewPCG(seed, 3)), t: t}
		for range 2000 {
			c.schedule(unit.Time(c.r.IntN(8)))
		}
		var prev unit.Time
		for s.Step() {
			if s.Now() < prev {
				t.Fatalf("Now went back from %d to %d", prev, s.Now())
			}
			prev = s.Now()
		}
		for i := 1; i < len(c.fired); i++ {
			a, b := c.fired[i-1], c.fired[i]
			if b.t < a.t || (b.t == a.t && b.seq <= a.seq) {
				t.Fatalf("seed %d: event (t=%d, seq=%d) ran after (t=%d, seq=%d)", seed, b.t, b.seq, a.t, a.seq)
			}
		}
		if uint64(len(c.fired)) != s.Executed() || s.Pending() != 0 {
			t.Fatalf("fired %d, Executed %d, Pending %d", len(c.fired), s.Executed(), s.Pending())
		}
	}
}

// counter counts events per tag.
type counter map[uint64]int

func (c counter) Handle(_ unit.Time, tag uint64) { c[tag]++ }

func TestCancel(t *testing.T) {
	s := NewScheduler()
	c := counter{}
	a := s.At(10, 0, c, 1)
	b := s.At(10, 0, c, 2)
	if a == 0 || b == 0 || a == b {
		t.Fatalf("ids %d and %d", a, b)
	}
	if !s.Cancel(a) || s.Cancel(a) {
		t.Fatal("Cancel of a pending event must succeed exactly once")
	}
	if s.Pending() != 1 {
		t.Fatalf("Pending = %d, want 1", s.Pending())
	}
	s.Run()
	if c[1] != 0 || c[2] != 1 {
		t.Fatalf("ran %v, want only tag 2", c)
	}
	if s.Cancel(b) {
		t.Fatal("Cancel of a fired event returned true")
	}
	// a's slot is reused; the stale id must not cancel the new event.
	n := s.At(20, 0, c, 3)
	if s.Cancel(a) || s.Cancel(b) || s.Cancel(0) || s.Cancel(^EventID(0)) {
		t.Fatal("a stale or unknown id cancelled something")
	}
	if !s.Cancel(n) {
		t.Fatal("Cancel of the new event failed")
	}
}

func TestAtPastPanics(t *testing.T) {
	s := NewScheduler()
	s.RunUntil(100)
	defer func() {
		msg, _ := recover().(string)
		if !strings.Contains(msg, "before Now()") {
			t.Fatalf("recovered %q, want a panic naming Now()", msg)
		}
	}()
	s.At(99, 0, nil, 0)
}

// TestSendPastPanics: Send before Now() panics with an error naming Now(),
// and queues nothing.
func TestSendPastPanics(t *testing.T) {
	s := NewScheduler()
	s.RunUntil(100)
	defer func() {
		err, _ := recover().(error)
		if err == nil || !strings.Contains(err.Error(), "before Now() = 100ps") {
			t.Fatalf("recovered %v, want a panic naming Now() = 100ps", err)
		}
		if s.Pending() != 0 {
			t.Fatalf("Pending = %d after the panic, want 0", s.Pending())
		}
	}()
	s.Send(99, 0, nil, 0)
}

func TestAfterSaturates(t *testing.T) {
	s := NewScheduler()
	s.RunUntil(5)
	s.After(unit.MaxTime, 0, nil, 0)
	s.Run()
	if s.Now() != unit.MaxTime {
		t.Fatalf("Now = %d, want MaxTime", s.Now())
	}
}

// stopper stops the run at its first event.
type stopper struct{ s *Scheduler }

func (h stopper) Handle(unit.Time, uint64) { h.s.Stop() }

func TestRunUntil(t *testing.T) {
	s := NewScheduler()
	c := counter{}
	s.At(10, 0, c, 1)
	s.At(20, 0, c, 2)
	s.At(21, 0, c, 3)
	s.RunUntil(20)
	if s.Now() != 20 || c[1] != 1 || c[2] != 1 || c[3] != 0 {
		t.Fatalf("Now %d, ran %v", s.Now(), c)
	}
	// The queue must accept events before the next pending one after
	// RunUntil has looked at it.
	s.At(20, 0, c, 4)
	s.RunUntil(15) // in the past: nothing runs, the clock stays
	if s.Now() != 20 || c[4] != 0 {
		t.Fatalf("RunUntil(15) at 20: Now %d, ran %v", s.Now(), c)
	}
	s.RunUntil(30)
	if s.Now() != 30 || c[3] != 1 || c[4] != 1 || s.Executed() != 4 {
		t.Fatalf("Now %d, ran %v, Executed %d", s.Now(), c, s.Executed())
	}

	s.At(40, 0, stopper{s}, 0)
	s.At(40, 0, c, 5)
	s.RunUntil(100)
	if s.Now() != 40 || c[5] != 0 || s.Pending() != 1 {
		t.Fatalf("after Stop: Now %d, ran %v, Pending %d", s.Now(), c, s.Pending())
	}
	s.Stop() // outside a run: no effect on the next one
	s.Run()
	if c[5] != 1 || s.Pending() != 0 {
		t.Fatalf("after Run: ran %v, Pending %d", c, s.Pending())
	}
	if s.Step() {
		t.Fatal("Step on an empty scheduler returned true")
	}
}

// TestStepOverTombstones checks that looking for an event among cancelled
// ones does not move the queue past Now(), where later events could no
// longer be placed.
func TestStepOverTombstones(t *testing.T) {
	var log []uint64
	h := recorder{&log}
	s := newTestScheduler(1 << 20)
	s.Cancel(s.At(1000, 0, h, 0))
	s.Cancel(s.At(70000, 0, h, 0))
	if s.Step() {
		t.Fatal("Step ran a cancelled event")
	}
	s.At(70001, 0, h, 4)
	s.At(999, 0, h, 2)
	s.At(5, 0, h, 1)
	s.At(1000, 0, h, 3)
	s.Run()
	if fmt.Sprint(log) != "[1 2 3 4]" {
		t.Fatalf("ran tags %v, want [1 2 3 4]", log)
	}
}

// recorder logs the tags of the events it runs.
type recorder struct{ log *[]uint64 }

func (r recorder) Handle(_ unit.Time, tag uint64) { *r.log = append(*r.log, tag) }

// An Alarm keeps the earliest deadline it is armed for, once.
func TestAlarm(t *testing.T) {
	var log []uint64
	h := recorder{&log}
	s := NewScheduler()
	var a Alarm
	a.ArmBy(s, 500, 0, h, 1)
	a.ArmBy(s, 700, 0, h, 2) // later: ignored
	a.ArmBy(s, 300, 0, h, 3) // earlier: moves it
	if s.Pending() != 1 {
		t.Fatalf("%d events pending, want 1", s.Pending())
	}
	s.Step()
	a.Fired()
	a.ArmBy(s, 900, 0, h, 4)
	s.Run()
	if fmt.Sprint(log) != "[3 4]" || s.Now() != 900 {
		t.Fatalf("ran %v, now %v", log, s.Now())
	}
}

// keyLog records the keys of the events it runs.
type keyLog struct {
	s    *Scheduler
	keys []Key
}

func (l *keyLog) Handle(now unit.Time, tag uint64) {
	l.keys = append(l.keys, Key(tag))
	if tag == uint64(NodeKey(5, SrcSelf)) {
		// An event at Now() with a smaller key than the running one runs
		// next, before the pending events with larger keys.
		l.s.At(now, NodeKey(3, SrcSelf), l, uint64(NodeKey(3, SrcSelf)))
	}
}

// Equal-time events run by key whatever order they were scheduled in, so
// two schedulers that received them in different orders (a serial run and
// a partitioned one) run them alike.
func TestEqualTimesRunByKey(t *testing.T) {
	keys := []Key{NodeKey(7, SrcPort(2)), NodeKey(5, SrcSelf), NodeKey(7, SrcControl), NodeKey(2, SrcPort(9)), NodeKey(7, SrcPort(1))}
	for _, order := range [][]int{{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 0, 4, 1, 3}} {
		s := NewScheduler()
		l := &keyLog{s: s}
		s.At(5, 0, nil, 0)
		s.RunUntil(3) // the queue's last time moves, so the events meet in a higher bucket first
		for _, i := range order {
			s.At(100, keys[i], l, uint64(keys[i]))
		}
		s.Run()
		want := []Key{NodeKey(2, SrcPort(9)), NodeKey(5, SrcSelf), NodeKey(3, SrcSelf), NodeKey(7, SrcControl), NodeKey(7, SrcPort(1)), NodeKey(7, SrcPort(2))}
		if fmt.Sprint(l.keys) != fmt.Sprint(want) {
			t.Errorf("order %v: ran %x, want %x", order, l.keys, want)
		}
	}
}

// NextAt finds the next event without moving the queue, so that At may
// still schedule at Now(); AdvanceTo moves the clock on and refuses to
// pass a pending event.
func TestNextAtAndAdvance(t *testing.T) {
	s := NewScheduler()
	s.At(10, 0, nil, 0)
	s.At(70000, 0, nil, 0)
	s.RunUntil(10)
	if next, ok := s.NextAt(); !ok || next != 70000 {
		t.Fatalf("NextAt = %v %v, want 70000", next, ok)
	}
	s.At(11, 0, nil, 0) // still allowed: NextAt did not move the queue
	if next, _ := s.NextAt(); next != 11 {
		t.Fatalf("NextAt = %v, want 11", next)
	}
	s.RunUntil(69999)
	s.AdvanceTo(70000)
	if s.Now() != 70000 || s.Pending() != 1 {
		t.Fatalf("now %v pending %d after AdvanceTo(70000)", s.Now(), s.Pending())
	}
	defer func() {
		if recover() == nil {
			t.Error("AdvanceTo past a pending event did not panic")
		}
	}()
	s.AdvanceTo(70001)
}
