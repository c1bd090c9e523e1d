package spin

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// Sleep returns at once when the word no longer holds the value the
// sleeper read (a wake-up between its read and its sleep is not lost),
// and Wake releases a thread sleeping on it: the word never changes
// here, so only a Wake ends the sleep (the test hangs if Wake wakes no
// one). The waker wakes until the sleeper is back, since its first
// wake-ups may come before the sleeper sleeps.
func TestSleepWake(t *testing.T) {
	var word atomic.Uint32
	word.Store(1)
	Sleep(&word, 0) // would block forever if the value were not checked
	done := make(chan struct{})
	go func() {
		Sleep(&word, 1)
		close(done)
	}()
	for {
		Wake(&word)
		select {
		case <-done:
			return
		default:
			runtime.Gosched()
		}
	}
}
