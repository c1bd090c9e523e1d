package prefetch

import (
	"testing"
	"unsafe"
)

type handler interface{ Handle() }

type port struct{ x [128]byte }

func (*port) Handle() {}

// TestOf: the data word of an interface holding a pointer is the
// pointer, for an empty and a non-empty interface alike.
func TestOf(t *testing.T) {
	p := &port{}
	var h handler = p
	var a any = p
	if got := Of(unsafe.Pointer(&h)); got != unsafe.Pointer(p) {
		t.Errorf("Of(handler) = %p, want %p", got, p)
	}
	if got := Of(unsafe.Pointer(&a)); got != unsafe.Pointer(p) {
		t.Errorf("Of(any) = %p, want %p", got, p)
	}
}

// TestLineNeverFaults: a prefetch is a hint; nil, odd and unmapped
// addresses must not fault.
func TestLineNeverFaults(t *testing.T) {
	p := &port{}
	for _, a := range []uintptr{0, 1, uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(p)) + 64, 1 << 46} {
		Line(a)
		Object(a, a)
		Object(0, a)
	}
}
