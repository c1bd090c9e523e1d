package sim

import (
	"runtime"
	"sync"
	"sync/atomic"

	"rocelab/internal/unit"
)

// A Part is one partition of a windowed run: a scheduler of its own, and
// messages to other parts that take effect no sooner than the run's
// lookahead after they are sent.
type Part interface {
	// Scheduler returns the part's scheduler.
	Scheduler() *Scheduler
	// Receive starts a window: it schedules the messages other parts sent
	// it during the last window. It runs on the part's worker.
	Receive()
	// Sent returns the earliest time at which a message the part sent
	// during the last window takes effect, and false when it sent none.
	Sent() (unit.Time, bool)
}

// Windows runs parts and the control side (the workloads) side by side
// by conservative synchronisation in barrier rounds. Messages between
// parts take effect Lookahead or more after they are sent; messages from
// a part to the control side (completions) Reply or more after; messages
// from the control side to a part (posts) at the time they are sent, no
// sooner. Between rounds, alone, Collect moves what the parts sent the
// control side into its scheduler and Deliver what the control side sent
// the parts into theirs; a part takes what other parts sent it when it
// starts a round (Receive).
//
// Each round gives every side a horizon it can run to without a message
// arriving behind its clock. With N the earliest pending event or message
// of any part and C the control side's earliest event: the control side
// runs to min(N, C) + Reply, since no completion can be written before
// the earlier of the two; the parts run to the least of N + Lookahead and
// C, the earliest post (and N + Reply, the earliest post a completion
// could cause). The cycle part → control → part thus carries Reply of
// lookahead, and the control side, which runs ahead of the parts by up to
// Reply, runs beside them: the first worker done with its parts in a
// round runs the control side's share. With a single part, or with
// ControlAlone, the control side runs alone at the start of every window
// of min(Lookahead, Reply) instead, then the parts: the serial engine,
// which saves the rounds of running side by side.
//
// When a control handler calls Stop, the run ends at that event's time:
// the parts run their events before it and no event at it, as one
// scheduler holding everything would (the control side's events come
// first among equal times). The parts are then never past it: they ran
// no further than the control side's earliest event in that round.
//
// Barrier rounds rather than null messages: a round costs one barrier
// whatever the number of parts and links, there is no per-link state to
// keep, and on a machine whose cores are shared a worker that finishes
// early yields instead of spinning on its neighbours' clocks.
type Windows struct {
	// Control is the control side's scheduler.
	Control *Scheduler
	// Collect and Deliver run alone before each round is planned.
	// Deliver returns the earliest time of the events it scheduled in the
	// parts, or unit.MaxTime for none.
	Collect func()
	Deliver func() unit.Time
	// Parts are the partitions.
	Parts []Part
	// Lookahead is how far ahead of its sender a message between parts
	// takes effect, and Reply one from a part to the control side; both
	// must be positive. Lookahead is unit.MaxTime when no part sends to
	// another.
	Lookahead, Reply unit.Time
	// ControlAlone runs the control side alone at the start of every
	// window, as a run of one part always does.
	ControlAlone bool
	// Workers is how many goroutines run the parts (at least one; at most
	// one per part).
	Workers int
	// Clock, when set, reads a wall clock in nanoseconds, to measure how
	// long workers wait at barriers (Stats). It never affects the run.
	Clock func() int64

	stats  WindowStats
	rounds uint64      // rounds planned
	parts  []partState // one a part, written by the part's worker
	work   []workerState
	// posted is the earliest event Deliver scheduled in a part since
	// the parts' states were last taken.
	posted unit.Time
	// ctlFree is set while the round's control share waits for a worker.
	ctlFree atomic.Bool
	ctlNS   int64 // wall time the control side ran beside the parts
}

// Window returns the width of the run's windows: Lookahead and Reply,
// whichever is less.
func (w *Windows) Window() unit.Time { return min(w.Lookahead, w.Reply) }

