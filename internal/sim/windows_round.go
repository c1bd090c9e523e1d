package sim

import "rocelab/internal/unit"

// runRound runs worker k's parts through the round, then those of other
// workers that no worker has started yet, from the last, then the control
// side's share if no other worker has taken it, and returns how long the
// worker waited for other parts within the round (linked, see runLinked).
// A part runs the same whichever worker runs it: it meets the others only
// at the barriers, or through the times they publish. Each part has a
// worker of its own, which keeps its memory in that core's cache, while a
// worker done early takes up what another has not begun (with more parts
// than workers, the rounds' imbalance evens out; with a worker per part,
// only the coordinator's does).
func (w *Windows) runRound(k, workers int, r round) (waited int64) {
	if r.linked {
		return w.runLinked(k, r)
	}
	for i := k; i < len(w.Parts); i += workers {
		w.runPart(i, r)
	}
	if k > 0 && workers == len(w.Parts) {
		// With a worker per part, the coordinator's worker (k 0) claims
		// its part as it starts the round, and it alone runs the control
		// side's share: it also takes the completions and hands over the
		// posts between rounds (Collect, Deliver), so the control side's
		// state stays in one core's cache instead of crossing to the
		// other and back, a few dozen lines at up to 150 ns each on this
		// VM; looking at them would only fetch their lines (docs/engine.md,
		// "Two threads").
		return 0
	}
	for i := len(w.Parts) - 1; i >= 0; i-- {
		if i%workers != k {
			w.runPart(i, r)
		}
	}
	w.runControl(r)
	return 0
}

// runControl runs the control side's share of round r beside the parts,
// unless it has none or another worker took it.
func (w *Windows) runControl(r round) {
	if r.control >= 0 && w.ctlFree.Load() && w.ctlFree.Swap(false) {
		w.Control.RunUntil(r.control)
	}
}

// runPart runs part i through round r unless a worker already took it.
func (w *Windows) runPart(i int, r round) {
	c := &w.parts[i].claimed
	if v := c.Load(); v >= r.seq || !c.CompareAndSwap(v, r.seq) {
		return
	}
	p := w.Parts[i]
	p.Begin(r.parts)
	p.Receive()
	s := p.Scheduler()
	switch {
	case r.parts < 0:
	case r.stop:
		s.RunUntil(r.parts - 1)
		s.AdvanceTo(r.parts)
	default:
		s.RunUntil(r.parts)
	}
	p.Flush()
	w.takeState(i)
}

