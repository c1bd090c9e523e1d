package fluid

import (
	"math"

	"rocelab/internal/packet"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// msg is one posted work request as the fluid engine carries it.
type msg struct {
	bytes int64
	id    uint64
	// wire is the bytes its packets occupy on the wire, headers,
	// preamble and gap included; end is the flow's cumulative wire bytes
	// at its last byte.
	wire int64
	end  float64
	// posted, done (its last byte left the source) and reqAt (its ACK
	// back at the requester).
	posted, done, reqAt unit.Time
	pkts, lastWire      int32
	op                  workload.Op
	// ackLost: the ACK of its last packet was lost and no later ACK has
	// covered it yet, so the requester waits for its timeout.
	ackLost bool
	// unsig: the requester wants no completion when it succeeds.
	unsig bool
}

// msgQueue is a FIFO of messages indexed from the oldest: a ring that
// doubles when full, so a connection's steady traffic never allocates.
type msgQueue struct {
	buf  []msg
	head int
	n    int
}

func (q *msgQueue) len() int      { return q.n }
func (q *msgQueue) at(i int) *msg { return &q.buf[(q.head+i)&(len(q.buf)-1)] }
func (q *msgQueue) front() *msg   { return &q.buf[q.head] }

func (q *msgQueue) push(m msg) {
	if q.n == len(q.buf) {
		buf := make([]msg, max(4, 2*len(q.buf)))
		for i := 0; i < q.n; i++ {
			buf[i] = *q.at(i)
		}
		q.buf, q.head = buf, 0
	}
	*q.at(q.n) = m
	q.n++
}

func (q *msgQueue) popFront() {
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
}

// flow is one connection: its requester's sending as a fluid, its
// messages, and its path. The fields every message touches come first,
// so that they share a few cache lines.
type flow struct {
	msgs msgQueue
	// resp is the index of the next message to complete at the
	// responder; send the first whose last byte has not left yet.
	resp, send int
	rate       float64 // allocated wire bit/s
	sent       float64 // wire bytes sent (useful, resends not counted)
	total      float64 // wire bytes posted
	// eff is the share of the wire rate that is not go-back-N resends.
	eff      float64
	upd      unit.Time
	miceFree unit.Time
	// baseLat is the data path's propagation and mean jitter; ackLat the
	// ACK's whole way back; lat the last latOf, for a last packet of
	// latWire bytes.
	baseLat, ackLat unit.Time
	lat             unit.Time
	latWire         int32
	mss             int32
	// txRate is the rate of its first link, the host's.
	txRate unit.BitRate
	path   []int32
	owner  workload.Owner
	// pData and pAck are the probabilities that a data packet and an
	// ACK are lost on the way.
	pData, pAck float64
	active      bool
	noRoute     bool
	failed      bool
	posted      bool
	tcp         bool
	// A lost tail: the responder waits for the message at resp until
	// resolveAt, when a NAK (nak) or the requester's timeout brings the
	// resend.
	stalled bool
	nak     bool
	// Counters every message moves.
	delivered     int64
	deliveredPkts int64
	acks          int64
	lastDeliv     unit.Time
	sentBytes     int64
	sentPkts      int64
	// Booked but not yet on the links (flushLinks): frame bytes and
	// frames on the data path, before loss; ACK frames back.
	pendFrames, pendPkts, pendAcks float64
	// The latency its packets see now (latD, for frames of latFrame
	// bytes, as of queue epoch latEpoch) and the packets booked at it
	// since the last flush (latN).
	latD     unit.Time
	latN     int64
	latEpoch uint64
	latFrame int32
	wire     wireMemo
	// pMark is the probability a packet of the flow arrives CE-marked.
	pMark float64
	idleT timer
	respT timer
	reqT  timer

	src, dst int32
	prio     uint8 // at the NIC
	dscp     uint8
	sport    uint16
	reqQPN   uint32
	respQPN  uint32
	tag      string
	// legs are the links the flow loads: path, the links its data
	// crosses, then back, the links its ACKs cross. cls and pos are
	// parallel to legs: the class the flow rides on each, and its index
	// in that link's active list while active.
	legs, back []int32
	cls        []uint8
	pos        []int32
	// subs are the sub-links (link, class) of its legs, for the fill.
	subs []int32
	// swPrio is the class the switches give the connection, ackFrame an
	// ACK's frame bytes, ackW the ACKs' wire bytes per data wire byte.
	swPrio   uint8
	ackFrame int32
	ackW     float64
	capBps   float64
	// ub is the most it can ever send: its cap, its slowest data link.
	ub       float64
	timeout  unit.Time
	retryCnt int
	// k is go-back-N's packets in flight when a loss is noticed.
	k         float64
	resolveAt unit.Time
	stallT    timer

	// Counters.
	firstPost unit.Time
	retxPkts  float64
	retxBytes float64
	marked    float64
	cnps      float64
	ccOn      bool
}

// weight is what flow fl's leg h takes of a link per unit of its rate: all
// of it on its data's path, its ACKs' share on the way back.
func (fl *flow) weight(h int) float64 {
	if h < len(fl.path) {
		return 1
	}
	return fl.ackW
}

// wireOf returns a message's wire bytes, packets and last packet's wire
// bytes on flow fl, framed as the packet NIC frames it: RETH on the first
// packet of a WRITE, ImmDt on the last of a WRITE with immediate or a
// SEND, the payload padded to 4 bytes, preamble and gap.
func (e *Engine) wireOf(fl *flow, op workload.Op, bytes int64) (wire int64, pkts, last int32) {
	w := &fl.wire
	if op != w.op || bytes != w.bytes || w.pkts == 0 {
		w.wire, w.pkts, w.last = e.frameOf(fl, op, bytes)
		w.op, w.bytes = op, bytes
	}
	return w.wire, w.pkts, w.last
}

// wireMemo is a connection's last message shape and its framing: a
// connection mostly posts messages of one size.
type wireMemo struct {
	bytes, wire int64
	pkts, last  int32
	op          workload.Op
}

// frameOf frames a message as wireOf describes.
func (e *Engine) frameOf(fl *flow, op workload.Op, bytes int64) (wire int64, pkts, last int32) {
	vlan := e.cfg.VLAN
	frame := func(payload int32, first, lastPkt bool) int64 {
		if fl.tcp {
			return int64(packet.TCPFrame(payload, vlan)) + packet.PreambleIFG
		}
		var ext int32
		if first && op != workload.Send {
			ext += packet.RETH
		}
		if lastPkt && op != workload.Write {
			ext += packet.ImmDt
		}
		return int64(packet.DataFrame(payload, ext, vlan)) + packet.PreambleIFG
	}
	mss := int64(fl.mss)
	n := int64(1)
	if bytes > 0 {
		n = (bytes + mss - 1) / mss
	}
	if n == 1 {
		w := frame(int32(bytes), true, true)
		return w, 1, int32(w)
	}
	tail := bytes - (n-1)*mss
	first := frame(int32(mss), true, false)
	mid := frame(int32(mss), false, false)
	lw := frame(int32(tail), false, true)
	return first + (n-2)*mid + lw, int32(n), int32(lw)
}

// latOf returns how long after a message's last byte leaves the source it
// reaches the responder: propagation and jitter, and the last packet's
// store-and-forward on every hop after the first.
func (e *Engine) latOf(f int32, lastWire int32) unit.Time {
	fl := &e.flows[f]
	if lastWire == fl.latWire {
		return fl.lat // most messages end on a packet of the same size
	}
	d := fl.baseLat
	for _, l := range fl.path[1:] {
		d += e.net.links[l].rate.TxTime(unit.Bytes(lastWire))
	}
	fl.latWire, fl.lat = lastWire, d
	return d
}

// progress returns the flow's useful wire bytes sent by now.
func (fl *flow) progress(now unit.Time) float64 {
	if !fl.active || fl.rate <= 0 {
		return fl.sent
	}
	p := fl.sent + fl.rate*fl.eff/8*float64(now-fl.upd)/float64(unit.Second)
	return math.Min(p, fl.total)
}

// timeTo returns when the flow's progress reaches bytes at its current
// rate, or MaxTime when it is not moving.
func (fl *flow) timeTo(bytes float64) unit.Time {
	if bytes <= fl.sent {
		return fl.upd
	}
	r := fl.rate * fl.eff / 8 // bytes/s
	if !fl.active || r <= 0 {
		return unit.MaxTime
	}
	dt := math.Ceil((bytes - fl.sent) / r * float64(unit.Second))
	if dt > float64(unit.MaxTime/2) {
		return unit.MaxTime
	}
	return fl.upd + unit.Time(dt)
}

// timer is a connection's deadline that moves often and fires rarely, as
// sim.Timer: re-arming it later costs nothing until the queued event
// fires, finds the deadline moved and queues itself again. It keeps
// neither handler, key nor tag (the engine is the handler, the tag names
// the timer and its connection), so a connection's busy timers share
// two cache lines.
type timer struct {
	deadline, queuedAt unit.Time
	id                 sim.EventID
	armed              bool
}

// setTimer arms tm for t, its event tagged tag.
func (e *Engine) setTimer(tm *timer, t unit.Time, tag uint64) {
	tm.deadline, tm.armed = t, true
	if tm.id != 0 {
		if tm.queuedAt <= t {
			return
		}
		e.sched.Cancel(tm.id)
	}
	tm.queuedAt = t
	tm.id = e.sched.At(t, 0, e, tag)
}

// fireTimer is tm's event running at now: it reports whether the
// deadline has come, and queues the event again if it moved later.
func (e *Engine) fireTimer(tm *timer, now unit.Time, tag uint64) bool {
	tm.id = 0
	if !tm.armed {
		return false
	}
	if tm.deadline > now {
		tm.queuedAt = tm.deadline
		tm.id = e.sched.At(tm.deadline, 0, e, tag)
		return false
	}
	tm.armed = false
	return true
}

// stop disarms tm.
func (tm *timer) stop() { tm.armed = false }
