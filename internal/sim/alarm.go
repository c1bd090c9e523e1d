package sim

import "rocelab/internal/unit"

// An Alarm is one re-armable wake-up of a handler that only needs the
// earliest of several deadlines: arming it for a later time than it is set
// for changes nothing, arming it earlier moves it. Ports waiting for a
// pause to expire and NICs waiting for a paced flow use it.
type Alarm struct {
	id EventID
	at unit.Time
}

// ArmBy makes the alarm fire h.Handle(t, tag), with key k, no later than t.
func (a *Alarm) ArmBy(s *Scheduler, t unit.Time, k Key, h Handler, tag uint64) {
	if a.id != 0 {
		if a.at <= t {
			return
		}
		s.Cancel(a.id)
	}
	a.at = t
	a.id = s.At(t, k, h, tag)
}

// Fired must be called when the alarm's event runs, so that the next ArmBy
// schedules anew.
func (a *Alarm) Fired() { a.id = 0 }
