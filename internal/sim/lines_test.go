package sim

import (
	"testing"
	"unsafe"
)

// The start barrier's round lies on its counter's cache line, and the
// barrier's size is a multiple of 64 bytes, a size class whose objects
// Go's allocator places on 64-byte boundaries: a waiter that sees the
// counter move fetches one line from the setter's core, not two.
func TestBarrierLine(t *testing.T) {
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
	var b Box[int]
	if o := unsafe.Offsetof(b.taken); o != 64 {
		t.Errorf("the receiver's slice at byte %d, not on the second line", o)
	}
	if n := unsafe.Sizeof(b); n != 128 {
		t.Errorf("box of %d bytes, not two lines", n)
	}
}
