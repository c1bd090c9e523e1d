package nic

import (
	"reflect"
	"testing"
	"unsafe"

	"rocelab/internal/sim"
)

// field is a field's place in a struct and the cache line of the object,
// as the heap places it, that it must lie in.
type field struct {
	name     string
	off, len uintptr
	line     uintptr
}

// heapOffset returns where in a cache line the objects alloc allocates
// one at a time (as New and Connect allocate NICs and QPs) start. A
// pointer-holding object of more than 512 bytes follows an 8-byte type
// header in its slot (Go 1.22 on), and the slots of its size class are
// whole lines: such an object starts 8 bytes into a line, so its first
// line holds 56 of its bytes.
func heapOffset(t *testing.T, typ string, alloc func() unsafe.Pointer) uintptr {
	t.Helper()
	at := uintptr(alloc()) % 64
	for i := 0; i < 8; i++ {
		if a := uintptr(alloc()) % 64; a != at {
			t.Fatalf("%s objects start at bytes %d and %d of a line", typ, at, a)
		}
	}
	return at
}

// checkLines fails t unless each field lies within its line of an object
// that starts at byte base of a line.
func checkLines(t *testing.T, typ string, base uintptr, fields []field) {
	t.Helper()
	for _, f := range fields {
		first, last := (base+f.off)/64, (base+f.off+f.len-1)/64
		if first != f.line || last != f.line {
			t.Errorf("%s.%s lies in lines %d-%d (bytes %d-%d, the object at byte %d of a line), want line %d",
				typ, f.name, first, last, f.off, f.off+f.len-1, base, f.line)
		}
	}
}

// TestQPSendLines checks what a data packet's send reads of its QP past
// the send state (lines 0-6): whether it has sent before, in line 0; the
// retransmission timer's armed bit, the controller's timer's and DCQCN's
// rate and timers (the first fields of a DCQCN, cc's TestDCQCNSendLine)
// in lines 6 to 8; and what a data packet's receipt reads first
// (expected PSN, reordering seen) in one line. A send read lines 8, 11,
// 12, 14 and 18 for these.
func TestQPSendLines(t *testing.T) {
	var q qp
	base := heapOffset(t, "qp", func() unsafe.Pointer { return unsafe.Pointer(&qp{}) })
	rto, ccTimer := unsafe.Offsetof(q.rto), unsafe.Offsetof(q.ccTimer)
	armed, ok := reflect.TypeFor[sim.Timer]().FieldByName("armed")
	if !ok {
		t.Fatal("sim.Timer has no field armed")
	}
	dcqcn := unsafe.Offsetof(q.dcqcn)
	fields := []field{
		{"failed", unsafe.Offsetof(q.failed), 1, 0},
		{"posted", unsafe.Offsetof(q.posted), 1, 0},
		{"rto.armed", rto + armed.Offset, 1, 6},
		{"ccTimer.armed", ccTimer + armed.Offset, 1, 7},
		{"dcqcn's send fields", dcqcn, 42, 8},
		{"ePSN", unsafe.Offsetof(q.ePSN), unsafe.Sizeof(q.ePSN), 15},
		{"seenAny", unsafe.Offsetof(q.seenAny), 1, 15},
		{"maxSeen", unsafe.Offsetof(q.maxSeen), unsafe.Sizeof(q.maxSeen), 15},
		{"sinceAck", unsafe.Offsetof(q.sinceAck), unsafe.Sizeof(q.sinceAck), 15},
		{"msgBytes", unsafe.Offsetof(q.msgBytes), unsafe.Sizeof(q.msgBytes), 15},
		{"delivered", unsafe.Offsetof(q.delivered), unsafe.Sizeof(q.delivered), 15},
		{"lastDeliv", unsafe.Offsetof(q.lastDeliv), unsafe.Sizeof(q.lastDeliv), 15},
		{"ooo", unsafe.Offsetof(q.ooo), 1, 15},
		{"rob (its pointer)", unsafe.Offsetof(q.rob), 8, 15},
	}
	checkLines(t, "qp", base, fields)
}

// TestNICSendLine checks that what every frame a NIC sends or receives
// reads of it (domain, configuration, port, event key, ETS state, busy
// classes, host id, the QPs a receipt looks up) lies in its first line.
func TestNICSendLine(t *testing.T) {
	var n NIC
	base := heapOffset(t, "NIC", func() unsafe.Pointer { return unsafe.Pointer(&NIC{}) })
	fields := []field{
		{"dom", unsafe.Offsetof(n.dom), unsafe.Sizeof(n.dom), 0},
		{"cfg", unsafe.Offsetof(n.cfg), unsafe.Sizeof(n.cfg), 0},
		{"port", unsafe.Offsetof(n.port), unsafe.Sizeof(n.port), 0},
		{"key", unsafe.Offsetof(n.key), unsafe.Sizeof(n.key), 0},
		{"ets", unsafe.Offsetof(n.ets), unsafe.Sizeof(n.ets), 0},
		{"busy", unsafe.Offsetof(n.busy), 1, 0},
		{"id", unsafe.Offsetof(n.id), unsafe.Sizeof(n.id), 0},
		{"qps (pointer and length)", unsafe.Offsetof(n.qps), 16, 0},
	}
	checkLines(t, "NIC", base, fields)
}
