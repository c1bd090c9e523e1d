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

// Windows runs parts side by side by conservative synchronisation in
// barrier windows. A window starts at the earliest pending event or
// message anywhere, W0, and ends Lookahead later: nothing that happens in
// a window can reach another part before it ends, so each part runs its
// share of the window alone, and messages cross at the barrier that ends
// it.
//
// The control side (the workloads) runs first in every window, alone: its
// events may schedule events in any part directly, at their own time or
// later, since every part waits at the barrier. What the parts send the
// control side (completions) reaches it Lookahead or more later, through
// Collect at the barrier. When a control handler calls Stop, the run ends
// at that event's time: the parts run their events before it and no
// event at it, as one scheduler holding everything would (the control
// side's events come first among equal times).
//
// Barrier windows rather than null messages: a window costs one barrier
// whatever the number of parts and links, there is no per-link state to
// keep, and on a machine whose cores are shared a worker that finishes
// early yields instead of spinning on its neighbours' clocks.
type Windows struct {
	// Control is the control side's scheduler.
	Control *Scheduler
	// Collect runs alone after each window, before the next is planned.
	Collect func()
	// Parts are the partitions.
	Parts []Part
	// Lookahead is the width of a window; it must be positive.
	Lookahead unit.Time
	// Workers is how many goroutines run the parts (at least one; at most
	// one per part).
	Workers int
	// Clock, when set, reads a wall clock in nanoseconds, to measure how
	// long workers wait at barriers (Stats). It never affects the run.
	Clock func() int64

	stats  WindowStats
	before []uint64 // each part's events at the start of the window
}

// WindowStats describe how a windowed run went.
type WindowStats struct {
	// Windows is the number of windows run.
	Windows uint64
	// PartEvents are the events each part ran; ControlEvents the control
	// side's.
	PartEvents    []uint64
	ControlEvents uint64
	// CriticalEvents is the sum over windows of the largest number of
	// events one part ran in the window: the events on the critical path
	// if every part had a core of its own and barriers were free.
	CriticalEvents uint64
	// WorkerNS is the wall time each worker spent running its parts, and
	// WaitNS the time it waited at barriers, when Clock is set.
	WorkerNS, WaitNS []int64
	// ControlNS is the wall time the control side and the planning of
	// windows took, alone.
	ControlNS int64
}

// Stats returns the run's statistics so far.
func (w *Windows) Stats() WindowStats {
	s := w.stats
	s.PartEvents = append([]uint64(nil), w.stats.PartEvents...)
	s.WorkerNS = append([]int64(nil), w.stats.WorkerNS...)
	s.WaitNS = append([]int64(nil), w.stats.WaitNS...)
	return s
}

// window is what the coordinator tells the workers about one window.
type window struct {
	end  unit.Time // run events with time <= end
	stop bool      // end is the stopping event's time: run events before it, then set the clock to it
	quit bool      // no more windows
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
	}
	var (
		win   window
		start = newBarrier() // window k starts when it reaches k
		done  = newBarrier() // windows finished, summed over the other workers
		wg    sync.WaitGroup
	)
	for k := 1; k < workers; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			for n := uint64(1); ; n++ {
				t0 := w.now()
				start.waitFor(n)
				t1 := w.now()
				w.stats.WaitNS[k] += t1 - t0
				w.runParts(k, workers, win)
				w.stats.WorkerNS[k] += w.now() - t1
				quit := win.quit // read before the coordinator may plan anew
				done.add(1)
				if quit {
					return
				}
			}
		}(k)
	}
	for n := uint64(1); ; n++ {
		t0 := w.now()
		if w.Collect != nil {
			w.Collect()
		}
		win = w.plan(limit)
		if win.end >= 0 {
			e := w.Control.Executed()
			w.Control.RunUntil(win.end)
			w.stats.ControlEvents += w.Control.Executed() - e
			if w.Control.Stopped() {
				win.end, win.stop, win.quit = w.Control.Now(), true, true
			}
		}
		t1 := w.now()
		w.stats.ControlNS += t1 - t0
		w.markEvents()
		start.add(1)
		w.runParts(0, workers, win)
		t2 := w.now()
		w.stats.WorkerNS[0] += t2 - t1
		done.waitFor(n * uint64(workers-1))
		w.stats.WaitNS[0] += w.now() - t2
		w.count()
		if win.quit {
			break
		}
	}
	wg.Wait()
	if w.Collect != nil {
		w.Collect()
	}
	if win.end < 0 {
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
	return win.end
}

// plan chooses the next window: from the earliest pending event or
// message anywhere, Lookahead long, and not past limit. With nothing
// pending, the window runs to limit and is the last one, unless limit is
// unit.MaxTime: then there is nothing to run (end -1).
func (w *Windows) plan(limit unit.Time) window {
	next, ok := w.Control.NextAt()
	if !ok {
		next = unit.MaxTime
	}
	for _, p := range w.Parts {
		if t, ok := p.Scheduler().NextAt(); ok && t < next {
			next = t
		}
		if t, ok := p.Sent(); ok && t < next {
			next = t
		}
	}
	switch {
	case next == unit.MaxTime && limit == unit.MaxTime:
		return window{end: -1, quit: true}
	case next > limit:
		return window{end: limit, quit: true}
	}
	end := min(limit, satAdd(next, w.Lookahead)-1)
	return window{end: end, quit: end == limit}
}

// runParts runs worker k's parts through the window.
func (w *Windows) runParts(k, workers int, win window) {
	for i := k; i < len(w.Parts); i += workers {
		p := w.Parts[i]
		p.Receive()
		s := p.Scheduler()
		switch {
		case win.end < 0:
		case win.stop:
			s.RunUntil(win.end - 1)
			s.AdvanceTo(win.end)
		default:
			s.RunUntil(win.end)
		}
	}
}

// markEvents notes the events each part has run before a window.
func (w *Windows) markEvents() {
	if len(w.before) != len(w.Parts) {
		w.before = make([]uint64, len(w.Parts))
	}
	for i, p := range w.Parts {
		w.before[i] = p.Scheduler().Executed()
	}
}

// count books a window's events.
func (w *Windows) count() {
	w.stats.Windows++
	var most uint64
	for i, p := range w.Parts {
		d := p.Scheduler().Executed() - w.before[i]
		w.stats.PartEvents[i] += d
		most = max(most, d)
	}
	w.stats.CriticalEvents += most
}

// satAdd returns a+b, saturating at unit.MaxTime.
func satAdd(a, b unit.Time) unit.Time {
	if b > unit.MaxTime-a {
		return unit.MaxTime
	}
	return a + b
}
