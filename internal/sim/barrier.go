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
type wake struct {
	mu       sync.Mutex
	cond     *sync.Cond
	sleepers atomic.Int32
	_        [48]byte
}

func (k *wake) init() { k.cond = sync.NewCond(&k.mu) }

// published wakes the sleepers, if any, after a publication.
func (k *wake) published() {
	if k.sleepers.Load() > 0 {
		k.mu.Lock()
		k.cond.Broadcast()
		k.mu.Unlock()
	}
}

// wait sleeps while same holds: same must read the published times
// (a sleeper's count raised before it reads them, and a publisher's
// store before it reads the count, so that one of the two sees the
// other).
func (k *wake) wait(same func() bool) {
	k.mu.Lock()
	k.sleepers.Add(1)
	for same() {
		k.cond.Wait()
	}
	k.sleepers.Add(-1)
	k.mu.Unlock()
}

// barrier lets workers wait for a counter cheaply: they spin briefly,
// yield, then sleep (pause).
type barrier struct {
	v    atomic.Uint64
	k    wake
	spin spinning
}

func newBarrier(sp spinning) *barrier {
	b := &barrier{spin: sp}
	b.k.init()
	return b
}

// spinning is how a waiter waits before it yields: it checks what it
// waits for checks times, running the processor's spin-wait hint pauses
// times between checks (the hint leaves the core's resources to a
// hardware thread sharing it, which on a VM may be the other worker).
// Then it yields yieldRounds times, then sleeps.
type spinning struct{ checks, pauses int }

const yieldRounds = 256

// spinFor returns how a waiter waits for workers workers. With a core
// each, the awaited worker is running and a wait is short: spinning on
// with the hint saves the yields' trips through Go's scheduler (on two
// threads a fifth to a quarter of the wall time, docs/engine.md). With
// more workers than cores, the awaited one may need the waiter's core:
// it checks briefly and yields.
func spinFor(workers int) spinning {
	if workers <= min(runtime.GOMAXPROCS(0), runtime.NumCPU()) {
		return spinning{checks: 1024, pauses: 8}
	}
	return spinning{checks: 64}
}

// pause follows a waiter's i-th check that found it must still wait:
// spinning, then a yield, then sleep on k while same holds.
func pause(i int, sp spinning, k *wake, same func() bool) {
	switch {
	case i < sp.checks:
		spin.Pause(sp.pauses)
	case i < sp.checks+yieldRounds:
		runtime.Gosched()
	default:
		k.wait(same)
	}
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
