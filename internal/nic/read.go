package nic

import (
	"rocelab/internal/packet"
	"rocelab/internal/roce"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// RDMA READ (IB spec §9.4.3, §9.7.5.1.3). The requester sends one READ
// request (RETH: the length) at PSN p and reserves a PSN per response
// packet, p..p+n-1; the responder answers with READ RESPONSE FIRST,
// MIDDLE.., LAST (or ONLY) at those PSNs, the first and last carrying an
// AETH. A response acknowledges every request before it. A response
// arriving past the one expected means responses were lost: the requester
// counts implied_nak_seq_err and asks again from the missing PSN with a
// new READ request for the rest; the responder takes a READ request before
// its expected PSN as a duplicate and answers it again. The responder
// sends responses paced by its own QP's congestion control, as the data
// source; an ECN-marked response makes the requester's NIC send the CNP.

// queueRead adds a READ to answer: npkts responses from psn, bytes in all.
func (q *qp) queueRead(psn uint32, npkts int32, bytes int64) {
	q.rd.Push(readJob{psn: psn, npkts: npkts, bytes: bytes})
	if q.cc == nil {
		q.nic.responderCC(q)
	}
}

// reread answers a duplicate READ request from psn: responses queued at or
// after psn are dropped and the read is answered again from there.
func (q *qp) reread(psn uint32, bytes uint32) {
	for q.rd.Len() > 0 {
		j := q.rd.At(q.rd.Len() - 1)
		start := roce.PSNAdd(j.psn, int(j.sent))
		if roce.PSNDiff(start, psn) < 0 {
			if end := roce.PSNDiff(psn, j.psn); end < j.npkts {
				j.npkts = max(end, j.sent)
			}
			if j.sent >= j.npkts {
				q.rd.PopBack()
			}
			break
		}
		q.rd.PopBack()
	}
	np := max(int32((int64(bytes)+int64(q.mss)-1)/int64(q.mss)), 1)
	q.queueRead(psn, np, int64(bytes))
}

// response returns the next response packet's opcode, payload and
// extension-header bytes.
func (q *qp) response() (roce.Opcode, int32, int32) {
	j := q.rd.Front()
	rest := j.bytes - int64(j.sent)*int64(q.mss)
	payload := int32(min(int64(q.mss), max(rest, 0)))
	first, last := j.sent == 0, j.sent == j.npkts-1
	switch {
	case first && last:
		return roce.OpReadResponseOnly, payload, packet.AETH
	case first:
		return roce.OpReadResponseFirst, payload, packet.AETH
	case last:
		return roce.OpReadResponseLast, payload, packet.AETH
	}
	return roce.OpReadResponseMiddle, payload, 0
}

// respond builds the responder's next READ response.
func (q *qp) respond(now unit.Time) (*packet.Packet, bool) {
	j := q.rd.Front()
	op, payload, ext := q.response()
	psn := roce.PSNAdd(j.psn, int(j.sent))
	p := q.newPacket(op, psn, payload, now)
	p.Frame = packet.DataFrame(payload, ext, q.nic.cfg.VLAN)
	p.MSN = q.msn
	retx := q.rdSent && roce.PSNDiff(psn, q.rdMax) < 0
	p.Resent = retx
	if retx {
		q.retxBytes += int64(payload)
		q.retxPkts++
	} else {
		q.rdSent, q.rdMax = true, roce.PSNAdd(psn, 1)
		q.sentBytes += int64(payload)
		q.sentPkts++
	}
	if j.sent++; j.sent >= j.npkts {
		q.rd.PopFront()
	}
	if q.rd.Len() == 0 && q.held != nil {
		q.nic.queueCtrl(q.held)
		q.held = nil
	}
	return p, retx
}

// readExpected returns the PSN of the READ response the requester waits
// for: the first unacknowledged PSN that belongs to a READ.
func (q *qp) readExpected() (uint32, bool) {
	if q.reads == 0 {
		return 0, false
	}
	for i := 0; i < q.sqLen; i++ {
		w := q.wqeAt(i)
		if w.op != workload.Read {
			continue
		}
		exp := w.firstPSN
		if roce.PSNDiff(q.sndUna, exp) > 0 {
			exp = q.sndUna
		}
		return exp, roce.PSNDiff(exp, q.sndMax) < 0
	}
	return 0, false
}

// rxReadResponse is the requester taking a READ response.
func (n *NIC) rxReadResponse(q *qp, p *packet.Packet, now unit.Time) {
	exp, ok := q.readExpected()
	d := roce.PSNDiff(p.PSN, exp)
	if q.failed || !ok || d < 0 {
		n.dom.Discarded(p)
		return
	}
	if d == 0 {
		n.dom.Delivered(p)
		q.delivered += int64(p.Payload)
		q.lastDeliv = now
		q.rdGap = false
		n.progress(q, q.ackTo(roce.PSNAdd(p.PSN, 1)), now)
		n.makeReady(q)
		return
	}
	n.dom.Discarded(p)
	n.impliedNAK(q, exp, now)
}

// impliedNAK is the requester learning that READ responses from exp were
// lost (a later response or acknowledgement came first): it counts
// implied_nak_seq_err, once per missing PSN, and asks again from exp.
func (n *NIC) impliedNAK(q *qp, exp uint32, now unit.Time) {
	if q.rdGap && q.rdGapAt == exp {
		return
	}
	q.rdGap, q.rdGapAt = true, exp
	n.HW.ImpliedNakSeqErr++
	n.progress(q, q.ackTo(exp), now)
	if q.retries--; q.retries < 0 {
		q.fail(workload.RetryExceeded)
		return
	}
	q.goBack(exp)
	n.makeReady(q)
}

// ackReads acknowledges up to una, but not past a READ whose responses
// have not all arrived: an acknowledgement beyond it means they were lost.
// It reports whether una was taken whole.
func (n *NIC) ackReads(q *qp, una uint32, now unit.Time) bool {
	if exp, ok := q.readExpected(); ok && roce.PSNDiff(una, exp) > 0 {
		n.impliedNAK(q, exp, now)
		return false
	}
	n.progress(q, q.ackTo(una), now)
	return true
}
