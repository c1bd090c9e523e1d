package cc

import (
	"testing"
	"unsafe"
)

// TestDCQCNSendLine checks that what every packet a DCQCN QP sends reads
// (Rate, OnSend, NextDeadline: the rate, the two timers, the byte counter
// and whether it counts) lies in a DCQCN's first 42 bytes, which the NIC
// keeps in one line of its QP (nic's TestQPSendLines). With the compiled
// parameters first, they lay 136 to 249 bytes in, over two lines.
func TestDCQCNSendLine(t *testing.T) {
	var q DCQCN
	for _, f := range []struct {
		name     string
		off, len uintptr
	}{
		{"rc", unsafe.Offsetof(q.rc), unsafe.Sizeof(q.rc)},
		{"rt", unsafe.Offsetof(q.rt), unsafe.Sizeof(q.rt)},
		{"decAt", unsafe.Offsetof(q.decAt), unsafe.Sizeof(q.decAt)},
		{"incAt", unsafe.Offsetof(q.incAt), unsafe.Sizeof(q.incAt)},
		{"bytes", unsafe.Offsetof(q.bytes), unsafe.Sizeof(q.bytes)},
		{"counting", unsafe.Offsetof(q.counting), 1},
		{"active", unsafe.Offsetof(q.active), 1},
	} {
		if end := f.off + f.len; end > 42 {
			t.Errorf("DCQCN.%s lies at bytes %d-%d, want within the first 42", f.name, f.off, end-1)
		}
	}
}
