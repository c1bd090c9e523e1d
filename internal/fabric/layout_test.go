package fabric

import (
	"testing"
	"unsafe"
)

// TestPortHotLines checks the layout the event loop counts on: the state
// every frame reads lies in the port's first two cache lines, and ports
// in an array start on a line boundary (a size that is a multiple of 64),
// so that the two lines the scheduler fetches ahead are the right ones.
func TestPortHotLines(t *testing.T) {
	var p Port
	if n := unsafe.Sizeof(p); n%64 != 0 {
		t.Errorf("Port is %d bytes, not a whole number of 64-byte lines: pad it to %d", n, (n+63)/64*64)
	}
	for _, f := range []struct {
		name     string
		off, len uintptr
		line     uintptr
	}{
		{"tx", unsafe.Offsetof(p.tx), unsafe.Sizeof(p.tx), 0},
		{"rx", unsafe.Offsetof(p.rx), unsafe.Sizeof(p.rx), 0},
		{"busyUntil", unsafe.Offsetof(p.busyUntil), unsafe.Sizeof(p.busyUntil), 0},
		{"sending", unsafe.Offsetof(p.sending), unsafe.Sizeof(p.sending), 0},
		{"storm", unsafe.Offsetof(p.storm), unsafe.Sizeof(p.storm), 0},
		{"egress", unsafe.Offsetof(p.egress), unsafe.Sizeof(p.egress), 1},
		{"node", unsafe.Offsetof(p.node), unsafe.Sizeof(p.node), 1},
		{"loss", unsafe.Offsetof(p.loss), unsafe.Sizeof(p.loss), 1},
	} {
		if first, last := f.off/64, (f.off+f.len-1)/64; first != f.line || last != f.line {
			t.Errorf("Port.%s lies in lines %d-%d, want line %d", f.name, first, last, f.line)
		}
	}
}

// TestSwitchEgressLines checks the switch egress layout that a dequeue
// counts on: busy bits and the scheduler's round state in the first line,
// each queue within one line, and a size of whole lines.
func TestSwitchEgressLines(t *testing.T) {
	var e switchEgress
	if n := unsafe.Sizeof(e); n%64 != 0 {
		t.Errorf("switchEgress is %d bytes, not a whole number of 64-byte lines: pad it to %d", n, (n+63)/64*64)
	}
	for _, f := range []struct {
		name     string
		off, len uintptr
	}{
		{"busy", unsafe.Offsetof(e.busy), 1},
		{"ets.strict", unsafe.Offsetof(e.ets) + unsafe.Offsetof(e.ets.strict), 1},
		{"ets.rr", unsafe.Offsetof(e.ets) + unsafe.Offsetof(e.ets.rr), unsafe.Sizeof(e.ets.rr)},
		{"ets.credited", unsafe.Offsetof(e.ets) + unsafe.Offsetof(e.ets.credited), 1},
	} {
		if f.off/64 != 0 || (f.off+f.len-1)/64 != 0 {
			t.Errorf("switchEgress.%s at byte %d is not in the first line", f.name, f.off)
		}
	}
	for i := range e.q {
		off := unsafe.Offsetof(e.q) + uintptr(i)*unsafe.Sizeof(e.q[i])
		if off/64 != (off+unsafe.Sizeof(e.q[i])-1)/64 {
			t.Errorf("queue %d at bytes %d-%d crosses a line", i, off, off+unsafe.Sizeof(e.q[i])-1)
		}
	}
}