// WindowStats describe how a windowed run went.
type WindowStats struct {
	// Windows is the number of rounds run.
	Windows uint64
	// PartEvents are the events each part ran; ControlEvents the control
	// side's.
	PartEvents    []uint64
	ControlEvents uint64
	// CriticalEvents is the sum over rounds of the largest number of
	// events one part ran in the round: the events on the critical path
	// if every part had a core of its own and barriers were free.
	CriticalEvents uint64
	// PathEvents is the same with the control side's events: with the
	// control side alone, its events plus the busiest part's; beside the
	// parts, on the core of the least busy part, the busiest part's or the
	// least busy one's plus the control side's, whichever is more. All
	// events over PathEvents is the speedup with a core per part and free
	// barriers, counting every event alike.
	PathEvents uint64
	// WorkerNS is the wall time each worker spent running its parts (and
	// the control side beside them), and WaitNS the time it waited at
	// barriers, when Clock is set.
	WorkerNS, WaitNS []int64
	// ControlNS is the wall time the planning of rounds took, alone, with
	// the control side when it ran alone; BesideNS the wall time the
	// control side ran beside the parts.
	ControlNS, BesideNS int64
	// SlowestNS is the sum over rounds of the longest time a worker ran
	// in the round, and MeanNS of the workers' mean: SlowestNS/MeanNS - 1
	// is what the rounds' imbalance of time (not of events: events differ
	// in cost) adds to the time the workers run.
	SlowestNS, MeanNS int64
}

// Stats returns the run's statistics so far.
func (w *Windows) Stats() WindowStats {
	s := w.stats
	s.PartEvents = append([]uint64(nil), w.stats.PartEvents...)
	s.WorkerNS = append([]int64(nil), w.stats.WorkerNS...)
	s.WaitNS = append([]int64(nil), w.stats.WaitNS...)
	s.BesideNS = w.ctlNS
	return s
}

// partState is what a part's worker leaves for the planning of the next
// round when it has run the part through a round: the part's earliest
// pending event or message and its events so far. The worker reads them
// from its own cache, so the coordinator, alone between rounds, reads one
// line a part instead of the part's scheduler. A line of its own each, so
// that workers writing them do not contend.
type partState struct {
	next     unit.Time
	executed uint64
	before   uint64        // executed at the start of the round
	claimed  atomic.Uint64 // the last round a worker took the part in
	_        [32]byte
}

// workerState is a worker's wall-time accounts, a line of its own.
type workerState struct {
	runNS, waitNS int64
	last          int64 // the time it ran in the last round
	_             [40]byte
}

// round is what the coordinator tells the workers about one round.
type round struct {
	parts   unit.Time // run the parts' events with time <= parts (-1: none)
	stop    bool      // parts is the stopping event's time: run events before it, then set the clock to it
	control unit.Time // run the control side's events with time <= control beside the parts (-1: not)
	quit    bool      // no more rounds
	seq     uint64    // the round's number, counted over the whole run
}

// barrier lets workers wait for a counter cheaply: they spin briefly,
// then sleep on a condition variable.
type barrier struct {
	mu      sync.Mutex
	cond    *sync.Cond
	v       atomic.Uint64
	sleeper atomic.Int32
}

