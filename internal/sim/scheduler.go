package sim

import (
	"fmt"

	"rocelab/internal/unit"
)

// Handler receives the events scheduled for it. One handler serves many
// timers, told apart by the tag given to At, so no closure is allocated per
// event.
type Handler interface {
	Handle(now unit.Time, tag uint64)
}

// EventID names one scheduled event so that it can be cancelled. The zero
// EventID is never issued. An id holds a slot index (low 32 bits) and the
// generation of that slot (high 32 bits), so a stale id does not cancel a
// later event that reuses the slot, unless that one slot has been reused
// 2^32 times in between.
type EventID uint64

// defaultMinCompact is the number of tombstones below which Cancel never
// compacts the queue; tests lower it to exercise compaction.
const defaultMinCompact = 1024

// Scheduler is a discrete-event queue with its clock. Events run in order of
// (time, Key, insertion order): events at equal times run by key, and those
// with equal keys first-in first-out.
// At most 2^32 events can be pending at once. The zero value is not usable;
// call NewScheduler. A Scheduler is not safe for concurrent use.
type Scheduler struct {
	now        unit.Time
	q          queue
	st         slotTable
	queued     uint64 // events ever queued: those pending, run or cancelled
	cancelled  uint64
	dead       int // cancelled events still queued
	minCompact int
	executed   uint64
	stopped    bool
	limit      unit.Time // the bound of the RunUntil in progress (Bound)
	// holds are the times of the control side's events that may stop
	// the run, in order, which the scheduler's part must not publish
	// past in a linked round until the control side has run them
	// (Hold); holding says whether the run keeps them.
	holds   []unit.Time
	holding bool
}

// NewScheduler returns an empty scheduler at time 0.
func NewScheduler() *Scheduler {
	return &Scheduler{minCompact: defaultMinCompact}
}

// Now returns the current simulated time: the time of the event running or
// last run, or the bound of the last RunUntil, whichever is later.
func (s *Scheduler) Now() unit.Time { return s.now }

// Pending returns the number of events scheduled and neither run nor
// cancelled.
func (s *Scheduler) Pending() int { return int(s.queued - s.executed - s.cancelled) }

// Executed returns the number of events run so far; cancelled events do not
// count.
func (s *Scheduler) Executed() uint64 { return s.executed }

// At schedules h.Handle(t, tag) at time t, ordered among equal times by k,
// and returns an id for Cancel.
//
// Scheduling in the past (t < Now()) is a programming error that would break
// causality, so At panics rather than silently running the event late. A nil
// h schedules an event that does nothing but advance the clock when it runs.
func (s *Scheduler) At(t unit.Time, k Key, h Handler, tag uint64) EventID {
	if t < s.now {
		panic(fmt.Sprintf("sim: At(%v) is before Now() = %v", t, s.now))
	}
	id := s.st.alloc()
	s.q.push(t, k, h, tag, id, 0)
	s.queued++
	return id
}

// Send schedules h.Handle(t, tag) at time t, ordered among equal times by
// k, as At does, for an event that is never cancelled (a frame's arrival,
// a port's next look at its queues): it takes no slot in the table of
// pending events, which saves keeping it.
func (s *Scheduler) Send(t unit.Time, k Key, h Handler, tag uint64) {
	s.SendHint(t, k, h, tag, 0)
}

// SendHint is Send for an event whose handler will touch the memory at
// hint (the packet of a frame's arrival): the scheduler asks the
// processor for it, and for the handler, a few events before it runs.
// The hint changes nothing but speed.
func (s *Scheduler) SendHint(t unit.Time, k Key, h Handler, tag uint64, hint uintptr) {
	if t < s.now {
		panic((*pastSend)(s))
	}
	s.q.push(t, k, h, tag, 0, hint)
	s.queued++
}

// pastSend is the panic of a Send before Now(). It holds the scheduler
// only, formatted when printed: a pointer needs no allocation, which
// keeps SendHint small enough to inline into the ports that send frames
// (the time sent at is in the panic's trace).
type pastSend Scheduler

