package scenario

import (
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// lineTrip measures, in nanoseconds, the round trip of one cache line
// between CPUs 0 and 1: two threads, each pinned to one, hand a counter
// back and forth. On this VM it tells where the host placed the two
// vCPUs: about 50 ns when they share an L3 (one CCX of an AMD EPYC),
// about 300 ns across dies; a two-thread run pays about half of it for
// every line one worker writes and the other then reads (docs/engine.md,
// "Two threads"). It returns the
// least of lineBursts bursts, so that a burst in which another process
// held one of the CPUs does not count; 0 when the CPUs cannot be pinned.
func lineTrip() float64 {
	if runtime.NumCPU() < 2 {
		return 0
	}
	var line struct {
		_ [64]byte
		v atomic.Uint64
		_ [56]byte
	}
	var (
		best   = time.Duration(1 << 62)
		pinned = make(chan bool, 2)
		start  = make(chan struct{})
		failed bool
		wg     sync.WaitGroup
	)
	for cpu := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // never unlocked: the pinned thread ends with the goroutine
			pinned <- pin(cpu)
			if <-start; failed {
				return
			}
			v := uint64(cpu)
			for range lineBursts {
				t0 := time.Now()
				for range lineTrips {
					for line.v.Load() != v {
					}
					v += 2
					line.v.Store(v - 1)
				}
				if cpu == 0 {
					best = min(best, time.Since(t0))
				}
			}
		}()
	}
	a, b := <-pinned, <-pinned
	failed = !a || !b
	close(start)
	wg.Wait()
	if failed {
		return 0
	}
	return float64(best.Nanoseconds()) / lineTrips
}

// lineBursts bursts of lineTrips round trips each: some 20 ms in all at
// 300 ns a trip.
const (
	lineBursts = 16
	lineTrips  = 4000
)

// pin binds the calling thread to one CPU.
func pin(cpu int) bool {
	var mask [16]uint64
	mask[cpu/64] |= 1 << (cpu % 64)
	_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(mask), uintptr(unsafe.Pointer(&mask)))
	return e == 0
}
