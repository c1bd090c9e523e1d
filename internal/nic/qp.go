package nic

import (
	"rocelab/internal/cc"
	"rocelab/internal/packet"
	"rocelab/internal/roce"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// QPNBase is the number of a NIC's first queue pair; QP i of a NIC is
// QPNBase+i on the wire (numbers below are reserved, as in real NICs).
const QPNBase = 0x100

// wqe is one posted work request at the requester. A READ takes one PSN
// per response packet: the request goes out at firstPSN and the responses
// come back at firstPSN..lastPSN.
type wqe struct {
	op       workload.Op
	bytes    int64
	id       uint64
	firstPSN uint32
	npkts    int32
}

// lastPSN returns the PSN of the request's last packet.
func (w *wqe) lastPSN() uint32 { return roce.PSNAdd(w.firstPSN, int(w.npkts)-1) }

// where a QP waits in the egress scheduler.
const (
	idle uint8 = iota
	inRing
	inCalendar
)

// psnRange is the PSNs from..to-1.
type psnRange struct{ from, to uint32 }

// maxRetxRanges bounds a selective-repeat requester's list of PSN ranges
// to resend; past it the requester goes back N instead.
const maxRetxRanges = 8

// qp is one end of a reliable connection: the requester end sends the
// connection's messages and the responder end receives them (and, for
// READs, sends the data back).
type qp struct {
	// What sending a data packet reads comes first, in a few lines: on a
	// fabric of thousands of hosts each QP's state has left the caches
	// by its next packet, and the send used to read fifteen lines of it.
	nic  *NIC
	idx  int32
	qpn  uint32
	conn workload.QP
	// peer is the host and QP number of the other end.
	peerHost int32
	peerQPN  uint32

	class   packet.Class
	prio    uint8
	dscp    uint8
	failed  bool
	sr      bool  // selective repeat
	where   uint8 // idle, inRing or inCalendar
	srcPort uint16
	mss     int32
	calGen  uint32 // bumped when the QP's calendar entry is replaced
	posted  bool   // a data packet has been sent (firstPost is when)

	// Requester. The send queue is a ring of WQEs: sq[(sqHead+i)%len] for
	// i < sqLen, oldest (not yet completed) first. cur is the index (from
	// sqHead) of the WQE being sent and curOff the bytes of it sent.
	sq            []wqe
	sqHead, sqLen int
	cur           int
	curOff        int64
	nextPSN       uint32 // PSN the next posted WQE starts at
	sndNxt        uint32 // PSN of the next packet to send
	sndUna        uint32 // oldest unacknowledged PSN
	sndMax        uint32 // one past the highest PSN ever sent
	retxN         int
	win           int64 // ack's window as of its last feedback, 0 none
	cc            cc.Controller
	ack           cc.AckDriven // cc when it takes its signal from ACKs, else nil
	wire          cc.Wire      // what ack needs the QP's packets to carry
	nextTx        unit.Time
	lastTx        unit.Time // when the QP last started sending a data packet
	lastWire      int       // that packet's wire bytes
	sentBytes     int64
	sentPkts      int64
	rateCap       unit.BitRate
	rd            sim.Ring[readJob] // READ responses to send (below)
	acked         int64             // PSNs acknowledged since the start (no wrap), for CC feedback
	marks         sendMarks         // when the PSNs not yet acknowledged were first sent
	// Each send asks whether the retransmission timer is armed, arms or
	// stops the controller's timer and reads and advances DCQCN's state
	// (its rate and timers come first in it): a line each, right after
	// the send state (TestQPSendLines).
	rto      sim.Timer
	ccTimer  sim.Timer
	dcqcn    cc.DCQCN // cc's storage when it is DCQCN
	retries  int
	retryCnt int // retry_cnt of this QP
	timeouts int // consecutive timeouts, for adaptive retransmission
	retx     [maxRetxRanges]psnRange
	retxHead int
	reads    int      // READ WQEs outstanding
	hops     []cc.Hop // the INT an ACK echoes, decoded
	rdGapAt  uint32   // the READ response PSN it asked for again
	rdGap    bool     // an implied NAK for rdGapAt went out
	// timeoutExp is the local ACK timeout exponent of this QP.
	timeoutExp uint8

	deliverMsg int64
	joined     unit.Time // when the workload connected it
	firstPost  unit.Time

	// Responder: what a data packet's receipt reads, from the expected
	// PSN to the place of the packet, lies in one line (TestQPSendLines).
	ePSN    uint32 // expected PSN
	msn     uint32
	nakSent bool
	ooo     bool // places packets out of order
	// Reordering seen at this end: the highest PSN of a first
	// transmission that arrived (beside the expected PSN: every data
	// packet received reads both).
	seenAny   bool
	maxSeen   uint32
	sinceAck  int
	ackNow    bool    // an in-order packet asked for an ACK
	echo      cc.Wire // what the requester's controller reads from the ACKs
	msgBytes  int64   // bytes of the message being received
	delivered int64   // payload delivered in order (READ data, at the requester)
	lastDeliv unit.Time
	rob       []robSlot
	robHigh   uint32 // one past the highest PSN that arrived ahead of ePSN
	nakTo     uint32 // holes below this have been NAKed
	// rd (above) holds the READ responses to send: a ring of jobs, oldest
	// first; rdMax is one past the highest response PSN sent.
	rdMax  uint32
	rdSent bool
	// held is an ACK or NAK generated while READ responses were still to
	// send: it goes out after them, as a responder answers in PSN order.
	held      *packet.Packet
	np        cc.NP
	npTimer   sim.Timer
	series    *QPSeries
	retxBytes int64
	retxPkts  int64
}

// readJob is a READ the responder answers: npkts response packets from
// psn, carrying bytes, sent of them out.
type readJob struct {
	psn   uint32
	npkts int32
	sent  int32
	bytes int64
}

// hasData reports whether the QP has a packet to send: a READ response, a
// selective resend, or the next packet of its send queue, within the
// congestion window when its controller keeps one.
func (q *qp) hasData() bool {
	if q.failed {
		return false
	}
	if q.rd.Len() > 0 {
		return true
	}
	if q.retxN == 0 && q.cur >= q.sqLen {
		return false
	}
	return q.win == 0 || int64(roce.PSNDiff(q.sndNxt, q.sndUna))*int64(q.mss) < q.win
}

// wqeAt returns the i-th outstanding WQE, i <= sqLen < len(sq).
func (q *qp) wqeAt(i int) *wqe { return &q.sq[wrap(q.sqHead+i, len(q.sq))] }

// post queues a work request.
func (q *qp) post(m workload.Message) {
	if q.sqLen == len(q.sq) {
		n := max(8, 2*len(q.sq))
		sq := make([]wqe, n)
		for i := 0; i < q.sqLen; i++ {
			sq[i] = *q.wqeAt(i)
		}
		q.sq, q.sqHead = sq, 0
	}
	np := int32(1)
	if m.Bytes > 0 {
		np = int32((m.Bytes + int64(q.mss) - 1) / int64(q.mss))
	}
	*q.wqeAt(q.sqLen) = wqe{op: m.Op, bytes: m.Bytes, id: m.ID, firstPSN: q.nextPSN, npkts: np}
	q.sqLen++
	if m.Op == workload.Read {
		q.reads++
	}
	q.nextPSN = roce.PSNAdd(q.nextPSN, int(np))
}

// nextSend returns the WQE index, byte offset and PSN of the packet the
// requester sends next: the first selective resend, else the packet at
// the send cursor.
func (q *qp) nextSend() (int, int64, uint32) {
	if q.retxN > 0 {
		psn := q.retx[q.retxHead].from
		i, off := q.locate(psn)
		return i, off, psn
	}
	return q.cur, q.curOff, q.sndNxt
}

// locate returns the WQE holding psn and the byte offset of its packet,
// or sqLen when psn is where the next WQE starts.
func (q *qp) locate(psn uint32) (int, int64) {
	for i := 0; i < q.sqLen; i++ {
		w := q.wqeAt(i)
		if d := roce.PSNDiff(psn, w.firstPSN); d >= 0 && d < w.npkts {
			return i, int64(d) * int64(q.mss)
		}
	}
	return q.sqLen, 0
}

// payloadAt returns the payload of the packet at offset off of w and
// whether it is the first and last of its message. A READ request carries
// no payload and is the whole (rest of the) message.
func (q *qp) payloadAt(w *wqe, off int64) (payload int32, first, last bool) {
	if w.op == workload.Read {
		return 0, true, true
	}
	rest := w.bytes - off
	payload = int32(min(int64(q.mss), rest))
	return payload, off == 0, off+int64(payload) >= w.bytes
}

// frameOf returns the frame length of a packet of w with this payload.
func (q *qp) frameOf(w *wqe, payload int32, first, last bool) int32 {
	if q.class == packet.ClassTCP {
		return packet.TCPFrame(payload, q.nic.cfg.VLAN)
	}
	var ext int32
	if first && w.op != workload.Send {
		ext += packet.RETH
	}
	if last && (w.op == workload.WriteImm || w.op == workload.Send) {
		ext += packet.ImmDt
	}
	ext += int32(q.wire.INTBytes) + int32(q.wire.PINTBytes)
	return packet.DataFrame(payload, ext, q.nic.cfg.VLAN)
}

// headFrame returns the frame length of the next packet the QP sends.
func (q *qp) headFrame() int64 {
	if q.rd.Len() > 0 {
		_, payload, ext := q.response()
		return int64(packet.DataFrame(payload, ext, q.nic.cfg.VLAN))
	}
	i, off, _ := q.nextSend()
	w := q.wqeAt(i)
	payload, first, last := q.payloadAt(w, off)
	return int64(q.frameOf(w, payload, first, last))
}

// opcode returns the BTH opcode of a packet of w.
func opcode(op workload.Op, first, last bool) roce.Opcode {
	switch op {
	case workload.Read:
		return roce.OpReadRequest
	case workload.Send:
		switch {
		case first && last:
			return roce.OpSendOnlyImm
		case first:
			return roce.OpSendFirst
		case last:
			return roce.OpSendLastImm
		}
		return roce.OpSendMiddle
	case workload.WriteImm:
		switch {
		case first && last:
			return roce.OpWriteOnlyImm
		case first:
			return roce.OpWriteFirst
		case last:
			return roce.OpWriteLastImm
		}
	default:
		switch {
		case first && last:
			return roce.OpWriteOnly
		case first:
			return roce.OpWriteFirst
		case last:
			return roce.OpWriteLast
		}
	}
	return roce.OpWriteMiddle
}

// isLast reports whether an opcode ends a message, and whether the
// message asks for a completion at the responder.
func isLast(op roce.Opcode) (last, notify bool) {
	switch op {
	case roce.OpWriteOnly, roce.OpWriteLast:
		return true, false
	case roce.OpWriteOnlyImm, roce.OpWriteLastImm, roce.OpSendOnly, roce.OpSendLast,
		roce.OpSendOnlyImm, roce.OpSendLastImm:
		return true, true
	}
	return false, false
}

// isResponse reports whether op is a READ response.
func isResponse(op roce.Opcode) bool {
	return op >= roce.OpReadResponseFirst && op <= roce.OpReadResponseOnly
}

// newPacket returns a data packet of q to its peer, stamped now.
func (q *qp) newPacket(op roce.Opcode, psn uint32, payload int32, now unit.Time) *packet.Packet {
	n := q.nic
	p := n.dom.Pool.Get()
	p.Kind = packet.Data
	p.Class = q.class
	p.Opcode = op
	p.Src, p.Dst = n.id, q.peerHost
	p.DstQP = q.peerQPN
	p.PSN = psn
	p.SrcPort = q.srcPort
	p.DSCP = q.dscp
	p.Prio, p.PCP, p.VLAN = q.prio, q.prio, n.cfg.VLAN
	p.Payload = payload
	p.TTL = n.cfg.TTL
	p.SentAt = now
	if q.class == packet.ClassRoCE && n.cfg.ECT {
		p.ECN = packet.ECT0
	}
	return p
}

// segment builds the QP's next data packet and advances its send state:
// a READ response first, then a selective resend, then the send queue.
func (q *qp) segment(now unit.Time) (*packet.Packet, bool) {
	if q.rd.Len() > 0 {
		return q.respond(now)
	}
	fromRetx := q.retxN > 0
	i, off, psn := q.nextSend()
	w := q.wqeAt(i)
	payload, first, last := q.payloadAt(w, off)
	p := q.newPacket(opcode(w.op, first, last), psn, payload, now)
	p.Frame = q.frameOf(w, payload, first, last)
	p.AckReq = last && w.op != workload.Read
	span := 1
	switch {
	case w.op == workload.Read:
		p.DMALen = uint32(w.bytes - off)
		span = int(w.npkts) - int(off/int64(q.mss))
	case first && w.op != workload.Send:
		p.DMALen = uint32(w.bytes)
	}
	if q.ack != nil {
		if q.wire.INT {
			p.INT = q.nic.dom.INTs.Get()
			p.INT.Wire = q.wire.INTBytes
		}
		p.AckReq = p.AckReq || q.wire.AckEach
		p.PINTBytes = q.wire.PINTBytes
	}
	retx := roce.PSNDiff(psn, q.sndMax) < 0
	p.Resent = retx
	if retx {
		q.retxBytes += int64(payload)
		q.retxPkts++
	} else {
		q.sentBytes += int64(payload)
		q.sentPkts++
	}
	next := roce.PSNAdd(psn, span)
	if fromRetx {
		r := &q.retx[q.retxHead]
		if r.from = next; roce.PSNDiff(r.from, r.to) >= 0 {
			q.popRetx()
		}
		return p, retx
	}
	q.sndNxt = next
	if roce.PSNDiff(next, q.sndMax) > 0 {
		q.sndMax = next
		q.marks.sent(psn, now)
	}
	q.curOff += int64(payload)
	if last {
		q.cur++
		q.curOff = 0
	}
	return p, retx
}

// goBack rewinds the requester to resend from psn (go-back-N).
func (q *qp) goBack(psn uint32) {
	q.retxN = 0
	if roce.PSNDiff(psn, q.sndNxt) < 0 {
		q.seek(psn)
	}
}

// seek moves the send cursor to psn: the WQE holding it and the offset of
// its packet (a READ is asked again from there), or past the last WQE
// when psn is where the next one starts.
func (q *qp) seek(psn uint32) {
	q.sndNxt = psn
	q.cur, q.curOff = q.locate(psn)
}

// queueResend adds the PSNs from..to-1 to a selective-repeat requester's
// resends, within what is sent and not acknowledged. When the list is
// full it goes back N from its oldest PSN instead.
func (q *qp) queueResend(from, to uint32) {
	if roce.PSNDiff(from, q.sndUna) < 0 {
		from = q.sndUna
	}
	if roce.PSNDiff(to, q.sndMax) > 0 || roce.PSNDiff(to, from) <= 0 {
		to = q.sndMax
	}
	if roce.PSNDiff(to, from) <= 0 {
		return
	}
	for k := 0; k < q.retxN; k++ {
		r := &q.retx[(q.retxHead+k)%maxRetxRanges]
		if roce.PSNDiff(from, r.from) >= 0 && roce.PSNDiff(to, r.to) <= 0 {
			return // already queued
		}
	}
	if q.retxN == maxRetxRanges {
		oldest := q.retx[q.retxHead].from
		if roce.PSNDiff(from, oldest) < 0 {
			oldest = from
		}
		q.goBack(oldest)
		return
	}
	q.retx[(q.retxHead+q.retxN)%maxRetxRanges] = psnRange{from, to}
	q.retxN++
}

func (q *qp) popRetx() {
	q.retxHead = (q.retxHead + 1) % maxRetxRanges
	q.retxN--
}

// outstanding reports whether sent packets wait for acknowledgement.
func (q *qp) outstanding() bool { return q.sndUna != q.sndMax }

// ackTo acknowledges every PSN before una and completes the WQEs it
// covers. It reports whether the acknowledgement made progress.
func (q *qp) ackTo(una uint32) bool {
	if roce.PSNDiff(una, q.sndUna) <= 0 || roce.PSNDiff(una, q.sndMax) > 0 {
		return false
	}
	q.acked += int64(roce.PSNDiff(una, q.sndUna))
	q.sndUna = una
	q.marks.acked(una)
	if roce.PSNDiff(q.sndNxt, una) < 0 {
		q.seek(una) // acknowledged beyond where go-back-N rewound
	}
	for q.retxN > 0 {
		r := &q.retx[q.retxHead]
		if roce.PSNDiff(r.to, una) > 0 {
			if roce.PSNDiff(r.from, una) < 0 {
				r.from = una
			}
			break
		}
		q.popRetx()
	}
	for q.sqLen > 0 {
		w := q.wqeAt(0)
		if roce.PSNDiff(una, w.lastPSN()) <= 0 {
			break
		}
		q.pop()
		q.nic.complete(q.conn, workload.Requester, w.op, w.id, w.bytes, workload.Success)
		q.cur--
	}
	return true
}

// pop removes the oldest WQE.
func (q *qp) pop() {
	if q.wqeAt(0).op == workload.Read {
		q.reads--
	}
	q.sqHead = wrap(q.sqHead+1, len(q.sq))
	q.sqLen--
}

// fail puts the QP in the error state: the oldest WQE completes with
// status, the rest are flushed.
func (q *qp) fail(status workload.Status) {
	q.failed = true
	q.rto.Stop()
	n := q.nic
	if status == workload.RetryExceeded {
		n.HW.ReqTransportRetriesExceeded++
	}
	if q.sqLen > 0 {
		w := *q.wqeAt(0)
		n.HW.ReqCQEError++
		q.pop()
		n.complete(q.conn, workload.Requester, w.op, w.id, w.bytes, status)
	}
	q.flush()
}

// flush completes every queued WQE of a QP in the error state with
// IBV_WC_WR_FLUSH_ERR.
func (q *qp) flush() {
	n := q.nic
	for q.sqLen > 0 {
		w := *q.wqeAt(0)
		n.HW.ReqCQEFlushError++
		q.pop()
		n.complete(q.conn, workload.Requester, w.op, w.id, w.bytes, workload.Flushed)
	}
	q.cur, q.curOff = 0, 0
	q.retxN = 0
}

// limited reports whether the QP's congestion control holds it below line
// rate, for sampling.
func (q *qp) limited() bool {
	if d, ok := q.cc.(*cc.DCQCN); ok {
		return d.Limited()
	}
	return q.cc.Rate() < q.nic.port.Rate()
}

// timeout is the QP's local ACK timeout, 0 when it has none (a RoCE QP
// with exponent 0); TCP-class connections use the host's TCP RTO.
func (q *qp) timeout() unit.Time {
	switch {
	case q.class == packet.ClassTCP:
		return q.nic.cfg.TCPRTO
	case q.timeoutExp == 0:
		return 0
	}
	return ackTimeout(q.timeoutExp)
}