// Error implements error.
func (p *pastSend) Error() string {
	return fmt.Sprintf("sim: Send before Now() = %v", p.now)
}

// After schedules h.Handle at Now()+d; see At. A d so large that Now()+d
// would overflow schedules at unit.MaxTime.
func (s *Scheduler) After(d unit.Time, k Key, h Handler, tag uint64) EventID {
	t := s.now + d
	if d > 0 && t < s.now {
		t = unit.MaxTime
	}
	return s.At(t, k, h, tag)
}

// Cancel removes a pending event and reports whether it was pending.
// Cancelling an event that already ran or was cancelled, or an id that was
// never issued, does nothing and returns false. Cancel is O(1) amortised and
// does not allocate: the event stays queued as a tombstone that is dropped
// when met, and the whole queue is swept once tombstones outnumber the
// pending events.
func (s *Scheduler) Cancel(id EventID) bool {
	if !s.st.pending(id) {
		return false
	}
	s.st.kill(id.slot())
	s.cancelled++
	s.dead++
	if s.dead > s.minCompact && s.dead > s.Pending() {
		s.q.compact(&s.st)
		s.dead = 0
	}
	return true
}

// Step runs the next pending event and reports whether there was one.
func (s *Scheduler) Step() bool {
	e := s.next(unit.MaxTime)
	if e != nil {
		s.fire(e)
	}
	return e != nil
}

// RunUntil runs every event with time <= t, then sets Now() to t. If a
// handler calls Stop, it returns after that handler and leaves Now() at that
// event's time. A t before Now() runs nothing and leaves the clock alone.
// A handler that calls Bound lowers t.
//
// Its loop is fire written out with the queue's prefetch (the two calls
// were 2.4 % of a small run's instructions), the prefetch before the
// event's fields are read: it is an assembly call, around which only e
// is kept, not its four fields (popFront moves entries, never events).
// The loop's lines are as many as when default.pgo was taken, so that
// the profile's calls keep their offsets.
func (s *Scheduler) RunUntil(t unit.Time) {
	s.stopped = false
	s.limit = t
	for !s.stopped {
		// The front of bucket 0, when it needs no check (an event
		// without an id is live) and is due, is what next returns:
		// taking it here saves a call for most events.
		e := s.q.front()
		if e == nil || e.id != 0 || e.t > s.limit {
			if e = s.next(s.limit); e == nil {
				break
			}
			if s.q.lone != nil {
				s.runLone(e)
				continue
			}
		}
		// fire(e), written out with the prefetch (see above).
		s.q.popFront()
		if n := &s.q.now; uint(n.hd+lookAhead-1) < uint(len(n.h)) {
			fetch(n.at(n.h[n.hd+lookAhead-1].ev()))
		}
		at, h, tag, id := e.t, e.h, e.tag, e.id
		s.ran(at, id)
		if h != nil {
			h.Handle(at, tag)
		}
	}
	if !s.stopped && s.limit > s.now {
		s.now = s.limit
	}
	s.limit = unit.MaxTime
}

// Bound lowers the bound of the RunUntil in progress to t, if it was
// higher: RunUntil then runs no event after t and returns with Now() at
// t. A handler calls it when something it did at Now() must be seen
// elsewhere before this scheduler passes t; t must not be before Now().
// Outside RunUntil it has no effect.
func (s *Scheduler) Bound(t unit.Time) {
	s.limit = min(s.limit, t)
}

// Hold says that an event the control side runs at t may stop the run
// (a completion in error, which may fail its workload): in a linked round
// whose control side posts ahead of its bound (Windows.Lead), the
// scheduler's part publishes no later than t less the lookahead, so that
// no part runs an event at or after t, until the control side has run
// past t. Holds come in time order; a run that posts nothing ahead keeps
// none.
func (s *Scheduler) Hold(t unit.Time) {
	if s.holding {
		s.holds = append(s.holds, t)
	}
}

