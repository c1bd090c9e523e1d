package sim

import (
	"sync"
	"sync/atomic"
)

// A Box passes messages from one worker of a run to another: the sender
// appends under the lock, the receiver swaps the slice for the one it
// took last time, emptied. A count read without the lock says whether
// there is anything to take. Two cache lines: the first is written only
// when there is something to pass, so a receiver that looks at an empty
// box reads a line it holds already; the second is the receiver's own.
// Boxes side by side, written by different workers, never share a line.
type Box[T any] struct {
	mu    sync.Mutex
	n     atomic.Int32
	msgs  []T
	_     [24]byte
	taken []T // the receiver's
	_     [40]byte
}

// Put moves *msgs into the box, in order, and leaves *msgs empty for
// the sender to fill again. Into an empty box, as the receiver takes
// often, the slices are swapped: the box's is empty and cleared (Take
// clears what it gives back), so nothing is copied or cleared.
func (b *Box[T]) Put(msgs *[]T) {
	if len(*msgs) == 0 {
		return
	}
	b.mu.Lock()
	if len(b.msgs) == 0 {
		b.msgs, *msgs = *msgs, b.msgs[:0]
		b.n.Store(int32(len(b.msgs)))
		b.mu.Unlock()
		return
	}
	b.msgs = append(b.msgs, *msgs...)
	b.n.Store(int32(len(b.msgs)))
	b.mu.Unlock()
	clear(*msgs)
	*msgs = (*msgs)[:0]
}

// Take returns what was put since the last Take, in order. The slice is
// the receiver's until its next Take.
func (b *Box[T]) Take() []T {
	if len(b.taken) > 0 {
		clear(b.taken)
		b.taken = b.taken[:0]
	}
	if b.n.Load() == 0 {
		return nil
	}
	b.mu.Lock()
	msgs := b.msgs
	b.msgs, b.taken = b.taken, msgs
	b.n.Store(0)
	b.mu.Unlock()
	return msgs
}

// Pending returns what was put and not taken yet; only while neither
// side runs.
func (b *Box[T]) Pending() []T { return b.msgs }