func newBarrier() *barrier {
	b := &barrier{}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// spinRounds is how often a waiter checks before yielding, and yieldRounds
// how often it yields before it sleeps.
const (
	spinRounds  = 64
	yieldRounds = 256
)

// waitFor waits until the counter reaches at least target.
func (b *barrier) waitFor(target uint64) {
	for i := 0; b.v.Load() < target; i++ {
		switch {
		case i < spinRounds:
		case i < spinRounds+yieldRounds:
			runtime.Gosched()
		default:
			b.mu.Lock()
			b.sleeper.Add(1)
			for b.v.Load() < target {
				b.cond.Wait()
			}
			b.sleeper.Add(-1)
			b.mu.Unlock()
			return
		}
	}
}

// add raises the counter by d and wakes sleepers.
func (b *barrier) add(d uint64) {
	b.v.Add(d)
	if b.sleeper.Load() > 0 {
		b.mu.Lock()
		b.cond.Broadcast()
		b.mu.Unlock()
	}
}

// now reads the clock, or 0.
func (w *Windows) now() int64 {
	if w.Clock == nil {
		return 0
	}
	return w.Clock()
}

// RunUntil runs every part and the control side until limit, or until a
// control handler calls Stop, and returns the time reached: limit, or the
// time of the stopping event. Every scheduler's clock is then at that
// time. With limit unit.MaxTime it runs until nothing is pending, and
// leaves every clock at the latest time any reached.
func (w *Windows) RunUntil(limit unit.Time) unit.Time {
	workers := max(1, min(w.Workers, len(w.Parts)))
	if len(w.stats.PartEvents) != len(w.Parts) {
		w.stats.PartEvents = make([]uint64, len(w.Parts))
		w.stats.WorkerNS = make([]int64, workers)
		w.stats.WaitNS = make([]int64, workers)
		w.parts = make([]partState, len(w.Parts))
		w.work = make([]workerState, workers)
	}
	for i := range w.Parts {
		w.takeState(i) // events may have been scheduled since the last call
	}
	w.posted = unit.MaxTime
	alone := w.ControlAlone || len(w.Parts) == 1
	var (
		r      round
		start  = newBarrier() // round k starts when it reaches k
		done   = newBarrier() // rounds finished, summed over the other workers
		wg     sync.WaitGroup
		stopAt = unit.Time(-1) // the control side stopped there
	)
	for k := 1; k < workers; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			t0 := w.now() // the end of the last round: one clock read a round less
			for n := uint64(1); ; n++ {
				start.waitFor(n)
				t1 := w.now()
				w.work[k].waitNS += t1 - t0
				w.runRound(k, workers, r)
				t0 = w.now()
				w.work[k].last = t0 - t1
				w.work[k].runNS += t0 - t1
				quit := r.quit // read before the coordinator may plan anew
				done.add(1)
				if quit {
					return
				}
			}
		}(k)
	}
	t0 := w.now()
	for n := uint64(1); ; n++ {
		if w.Collect != nil {
			w.Collect()
		}
		w.deliver()
		var ctl uint64
		if alone {
			r = w.planAlone(limit)
			if r.parts >= 0 {
				e := w.Control.Executed()
				w.Control.RunUntil(r.parts)
				ctl = w.Control.Executed() - e
				if w.Control.Stopped() {
					r.parts, r.stop, r.quit = w.Control.Now(), true, true
				}
			}
			w.deliver()
		} else {
			r = w.planBeside(limit, stopAt)
			w.ctlFree.Store(r.control >= 0)
		}
		t1 := w.now()
		w.stats.ControlNS += t1 - t0
		w.posted = unit.MaxTime // the parts' states will hold what was delivered
		w.rounds++
		r.seq = w.rounds
		e := w.Control.Executed()
		start.add(1)
		w.runRound(0, workers, r)
		t2 := w.now()
		w.work[0].last = t2 - t1
		w.work[0].runNS += t2 - t1
		done.waitFor(n * uint64(workers-1))
		t0 = w.now()
		w.work[0].waitNS += t0 - t2
		w.countTimes()
		if !alone {
			ctl = w.Control.Executed() - e
			if r.control >= 0 && w.Control.Stopped() {
				stopAt = w.Control.Now()
			}
		}
		w.count(ctl, alone)
		if r.quit {
			break
		}
	}
	wg.Wait()
	for k := range w.work {
		w.stats.WorkerNS[k] += w.work[k].runNS
		w.stats.WaitNS[k] += w.work[k].waitNS
		w.work[k] = workerState{}
	}
	if w.Collect != nil {
		w.Collect()
	}
	if r.parts < 0 && r.control < 0 {
		// Nothing was left to run: bring every clock to the latest.
		latest := w.Control.Now()
		for _, p := range w.Parts {
			latest = max(latest, p.Scheduler().Now())
		}
		w.Control.AdvanceTo(latest)
		for _, p := range w.Parts {
			p.Scheduler().AdvanceTo(latest)
		}
		return latest
	}
	return r.parts
}

// deliver runs Deliver and notes the earliest event it scheduled.
func (w *Windows) deliver() {
	if w.Deliver != nil {
		w.posted = min(w.posted, w.Deliver())
	}
}

// takeState records part i's state (partState); the part's worker calls
// it after running the part through a round.
func (w *Windows) takeState(i int) {
	p, ps := w.Parts[i], &w.parts[i]
	ps.next = unit.MaxTime
	s := p.Scheduler()
	if t, ok := s.NextAt(); ok {
		ps.next = t
	}
	if t, ok := p.Sent(); ok && t < ps.next {
		ps.next = t
	}
	ps.before, ps.executed = ps.executed, s.Executed()
}

// partsNext returns the earliest pending event or message of any part,
// or unit.MaxTime: from the states the workers left and what Deliver
// scheduled since.
func (w *Windows) partsNext() unit.Time {
	next := w.posted
	for i := range w.parts {
		next = min(next, w.parts[i].next)
	}
	return next
}