// held returns the earliest hold the control side, having run its events
// before ran, has not run past, or unit.MaxTime for none, and drops those
// it has.
func (s *Scheduler) held(ran unit.Time) unit.Time {
	n := 0
	for n < len(s.holds) && s.holds[n] < ran {
		n++
	}
	if n > 0 {
		s.holds = s.holds[:copy(s.holds, s.holds[n:])]
	}
	if len(s.holds) == 0 {
		return unit.MaxTime
	}
	return s.holds[0]
}

// AdvanceTo sets Now() to t, which must not be earlier than Now() nor
// later than the next pending event.
func (s *Scheduler) AdvanceTo(t unit.Time) {
	if t < s.now {
		panic(fmt.Sprintf("sim: AdvanceTo(%v) is before Now() = %v", t, s.now))
	}
	if next, ok := s.NextAt(); ok && next < t {
		panic(fmt.Sprintf("sim: AdvanceTo(%v) passes an event at %v", t, next))
	}
	s.now = t
}

// NextAt returns the time of the earliest pending event, and false when
// none is pending. It leaves the queue's state alone but for dropping
// tombstones at its front, so that At may still schedule at Now().
func (s *Scheduler) NextAt() (unit.Time, bool) {
	for {
		e := s.q.front()
		if e == nil {
			return s.q.earliest(&s.st)
		}
		if s.st.liveID(e.id) {
			return e.t, true
		}
		s.st.release(e.id)
		s.q.popFront()
		s.dead--
	}
}

// Run runs events until none is pending or a handler calls Stop.
func (s *Scheduler) Run() {
	s.stopped = false
	for !s.stopped {
		e := s.next(unit.MaxTime)
		if e == nil {
			return
		}
		s.fire(e)
	}
}

// Stopped reports whether a handler called Stop during the last Run or
// RunUntil.
func (s *Scheduler) Stopped() bool { return s.stopped }

// Stop makes the Run or RunUntil in progress return once the running handler
// returns. Called outside Run and RunUntil it has no effect, since both clear
// it when they start.
func (s *Scheduler) Stop() { s.stopped = true }

// next returns the earliest pending event if its time is <= limit, leaving it
// at the front of bucket 0 or, a span's only event, in the queue's lone
// chunk (the caller then runs it with runLone), or nil. It drops the
// tombstones it meets. It moves the queue's last time only up to limit and
// up to a live event, which then runs, or which RunUntil passes by setting
// Now() to limit; so last stays <= Now() and At may always schedule at
// Now(). The profile's calls keep the offsets default.pgo has for them.
func (s *Scheduler) next(limit unit.Time) *event {
	for {
		if e := s.q.front(); e != nil {
			if s.st.liveID(e.id) {
				if e.t > limit {
					return nil
				}
				return e
			}
			s.st.release(e.id)
			s.q.popFront()
			s.dead--
			continue
		}
		b := s.q.lowest()
		if b == 0 {
			return nil
		}
		base := s.q.base(b)
		if e := s.q.single(b, base, limit, &s.st); e != nil || base > limit {
			return e // single returns nil past limit, and changes nothing
		}
		s.dead -= s.q.redistribute(b, base, &s.st)
	}
}

// fire removes e, the front of the queue, and runs it. The slot is released
// before the handler runs, so the handler sees its own id as stale.
// RunUntil does the same inline.
func (s *Scheduler) fire(e *event) {
	if s.q.lone != nil {
		s.runLone(e)
		return
	}
	s.q.popFront()
	s.q.prefetch()
	t, h, tag, id := e.t, e.h, e.tag, e.id
	s.ran(t, id)
	if h != nil {
		h.Handle(t, tag)
	}
}

// runLone runs e, the event next took without bucket 0 (radixQueue.single),
// as fire does.
func (s *Scheduler) runLone(e *event) {
	t, h, tag, id := e.t, e.h, e.tag, e.id
	s.q.freeLone()
	s.ran(t, id)
	if h != nil {
		h.Handle(t, tag)
	}
}

// ran books the event of id at t, just taken from the queue, as run.
func (s *Scheduler) ran(t unit.Time, id EventID) {
	if id != 0 {
		s.st.kill(id.slot())
		s.st.release(id)
	}
	s.now = t
	s.executed++ // and no longer pending
}
