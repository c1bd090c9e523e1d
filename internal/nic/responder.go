package nic

import (
	"rocelab/internal/cc"
	"rocelab/internal/packet"
	"rocelab/internal/roce"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// The responder side of a queue pair: in-order acceptance, NAK on a gap,
// duplicates, coalesced ACKs, the notification point's CNPs, and READ
// requests answered with response packets.

// rxData takes a data packet: a request at a responder, or a READ
// response at a requester.
func (n *NIC) rxData(p *packet.Packet) {
	q := n.byQPN(p.DstQP)
	if q == nil {
		n.dom.Discarded(p)
		return
	}
	now := n.dom.Sched.Now()
	n.countReorder(q, p)
	if p.ECN == packet.CE && p.Class == packet.ClassRoCE {
		n.HW.NPECNMarkedRoCEPackets++
		if d := n.cfg.DCQCN; d != nil && d.Enabled(int(p.Prio)) {
			n.notify(q, now)
		}
	}
	switch {
	case isResponse(p.Opcode):
		n.rxReadResponse(q, p, now)
		return
	case p.Opcode == roce.OpReadRequest:
		n.HW.RxReadRequests++
	case p.Opcode <= roce.OpWriteOnlyImm && p.Opcode >= roce.OpWriteFirst:
		n.HW.RxWriteRequests++
	default:
		n.HW.RxSendRequests++
	}
	switch d := roce.PSNDiff(p.PSN, q.ePSN); {
	case d == 0:
		n.dom.Delivered(p)
		n.accept(q, p.Opcode, p.Payload, p.DMALen, p.AckReq, now)
		if q.rob != nil {
			n.drainROB(q, now)
		}
		if q.ackNow || q.sinceAck >= n.cfg.AckCoalesce {
			n.sendAck(q, roce.SyndromeACKUnlimited, p)
		}
	case d > 0:
		if q.ooo {
			n.place(q, p, d, now)
			return
		}
		n.HW.OutOfSequence++
		n.dom.Discarded(p)
		if !q.nakSent {
			q.nakSent = true
			n.sendAck(q, roce.SyndromePSNSequenceError, p)
		}
	default:
		n.duplicate(q, p)
	}
}

// duplicate takes a request before the expected PSN: a resend the
// responder already has. A duplicate READ is answered again from its PSN.
func (n *NIC) duplicate(q *qp, p *packet.Packet) {
	n.HW.DuplicateRequest++
	if p.Opcode == roce.OpReadRequest {
		n.dom.Delivered(p)
		q.reread(p.PSN, p.DMALen)
		n.makeReady(q)
		return
	}
	n.dom.Discarded(p)
	if p.AckReq {
		n.sendAck(q, roce.SyndromeACKUnlimited, p)
	}
}

// countReorder books a first transmission that arrived after a higher PSN
// of its QP: reordering in the fabric, whatever the NIC does about it.
func (n *NIC) countReorder(q *qp, p *packet.Packet) {
	if p.Resent {
		return
	}
	if !q.seenAny {
		q.seenAny, q.maxSeen = true, p.PSN
		return
	}
	switch d := roce.PSNDiff(p.PSN, q.maxSeen); {
	case d > 0:
		q.maxSeen = p.PSN
	case d < 0:
		n.HW.Reordered++
		n.HW.ReorderMax = max(n.HW.ReorderMax, int64(-d))
	}
}

// accept is the effect of the request at the expected PSN: the message
// grows and may complete, a READ is queued for response.
func (n *NIC) accept(q *qp, op roce.Opcode, payload int32, dma uint32, ackReq bool, now unit.Time) {
	q.nakSent = false
	if op == roce.OpReadRequest {
		np := max(int32((int64(dma)+int64(q.mss)-1)/int64(q.mss)), 1)
		q.queueRead(q.ePSN, np, int64(dma))
		q.ePSN = roce.PSNAdd(q.ePSN, int(np))
		q.msn = roce.PSNAdd(q.msn, 1)
		n.makeReady(q)
		return
	}
	q.ePSN = roce.PSNAdd(q.ePSN, 1)
	q.msgBytes += int64(payload)
	q.delivered += int64(payload)
	q.lastDeliv = now
	q.sinceAck++
	q.ackNow = q.ackNow || ackReq
	if last, notify := isLast(op); last {
		q.msn = roce.PSNAdd(q.msn, 1)
		if notify {
			n.complete(q.conn, workload.Responder, opOf(op), 0, q.msgBytes, workload.Success)
		}
		q.deliverMsg++
		q.msgBytes = 0
	}
}

// opOf returns the operation a message-ending opcode belongs to.
func opOf(op roce.Opcode) workload.Op {
	if op >= roce.OpSendFirst && op <= roce.OpSendOnlyImm {
		return workload.Send
	}
	return workload.WriteImm
}

// notify is the notification point: a CE-marked packet arrived for q;
// the NP of its scope decides whether a CNP goes out now, later (the paper
// variant's deferred CNP) or not at all.
func (n *NIC) notify(q *qp, now unit.Time) {
	if n.cfg.DCQCN.Scope() == cc.ScopePort {
		if n.np.OnCE(now) {
			n.sendCNP(q, now)
		} else {
			n.npLast = q
			if d := n.np.NextDeadline(); d != unit.MaxTime {
				n.npTimer.Set(n.dom.Sched, d, n.key, n, tagNP|0xffffff<<8)
			}
		}
		return
	}
	if q.np.OnCE(now) {
		n.sendCNP(q, now)
	} else if d := q.np.NextDeadline(); d != unit.MaxTime {
		q.npTimer.Set(n.dom.Sched, d, n.key, n, tagNP|uint64(q.idx)<<8)
	}
}

// sendCNP queues a CNP naming q's peer, the QP to slow down.
func (n *NIC) sendCNP(q *qp, now unit.Time) {
	d := n.cfg.DCQCN
	c := n.ctrl(q, packet.CNP, roce.OpCNP, uint8(d.CnpDscp), uint8(d.Cnp802pPrio))
	c.Frame = packet.DataFrame(0, packet.CNPPayload, n.cfg.VLAN)
	n.HW.NPCNPSent++
	n.queueCtrl(c)
}

// sendAck queues an ACK (or a NAK, by syndrome) for the responder q,
// answering the data packet trig: it echoes trig's send time and hands
// its INT back to the requester.
func (n *NIC) sendAck(q *qp, syndrome uint8, trig *packet.Packet) *packet.Packet {
	q.sinceAck = 0
	q.ackNow = false
	a := n.ctrl(q, packet.Ack, roce.OpAcknowledge, q.dscp, q.prio)
	a.Syndrome = syndrome
	a.MSN = q.msn
	a.PSN = roce.PSNAdd(q.ePSN, -1)
	if syndrome != roce.SyndromeACKUnlimited {
		a.PSN = q.ePSN
	}
	a.Echo = trig.SentAt
	if q.echo.EchoCE {
		a.ECNEcho = trig.ECN == packet.CE
	}
	if q.class == packet.ClassTCP {
		a.Frame = packet.TCPFrame(0, n.cfg.VLAN)
	} else {
		a.Frame = packet.DataFrame(0, packet.AETH, n.cfg.VLAN)
	}
	if trig.INT != nil {
		a.INT, trig.INT = trig.INT, nil
		a.Frame += int32(a.INT.Wire)
	}
	if q.echo.PINTBytes != 0 {
		a.PINT, a.PINTBytes = trig.PINT, trig.PINTBytes
		a.Frame += int32(a.PINTBytes)
	}
	if q.rd.Len() > 0 {
		// READ responses before it go out first: hold the newest.
		if q.held != nil {
			n.dom.Free(q.held)
		}
		q.held = a
		return a
	}
	n.queueCtrl(a)
	return a
}

// ctrl returns a control frame from q's end of its connection to its peer,
// on priority prio with dscp.
func (n *NIC) ctrl(q *qp, kind packet.Kind, op roce.Opcode, dscp, prio uint8) *packet.Packet {
	p := n.dom.Pool.Get()
	p.Kind, p.Class, p.Opcode = kind, q.class, op
	p.Src, p.Dst = n.id, q.peerHost
	p.DstQP = q.peerQPN
	p.SrcPort = q.srcPort
	p.DSCP = dscp
	p.Prio, p.PCP, p.VLAN = prio, prio, n.cfg.VLAN
	p.TTL = n.cfg.TTL
	p.SentAt = n.dom.Sched.Now()
	return p
}

// queueCtrl queues a control frame on its priority.
func (n *NIC) queueCtrl(p *packet.Packet) {
	n.cls[p.Prio].ctrl.Push(p)
	n.busy |= 1 << p.Prio
	n.port.Kick()
}

// EachBuffered implements fabric.Buffered.
func (n *NIC) EachBuffered(f func(p *packet.Packet)) { n.rx.q.Each(f) }

// EachControl calls f for every control frame (ACK, NAK, CNP) waiting to
// be sent, those held behind READ responses included.
func (n *NIC) EachControl(f func(p *packet.Packet)) {
	for i := range n.cls {
		n.cls[i].ctrl.Each(f)
	}
	for _, q := range n.qps {
		if q.held != nil {
			f(q.held)
		}
	}
}
