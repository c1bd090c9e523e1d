package nic

import (
	"reflect"
	"testing"
	"unsafe"

	"rocelab/internal/linetest"
	"rocelab/internal/sim"
)

// TestQPSendLines checks what a data packet's send reads of its QP past
// the send state (lines 0-6): whether it has sent before, in line 0; the
// retransmission timer's armed bit, the controller's timer's and DCQCN's
// rate and timers (the first fields of a DCQCN, cc's TestDCQCNSendLine)
// in lines 6 to 8; and what a data packet's receipt reads first
// (expected PSN, reordering seen) in one line. A send read lines 8, 11,
// 12, 14 and 18 for these.
func TestQPSendLines(t *testing.T) {
	var q qp
	base := linetest.HeapOffset(t, "qp", func() unsafe.Pointer { return unsafe.Pointer(&qp{}) })
	rto, ccTimer := unsafe.Offsetof(q.rto), unsafe.Offsetof(q.ccTimer)
	armed, ok := reflect.TypeFor[sim.Timer]().FieldByName("armed")
	if !ok {
		t.Fatal("sim.Timer has no field armed")
	}
	dcqcn := unsafe.Offsetof(q.dcqcn)
	fields := []linetest.Field{
		linetest.At("failed", unsafe.Offsetof(q.failed), 1, 0),
		linetest.At("posted", unsafe.Offsetof(q.posted), 1, 0),
		linetest.At("rto.armed", rto+armed.Offset, 1, 6),
		linetest.At("ccTimer.armed", ccTimer+armed.Offset, 1, 7),
		linetest.At("dcqcn's send fields", dcqcn, 42, 8),
		linetest.At("ePSN", unsafe.Offsetof(q.ePSN), unsafe.Sizeof(q.ePSN), 15),
		linetest.At("seenAny", unsafe.Offsetof(q.seenAny), 1, 15),
		linetest.At("maxSeen", unsafe.Offsetof(q.maxSeen), unsafe.Sizeof(q.maxSeen), 15),
		linetest.At("sinceAck", unsafe.Offsetof(q.sinceAck), unsafe.Sizeof(q.sinceAck), 15),
		linetest.At("msgBytes", unsafe.Offsetof(q.msgBytes), unsafe.Sizeof(q.msgBytes), 15),
		linetest.At("delivered", unsafe.Offsetof(q.delivered), unsafe.Sizeof(q.delivered), 15),
		linetest.At("lastDeliv", unsafe.Offsetof(q.lastDeliv), unsafe.Sizeof(q.lastDeliv), 15),
		linetest.At("ooo", unsafe.Offsetof(q.ooo), 1, 15),
		linetest.At("rob (its pointer)", unsafe.Offsetof(q.rob), 8, 15),
	}
	linetest.In(t, "qp", base, fields)
}

// TestNICSendLine checks that what every frame a NIC sends or receives
// reads of it (domain, configuration, port, event key, ETS state, busy
// classes, host id, the QPs a receipt looks up) lies in its first line.
func TestNICSendLine(t *testing.T) {
	var n NIC
	base := linetest.HeapOffset(t, "NIC", func() unsafe.Pointer { return unsafe.Pointer(&NIC{}) })
	fields := []linetest.Field{
		linetest.At("dom", unsafe.Offsetof(n.dom), unsafe.Sizeof(n.dom), 0),
		linetest.At("cfg", unsafe.Offsetof(n.cfg), unsafe.Sizeof(n.cfg), 0),
		linetest.At("port", unsafe.Offsetof(n.port), unsafe.Sizeof(n.port), 0),
		linetest.At("key", unsafe.Offsetof(n.key), unsafe.Sizeof(n.key), 0),
		linetest.At("ets", unsafe.Offsetof(n.ets), unsafe.Sizeof(n.ets), 0),
		linetest.At("busy", unsafe.Offsetof(n.busy), 1, 0),
		linetest.At("id", unsafe.Offsetof(n.id), unsafe.Sizeof(n.id), 0),
		linetest.At("qps (pointer and length)", unsafe.Offsetof(n.qps), 16, 0),
	}
	linetest.In(t, "NIC", base, fields)
}

// A part's boxes begin lines and the part is whole lines, and a domain's
// mailbox is a line: what two workers write never shares a line.
func TestPartLines(t *testing.T) {
	var p Part
	linetest.Whole(t, "Part", unsafe.Sizeof(p))
	for _, f := range []struct {
		name string
		at   uintptr
	}{{"posts", unsafe.Offsetof(p.posts)}, {"comps", unsafe.Offsetof(p.comps)}} {
		if f.at%linetest.Size != 0 {
			t.Errorf("Part.%s at byte %d, not at a line's start", f.name, f.at)
		}
	}
	if n := unsafe.Sizeof(mailbox{}); n != linetest.Size {
		t.Errorf("mailbox of %d bytes, not a line", n)
	}
}
