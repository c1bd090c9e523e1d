package sim

import (
	"cmp"
	"sync"
	"sync/atomic"

	"rocelab/internal/unit"
)

// A Part is one partition of a windowed run: a scheduler of its own, and
// messages to other parts that take effect no sooner than the run's
// lookahead after they are sent. Its methods run on the worker that runs
// the part.
type Part interface {
	// Scheduler returns the part's scheduler.
	Scheduler() *Scheduler
	// Begin starts a round in which the part runs to horizon.
	Begin(horizon unit.Time)
	// Flush makes the messages the part sent since the last Flush
	// visible to their receivers: the next Receive of each takes them.
	Flush()
	// Receive schedules the messages other parts have flushed to the part
	// and it has not taken yet.
	Receive()
	// Sent returns the earliest time after the round's horizon at which a
	// message the part sent since Begin takes effect, and false when there
	// is none.
	Sent() (unit.Time, bool)
}

// Windows runs parts and the control side (the workloads) side by side
// by conservative synchronisation, in rounds that end at a barrier.
// Messages between parts take effect Lookahead or more after they are
// sent; messages from a part to the control side (completions) Reply or
// more after; messages from the control side to a part (posts) at the
// time they are sent, no sooner, or Lead after the control side's bound
// while the workloads promise it. Messages go through boxes: a part makes
// what it sent visible to the receivers (Flush) and takes what was sent
// to it (Receive); the control side takes the completions (Collect) and
// hands over its posts (Deliver). At the barrier, alone, Collect and
// Deliver run before the next round is planned, from N, the earliest
// pending event or message of any part, and C, the control side's
// earliest event.
//
// When every part has a worker of its own and the control side's events
// are under LinkedBelow of the run's so far, a round is linked: it spans
// spanReplies times Reply from min(N, C), and within it each part publishes
// the earliest time at which anything can still happen in it (its next event,
// or the earliest a message from another part or a post can take effect)
// and runs its events before the least of the other parts' published times
// plus Lookahead and the control side's published time (Chandy-Misra-Bryant,
// the published time standing for the null message). The control side runs
// on part 0's worker, when it or another part waits for it, its events
// before the least published time plus Reply, and publishes the earliest
// time it can still post at: its bound, plus Lead when set. A part whose
// neighbour is busy runs on instead of waiting at a barrier, so imbalance
// evens out within Lookahead; what a side sends is flushed before the
// time that allows the receiver to take it is published. The barrier,
// once a round, jumps idle stretches that published times would cross a
// Lookahead at a time.
//
// With more parts than workers (a linked part waits for its neighbours on
// its worker's core), or with Windowed, a round is a window: the parts
// run to the least of N + Lookahead and C, the earliest post (and N +
// Reply, the earliest post a completion could cause); the control side
// runs to min(N, C) + Reply beside them: with a worker per part on the
// first worker's, which runs Collect and Deliver too, else on the first
// worker done with its parts. With a single part, or with ControlAlone, the control side runs
// alone at the start of every window of min(Lookahead, Reply), then the
// parts: the serial engine, which saves the rounds of running side by
// side. A single part then goes on to the control side's next event,
// unless a completion it writes holds it earlier (soloReach).
//
// When a control handler calls Stop, the run ends at that event's time:
// the parts run their events before it and no event at it, as one
// scheduler holding everything would (the control side's events come
// first among equal times). The parts are then never past it: they ran
// no further than the control side's earliest event, or published time.
//
// A worker that finishes a round early spins (with the processor's
// spin-wait hint and long when every worker has a core, briefly
// otherwise: spinFor), yields (only with more workers than cores), then
// sleeps at the barrier (on its own thread when it has a core); within a
// linked round it waits for the next published time the same way, so
// that more workers than cores still take turns.
type Windows struct {
	// Control is the control side's scheduler.
	Control *Scheduler
	// Collect takes the completions the parts flushed into the control
	// side's scheduler, and Deliver hands the control side's posts to the
	// parts' boxes and returns the earliest of them, or unit.MaxTime for
	// none. Both run alone before each round is planned, and in a linked
	// round on the worker running the control side.
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
	// Windowed runs the parts in windows of Lookahead between barriers
	// even when each has a worker of its own, instead of linked.
	Windowed bool
	// LinkedBelow is the share of the control side's events in the run
	// so far below which a round is linked when each part has a worker
	// of its own (0: linkedWorkloads; above 1: always).
	LinkedBelow float64
	// Workers is how many goroutines run the parts (at least one; at most
	// one per part).
	Workers int
	// Clock, when set, reads a wall clock in nanoseconds, to measure how
	// long workers wait at barriers (Stats). It never affects the run's
	// results.
	Clock func() int64
	// Adapt, with Clock, runs the parts on one worker for a while when
	// the workers wait so long that between them they run less than one
	// worker would (another process holds the cores, or the parts are too
	// uneven), and tries them all again later (adapt). The results do not
	// change.
	Adapt bool
	// Timeline, when set, records the run's events over wall time. It
	// never affects the run's results.
	Timeline *Timeline
	// Homes, when set, says where the control side's events since its
	// last call would run if the workloads ran in their hosts' parts: it
	// adds to parts[i] those that touched only part i's hosts and returns
	// those that touched none (free) and more than one part's (cross).
	// The run calls it as each round ends, for WindowStats.HomePathEvents.
	// It never affects the run's results.
	Homes func(parts []uint64) (free, cross uint64)
	// Lead, when set, returns how far after the control side's bound
	// nothing it does takes effect at a part: every post it makes is at
	// least that far ahead of the time it is made at, and it neither
	// stops the run nor connects before then, but at a time a part
	// holds (Scheduler.Hold). The run calls it on the control side's
	// worker, after the control side ran, and in a linked round
	// publishes the bound plus it; it is used only while Lookahead is
	// under Reply (a part held at a stopping event's time less the
	// Lookahead then lets the control side run past that event).
	Lead func() unit.Time

	// What the workers read every round besides the round itself: set
	// before the rounds run, and ending a line before the one stats
	// begins in, so that no line of it is one the coordinator writes
	// every round (TestWindowsLines; a Windows, over 512 bytes and
	// holding pointers, starts 8 bytes into a line, after Go's type
	// header, which the padding allows for). spin is how a waiter waits
	// before it yields (spinFor, or spinTest when set: tests that make
	// waiters sleep at once).
	parts    []partState // one a part, written by the part's worker
	spin     spinning
	spinTest *spinning
	_        [16]byte

	stats  WindowStats
	homes  []uint64 // Homes' split of the round's control events
	rounds uint64   // rounds planned
	// posted is the earliest event Deliver scheduled in a part since
	// the parts' states were last taken.
	posted unit.Time
	// ctlFree is set while the round's control share waits for a worker.
	ctlFree atomic.Bool
	linked  bool // the parts and the control side run linked (see Windows)
	// In a linked round: ctlBound is the bound the control side last
	// ran to (on part 0's worker); ctl is what it publishes; wake is
	// where waiting workers sleep.
	ctlBound unit.Time
	ctl      ctlState
	wake     wake
	// fin is where the coordinator sleeps waiting for the other workers
	// to finish a round (partState.done).
	fin   wake
	watch watchState
	// What adapt keeps: solo while the parts run on one worker, until
	// the wall time soloUntil; soloFor is how long the next such spell
	// lasts (0 until the first measure begins); the current measure began
	// at epoch, with the workers' run and wait totals then.
	solo                 bool
	soloUntil, soloFor   int64
	epoch, epRun, epWait int64
	// waitLimit replaces adapt's limit on the waiting share when set
	// (tests).
	waitLimit float64
}

