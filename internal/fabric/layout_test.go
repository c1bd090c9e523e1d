package fabric

import (
	"fmt"
	"testing"
	"unsafe"

	"rocelab/internal/linetest"
)

// checkLines fails t unless a struct of size bytes is a whole number of
// lines and each field lies within its line.
func checkLines(t *testing.T, typ string, size uintptr, fields []linetest.Field) {
	t.Helper()
	linetest.Whole(t, typ, size)
	linetest.In(t, typ, 0, fields)
}

// TestPortHotLines checks the layout the event loop counts on: what a
// frame's send reads of the sending port (a switch's forward straight to
// the line included, with the serialisation memo) lies in its first line
// and what its arrival reads in its second (with the rate, which a NIC's
// pacing reads after its look at the egress), ports in an array start on
// a line boundary, so that the two
// lines the scheduler fetches ahead are the right ones; each priority's
// receive counts, buffer use and XOFF state lie in one line.
func TestPortHotLines(t *testing.T) {
	var p Port
	fields := []linetest.Field{
		linetest.At("tx", unsafe.Offsetof(p.tx), unsafe.Sizeof(p.tx), 0),
		linetest.At("dom", unsafe.Offsetof(p.dom), unsafe.Sizeof(p.dom), 0),
		linetest.At("key", unsafe.Offsetof(p.key), unsafe.Sizeof(p.key), 0),
		linetest.At("busyUntil", unsafe.Offsetof(p.busyUntil), unsafe.Sizeof(p.busyUntil), 0),
		linetest.At("txLast", unsafe.Offsetof(p.txLast), unsafe.Sizeof(p.txLast), 0),
		linetest.At("delay", unsafe.Offsetof(p.delay), unsafe.Sizeof(p.delay), 0),
		linetest.At("jitter", unsafe.Offsetof(p.jitter), unsafe.Sizeof(p.jitter), 0),
		linetest.At("index", unsafe.Offsetof(p.index), unsafe.Sizeof(p.index), 0),
		linetest.At("pausing", unsafe.Offsetof(p.pausing), 1, 0),
		linetest.At("storm", unsafe.Offsetof(p.storm), 1, 0),
		linetest.At("txQueued", unsafe.Offsetof(p.txQueued), 1, 0),
		linetest.At("sending", unsafe.Offsetof(p.sending), 1, 0),
		linetest.At("hooks", unsafe.Offsetof(p.hooks), 1, 0),
		linetest.At("ctrlQueued", unsafe.Offsetof(p.ctrlQueued), 1, 0),
		linetest.At("rx", unsafe.Offsetof(p.rx), unsafe.Sizeof(p.rx), 1),
		linetest.At("egress", unsafe.Offsetof(p.egress), unsafe.Sizeof(p.egress), 1),
		linetest.At("node", unsafe.Offsetof(p.node), unsafe.Sizeof(p.node), 1),
		linetest.At("loss", unsafe.Offsetof(p.loss), unsafe.Sizeof(p.loss), 1),
		linetest.At("rate", unsafe.Offsetof(p.rate), unsafe.Sizeof(p.rate), 1),
	}
	for i := range p.rxPrio {
		off := unsafe.Offsetof(p.rxPrio) + uintptr(i)*unsafe.Sizeof(p.rxPrio[i])
		fields = append(fields, linetest.At("rxPrio["+string(rune('0'+i))+"]", off, unsafe.Sizeof(p.rxPrio[i]), off/64))
	}
	checkLines(t, "Port", unsafe.Sizeof(p), fields)
}

// TestSwitchEgressLines checks the switch egress layout that a frame's
// enqueue and dequeue count on: the busy bits and the scheduler's round
// state in the first line, each class (queue, DWRR state, largest depth)
// within one line of its own, and a size of whole lines.
func TestSwitchEgressLines(t *testing.T) {
	var e switchEgress
	ets := unsafe.Offsetof(e.ets)
	fields := []linetest.Field{
		linetest.At("busy", unsafe.Offsetof(e.busy), 1, 0),
		linetest.At("red", unsafe.Offsetof(e.red), unsafe.Sizeof(e.red), 0),
		linetest.At("ets", ets, unsafe.Sizeof(e.ets), 0),
		linetest.At("routed", unsafe.Offsetof(e.routed), unsafe.Sizeof(e.routed), 0),
	}
	for i := range e.cls {
		off := unsafe.Offsetof(e.cls) + uintptr(i)*unsafe.Sizeof(e.cls[i])
		fields = append(fields, linetest.At("cls["+string(rune('0'+i))+"]", off, unsafe.Sizeof(e.cls[i]), uintptr(i)+1))
	}
	checkLines(t, "switchEgress", unsafe.Sizeof(e), fields)
}

