package sim

import (
	"testing"
	"unsafe"

	"rocelab/internal/linetest"
)

// The start barrier's round lies on its counter's cache line, and the
// barrier's size is a multiple of 64 bytes, a size class whose objects
// Go's allocator places on 64-byte boundaries: a waiter that sees the
// counter move fetches one line from the setter's core, not two.
func TestBarrierLine(t *testing.T) {
	linetest.Only64(t)
	var b barrier
	if end := unsafe.Offsetof(b.round) + unsafe.Sizeof(b.round); end > 64 {
		t.Errorf("the round ends at byte %d of the barrier, past its first line", end)
	}
	if n := unsafe.Sizeof(b); n%64 != 0 {
		t.Errorf("barrier of %d bytes: not a multiple of 64", n)
	}
	p := newBarrier(spinning{})
	if a := uintptr(unsafe.Pointer(p)) % 64; a != 0 {
		t.Errorf("barrier allocated %d bytes past a 64-byte boundary", a)
	}
}

// A box's receiver keeps what it took on a line of its own, and the
// box spans whole lines: a receiver looking at an empty box writes
// nothing the sender reads.
func TestBoxLines(t *testing.T) {
	linetest.Only64(t)
	var b Box[int]
	if o := unsafe.Offsetof(b.taken); o != 64 {
		t.Errorf("the receiver's slice at byte %d, not on the second line", o)
	}
	if n := unsafe.Sizeof(b); n != 128 {
		t.Errorf("box of %d bytes, not two lines", n)
	}
}

// A worker's end of a round lies on the first line of its part's state,
// with what the coordinator reads of the part and of the worker next:
// waiting for it takes one line from the worker's core, not a shared
// counter's, then the part's, then the worker's accounts'. What a linked
// part writes at every publication lies on the state's second line.
func TestPartStateLine(t *testing.T) {
	linetest.Only64(t)
	var p partState
	linetest.In(t, "partState", 0, []linetest.Field{
		linetest.At("done", unsafe.Offsetof(p.done), unsafe.Sizeof(p.done), 0),
		linetest.At("next", unsafe.Offsetof(p.next), unsafe.Sizeof(p.next), 0),
		linetest.At("executed", unsafe.Offsetof(p.executed), unsafe.Sizeof(p.executed), 0),
		linetest.At("before", unsafe.Offsetof(p.before), unsafe.Sizeof(p.before), 0),
		linetest.At("acct", unsafe.Offsetof(p.acct), unsafe.Sizeof(p.acct), 0),
		linetest.At("pub", unsafe.Offsetof(p.pub), unsafe.Sizeof(p.pub), 1),
		linetest.At("waitAt", unsafe.Offsetof(p.waitAt), unsafe.Sizeof(p.waitAt), 1),
	})
	if n := unsafe.Sizeof(p); n != 128 {
		t.Errorf("partState of %d bytes, not two lines", n)
	}
}

// What the workers read of the run every round (the parts' states, the
// parts, the clock, how to wait) lies on lines the coordinator does not
// write while rounds run: the statistics it books every round, and what
// it writes after them (the round count, the earliest post, the control
// side's share), begin on a line past them where the heap places a
// Windows (8 bytes into a line, after Go's type header).
func TestWindowsLines(t *testing.T) {
	var w Windows
	base := linetest.HeapOffset(t, "Windows", func() unsafe.Pointer { return unsafe.Pointer(&Windows{}) })
	stats := (base + unsafe.Offsetof(w.stats)) / linetest.Size
	for _, f := range []struct {
		name   string
		at, sz uintptr
	}{
		{"Parts", unsafe.Offsetof(w.Parts), unsafe.Sizeof(w.Parts)},
		{"Clock", unsafe.Offsetof(w.Clock), unsafe.Sizeof(w.Clock)},
		{"parts", unsafe.Offsetof(w.parts), unsafe.Sizeof(w.parts)},
		{"spin", unsafe.Offsetof(w.spin), unsafe.Sizeof(w.spin)},
		{"spinTest", unsafe.Offsetof(w.spinTest), unsafe.Sizeof(w.spinTest)},
	} {
		if last := (base + f.at + f.sz - 1) / linetest.Size; last >= stats {
			t.Errorf("Windows.%s at bytes %d-%d ends in line %d, where stats (byte %d) begins in line %d (the Windows at byte %d of a line)",
				f.name, f.at, f.at+f.sz-1, last, unsafe.Offsetof(w.stats), stats, base)
		}
	}
}
