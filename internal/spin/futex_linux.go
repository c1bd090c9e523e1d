//go:build linux

package spin

import (
	"sync/atomic"
	"syscall"
	"unsafe"
)

// The futex operations on a word private to the process.
const (
	futexWaitPrivate = 0 | 128
	futexWakePrivate = 1 | 128
)

// Sleep blocks the calling thread, in the kernel, while *word holds old
// and until Wake; it may return sooner. The goroutine stays on its
// thread, so its wake-up goes through no Go run queue: Go's scheduler
// puts a goroutine woken by another (a channel, a sync.Cond) in the
// waker's run-next slot, where it waits behind the waker if no idle
// processor steals it.
func Sleep(word *atomic.Uint32, old uint32) {
	syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(word)), futexWaitPrivate, uintptr(old), 0, 0, 0)
}

// Wake wakes every thread sleeping on word.
func Wake(word *atomic.Uint32) {
	syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(word)), futexWakePrivate, 1<<31-1, 0, 0, 0)
}
