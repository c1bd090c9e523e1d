package nic

import (
	"rocelab/internal/cc"
	"rocelab/internal/packet"
	"rocelab/internal/roce"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// The responder side of a queue pair: in-order acceptance, NAK on a gap,
// duplicates, coalesced ACKs, and the notification point's CNPs.

// rxData is the responder receiving a data packet.
func (n *NIC) rxData(p *packet.Packet) {
	q := n.byQPN(p.DstQP)
	if q == nil {
		n.dom.Discarded(p)
		return
	}
	if p.Opcode <= roce.OpWriteOnlyImm && p.Opcode >= roce.OpWriteFirst {
		n.HW.RxWriteRequests++
	} else {
		n.HW.RxSendRequests++
	}
	now := n.dom.Sched.Now()
	if p.ECN == packet.CE && p.Class == packet.ClassRoCE {
		n.HW.NPECNMarkedRoCEPackets++
		if d := n.cfg.DCQCN; d != nil && d.Enabled(int(p.Prio)) {
			n.notify(q, now)
		}
	}
	switch d := roce.PSNDiff(p.PSN, q.ePSN); {
	case d == 0:
		n.dom.Delivered(p)
		q.ePSN = roce.PSNAdd(q.ePSN, 1)
		q.nakSent = false
		q.msgBytes += int64(p.Payload)
		q.delivered += int64(p.Payload)
		q.lastDeliv = now
		q.sinceAck++
		if last, notify := isLast(p.Opcode); last {
			q.msn = roce.PSNAdd(q.msn, 1)
			if notify {
				n.complete(q.conn, workload.Responder, opOf(p.Opcode), 0, q.msgBytes, workload.Success)
			}
			q.deliverMsg++
			q.msgBytes = 0
		}
		if p.AckReq || q.sinceAck >= n.cfg.AckCoalesce {
			n.sendAck(q, roce.SyndromeACKUnlimited)
		}
	case d > 0:
		n.HW.OutOfSequence++
		n.dom.Discarded(p)
		if !q.nakSent {
			q.nakSent = true
			n.sendAck(q, roce.SyndromePSNSequenceError)
		}
	default:
		n.HW.DuplicateRequest++
		n.dom.Discarded(p)
		if p.AckReq {
			n.sendAck(q, roce.SyndromeACKUnlimited)
		}
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

// sendAck queues an ACK (or a NAK, by syndrome) for the responder q.
func (n *NIC) sendAck(q *qp, syndrome uint8) {
	q.sinceAck = 0
	a := n.ctrl(q, packet.Ack, roce.OpAcknowledge, q.dscp, q.prio)
	a.Syndrome = syndrome
	a.MSN = q.msn
	a.PSN = roce.PSNAdd(q.ePSN, -1)
	if syndrome != roce.SyndromeACKUnlimited {
		a.PSN = q.ePSN
	}
	if q.class == packet.ClassTCP {
		a.Frame = packet.TCPFrame(0, n.cfg.VLAN)
	} else {
		a.Frame = packet.DataFrame(0, packet.AETH, n.cfg.VLAN)
	}
	n.queueCtrl(a)
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
// be sent.
func (n *NIC) EachControl(f func(p *packet.Packet)) {
	for i := range n.cls {
		n.cls[i].ctrl.Each(f)
	}
}
