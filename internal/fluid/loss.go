package fluid

import (
	"math"

	"rocelab/internal/packet"
	"rocelab/internal/unit"
)

// Loss in the fluid engine.
//
// A packet lost inside a message is noticed when the next packet reaches
// the responder, which NAKs; by the time the NAK is back the requester has
// sent k more packets, and go-back-N resends the lost one and those k. So
// with per-packet path loss p every packet costs 1 + p(1+k) transmissions
// and the goodput is G/(1+p(1+k)): a flow's allocated wire rate is shared
// with its resends (eff). k follows from the path: the lost packet's and
// the next one's serialization, propagation both ways, and the NAK.
//
// A lost last packet has no next packet to expose it, unless the
// connection posts more before the local ACK timer (4.096 µs·2^timeout)
// runs out: the responder's completion waits for the timer (or for that
// NAK), and the requester resends. A lost last ACK, with nothing after it
// to acknowledge the message cumulatively, holds the requester's
// completion for the timer too. Those waits are drawn per message from
// the stream "fluid/loss", in event order.

// pathLoss returns the probability that a packet crossing path is lost.
func (e *Engine) pathLoss(path []int32) float64 {
	keep := 1.0
	for _, l := range path {
		keep *= 1 - e.net.links[l].loss
	}
	return 1 - keep
}

// efficiency returns the share of flow fl's wire rate that carries new
// data at its current rate, go-back-N resends taking the rest.
func (e *Engine) efficiency(f int32) float64 {
	fl := &e.flows[f]
	if fl.pData <= 0 || fl.tcp {
		fl.k = 0
		return 1
	}
	pkt := float64(int64(fl.mss)+int64(packet.Overhead(e.cfg.VLAN))) * 8 // bits
	rate := fl.rate
	if rate <= 0 {
		return 1
	}
	// From the lost packet's start: the next packet's start, the path
	// both ways, the NAK.
	first := e.net.links[fl.path[0]].rate
	rtt := float64(first.TxTime(unit.Bytes(pkt/8))) + float64(e.latOf(f, int32(pkt/8))+fl.ackLat)
	fl.k = math.Floor(rtt / float64(unit.Second) * rate / pkt)
	// Bursty losses: a run of losses costs one go-back-N episode.
	p := fl.pData / e.burstOf(fl.path)
	return 1 / (1 + p*(1+fl.k))
}

// burstOf returns the mean run length of losses on a path (1 when they
// are independent).
func (e *Engine) burstOf(path []int32) float64 {
	b := 1.0
	for _, l := range path {
		b = math.Max(b, e.net.links[l].burst)
	}
	return b
}

// tailLost decides, when message m's last byte is due at the responder,
// whether its last packet was lost with nothing after it to expose the
// gap: then the responder waits, and tailLost reports true.
func (e *Engine) tailLost(f int32, m *msg, now unit.Time) bool {
	fl := &e.flows[f]
	if fl.pData <= 0 {
		return false
	}
	next := fl.resp + 1
	if next < fl.msgs.len() && fl.msgs.at(next).posted <= m.done {
		return false // the next message's packets follow at once
	}
	if e.lossR.Float64() >= fl.pData {
		return false
	}
	fl.stalled, fl.nak = true, false
	lat := e.latOf(f, m.lastWire)
	fl.resolveAt = m.done + fl.timeout + lat
	if next < fl.msgs.len() {
		// A message posted since exposes the gap: NAK and resend.
		n := fl.msgs.at(next)
		if t := max(n.posted, now-lat) + 2*lat + fl.ackLat; t < fl.resolveAt {
			fl.resolveAt, fl.nak = t, true
		}
	}
	e.setTimer(&fl.stallT, max(fl.resolveAt, now)+e.delay, tagStall|uint64(f)<<8)
	return true
}

