package nic

import (
	"testing"
	"unsafe"
)

// A part's boxes begin lines and the part is whole lines, and a domain's
// mailbox is a line: what two workers write never shares a line.
func TestPartLines(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("paddings sized for 8-byte words (sim's wordsOf64Bits)")
	}
	var p Part
	if n := unsafe.Sizeof(p); n%64 != 0 {
		t.Errorf("Part of %d bytes: not a multiple of 64", n)
	}
	for _, f := range []struct {
		name string
		at   uintptr
	}{{"posts", unsafe.Offsetof(p.posts)}, {"comps", unsafe.Offsetof(p.comps)}} {
		if f.at%64 != 0 {
			t.Errorf("Part.%s at byte %d, not at a line's start", f.name, f.at)
		}
	}
	if n := unsafe.Sizeof(mailbox{}); n != 64 {
		t.Errorf("mailbox of %d bytes, not a line", n)
	}
}
