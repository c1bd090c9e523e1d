package fabric

import (
	"unsafe"

	"rocelab/internal/packet"
	"rocelab/internal/prefetch"
)

// switchEgress holds one switch port's eight queues and its ETS
// scheduler.
type switchEgress struct {
	// The first line holds what every dequeue reads first (the busy bits
	// and the scheduler's round state); each class, its queue with its
	// DWRR state and its largest depth, fills one line of its own, so that
	// a frame's enqueue and dequeue read two lines of the egress; the
	// size is a whole number of lines, so that every port's egress in a
	// switch's array starts on a line (TestSwitchEgressLines), as the
	// array does (Network.egresses, TestSlabLines).
	sw      *Switch
	red     *[8]RED // the port's marking profiles: cfg.ECN or its rate's
	busy    uint8   // priorities with packets queued
	watched uint8   // priorities the sampler visits (see sampler)
	ets     ETS
	port    int32
	routed  int64 // the frame bytes forwarded out of the port
	_       [24]byte
	cls     [8]egressClass
}

// egressClass is one priority's queue at a switch egress, in one line.
type egressClass struct {
	q        packet.Queue
	dwrr     DWRR
	maxBytes int64 // the largest depth the queue reached
	// sent counts the RoCE frames the port sent of this priority, in the
	// line their dequeue, or their pass through an empty egress, touches
	// anyway; the port's own counts (txc) lie a line beyond.
	sent traffic
}

// count books p, which leaves the port pt from this class, as sent:
// a RoCE frame in the class's line, another in the port's own counts.
func (c *egressClass) count(pt *Port, p *packet.Packet) {
	if p.Class == packet.ClassRoCE {
		c.sent.add(p.Frame)
		return
	}
	pt.txCount(p).add(p.Frame)
}

// Head implements HeadSizer.
func (e *switchEgress) Head(prio int) (int64, *DWRR) {
	c := &e.cls[prio]
	return int64(c.q.Head().Frame), &c.dwrr
}

// Dequeue implements Egress.
func (e *switchEgress) Dequeue(pt *Port, paused uint8) (*packet.Packet, bool) {
	ready := e.busy &^ paused
	if ready == 0 {
		return nil, false
	}
	p := e.pop(pt, e.ets.Pick(ready, e))
	e.cls[p.Prio].count(pt, p)
	return p, e.busy&^paused != 0
}

// pop takes the head frame of priority prio's queue, which departs: to
// be sent (Dequeue books it as sent) or dropped (Flush).
func (e *switchEgress) pop(pt *Port, prio int) *packet.Packet {
	c := &e.cls[prio]
	p := c.q.Pop()
	if h := c.q.Head(); h == nil {
		c.dwrr.Emptied()
		e.busy &^= 1 << prio
	} else {
		// The next frame out went in long ago and has left the
		// caches: it is asked for now, a frame's time before its turn.
		prefetch.Line(uintptr(unsafe.Pointer(h)))
	}
	e.sw.departed(p, e, pt, c.q.Bytes())
	return p
}

// push queues p on priority prio.
func (e *switchEgress) push(p *packet.Packet, prio int) {
	c := &e.cls[prio]
	c.q.Push(p)
	e.busy |= 1 << prio
	if b := c.q.Bytes(); b > c.maxBytes {
		c.maxBytes = b
	}
	if e.watched&(1<<prio) == 0 {
		e.sw.dom.sampler.watch(e, prio)
	}
}

// through books a packet of priority prio that passes an egress whose
// queues are all empty, and its line free, without waiting: what push,
// the ETS pick of its class alone and pop would leave, the queue empty.
func (e *switchEgress) through(p *packet.Packet, prio int) {
	c := &e.cls[prio]
	c.maxBytes = max(c.maxBytes, int64(p.Frame))
	if e.watched&(1<<prio) == 0 {
		e.sw.dom.sampler.watch(e, prio)
	}
	e.ets.alone(prio)
	c.dwrr.Emptied()
}

// Flush implements Flusher: the watchdog drops a stormed queue.
func (e *switchEgress) Flush(pt *Port, prio int, reason DropReason) {
	for e.cls[prio].q.Len() > 0 {
		e.sw.dom.Drop(e.pop(pt, prio), reason, pt)
	}
}