// unstall ends a lost tail's wait: the resend arrives, the responder
// completes the message, and whatever was posted meanwhile goes out.
func (e *Engine) unstall(f int32, now unit.Time) {
	fl := &e.flows[f]
	fl.stalled = false
	src, dst := &e.nics[fl.src], &e.nics[fl.dst]
	if fl.nak {
		src.PacketSeqErr++
		dst.OutOfSequence++
	} else {
		src.LocalAckTimeoutErr++
	}
	m := fl.msgs.at(fl.resp)
	fl.retxPkts++
	fl.retxBytes += float64(m.lastWire)
	e.delivered(f, m, now)
	fl = &e.flows[f]
	if !fl.active && fl.send < fl.msgs.len() {
		e.activate(f)
	}
	e.respond(f, now)
}

// armLosses sets the links' loss at time zero and schedules the changes
// at the faults' start and end.
func (e *Engine) armLosses() {
	for i, l := range e.cfg.Losses {
		if l.Start > 0 {
			e.sched.Send(l.Start, 0, e, tagLoss|uint64(2*i)<<8)
		} else {
			e.setLoss(l, true)
		}
		if l.End > 0 && l.End < unit.MaxTime {
			e.sched.Send(l.End, 0, e, tagLoss|uint64(2*i+1)<<8)
		}
	}
}

// setLoss applies or removes a loss fault on both directions of its link.
func (e *Engine) setLoss(l Loss, on bool) {
	for dir := 0; dir < 2; dir++ {
		lk := &e.net.links[linkID(l.Link, dir)]
		if on {
			lk.loss, lk.burst = l.Rate, math.Max(l.Burst, 1)
		} else {
			lk.loss, lk.burst = 0, 1
		}
	}
}

// lossChange starts or ends loss fault i/2 and moves the flows crossing
// its link to their new loss.
func (e *Engine) lossChange(now unit.Time, i int) {
	l := e.cfg.Losses[i/2]
	for f := range e.flows {
		e.flushLinks(int32(f))
	}
	e.setLoss(l, i%2 == 0)
	for f := range e.flows {
		fl := &e.flows[f]
		old := fl.pData
		fl.pData = e.pathLoss(fl.path)
		// The ACK path is not kept; its loss follows the data's links
		// back, which a loss fault hits in both directions alike.
		fl.pAck = fl.pData
		if fl.pData != old && fl.active {
			e.setRate(int32(f), fl.rate, now)
		}
	}
}

// settled books message m of flow f, whose last byte left at done: the
// packets and bytes on every link, the go-back-N resends and the ECN marks
// it met, and arms nothing (the caller does).
func (e *Engine) settled(f int32, m *msg, done unit.Time) {
	fl := &e.flows[f]
	m.done = done
	pk := float64(m.pkts)
	fl.sentBytes += m.bytes
	fl.sentPkts += int64(m.pkts)
	// Resends: each loss costs 1+k packets.
	var retx, retxBytes float64
	if fl.pData > 0 && !fl.tcp {
		ep := fl.pData / e.burstOf(fl.path)
		retx = pk * ep * (1 + fl.k)
		retxBytes = retx * float64(m.wire) / pk
		fl.retxPkts += retx
		fl.retxBytes += retxBytes
		e.nics[fl.src].Retransmitted += retx
		e.nics[fl.src].NAKs += pk * ep
		e.nics[fl.dst].OOS += pk * ep * fl.k
	}
	e.recordLatency(f, m)
	frames := float64(m.wire) + retxBytes - (pk+retx)*packet.PreambleIFG
	pkts := pk + retx
	// The frames on the links of its path and its ACKs on the way back
	// are booked per connection and moved onto the links in bulk (see
	// flushLinks): they do not depend on when they are moved, but for
	// the loss, which is moved before it changes.
	fl.pendFrames += frames
	fl.pendPkts += pkts
	// ACKs: one per AckCoalesce packets and one for the last.
	acks := math.Ceil(pk / float64(max(e.cfg.AckCoalesce, 1)))
	fl.acks += int64(acks)
	fl.pendAcks += acks
	if e.marking > 0 && e.cfg.ECT && !fl.tcp {
		keep := 1.0
		for h, l := range fl.path {
			lk := &e.net.links[l]
			if mp := lk.st.markP[fl.cls[h]]; mp > 0 {
				lk.st.marks[fl.cls[h]] += pkts * keep * mp
			}
			keep *= 1 - lk.loss
		}
	}
	if fl.pMark > 0 {
		marked := pkts * fl.pMark
		fl.marked += marked
		dst := &e.nics[fl.dst]
		dst.ECNMarked += marked
		if d := e.cfg.DCQCN; d != nil && d.Enabled(int(fl.prio)) {
			// At most one CNP per min_time_between_cnps: over the
			// message's sending time D with marks at rate λ, about
			// D/(τ + 1/λ) of them.
			dur := float64(m.wire*8) / math.Max(fl.rate, 1) // seconds
			cnps := marked
			if e.tau > 0 && dur > 0 {
				cnps = marked / (1 + e.tau*marked/dur)
			}
			fl.cnps += cnps
			dst.CNPSent += cnps
			if fl.ccOn {
				e.nics[fl.src].CNPHandled += cnps
			} else {
				e.nics[fl.src].CNPIgnored += cnps
			}
		}
	}
}