// controlNext returns the control side's earliest event, or unit.MaxTime.
func (w *Windows) controlNext() unit.Time {
	if t, ok := w.Control.NextAt(); ok {
		return t
	}
	return unit.MaxTime
}

// planAlone chooses the next window when the control side runs alone:
// from the earliest pending event or message anywhere, Window long, and
// not past limit. With nothing pending, the window runs to limit and is
// the last one, unless limit is unit.MaxTime: then there is nothing to
// run (parts -1).
func (w *Windows) planAlone(limit unit.Time) round {
	next := min(w.controlNext(), w.partsNext())
	switch {
	case next == unit.MaxTime && limit == unit.MaxTime:
		return round{parts: -1, control: -1, quit: true}
	case next > limit:
		return round{parts: limit, control: -1, quit: true}
	}
	end := min(limit, satAdd(next, w.Window())-1)
	return round{parts: end, control: -1, quit: end == limit}
}

// planBeside chooses the next round when the control side runs beside
// the parts (see Windows), or, once it has stopped at stopAt, the parts'
// rounds up to stopAt. The last round sets every clock: to limit (the
// control side's too), or to stopAt.
func (w *Windows) planBeside(limit, stopAt unit.Time) round {
	pn := w.partsNext()
	if stopAt >= 0 {
		if pn >= stopAt {
			return round{parts: stopAt, stop: true, control: -1, quit: true}
		}
		return round{parts: min(satAdd(pn, w.Lookahead), stopAt) - 1, control: -1}
	}
	cn := w.controlNext()
	first := min(pn, cn)
	switch {
	case first == unit.MaxTime && limit == unit.MaxTime:
		return round{parts: -1, control: -1, quit: true}
	case first > limit:
		return round{parts: limit, control: limit, quit: true}
	}
	post := min(cn, satAdd(pn, w.Reply)) // the earliest post
	return round{
		parts:   min(limit, satAdd(pn, w.Lookahead)-1, post-1),
		control: min(limit, satAdd(first, w.Reply)-1),
	}
}

// runRound runs worker k's parts through the round, then those of other
// workers that no worker has started yet, from the last, then the control
// side's share if no other worker has taken it. A part runs the same
// whichever worker runs it: it meets the others only at the barriers.
// Each part has a worker of its own, which keeps its memory in that core's
// cache, while a worker done early takes up what another has not begun
// (with more parts than workers, the rounds' imbalance evens out).
func (w *Windows) runRound(k, workers int, r round) {
	for i := k; i < len(w.Parts); i += workers {
		w.runPart(i, r)
	}
	for i := len(w.Parts) - 1; i >= 0; i-- {
		if i%workers != k {
			w.runPart(i, r)
		}
	}
	if r.control >= 0 && w.ctlFree.Swap(false) {
		t0 := w.now()
		w.Control.RunUntil(r.control)
		w.ctlNS += w.now() - t0
	}
}

// runPart runs part i through round r unless a worker already took it.
func (w *Windows) runPart(i int, r round) {
	c := &w.parts[i].claimed
	if v := c.Load(); v >= r.seq || !c.CompareAndSwap(v, r.seq) {
		return
	}
	p := w.Parts[i]
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
	w.takeState(i)
}

// countTimes books the round's longest and mean worker times.
func (w *Windows) countTimes() {
	var most, sum int64
	for k := range w.work {
		most = max(most, w.work[k].last)
		sum += w.work[k].last
	}
	w.stats.SlowestNS += most
	w.stats.MeanNS += sum / int64(len(w.work))
}

// count books a round's events: the parts' and ctl of the control side,
// which ran alone or beside the parts.
func (w *Windows) count(ctl uint64, alone bool) {
	w.stats.Windows++
	w.stats.ControlEvents += ctl
	most, least := uint64(0), ^uint64(0)
	for i := range w.parts {
		d := w.parts[i].executed - w.parts[i].before
		w.stats.PartEvents[i] += d
		most, least = max(most, d), min(least, d)
	}
	w.stats.CriticalEvents += most
	if alone {
		w.stats.PathEvents += ctl + most
	} else {
		w.stats.PathEvents += max(most, least+ctl)
	}
}

// satAdd returns a+b, saturating at unit.MaxTime.
func satAdd(a, b unit.Time) unit.Time {
	if b > unit.MaxTime-a {
		return unit.MaxTime
	}
	return a + b
}
