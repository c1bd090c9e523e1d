package sim

import (
	"fmt"
	"strings"
	"sync/atomic"

	"rocelab/internal/unit"
)

// watchState is what State reads of the run's rounds, from any goroutine
// while the run goes on: the coordinator writes it once a round, on
// lines of its own, so that the write does not take from the workers a
// line they read at every publication (the wake's sleepers).
type watchState struct {
	_      [64]byte
	seq    atomic.Uint64 // the round started last
	end    atomic.Int64  // its parts' limit
	linked atomic.Bool
	start  atomic.Pointer[barrier]
	parts  atomic.Pointer[[]partState]
	_      [64]byte
}

// started records round r, linked or not, as it starts.
func (s *watchState) started(r round, linked bool) {
	s.end.Store(int64(r.parts))
	s.linked.Store(linked)
	s.seq.Store(r.seq)
}

// State describes where the run's workers are: the round started last,
// the control side's published time and stop, each part's last
// round, published time, the bound it waits at and whether it sleeps,
// the last round each worker finished (on its part's state), the start
// barrier's count and sleepers, and whether the coordinator sleeps
// waiting for the round's end. It reads only what the workers
// publish atomically, so a watchdog may call it while the run goes on
// (a test that finds a run stalled prints it); the run's results never
// depend on it. Two calls that return the same text with the run not
// finished between them saw no worker move on.
func (w *Windows) State() string {
	var b strings.Builder
	mode := "windows"
	if w.watch.linked.Load() {
		mode = "linked"
	}
	fmt.Fprintf(&b, "round %d (%s) to %v", w.watch.seq.Load(), mode, unit.Time(w.watch.end.Load()))
	fmt.Fprintf(&b, "; control: published %v, stop %v", unit.Time(w.ctl.pub.Load()), unit.Time(w.ctl.stop.Load()))
	if ps := w.watch.parts.Load(); ps != nil {
		for i := range *ps {
			p := &(*ps)[i]
			fmt.Fprintf(&b, "; part %d: published %v", i, unit.Time(p.pub.Load()))
			if c := p.claimed.Load(); c > 0 {
				fmt.Fprintf(&b, ", last windowed round %d", c)
			}
			if d := p.done.Load(); d > 0 {
				fmt.Fprintf(&b, ", worker %d finished round %d", i, d)
			}
			if at := p.waitAt.Load(); at >= 0 {
				fmt.Fprintf(&b, ", waits at %v", unit.Time(at))
			}
			if p.asleep.Load() {
				b.WriteString(", asleep")
			}
		}
	}
	fmt.Fprintf(&b, "; linked sleepers %d", w.wake.sleepers.Load())
	if s := w.watch.start.Load(); s != nil {
		fmt.Fprintf(&b, "; start barrier %d, sleepers %d", s.v.Load(), s.k.sleepers.Load())
	}
	fmt.Fprintf(&b, "; round end sleepers %d", w.fin.sleepers.Load())
	return b.String()
}
