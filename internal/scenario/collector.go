package scenario

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// paused counts the twins running their events in this process, and
// keeps the collector's settings from before the first of them.
var paused struct {
	sync.Mutex
	runs  int
	pct   int
	limit int64
}

// pauseCollector turns the garbage collector's pace off while a twin runs
// its events, and returns what turns it back on. A twin's heap is its
// fabric, alive until the run ends, and its events allocate little (pools
// that grow with the packets in flight); yet the runtime forces a
// collection every two minutes without one, whatever the pace, and each
// marks the whole heap: on the k=24 fat-tree permutation (3456 hosts × 2
// MB) one every two minutes of wall time, each of 0.6-2.6 s of CPU over
// its 200 MB, a cost per event that grows with the fabric (its heap) and
// with the run's length. With the pace off (GOGC=off) the runtime forces
// none; a memory limit at the goal the pace had (the memory in use grown
// by its percentage), or the limit already set if lower, keeps a
// collection for a run that does allocate. Runs at once share one pause,
// which ends with the last of them. A pace already off stays so, without
// a limit of its own.
func pauseCollector() (resume func()) {
	paused.Lock()
	defer paused.Unlock()
	if paused.runs++; paused.runs == 1 {
		paused.pct = debug.SetGCPercent(-1)
		paused.limit = debug.SetMemoryLimit(-1)
		if paused.pct > 0 {
			debug.SetMemoryLimit(min(paused.limit, memoryInUse()*(100+int64(paused.pct))/100))
		}
	}
	return func() {
		paused.Lock()
		defer paused.Unlock()
		if paused.runs--; paused.runs == 0 {
			debug.SetMemoryLimit(paused.limit)
			debug.SetGCPercent(paused.pct)
		}
	}
}

// memoryInUse returns the memory a memory limit counts: what the runtime
// has mapped, less what it gave back to the system.
func memoryInUse() int64 {
	m := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(m)
	return int64(m[0].Value.Uint64() - m[1].Value.Uint64())
}
