package sim

import "rocelab/internal/unit"

// A Timer is a deadline that moves often and fires rarely, such as a queue
// pair's retransmission timer, which every ACK pushes later. Re-arming it
// later costs no scheduler operation: the event already queued fires at
// the old time, finds the deadline moved, and re-queues itself once at the
// new one. Re-arming earlier cancels and re-queues. Stop is free too: the
// queued event fires and finds the timer stopped.
//
// The handler that owns a timer calls Fire from its Handle method when the
// timer's tag arrives; Fire reports whether the deadline is really due.
type Timer struct {
	deadline unit.Time
	queuedAt unit.Time
	id       EventID
	armed    bool
	key      Key
	h        Handler
	tag      uint64
}

// Set arms the timer for t: h.Handle(t, tag) is to run then, with key k,
// unless the timer is set again or stopped first.
func (tm *Timer) Set(s *Scheduler, t unit.Time, k Key, h Handler, tag uint64) {
	tm.deadline, tm.armed, tm.key, tm.h, tm.tag = t, true, k, h, tag
	if tm.id != 0 {
		if tm.queuedAt <= t {
			return
		}
		s.Cancel(tm.id)
	}
	tm.queuedAt = t
	tm.id = s.At(t, k, h, tag)
}

// Stop disarms the timer.
func (tm *Timer) Stop() { tm.armed = false }

// Armed reports whether the timer is set.
func (tm *Timer) Armed() bool { return tm.armed }

// Deadline returns the time the timer is set for (meaningful when Armed).
func (tm *Timer) Deadline() unit.Time { return tm.deadline }

// Fire must be called when the timer's event runs. It returns true when
// the deadline has come (the timer is then disarmed), false when the event
// was stale: the timer was stopped, or moved later, in which case Fire
// queues the event again at the new deadline.
func (tm *Timer) Fire(s *Scheduler, now unit.Time) bool {
	tm.id = 0
	if !tm.armed {
		return false
	}
	if tm.deadline > now {
		tm.queuedAt = tm.deadline
		tm.id = s.At(tm.deadline, tm.key, tm.h, tm.tag)
		return false
	}
	tm.armed = false
	return true
}