// runLinked runs part i through a linked round r (see Windows) and
// returns how long it waited for the others, when Clock is set. Each
// pass takes what the others published, then their messages, runs the
// events before the least published time plus Lookahead (and no more
// than a pubSteps-th of Lookahead of them), flushes what it sent and
// publishes its own time; the part is through when that time passes the
// round's end, and nothing can reach it before. Part 0's worker also
// runs the control side (controlWanted); it is through only once the
// control side has published the round's end, its bound.
func (w *Windows) runLinked(i int, r round) (waited int64) {
	p, ps := w.Parts[i], &w.parts[i]
	s := p.Scheduler()
	p.Begin(r.parts)
	end := r.parts + 1 // the part runs the events before end
	if r.stop || r.parts < 0 {
		end = max(r.parts, 0)
	}
	pub, since := unit.Time(ps.pub.Load()), int64(-1)
	stuck := false // it has events it cannot run yet
	// looked is the bound at which the part last took its messages, and
	// next its earliest event since. A message it has not taken takes
	// effect at or after that bound: its sender flushed it after the
	// publication the bound was computed from, so sent it no earlier
	// than then (a part's events, the control side's posts). While the
	// bound stays, a waiting part need not look again.
	looked, next := unit.Time(-1), unit.MaxTime
	waitAt := unit.Time(-1) // what ps.waitAt holds
	for spins := 0; ; spins++ {
		stop := w.ctl.stop.Load()
		if stop >= 0 {
			end = min(end, unit.Time(stop))
		}
		bound, cpub := w.linkedBound(i, end)
		var ok bool
		if bound != looked {
			looked = bound
			p.Receive()
			if next, ok = s.NextAt(); !ok {
				next = unit.MaxTime
			}
		}
		if next < bound {
			if since >= 0 {
				waited += w.now() - since
				since = -1
			}
			if waitAt >= 0 {
				waitAt = -1
				ps.waitAt.Store(-1)
			}
			s.RunUntil(min(bound-1, satAdd(next, w.Lookahead/pubSteps)))
			p.Flush()
			if len(s.holds) > 0 {
				// A hold it wrote in this pass lowers what it may
				// publish now, not at its next bound: the others
				// would run past the stop (Scheduler.Hold).
				bound = w.holdBound(s, unit.Time(w.ctl.ran.Load()), end, bound)
			}
			spins, stuck = 0, false
			if next, ok = s.NextAt(); !ok {
				next = unit.MaxTime
			}
		}
		if t := min(next, bound); t > pub {
			pub = t
			ps.pub.Store(int64(t))
			w.wake.published()
		}
		if pub >= end {
			break
		}
		if !stuck && bound <= next && next < end {
			stuck = true // counted once until it runs again
			if cpub == bound {
				ps.held++
			} else {
				ps.blocked++
			}
		}
		// Part 0's worker runs the control side when it or another part
		// needs it; else a part waits for the next publication: spin,
		// yield, then sleep.
		if i == 0 && w.controlWanted(cpub, bound, next) && w.stepControl(r) {
			if waitAt >= 0 { // it ran the control side, not waiting
				waitAt = -1
				ps.waitAt.Store(-1)
			}
			if since >= 0 {
				waited += w.now() - since
			}
			since = -1
			spins = 0
			continue
		}
		if next < bound {
			// It ran a pubSteps-th of a lookahead and published, and
			// has more to run: it must not pause, since a waiter that
			// has checked enough times sleeps, and nothing would wake
			// it (TestWindowsLinkedSleepers).
			continue
		}
		if since < 0 {
			since = w.now()
		}
		if bound != waitAt {
			waitAt = bound
			ps.waitAt.Store(int64(bound))
		}
		asleep := w.spin.sleeps(spins)
		if asleep {
			ps.asleep.Store(true)
		}
		pause(spins, w.spin, &w.wake, func() bool { return w.waitsStill(i, r, end, bound, stop) })
		if asleep {
			ps.asleep.Store(false)
		}
	}
	if waitAt >= 0 {
		ps.waitAt.Store(-1)
	}
	if since >= 0 {
		waited += w.now() - since
	}
	switch {
	case r.stop:
		s.AdvanceTo(r.parts)
	case end > 0:
		s.AdvanceTo(end - 1) // the last pass may have stopped short of it
	}
	w.takeState(i)
	return waited
}

// waitsStill reports whether part i of linked round r, which waits at
// bound with the control side's stop at stop, must still wait: its bound
// and the stop are the same, and, for part 0's worker, the control side
// cannot run further (controlReach, as stepControl asks it).
func (w *Windows) waitsStill(i int, r round, end, bound unit.Time, stop int64) bool {
	if b, _ := w.linkedBound(i, end); b != bound || w.ctl.stop.Load() != stop {
		return false
	}
	if i > 0 {
		return true
	}
	_, further := w.controlReach(r)
	return !further
}

// linkedBound returns the time before which part i may run its events in
// a linked round that ends at end: the least of the other parts'
// published times plus Lookahead, the control side's published time
// (also returned) and end.
func (w *Windows) linkedBound(i int, end unit.Time) (bound, cpub unit.Time) {
	s := w.parts[i].sched
	ran := unit.Time(-1)
	if len(s.holds) > 0 {
		ran = unit.Time(w.ctl.ran.Load()) // before pub: runControlTo
	}
	cpub = unit.Time(w.ctl.pub.Load())
	bound = min(end, cpub)
	for j := range w.parts {
		if j != i {
			bound = min(bound, satAdd(unit.Time(w.parts[j].pub.Load()), w.Lookahead))
		}
	}
	if ran >= 0 {
		bound = w.holdBound(s, ran, end, bound)
	}
	return bound, cpub
}

// holdBound returns bound lowered for s's holds, the control side having
// run its events before ran: a part that wrote what may stop the run
// publishes no later than a Lookahead before it until the control side
// ran past it, so that no part runs past the stop (Scheduler.Hold). A
// hold at or past the round's end needs none: no part runs there.
func (w *Windows) holdBound(s *Scheduler, ran, end, bound unit.Time) unit.Time {
	if h := s.held(ran); h < end {
		bound = min(bound, h-w.Lookahead)
	}
	return bound
}

