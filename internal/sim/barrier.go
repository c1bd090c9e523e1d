package sim

import (
	"runtime"
	"sync"
	"sync/atomic"

	"rocelab/internal/spin"
)

// wake lets workers that waited long (at a barrier, or linked for a
// publication) sleep: a publisher wakes them only when one sleeps, so a
// publication costs one load of a line nobody writes while everyone runs.
// A worker with a core of its own sleeps on its thread in the kernel
// (spin.Sleep on seq), others on cond.
type wake struct {
	mu       sync.Mutex
	cond     *sync.Cond
	seq      atomic.Uint32 // raised by every wake-up of sleepers
	sleepers atomic.Int32
	_        [44]byte
}

func (k *wake) init() { k.cond = sync.NewCond(&k.mu) }

// published wakes the sleepers, if any, after a publication.
func (k *wake) published() {
	if k.sleepers.Load() > 0 {
		k.seq.Add(1)
		spin.Wake(&k.seq)
		k.mu.Lock()
		k.cond.Broadcast()
		k.mu.Unlock()
	}
}

// wait sleeps while same holds: same must read the published times
// (a sleeper's count raised before it reads them, and a publisher's
// store before it reads the count, so that one of the two sees the
// other; a wake-up between the sleeper's read of seq and its sleep
// makes the sleep return at once). On its own thread (own), the sleeper
// goes through no Go run queue: woken through cond, Go's scheduler would
// put it in the run-next slot of the waker's processor, behind the waker,
// which soon spins at the next barrier waiting for it while the other
// processor stays idle (docs/engine.md, "Two threads").
func (k *wake) wait(same func() bool, own bool) {
	k.sleepers.Add(1)
	defer k.sleepers.Add(-1)
	if own {
		for {
			s := k.seq.Load()
			if !same() {
				return
			}
			spin.Sleep(&k.seq, s)
		}
	}
	k.mu.Lock()
	for same() {
		k.cond.Wait()
	}
	k.mu.Unlock()
}

// barrier lets workers wait for a counter cheaply: they spin, yield
// (unless each has a core), then sleep (pause). The round the counter's
// next value starts (the run's start barrier) lies on the counter's
// line, so that a waiter that sees the counter move takes the round
// with it instead of fetching another line from the setter's core (on
// this VM up to 150 ns each, docs/engine.md "Two threads"). 192 bytes:
// Go's allocator puts an object of that size class on a 64-byte
// boundary.
type barrier struct {
	v     atomic.Uint64
	round round // set before the counter moves; read after
	k     wake
	spin  spinning
	_     [48]byte
}

func newBarrier(sp spinning) *barrier {
	b := &barrier{spin: sp}
	b.k.init()
	return b
}

// spinning is how a waiter waits before it sleeps: it checks what it
// waits for checks times, running the processor's spin-wait hint pauses
// times between checks (the hint leaves the core's resources to a
// hardware thread sharing it, which on a VM may be the other worker).
// Then, unless own, it yields yieldRounds times; then it sleeps, on its
// own thread when own (wake.wait).
type spinning struct {
	checks, pauses int
	own            bool // every worker has a core of its own
}

const yieldRounds = 256

// spinFor returns how a waiter waits for workers workers. With a core
// each, the awaited worker is running and a wait is short: spinning on
// with the hint saves the yields' trips through Go's scheduler (on two
// threads a fifth to a quarter of the wall time, docs/engine.md), and the
// waiter never yields: a yield puts it on Go's global run queue, from
// which the other worker's processor may take it, leaving both workers
// on one processor and the other idle. One hint between checks, not
// eight: a hint takes some 20 ns here, and a waiter sees the counter
// move on average half its interval late, at every barrier and
// publication (a line handed back and forth between pinned threads, the
// vCPUs on one CCX: 49 ns without hints, 62.5 with one between checks,
// 208 and 1081 with eight, docs/engine.md). 8192 checks spin about as
// long before sleeping as 1024 of eight did when a check is a load or
// two (a barrier's, a linked part's beside one other: 211 against 201
// us here, the lines unchanged, as when the awaited worker is
// descheduled); a linked part's check reads every part's line, so
// with 64 parts it spins twice as long (466 against 233 us). With more
// workers than cores, the awaited one may need the waiter's core: it
// checks briefly and yields.
func spinFor(workers int) spinning {
	if workers <= min(runtime.GOMAXPROCS(0), runtime.NumCPU()) {
		return spinning{checks: 8192, pauses: 1, own: true}
	}
	return spinning{checks: 64}
}

// pause follows a waiter's i-th check that found it must still wait:
// spinning, then (unless sp.own) a yield, then sleep on k while same
// holds.
func pause(i int, sp spinning, k *wake, same func() bool) {
	switch {
	case i < sp.checks:
		spin.Pause(sp.pauses)
	case !sp.sleeps(i):
		runtime.Gosched()
	default:
		k.wait(same, sp.own)
	}
}

// sleeps reports whether a waiter's i-th check that found it must still
// wait is followed by a sleep (pause).
func (sp spinning) sleeps(i int) bool {
	return i >= sp.checks+yieldRounds || i >= sp.checks && sp.own
}

// waitFor waits until the counter reaches at least target.
func (b *barrier) waitFor(target uint64) {
	for i := 0; b.v.Load() < target; i++ {
		pause(i, b.spin, &b.k, func() bool { return b.v.Load() < target })
	}
}

// add raises the counter by d and wakes sleepers.
func (b *barrier) add(d uint64) {
	b.v.Add(d)
	b.k.published()
}
