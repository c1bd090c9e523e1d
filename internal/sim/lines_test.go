package sim

import (
	"testing"
	"unsafe"
)

// wordsOf64Bits skips a layout test where a word is not 8 bytes: the
// paddings are sized for the 64-bit targets the engine is tuned on
// (amd64, arm64, whose Go cache line is 64 bytes), and on a 32-bit one
// the fields move without a wrong result.
func wordsOf64Bits(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("paddings sized for 8-byte words")
	}
}

// The start barrier's round lies on its counter's cache line, and the
// barrier's size is a multiple of 64 bytes, a size class whose objects
// Go's allocator places on 64-byte boundaries: a waiter that sees the
// counter move fetches one line from the setter's core, not two.
func TestBarrierLine(t *testing.T) {
	wordsOf64Bits(t)
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
	wordsOf64Bits(t)
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
	wordsOf64Bits(t)
	var p partState
	for _, f := range []struct {
		name   string
		at, sz uintptr
		line   uintptr
	}{
		{"done", unsafe.Offsetof(p.done), unsafe.Sizeof(p.done), 0},
		{"next", unsafe.Offsetof(p.next), unsafe.Sizeof(p.next), 0},
		{"executed", unsafe.Offsetof(p.executed), unsafe.Sizeof(p.executed), 0},
		{"before", unsafe.Offsetof(p.before), unsafe.Sizeof(p.before), 0},
		{"acct", unsafe.Offsetof(p.acct), unsafe.Sizeof(p.acct), 0},
		{"pub", unsafe.Offsetof(p.pub), unsafe.Sizeof(p.pub), 1},
		{"waitAt", unsafe.Offsetof(p.waitAt), unsafe.Sizeof(p.waitAt), 1},
	} {
		if f.at/64 != f.line || (f.at+f.sz-1)/64 != f.line {
			t.Errorf("partState.%s at bytes %d-%d, not on line %d", f.name, f.at, f.at+f.sz-1, f.line)
		}
	}
	if n := unsafe.Sizeof(p); n != 128 {
		t.Errorf("partState of %d bytes, not two lines", n)
	}
}

// What the workers read of the run every round (the parts' states, the
// parts, the clock, how to wait) lies on lines the coordinator does not
// write while rounds run: the statistics it books every round, and what
// it writes after them (the round count, the earliest post, the control
// side's share), begin on a line of their own.
func TestWindowsLines(t *testing.T) {
	wordsOf64Bits(t)
	var w Windows
	stats := unsafe.Offsetof(w.stats)
	if stats%64 != 0 {
		t.Errorf("Windows.stats at byte %d, not at a line's start", stats)
	}
	for _, f := range []struct {
		name   string
		at, sz uintptr
	}{
		{"Parts", unsafe.Offsetof(w.Parts), unsafe.Sizeof(w.Parts)},
		{"Clock", unsafe.Offsetof(w.Clock), unsafe.Sizeof(w.Clock)},
		{"parts", unsafe.Offsetof(w.parts), unsafe.Sizeof(w.parts)},
		{"spin", unsafe.Offsetof(w.spin), unsafe.Sizeof(w.spin)},
	} {
		if f.at+f.sz > stats {
			t.Errorf("Windows.%s at bytes %d-%d, past stats (%d)", f.name, f.at, f.at+f.sz-1, stats)
		}
	}
	if n := unsafe.Sizeof(w); n <= 512 {
		t.Errorf("Windows of %d bytes: Go's size class for it may not start on a line", n)
	}
}
