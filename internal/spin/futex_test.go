package spin

import (
	"sync/atomic"
	"testing"
)

// Sleep returns at once when the word no longer holds the value the
// sleeper read (a wake-up between its read and its sleep is not lost),
// and Wake releases a thread sleeping on it.
func TestSleepWake(t *testing.T) {
	var word atomic.Uint32
	word.Store(1)
	Sleep(&word, 0) // would block forever if the value were not checked
	done := make(chan struct{})
	go func() {
		for word.Load() == 1 {
			Sleep(&word, 1)
		}
		close(done)
	}()
	word.Store(2)
	Wake(&word)
	<-done
}
