// Package linetest checks, for the simulator's layout tests, where fields
// lie on 64-byte cache lines. The layouts are drawn for 64-bit platforms
// (amd64, arm64), whose gc sizes and alignments are the same; on a 32-bit
// one pointers and ints are 4 bytes and Go's allocator puts its type
// header before objects of 128 bytes or more instead of 512, so a layout
// test there is skipped rather than failed.
package linetest

import (
	"testing"
	"unsafe"
)

// Size is the cache line the layouts are drawn for.
const Size = 64

// Field is a field's place in a struct and the line, counted from the
// struct's first, that it must lie in.
type Field struct {
	Name     string
	Off, Len uintptr
	Line     uintptr
}

// Only64 skips t on a 32-bit platform.
func Only64(t testing.TB) {
	t.Helper()
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the layouts are drawn for 64-bit platforms")
	}
}

// Whole fails t unless a struct of size bytes is a whole number of lines,
// so that in an array every element starts where the first does.
func Whole(t testing.TB, typ string, size uintptr) {
	t.Helper()
	Only64(t)
	if size%Size != 0 {
		t.Errorf("%s is %d bytes, not a whole number of %d-byte lines: pad it to %d", typ, size, Size, (size+Size-1)/Size*Size)
	}
}

// In fails t unless each field lies within its line of a struct that
// starts at byte base of a line (0 when it starts on one).
func In(t testing.TB, typ string, base uintptr, fields []Field) {
	t.Helper()
	Only64(t)
	for _, f := range fields {
		first, last := (base+f.Off)/Size, (base+f.Off+f.Len-1)/Size
		if first != f.Line || last != f.Line {
			t.Errorf("%s.%s lies in lines %d-%d (bytes %d-%d, the struct at byte %d of a line), want line %d",
				typ, f.Name, first, last, f.Off, f.Off+f.Len-1, base, f.Line)
		}
	}
}

// At returns the field name, of n bytes at off, that must lie in line.
func At(name string, off, n, line uintptr) Field {
	return Field{Name: name, Off: off, Len: n, Line: line}
}

// HeapOffset returns where in a cache line the objects alloc allocates
// one at a time start, failing t unless every one starts there. A
// pointer-holding object of more than 512 bytes follows an 8-byte type
// header in its slot (Go 1.22 on), and the slots of its size class are
// whole lines: such an object starts 8 bytes into a line, so its first
// line holds 56 of its bytes.
func HeapOffset(t testing.TB, typ string, alloc func() unsafe.Pointer) uintptr {
	t.Helper()
	Only64(t)
	at := uintptr(alloc()) % Size
	for range 8 {
		if a := uintptr(alloc()) % Size; a != at {
			t.Fatalf("%s objects start at bytes %d and %d of a line", typ, at, a)
		}
	}
	return at
}