// ctlState is what the control side publishes in a linked round, on a
// line of its own: every domain reads it every pass.
type ctlState struct {
	_    [64]byte
	pub  atomic.Int64 // the earliest time it can still post at
	stop atomic.Int64 // where it stopped, or -1
	ran  atomic.Int64 // the bound it last ran to, over the whole run
	_    [40]byte
}

// pubSteps is how many times a linked part publishes its time, at least,
// while it runs one Lookahead: a neighbour waiting for it goes on a
// quarter of a lookahead later, not a whole one.
const pubSteps = 4

// spanReplies is how many times Reply a linked round spans, from the
// earliest pending event: long enough that barriers are rare, short
// enough that the rounds' exact planning still jumps idle stretches.
const spanReplies = 8

// Window returns the width of the run's windows: Lookahead and Reply,
// whichever is less.
func (w *Windows) Window() unit.Time { return min(w.Lookahead, w.Reply) }

// linkedWorkloads is the share of the control side's events in a run
// below which the parts run linked rounds when each has a worker: a
// control event holds linked parts that reach its time (a post has no
// lookahead) while part 0's worker runs it, where in a window it runs
// beside the parts, also on part 0's worker. The 1024-host permutation
// (0.1 % of the events; linked rounds 1.90x on two cores, windows
// 1.61x) and the 64-server AllReduce (3.4 %: linked rounds raise its
// bound as run from 1.85 to 1.92; on a quiet machine 1.31-1.57 against
// windows' 1.31-1.46) run linked; at 1 % the AllReduce ran
// windows while the control side moved between the workers in linked
// rounds (docs/engine.md, "Why 5%").
const linkedWorkloads = 0.05

