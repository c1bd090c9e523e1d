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

// wqe is one posted work request at the requester.
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

// qp is one end of a reliable connection: the requester end sends the
// connection's messages and the responder end receives them.
type qp struct {
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
	srcPort uint16
	mss     int32
	rateCap unit.BitRate

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
	retries       int
	retryCnt      int   // retry_cnt of this QP
	timeoutExp    uint8 // local ACK timeout exponent of this QP
	timeouts      int   // consecutive timeouts, for adaptive retransmission
	failed        bool
	rto           sim.Timer
	cc            cc.Controller
	dcqcn         cc.DCQCN
	ccTimer       sim.Timer
	nextTx        unit.Time
	lastTx        unit.Time // when the QP last started sending a data packet
	lastWire      int       // that packet's wire bytes
	calGen        uint32    // bumped when the QP's calendar entry is replaced
	where         uint8

	// Responder.
	ePSN       uint32 // expected PSN
	msn        uint32
	nakSent    bool
	sinceAck   int
	msgBytes   int64 // bytes of the message being received
	delivered  int64
	lastDeliv  unit.Time
	np         cc.NP
	npTimer    sim.Timer
	series     *QPSeries
	firstPost  unit.Time
	posted     bool
	sentBytes  int64
	retxBytes  int64
	sentPkts   int64
	retxPkts   int64
	deliverMsg int64
}

// hasData reports whether the requester has a packet to send.
func (q *qp) hasData() bool { return !q.failed && q.cur < q.sqLen }

// wqeAt returns the i-th outstanding WQE.
func (q *qp) wqeAt(i int) *wqe { return &q.sq[(q.sqHead+i)%len(q.sq)] }

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
	q.nextPSN = roce.PSNAdd(q.nextPSN, int(np))
}

// payloadAt returns the payload of the next packet and whether it is the
// first and last of its message.
func (q *qp) payloadAt() (payload int32, first, last bool) {
	w := q.wqeAt(q.cur)
	rest := w.bytes - q.curOff
	payload = int32(min(int64(q.mss), rest))
	return payload, q.curOff == 0, q.curOff+int64(payload) >= w.bytes
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
	if last && w.op != workload.Write {
		ext += packet.ImmDt
	}
	return packet.DataFrame(payload, ext, q.nic.cfg.VLAN)
}

// headFrame returns the frame length of the next packet the QP sends.
func (q *qp) headFrame() int64 {
	payload, first, last := q.payloadAt()
	return int64(q.frameOf(q.wqeAt(q.cur), payload, first, last))
}

// opcode returns the BTH opcode of a packet of w.
func opcode(op workload.Op, first, last bool) roce.Opcode {
	switch op {
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

// segment builds the QP's next data packet and advances its send state.
func (q *qp) segment(now unit.Time) (*packet.Packet, bool) {
	n := q.nic
	w := q.wqeAt(q.cur)
	payload, first, last := q.payloadAt()
	p := n.dom.Pool.Get()
	p.Kind = packet.Data
	p.Class = q.class
	p.Opcode = opcode(w.op, first, last)
	p.Src, p.Dst = n.id, q.peerHost
	p.DstQP = q.peerQPN
	p.PSN = q.sndNxt
	p.SrcPort = q.srcPort
	p.DSCP = q.dscp
	p.Prio, p.PCP, p.VLAN = q.prio, q.prio, n.cfg.VLAN
	p.Payload = payload
	p.Frame = q.frameOf(w, payload, first, last)
	p.AckReq = last
	if first && w.op != workload.Send {
		p.DMALen = uint32(w.bytes)
	}
	p.TTL = n.cfg.TTL
	p.SentAt = now
	if q.class == packet.ClassRoCE && n.cfg.ECT {
		p.ECN = packet.ECT0
	}
	retx := roce.PSNDiff(q.sndNxt, q.sndMax) < 0
	q.sndNxt = roce.PSNAdd(q.sndNxt, 1)
	if !retx {
		q.sndMax = q.sndNxt
		q.sentBytes += int64(payload)
		q.sentPkts++
	} else {
		q.retxBytes += int64(payload)
		q.retxPkts++
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
	if roce.PSNDiff(psn, q.sndNxt) < 0 {
		q.seek(psn)
	}
}

// seek moves the send cursor to psn: the WQE holding it and the offset of
// its packet, or past the last WQE when psn is where the next one starts.
func (q *qp) seek(psn uint32) {
	q.sndNxt = psn
	for i := 0; i < q.sqLen; i++ {
		w := q.wqeAt(i)
		if d := roce.PSNDiff(psn, w.firstPSN); d >= 0 && d < w.npkts {
			q.cur, q.curOff = i, int64(d)*int64(q.mss)
			return
		}
	}
	q.cur, q.curOff = q.sqLen, 0
}

// outstanding reports whether sent packets wait for acknowledgement.
func (q *qp) outstanding() bool { return q.sndUna != q.sndMax }

// ackTo acknowledges every PSN before una and completes the WQEs it
// covers. It reports whether the acknowledgement made progress.
func (q *qp) ackTo(una uint32) bool {
	if roce.PSNDiff(una, q.sndUna) <= 0 || roce.PSNDiff(una, q.sndMax) > 0 {
		return false
	}
	q.sndUna = una
	if roce.PSNDiff(q.sndNxt, una) < 0 {
		q.seek(una) // acknowledged beyond where go-back-N rewound
	}
	for q.sqLen > 0 {
		w := q.wqeAt(0)
		if roce.PSNDiff(una, w.lastPSN()) <= 0 {
			break
		}
		q.nic.complete(q.conn, workload.Requester, w.op, w.id, w.bytes, workload.Success)
		q.sqHead = (q.sqHead + 1) % len(q.sq)
		q.sqLen--
		q.cur--
	}
	return true
}

// fail puts the QP in the error state: the oldest WQE completes with
// status, the rest are flushed.
func (q *qp) fail(status workload.Status) {
	q.failed = true
	q.rto.Stop()
	n := q.nic
	if q.sqLen > 0 {
		w := q.wqeAt(0)
		n.HW.ReqCQEError++
		q.sqHead = (q.sqHead + 1) % len(q.sq)
		q.sqLen--
		n.complete(q.conn, workload.Requester, w.op, w.id, w.bytes, status)
	}
	q.flush()
}

// flush completes every queued WQE of a QP in the error state with
// IBV_WC_WR_FLUSH_ERR.
func (q *qp) flush() {
	n := q.nic
	for q.sqLen > 0 {
		w := q.wqeAt(0)
		n.HW.ReqCQEFlushError++
		n.complete(q.conn, workload.Requester, w.op, w.id, w.bytes, workload.Flushed)
		q.sqHead = (q.sqHead + 1) % len(q.sq)
		q.sqLen--
	}
	q.cur, q.curOff = 0, 0
}
