//go:build !linux

package spin

import (
	"runtime"
	"sync/atomic"
)

// Sleep yields the processor and returns: without the kernel's futex a
// sleeper checks again after every yield.
func Sleep(word *atomic.Uint32, old uint32) { runtime.Gosched() }

// Wake does nothing: Sleep does not block.
func Wake(word *atomic.Uint32) {}