// partState is what a part's worker leaves for the planning of the next
// round when it has run the part through a round: the part's earliest
// pending event or message and its events so far. The worker reads them
// from its own cache, so the coordinator, alone between rounds, reads one
// line a part instead of the part's scheduler. Its own lines each, so
// that workers writing them do not contend. Part k's first line also
// holds worker k's end of the round and its time accounts, which the
// coordinator reads after the round with the part's state: one line from
// the worker's core, not three (a shared counter's, the part's, the
// accounts').
type partState struct {
	next     unit.Time
	executed uint64
	before   uint64        // executed at the start of the round
	claimed  atomic.Uint64 // the last round a worker took the part in
	// done is, in part k's state, the last round worker k (k > 0)
	// finished, stored after the states of the parts it ran and its
	// accounts: the coordinator waits on it (finished).
	done atomic.Uint64
	// acct is worker k's in part k's state.
	acct workerState
	// On a line of its own, written by the part's worker in linked
	// rounds: pub is the earliest time at which an event can still happen
	// in the part: its next event, or the earliest a message from another
	// part can take effect; held and blocked count the times the part
	// stopped with events pending at the control side's published time
	// and at another part's (WindowStats); waitAt is the bound the part
	// waits at (-1 while it runs), and asleep whether it sleeps there
	// (State); sched is the part's scheduler, for its holds
	// (Scheduler.Hold).
	pub           atomic.Int64
	held, blocked uint64
	waitAt        atomic.Int64
	asleep        atomic.Bool
	sched         *Scheduler
	_             [16]byte
}

// workerState is a worker's wall-time accounts, kept only with a Clock:
// the coordinator reads them every round.
type workerState struct {
	runNS, waitNS int64
	last          int64 // the time it ran in the last round
}

// book adds a round in which the worker ran for run and waited for wait.
func (s *workerState) book(run, wait int64) {
	s.last = run
	s.runNS += run
	s.waitNS += wait
}

// round is what the coordinator tells the workers about one round.
type round struct {
	parts   unit.Time // run the parts' events with time <= parts (-1: none)
	stop    bool      // parts is the stopping event's time: run events before it, then set the clock to it
	control unit.Time // run the control side's events with time <= control beside the parts (-1: not)
	quit    bool      // no more rounds
	linked  bool      // the round is linked (see Windows)
	seq     uint64    // the round's number, counted over the whole run
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
	for {
		if t, done := w.runUntil(limit); done {
			return t
		}
	}
}