// TestLinkLines checks that what a frame's send and arrival read of a
// link direction, the sender's jitter state included, lies in its first
// line, the receiving node in its second, which the event loop fetches
// ahead of an arrival with the first, and that both directions of a link
// start on a line.
func TestLinkLines(t *testing.T) {
	var l Link
	var d linkDir
	checkLines(t, "linkDir", unsafe.Sizeof(d), []linetest.Field{
		linetest.At("wire", unsafe.Offsetof(d.wire), unsafe.Sizeof(d.wire), 0),
		linetest.At("key", unsafe.Offsetof(d.key), unsafe.Sizeof(d.key), 0),
		linetest.At("to", unsafe.Offsetof(d.to), unsafe.Sizeof(d.to), 0),
		linetest.At("lastArrival", unsafe.Offsetof(d.lastArrival), unsafe.Sizeof(d.lastArrival), 0),
		linetest.At("jsrc", unsafe.Offsetof(d.jsrc), unsafe.Sizeof(d.jsrc), 0),
		linetest.At("cut", unsafe.Offsetof(d.cut), 1, 0),
		linetest.At("down", unsafe.Offsetof(d.down), 1, 0),
		linetest.At("rxHooks", unsafe.Offsetof(d.rxHooks), 1, 0),
		linetest.At("node", unsafe.Offsetof(d.node), unsafe.Sizeof(d.node), 1),
	})
	checkLines(t, "Link", unsafe.Sizeof(l), []linetest.Field{
		linetest.At("dir[0]", unsafe.Offsetof(l.dir), 1, 0),
		linetest.At("dir[1]", unsafe.Offsetof(l.dir)+unsafe.Sizeof(l.dir[0]), 1, unsafe.Sizeof(l.dir[0])/64),
	})
}

// TestSwitchHotLines checks the switch layout a frame's hop counts on:
// what routing reads in the first two lines, the classifier and what
// admission and release read of the buffer in the third.
func TestSwitchHotLines(t *testing.T) {
	var s Switch
	b := unsafe.Offsetof(s.buf)
	r := unsafe.Offsetof(s.routes)
	fields := []linetest.Field{
		linetest.At("egress0", unsafe.Offsetof(s.egress0), unsafe.Sizeof(s.egress0), 0),
		linetest.At("port", unsafe.Offsetof(s.port), unsafe.Sizeof(s.port), 0),
		linetest.At("routes.hosts", r+unsafe.Offsetof(s.routes.hosts), unsafe.Sizeof(s.routes.hosts), 0),
		linetest.At("routes.runs", r+unsafe.Offsetof(s.routes.runs), unsafe.Sizeof(s.routes.runs), 0),
		linetest.At("routes.cand", r+unsafe.Offsetof(s.routes.cand), unsafe.Sizeof(s.routes.cand), 1),
		linetest.At("routes.at", r+unsafe.Offsetof(s.routes.at), unsafe.Sizeof(s.routes.at), 1),
		linetest.At("seed", unsafe.Offsetof(s.seed), unsafe.Sizeof(s.seed), 1),
		linetest.At("lossless", unsafe.Offsetof(s.lossless), 1, 1),
		linetest.At("ecnAtEnqueue", unsafe.Offsetof(s.ecnAtEnqueue), 1, 1),
		linetest.At("hashFields", unsafe.Offsetof(s.hashFields), 1, 1),
		linetest.At("stages", unsafe.Offsetof(s.stages), 1, 1),
		linetest.At("classifier", unsafe.Offsetof(s.classifier), unsafe.Sizeof(s.classifier), 2),
		linetest.At("buf.sharedSize", b+unsafe.Offsetof(s.buf.sharedSize), 8, 2),
		linetest.At("buf.sharedUsed", b+unsafe.Offsetof(s.buf.sharedUsed), 8, 2),
		linetest.At("buf.reserve", b+unsafe.Offsetof(s.buf.reserve), 8, 2),
		linetest.At("buf.static", b+unsafe.Offsetof(s.buf.static), 8, 2),
		linetest.At("buf.alpha", b+unsafe.Offsetof(s.buf.alpha), 8, 2),
		linetest.At("buf.portAlpha", b+unsafe.Offsetof(s.buf.portAlpha), 16, 2), // its pointer and length
	}
	checkLines(t, "Switch", unsafe.Sizeof(s), fields)
}

// TestSlabLines checks that the lines the tests above lay out are the
// machine's: every switch, port and switch egress of a network starts on
// a cache line, whatever the switch's port count (alone or in an array
// of under 32 KiB, each started 8 bytes into a line, after Go's type
// header).
func TestSlabLines(t *testing.T) {
	linetest.Only64(t)
	net := NewNetwork(1, 2)
	var ports []*Port
	for i, n := range []int{1, 4, 8, 12, 13, 16, 32, 48, 64, 3} {
		d := net.Domains[i%2]
		s := net.NewSwitch(d, fmt.Sprintf("s%d", i), n, SwitchConfig{})
		if a := uintptr(unsafe.Pointer(s)); a%64 != 0 {
			t.Errorf("switch %d (%d ports) at byte %d of a line", i, n, a%64)
		}
		for j := range s.port {
			ports = append(ports, &s.port[j])
			if a := uintptr(unsafe.Pointer(&s.egress[j])); a%64 != 0 {
				t.Errorf("switch %d (%d ports): egress %d at byte %d of a line", i, n, j, a%64)
			}
		}
		ports = append(ports, net.NewPort(d, s, s.id, n))
	}
	for _, pt := range ports {
		if a := uintptr(unsafe.Pointer(pt)); a%64 != 0 {
			t.Errorf("port %s at byte %d of a line", pt.Name(), a%64)
		}
	}
}

// TestEgressOf checks that the egress a hop reaches by its out port's
// index from the switch's first line is that port's own.
func TestEgressOf(t *testing.T) {
	net := NewNetwork(1, 1)
	s := net.NewSwitch(net.Domains[0], "s", 48, SwitchConfig{})
	for i := range s.port {
		if got, want := s.egressOf(&s.port[i]), &s.egress[i]; got != want || s.port[i].egress != Egress(want) {
			t.Fatalf("port %d: egress %p, want %p", i, got, want)
		}
	}
}