// flushLinks moves flow f's frames booked since the last flush onto the
// links they crossed: on its data path, thinned by each link's loss, and
// its ACKs on the way back.
func (e *Engine) flushLinks(f int32) {
	fl := &e.flows[f]
	if fl.pendPkts == 0 && fl.pendAcks == 0 {
		return
	}
	frames, pkts, acks := fl.pendFrames, fl.pendPkts, fl.pendAcks
	fl.pendFrames, fl.pendPkts, fl.pendAcks = 0, 0, 0
	keep := 1.0
	for h, l := range fl.path {
		lk := &e.net.links[l]
		c := fl.cls[h]
		lk.st.bytes[c] += frames * keep
		lk.st.packets[c] += pkts * keep
		lk.st.lost += pkts * keep * lk.loss
		keep *= 1 - lk.loss
	}
	for h, l := range fl.back {
		lk := &e.net.links[l]
		c := fl.swPrio
		if h == 0 {
			c = fl.prio
		}
		lk.st.bytes[c] += acks * float64(fl.ackFrame)
		lk.st.packets[c] += acks
	}
}

// recordLatency books message m's packets at the one-way latency a packet
// of it sees: serialization and propagation on every hop, the mean FEC
// jitter, and the standing queue estimated at each link it crosses. A
// connection's messages mostly see the same latency: it is kept until
// the frame size or a queue on the way changes, and the packets booked
// at it go into the histogram together (flushLatency).
func (e *Engine) recordLatency(f int32, m *msg) {
	fl := &e.flows[f]
	frame := int32(min(int64(fl.mss), m.bytes)) + int32(packet.Overhead(e.cfg.VLAN))
	if frame != fl.latFrame || fl.latEpoch != e.qEpoch {
		d := fl.baseLat
		for _, l := range fl.path {
			lk := &e.net.links[l]
			d += lk.rate.TxTime(unit.Bytes(frame))
			if q := lk.st.queue; q > 0 {
				d += unit.Time(q * 8 / lk.bps * float64(unit.Second))
			}
		}
		fl.latFrame, fl.latEpoch = frame, e.qEpoch
		if d != fl.latD {
			e.flushLatency(f)
			fl.latD = d
		}
	}
	fl.latN += int64(m.pkts)
}

// flushLatency puts flow f's packets booked at its current latency into
// the histogram.
func (e *Engine) flushLatency(f int32) {
	fl := &e.flows[f]
	if fl.latN == 0 {
		return
	}
	class := packet.ClassRoCE
	if fl.tcp {
		class = packet.ClassTCP
	}
	e.lat.RecordN(class, fl.swPrio, fl.latD, fl.latN)
	fl.latN = 0
}