// runUntil is RunUntil on the workers adapt chose; it returns early, not
// done, at the end of a round after which adapt changed them.
func (w *Windows) runUntil(limit unit.Time) (unit.Time, bool) {
	workers := max(1, min(w.Workers, len(w.Parts)))
	if w.solo {
		workers = 1
	}
	if len(w.stats.PartEvents) != len(w.Parts) {
		w.stats.PartEvents = make([]uint64, len(w.Parts))
		w.homes = make([]uint64, len(w.Parts))
		w.stats.WorkerNS = make([]int64, workers)
		w.stats.WaitNS = make([]int64, workers)
		w.parts = make([]partState, len(w.Parts))
		for i := range w.parts {
			w.parts[i].waitAt.Store(-1) // runs until a linked round stops it
		}
		parts := w.parts
		w.watch.parts.Store(&parts)
	}
	for i, p := range w.Parts {
		w.takeState(i) // events may have been scheduled since the last call
		w.parts[i].sched = p.Scheduler()
		w.parts[i].sched.holding = w.leads() && len(w.Parts) > 1
	}
	w.posted = unit.MaxTime
	w.spin = spinFor(workers)
	if w.spinTest != nil {
		w.spin = *w.spinTest
	}
	alone := w.ControlAlone || len(w.Parts) == 1
	linkable := !alone && !w.Windowed && workers == len(w.Parts)
	if linkable && w.wake.cond == nil {
		w.wake.init()
	}
	if w.fin.cond == nil {
		w.fin.init()
	}
	var (
		r      round
		start  = newBarrier(w.spin) // round k starts when it reaches k
		wg     sync.WaitGroup
		stopAt = unit.Time(-1) // the control side stopped there
		more   bool            // adapt changed the workers: not done
	)
	w.watch.start.Store(start)
	for k := 1; k < workers; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			t0 := w.now() // the end of the last round: one clock read a round less
			for n := uint64(1); ; n++ {
				start.waitFor(n)
				r := start.round
				if r.seq == 0 { // no more rounds
					return
				}
				t1 := w.now()
				waited := w.runRound(k, workers, r)
				if w.Clock != nil { // else the accounts stay 0, and the line in this core
					t2 := w.now()
					w.parts[k].acct.book(t2-t1-waited, t1-t0+waited)
					t0 = t2
				}
				w.parts[k].done.Store(r.seq)
				w.fin.published()
			}
		}(k)
	}
	t0 := w.now()
	for n := uint64(1); ; n++ {
		w.linked = linkable && w.workloadShare() < cmp.Or(w.LinkedBelow, linkedWorkloads)
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
				} else if len(w.Parts) == 1 {
					r = w.soloReach(limit, r)
				}
			}
			w.deliver()
		} else {
			r = w.planBeside(limit, stopAt)
			w.ctlFree.Store(r.control >= 0 && !w.linked)
		}
		t1 := w.now()
		w.stats.ControlNS += t1 - t0
		if w.linked {
			w.startLinked(r)
		}
		w.posted = unit.MaxTime // the parts' states will hold what was delivered
		w.rounds++
		r.seq, r.linked = w.rounds, w.linked
		w.watch.started(r, w.linked)
		e := w.Control.Executed()
		start.round = r
		start.add(1)
		waited := w.runRound(0, workers, r)
		t2 := w.now()
		w.parts[0].acct.book(t2-t1-waited, waited)
		w.waitFinished(workers, r.seq)
		t0 = w.now()
		w.parts[0].acct.waitNS += t0 - t2
		if w.Clock != nil {
			w.countTimes(workers)
		}
		if !alone {
			switch {
			case !w.linked:
				if r.control >= 0 && w.Control.Stopped() {
					stopAt = w.Control.Now()
				}
			case w.ctl.stop.Load() >= 0:
				stopAt = unit.Time(w.ctl.stop.Load())
			case r.control >= 0:
				// Its clock to the round's end, where no parts'
				// published time made a worker run it, with the
				// completions the parts wrote meanwhile (which a
				// control side publishing ahead of its bound, Lead,
				// may not have collected).
				if w.Collect != nil {
					w.Collect()
				}
				w.Control.RunUntil(r.control)
			}
			ctl = w.Control.Executed() - e
		}
		if alone && r.quit && !r.stop && r.parts >= 0 {
			if w.Parts[0].Scheduler().Now() < r.parts {
				r.quit = false // a completion held the part (soloReach)
			} else {
				// soloReach ran the control side only through its window:
				// it has nothing up to limit, and its clock goes there too.
				w.Control.AdvanceTo(r.parts)
			}
		}
		w.count(ctl, alone, !alone && workers == len(w.Parts))
		if w.Timeline != nil {
			w.record()
		}
		if w.solo {
			w.stats.Solo++
		}
		// A linked round that ends at limit may have stopped short of
		// it: the stop round follows.
		if r.quit && (stopAt < 0 || r.stop || !w.linked) {
			break
		}
		// Between rounds nothing but the clocks is carried over, unless
		// the control side has stopped: a new call goes on from here.
		if stopAt < 0 && w.adapt(t0) {
			more = true
			break
		}
	}
	r.seq = 0
	start.round = r
	start.add(1)
	wg.Wait()
	for k := range w.stats.WorkerNS {
		a := &w.parts[k].acct
		w.stats.WorkerNS[k] += a.runNS
		w.stats.WaitNS[k] += a.waitNS
		*a = workerState{}
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
		return latest, true
	}
	return r.parts, !more
}