// leads reports whether the control side publishes ahead of its bound
// in linked rounds (Lead).
func (w *Windows) leads() bool { return w.Lead != nil && w.Lookahead < w.Reply }

// startLinked prepares linked round r (see Windows): every part's and
// the control side's published times start at what is known to be
// pending (a part's also at the control side's earliest post), and the
// control side has not run.
func (w *Windows) startLinked(r round) {
	pn := w.partsNext()
	cpub := unit.MaxTime // the control side does not run: it posts nothing
	if r.control >= 0 {
		cpub = min(w.controlNext(), satAdd(pn, w.Reply))
	}
	w.ctl.pub.Store(int64(cpub))
	start := min(pn, cpub, r.parts+1) // a post is an event in a part
	for i := range w.parts {
		w.parts[i].pub.Store(int64(start))
	}
	w.ctl.stop.Store(-1)
	w.ctlBound = -1
}

// stepControl runs the control side of linked round r as far as the
// parts' published times allow, unless it cannot go further than last
// time, and reports whether it ran. Only part 0's worker runs it: each
// step touches the control side's state (the workloads', the
// transport's, its scheduler's), which stays in that core's cache,
// where a step on whichever worker it blocked moved it between the
// cores on 92 % of the steps of the 64-server AllReduce (docs/engine.md,
// "The control side on one worker").
func (w *Windows) stepControl(r round) bool {
	bound, further := w.controlReach(r)
	if further {
		w.runControlTo(bound)
	}
	return further
}

// controlReach returns the bound to which the control side of linked
// round r may run and whether that takes it further than it has run. A
// control side with no share in the round, or stopped, never goes
// further: were its bound compared with the last one it ran to, part 0's
// worker would find it could, and spin instead of sleeping
// (TestWindowsLinkedWaitsStill).
func (w *Windows) controlReach(r round) (unit.Time, bool) {
	if r.control < 0 || w.ctl.stop.Load() >= 0 {
		return 0, false
	}
	bound := w.controlBound(r)
	return bound, bound > w.ctlBound
}

// controlWanted reports whether part 0's worker, with the control side
// published at cpub, its own bound at bound and its next event at next,
// should run the control side now: it holds part 0 (cpub is the bound),
// part 0 has nothing to run before its bound (the worker would wait), or
// another part will reach cpub within its next pass (it would wait for
// the control side while part 0's worker runs its own pass).
func (w *Windows) controlWanted(cpub, bound, next unit.Time) bool {
	if cpub == bound || next >= bound {
		return true
	}
	for j := 1; j < len(w.parts); j++ {
		if satAdd(unit.Time(w.parts[j].pub.Load()), w.Lookahead/pubSteps) >= cpub {
			return true
		}
	}
	return false
}

// controlBound returns the time before which the control side may run
// its events in linked round r: the least of the parts' published times
// plus Reply, and the round's end.
func (w *Windows) controlBound(r round) unit.Time {
	bound := r.control + 1
	for j := range w.parts {
		bound = min(bound, satAdd(unit.Time(w.parts[j].pub.Load()), w.Reply))
	}
	return bound
}

// runControlTo runs the control side's events before bound, which takes
// it further than it has run (controlReach), and publishes.
func (w *Windows) runControlTo(bound unit.Time) {
	w.ctlBound = bound
	w.stats.ControlSteps++
	if w.Collect != nil {
		w.Collect()
	}
	c := w.Control
	c.RunUntil(bound - 1)
	pub, stopped := bound, c.Stopped() // its next event is no earlier than bound
	switch {
	case stopped:
		pub = c.Now()
	case w.leads():
		// What its events from bound on do takes effect Lead later.
		pub = satAdd(bound, w.Lead())
	}
	if w.Deliver != nil {
		// Posts come from events before the round's end (the control
		// side runs no further), and are in the boxes before the parts
		// see its published time pass the end: the parts take them all
		// this round, those due after the end as pending events.
		w.Deliver()
	}
	w.ctl.pub.Store(int64(pub))
	if stopped {
		w.ctl.stop.Store(int64(pub))
	}
	// After the published time: a part that sees its hold run past
	// sees the stop, or the time the control side then published
	// (linkedBound).
	w.ctl.ran.Store(int64(bound))
	w.wake.published()
}

// satAdd returns a+b, saturating at unit.MaxTime.
func satAdd(a, b unit.Time) unit.Time {
	if b > unit.MaxTime-a {
		return unit.MaxTime
	}
	return a + b
}
