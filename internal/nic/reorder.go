package nic

import (
	"rocelab/internal/packet"
	"rocelab/internal/roce"
	"rocelab/internal/unit"
)

// An out-of-order responder (Config.Receive = PlaceOutOfOrder) places a
// request that arrives ahead of the expected PSN into its reorder buffer
// (the data goes straight to memory; the buffer keeps what completing it
// needs), and completes messages in PSN order once the gap before them
// fills. A placed packet counts as placed_out_of_order (twin-only), not
// out_of_sequence, which keeps counting the packets a responder could not
// take: those past the window. (Whether mlx5 counts placed packets in
// out_of_sequence is not documented; this reading keeps the counter a sign
// of loss.) A PSN still missing when the highest placed one is more than
// NAKThreshold past it is NAKed, once, with the missing range: a
// selective-repeat requester resends that range, a go-back-N one
// everything from its start.

// robSlot is what the reorder buffer keeps of a placed packet.
type robSlot struct {
	payload int32
	op      roce.Opcode
	ackReq  bool
	used    bool
}

// slot returns the reorder-buffer slot of psn.
func (q *qp) slot(psn uint32) *robSlot { return &q.rob[int(psn)%len(q.rob)] }

// placed reports whether psn, at or past the expected PSN, is in the
// reorder buffer.
func (q *qp) placed(psn uint32) bool {
	d := roce.PSNDiff(psn, q.ePSN)
	return q.rob != nil && d >= 0 && int(d) < len(q.rob) && q.slot(psn).used
}

// place takes a request d PSNs past the expected one at an out-of-order
// responder: into the reorder buffer when it fits, and either way NAKs
// the holes it shows.
func (n *NIC) place(q *qp, p *packet.Packet, d int32, now unit.Time) {
	if q.rob == nil {
		q.rob = make([]robSlot, n.cfg.ReorderWindow)
	}
	if next := roce.PSNAdd(p.PSN, 1); roce.PSNDiff(q.robHigh, q.ePSN) <= 0 || roce.PSNDiff(next, q.robHigh) > 0 {
		q.robHigh = next
	}
	switch {
	case int(d) >= len(q.rob) || p.Opcode == roce.OpReadRequest:
		// Past the window, or a READ (answered in order only): dropped,
		// and its PSN a hole like a loss.
		n.HW.OutOfSequence++
		n.dom.Discarded(p)
	case q.slot(p.PSN).used:
		n.HW.DuplicateRequest++
		n.dom.Discarded(p)
	default:
		*q.slot(p.PSN) = robSlot{payload: p.Payload, op: p.Opcode, ackReq: p.AckReq, used: true}
		n.dom.Delivered(p)
		n.HW.PlacedOutOfOrder++
	}
	n.nakHoles(q, p)
}

// drainROB completes the placed requests that the expected PSN has
// reached, in order.
func (n *NIC) drainROB(q *qp, now unit.Time) {
	for {
		sl := q.slot(q.ePSN)
		s := *sl
		if !s.used {
			return
		}
		*sl = robSlot{}
		n.accept(q, s.op, s.payload, 0, s.ackReq, now)
	}
}

// nakHoles NAKs every missing PSN that a packet more than NAKThreshold
// PSNs past it has arrived beyond, one NAK per run of missing PSNs, each
// at most once.
func (n *NIC) nakHoles(q *qp, trig *packet.Packet) {
	if roce.PSNDiff(q.nakTo, q.ePSN) < 0 {
		q.nakTo = q.ePSN
	}
	// A PSN below limit has a packet more than NAKThreshold past it.
	limit := roce.PSNAdd(q.robHigh, -1-n.cfg.NAKThreshold)
	for roce.PSNDiff(limit, q.nakTo) > 0 {
		if q.placed(q.nakTo) {
			q.nakTo = roce.PSNAdd(q.nakTo, 1)
			continue
		}
		from := q.nakTo
		for roce.PSNDiff(limit, q.nakTo) > 0 && !q.placed(q.nakTo) {
			q.nakTo = roce.PSNAdd(q.nakTo, 1)
		}
		a := n.sendAck(q, roce.SyndromePSNSequenceError, trig)
		a.NAKFrom, a.NAKEnd = from, q.nakTo
	}
}