// waitFinished waits, on the coordinator, until workers 1 to workers-1
// have finished round seq: spin, then sleep on fin.
func (w *Windows) waitFinished(workers int, seq uint64) {
	for i := 0; !w.finished(workers, seq); i++ {
		pause(i, w.spin, &w.fin, func() bool { return !w.finished(workers, seq) })
	}
}

// finished reports whether workers 1 to workers-1 have finished round
// seq.
func (w *Windows) finished(workers int, seq uint64) bool {
	for k := 1; k < workers; k++ {
		if w.parts[k].done.Load() < seq {
			return false
		}
	}
	return true
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

// soloReach lets the only part of a run go on past window r, once the
// control side has run through it: to the control side's next event (its
// events come first among equal times, and a post takes effect when it
// is made), and no further than limit. A completion the part writes at t
// reaches the control side at t + Reply, after the window, and bounds
// the part at that (sim.Scheduler.Bound, nic). With limit unit.MaxTime
// and nothing on the control side, the window stays as it is, so that
// the clocks end where the windows did. In the 127->1 incast the rounds fell
// from 35021 to 167, and the instructions by 9 % (docs/engine.md).
func (w *Windows) soloReach(limit unit.Time, r round) round {
	cn := w.controlNext()
	if cn == unit.MaxTime && limit == unit.MaxTime {
		return r
	}
	end := min(limit, cn-1)
	if end <= r.parts {
		return r
	}
	return round{parts: end, control: -1, quit: end == limit}
}

// planBeside chooses the next round when the control side runs beside
// the parts (see Windows), or, once it has stopped at stopAt, the parts'
// rounds up to stopAt. The last round sets every clock: to limit (the
// control side's too), or to stopAt.
func (w *Windows) planBeside(limit, stopAt unit.Time) round {
	pn := w.partsNext()
	reach := satAdd(pn, w.Lookahead) // the parts' reach in a window
	cn := w.controlNext()
	first := min(pn, cn)
	if stopAt >= 0 {
		if pn >= stopAt {
			return round{parts: stopAt, stop: true, control: -1, quit: true}
		}
		return round{parts: min(reach, stopAt) - 1, control: -1} // windows only: linked parts end before stopAt
	}
	switch {
	case first == unit.MaxTime && limit == unit.MaxTime:
		return round{parts: -1, control: -1, quit: true}
	case first > limit:
		return round{parts: limit, control: limit, quit: true}
	case w.linked:
		end := min(limit, satAdd(first, spanReplies*w.Reply)-1)
		return round{parts: end, control: end, quit: end == limit}
	}
	reply := satAdd(pn, w.Reply) // the earliest post a completion causes
	end := min(limit, reach-1, cn-1, reply-1)
	switch end { // a tie goes to the frames, then the replies
	case limit:
	case reach - 1:
		w.stats.ByLookahead++
	case reply - 1:
		w.stats.ByReply++
	default:
		w.stats.ByControl++
	}
	return round{parts: end, control: min(limit, satAdd(first, w.Reply)-1)}
}
