package nic

import (
	"rocelab/internal/cc"
	"rocelab/internal/packet"
	"rocelab/internal/roce"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// The requester side of a queue pair: what it sends is paced by its
// congestion controller, and ACKs, NAKs, CNPs and timeouts move it.

// sent books a data packet and paces its QP.
func (n *NIC) sent(q *qp, p *packet.Packet, retx bool, now unit.Time) {
	n.dom.SentData(p, retx)
	if retx {
		n.HW.Retransmitted++
	}
	if !q.posted {
		q.posted, q.firstPost = true, now
	}
	wire := int(p.Wire())
	if q.cc != nil {
		q.cc.OnSend(now, wire)
		n.armCC(q)
	}
	q.lastTx, q.lastWire = now, wire
	q.nextTx = n.paceAfter(q, now)
	if !q.rto.Armed() && !isResponse(p.Opcode) {
		n.armRTO(q, now)
	}
}

// rateOf returns the rate q may send at now.
func (n *NIC) rateOf(q *qp) unit.BitRate {
	rate := n.port.Rate()
	if q.cc != nil {
		rate = min(rate, q.cc.Rate())
	}
	if q.rateCap > 0 {
		rate = min(rate, q.rateCap)
	}
	return rate
}

// paceAfter returns when q may send its next packet: one packet time at
// its rate after its last one started, or now when it runs at line rate.
func (n *NIC) paceAfter(q *qp, now unit.Time) unit.Time {
	rate := n.rateOf(q)
	if rate >= n.port.Rate() {
		return now
	}
	return q.lastTx + rate.TxTime(unit.Bytes(q.lastWire))
}

// repace re-times a QP's next send after its rate changed: one packet
// time at the new rate after its last send started. By default only a QP
// waiting in the pacing calendar, and only earlier, at a rise; with
// Config.RetimeAll every change, later at a cut, and a QP its window holds
// too, for when an ACK opens the window: the HPCC ns-3 model's ChangeRate
// moves m_nextAvail whether or not the QP may send (rdma-hw.cc,
// RdmaHw::ChangeRate; qbb-net-device.cc, RdmaEgressQueue::GetNextQindex
// checks the window and m_nextAvail apart). Config.KeepPendingGap keeps
// the pending gap. A QP already in its priority's ring keeps its turn.
func (n *NIC) repace(q *qp, now unit.Time) {
	all := n.cfg.RetimeAll
	if n.cfg.KeepPendingGap || q.where == inRing || q.where == idle && !all {
		return
	}
	next := max(n.paceAfter(q, now), now)
	if next == q.nextTx || next > q.nextTx && !all {
		return
	}
	q.nextTx = next
	if q.where == inCalendar {
		q.calGen++
		q.where = idle
		n.makeReady(q)
	}
}

// armCC sets the QP's congestion-control timer to its controller's next
// deadline.
func (n *NIC) armCC(q *qp) {
	if d := q.cc.NextDeadline(); d != unit.MaxTime {
		q.ccTimer.Set(n.dom.Sched, max(d, n.dom.Sched.Now()), n.key, n, tagCC|uint64(q.idx)<<8)
	} else {
		q.ccTimer.Stop()
	}
}

// armRTO starts the QP's retransmission timer, unless its local ACK
// timeout is infinite (exponent 0, IB spec §12.7.34 and ibv_modify_qp(3)):
// then a lost tail is never retransmitted and the QP waits forever.
func (n *NIC) armRTO(q *qp, now unit.Time) {
	if q.class == packet.ClassRoCE && q.timeoutExp == 0 {
		return
	}
	q.rto.Set(n.dom.Sched, now+n.rtoOf(q), n.key, n, tagRTO|uint64(q.idx)<<8)
}

// rtoOf returns the QP's current retransmission timeout.
func (n *NIC) rtoOf(q *qp) unit.Time {
	if q.class == packet.ClassTCP {
		return n.cfg.TCPRTO << min(q.timeouts, 6)
	}
	t := ackTimeout(q.timeoutExp)
	if a := n.cfg.Adaptive; a != nil {
		first := a.Base + unit.Time(n.rng.Float64()*float64(a.Base))
		return min(t, first<<min(q.timeouts, 30))
	}
	return t
}

// timeout is a requester's local ACK timeout: retry from the oldest
// unacknowledged PSN, or fail once retry_cnt retries are spent.
func (n *NIC) timeout(q *qp, now unit.Time) {
	if q.failed || !q.outstanding() {
		return
	}
	n.HW.LocalAckTimeoutErr++
	if n.cfg.Adaptive != nil && q.class == packet.ClassRoCE {
		n.HW.AdpRetrans++
	}
	q.timeouts++
	if q.class == packet.ClassRoCE {
		q.retries--
		if q.retries < 0 {
			q.fail(workload.RetryExceeded)
			return
		}
	}
	q.goBack(q.sndUna)
	n.armRTO(q, now)
	n.makeReady(q)
}

// rxAck is the requester receiving an ACK or NAK.
func (n *NIC) rxAck(p *packet.Packet) {
	q := n.byQPN(p.DstQP)
	if q == nil || q.failed {
		return
	}
	now := n.dom.Sched.Now()
	una := q.acked
	switch roce.SyndromeKind(p.Syndrome) {
	case roce.KindACK:
		n.ackReads(q, roce.PSNAdd(p.PSN, 1), now)
	case roce.KindNAK:
		if p.Syndrome&0x1f != roce.NAKPSNSequenceError {
			return
		}
		n.HW.PacketSeqErr++
		if roce.PSNDiff(p.PSN, q.sndUna) < 0 {
			return // older than an ACK already taken: reordered on the way
		}
		if !n.ackReads(q, p.PSN, now) || q.failed {
			return
		}
		from, to := p.PSN, roce.PSNAdd(p.PSN, 1)
		if p.NAKFrom != p.NAKEnd {
			from, to = p.NAKFrom, p.NAKEnd
		}
		if q.sr {
			q.queueResend(from, to)
		} else {
			if q.retries--; q.retries < 0 {
				q.fail(workload.RetryExceeded)
				return
			}
			q.goBack(from)
		}
		n.makeReady(q)
	}
	n.feedback(q, p, q.acked-una, now)
}

// feedback hands an acknowledgement's RTT, INT, PINT code and ECN echo to
// an ACK-driven controller, and lets the QP send if its rate rose or its
// window opened.
func (n *NIC) feedback(q *qp, p *packet.Packet, acked int64, now unit.Time) {
	if q.ack == nil {
		return
	}
	f := cc.Feedback{
		Acked: q.acked, Next: q.acked + int64(roce.PSNDiff(q.sndNxt, q.sndUna)),
		Bytes: int(acked) * int(q.mss), RTT: now - p.Echo, CE: p.ECNEcho, PINT: p.PINT,
	}
	if r := p.INT; r != nil {
		k := min(int(r.N), packet.MaxINTHops)
		if q.hops == nil {
			q.hops = make([]cc.Hop, packet.MaxINTHops)
		}
		for i := 0; i < k; i++ {
			h := &r.Hops[i]
			q.hops[i] = cc.Hop{Port: h.Port, Time: h.Time, TxBytes: h.TxBytes, QLen: h.QLen, Rate: h.Rate}
		}
		f.Hops = q.hops[:k]
	}
	q.ack.OnFeedback(now, f)
	q.win = q.ack.Window()
	n.repace(q, now)
	n.makeReady(q)
}

// progress resets the retry budget and the timer after an acknowledgement
// that advanced the oldest unacknowledged PSN.
func (n *NIC) progress(q *qp, advanced bool, now unit.Time) {
	if !advanced {
		return
	}
	q.retries = q.retryCnt
	q.timeouts = 0
	if q.outstanding() {
		n.armRTO(q, now)
	} else {
		q.rto.Stop()
	}
}

// rxCNP is the reaction point receiving a CNP.
func (n *NIC) rxCNP(p *packet.Packet) {
	q := n.byQPN(p.DstQP)
	if q == nil {
		return
	}
	if q.cc == nil {
		n.HW.RPCNPIgnored++
		return
	}
	n.HW.RPCNPHandled++
	now := n.dom.Sched.Now()
	q.cc.OnCNP(now)
	n.armCC(q)
	n.repace(q, now)
}
