package nic

import (
	"rocelab/internal/cc"
	"rocelab/internal/fabric"
	"rocelab/internal/packet"
	"rocelab/internal/roce"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// Event tags a NIC serves: the kind in the low byte, a QP index above.
const (
	tagCalendar uint64 = iota
	tagRTO
	tagCC
	tagDrain
	tagNP
)

// txClass is one priority's egress: control frames first, then the QPs
// that may send now, round robin.
type txClass struct {
	ctrl  packet.Queue
	ready ring
}

// NIC is one host's RDMA NIC behind one fabric port. It implements
// fabric.Endpoint.
type NIC struct {
	net  *fabric.Network
	tr   *Transport
	id   int32
	name string
	port *fabric.Port
	cfg  *Config

	qps []*qp

	ets      fabric.ETS
	cls      [8]txClass
	busy     uint8 // classes with a control frame or a ready QP
	cal      calendar
	calAlarm sim.Alarm
	// np is the port's notification point when CNPs are paced per port;
	// npLast the QP of the last mark it held back, npTimer its timer.
	np      cc.NP
	npLast  *qp
	npTimer sim.Timer
	rng     *sim.Rand

	rx rxBuffer

	sampled int
	series  []*QPSeries

	// HW holds the RDMA counters (hw_counters).
	HW HWCounters
}

// New creates host id's NIC with one port on net.
func New(net *fabric.Network, id int32, name string, cfg *Config) *NIC {
	n := &NIC{net: net, id: id, name: name, cfg: cfg, ets: fabric.NewETS(cfg.Strict, cfg.Weights)}
	n.port = net.NewPort(n, 0)
	n.port.SetEgress(n)
	if cfg.DCQCN != nil {
		n.np = cfg.DCQCN.NewNP()
	}
	if cfg.Adaptive != nil {
		n.rng = net.Streams.Stream("nic/adaptive-retx/" + name)
	}
	return n
}

// Name implements fabric.Node.
func (n *NIC) Name() string { return n.name }

// HostID implements fabric.Endpoint.
func (n *NIC) HostID() int32 { return n.id }

// Port implements fabric.Endpoint.
func (n *NIC) Port() *fabric.Port { return n.port }

// Start configures the port's PFC sending once it is linked.
func (n *NIC) Start() { n.port.SetPFC(n.cfg.PFC) }

// newQP creates a queue pair end on this NIC.
func (n *NIC) newQP(conn workload.QP, class packet.Class, prio, dscp uint8, rateCap unit.BitRate) *qp {
	q := &qp{
		nic: n, idx: int32(len(n.qps)), qpn: QPNBase + uint32(len(n.qps)), conn: conn,
		class: class, prio: prio, dscp: dscp, mss: n.cfg.MTU, rateCap: rateCap, retries: n.cfg.RetryCnt,
	}
	if class == packet.ClassTCP {
		q.mss = n.cfg.TCPMSS
	}
	if d := n.cfg.DCQCN; d != nil && class == packet.ClassRoCE {
		q.np = d.NewNP()
	}
	n.qps = append(n.qps, q)
	return q
}

// byQPN returns the QP a packet addressed to qpn is for, or nil.
func (n *NIC) byQPN(qpn uint32) *qp {
	i := int64(qpn) - QPNBase
	if i < 0 || i >= int64(len(n.qps)) {
		return nil
	}
	return n.qps[i]
}

// Handle serves the NIC's events.
func (n *NIC) Handle(now unit.Time, tag uint64) {
	switch tag & 0xff {
	case tagCalendar:
		n.calAlarm.Fired()
		for n.cal.len() > 0 && n.cal.min() <= now {
			if q := n.cal.pop(); q != nil {
				q.where = idle
				n.makeReady(q)
			}
		}
		if n.cal.len() > 0 {
			n.calAlarm.ArmBy(n.net.Sched, n.cal.min(), n, tagCalendar)
		}
		n.port.Kick()
	case tagRTO:
		q := n.qps[tag>>8]
		if q.rto.Fire(n.net.Sched, now) {
			n.timeout(q, now)
		}
	case tagCC:
		q := n.qps[tag>>8]
		if q.ccTimer.Fire(n.net.Sched, now) {
			q.cc.OnDeadline(now)
			n.armCC(q)
			n.repace(q, now)
		}
	case tagDrain:
		n.drain(now)
	case tagNP:
		if tag>>8 == 0xffffff {
			if n.npTimer.Fire(n.net.Sched, now) && n.np.OnDeadline(now) {
				n.sendCNP(n.npLast, now)
			}
			return
		}
		q := n.qps[tag>>8]
		if q.npTimer.Fire(n.net.Sched, now) && q.np.OnDeadline(now) {
			n.sendCNP(q, now)
		}
	}
}

// makeReady puts a QP that has data to send in its priority's ring, or in
// the calendar if it is paced to a later time.
func (n *NIC) makeReady(q *qp) {
	if q.where != idle || !q.hasData() {
		return
	}
	now := n.net.Sched.Now()
	if q.nextTx > now {
		q.where = inCalendar
		n.cal.push(q.nextTx, q)
		n.calAlarm.ArmBy(n.net.Sched, n.cal.min(), n, tagCalendar)
		return
	}
	q.where = inRing
	c := &n.cls[q.prio]
	c.ready.push(q)
	n.busy |= 1 << q.prio
	n.port.Kick()
}

// HeadBytes implements fabric.HeadSizer.
func (n *NIC) HeadBytes(prio int) int64 {
	c := &n.cls[prio]
	if h := c.ctrl.Head(); h != nil {
		return int64(h.Frame)
	}
	return c.ready.head().headFrame()
}

// Dequeue implements fabric.Egress.
func (n *NIC) Dequeue(pt *fabric.Port, paused uint8) *packet.Packet {
	ready := n.busy &^ paused
	// A QP that failed while queued leaves its ring lazily, here.
	for prio := range n.cls {
		c := &n.cls[prio]
		for ready&(1<<prio) != 0 && c.ctrl.Len() == 0 && !c.ready.head().hasData() {
			c.ready.pop().where = idle
			if c.ready.len() == 0 {
				n.emptied(prio)
				ready &^= 1 << prio
			}
		}
	}
	if ready == 0 {
		return nil
	}
	prio := n.ets.Pick(ready, n)
	c := &n.cls[prio]
	if p := c.ctrl.Pop(); p != nil {
		if c.ctrl.Len() == 0 && c.ready.len() == 0 {
			n.emptied(prio)
		}
		n.net.SentControl(p)
		return p
	}
	q := c.ready.pop()
	q.where = idle
	now := n.net.Sched.Now()
	p, retx := q.segment(now)
	n.sent(q, p, retx, now)
	if c.ready.len() == 0 && c.ctrl.Len() == 0 {
		n.emptied(prio)
	}
	n.makeReady(q)
	return p
}

// emptied clears a class that has nothing left to send.
func (n *NIC) emptied(prio int) {
	n.busy &^= 1 << prio
	n.ets.Emptied(prio)
}

// sent books a data packet and paces its QP.
func (n *NIC) sent(q *qp, p *packet.Packet, retx bool, now unit.Time) {
	n.net.SentData(p, retx)
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
	if !q.rto.Armed() {
		q.rto.Set(n.net.Sched, now+n.rtoOf(q), n, tagRTO|uint64(q.idx)<<8)
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

// repace moves a QP waiting in the calendar earlier when its rate rose.
func (n *NIC) repace(q *qp, now unit.Time) {
	if q.where != inCalendar {
		return
	}
	next := max(n.paceAfter(q, now), now)
	if next >= q.nextTx {
		return
	}
	q.nextTx = next
	q.calGen++
	q.where = idle
	n.makeReady(q)
}

// armCC sets the QP's congestion-control timer to its controller's next
// deadline.
func (n *NIC) armCC(q *qp) {
	if d := q.cc.NextDeadline(); d != unit.MaxTime {
		q.ccTimer.Set(n.net.Sched, max(d, n.net.Sched.Now()), n, tagCC|uint64(q.idx)<<8)
	} else {
		q.ccTimer.Stop()
	}
}

// rtoOf returns the QP's current retransmission timeout.
func (n *NIC) rtoOf(q *qp) unit.Time {
	if q.class == packet.ClassTCP {
		return n.cfg.TCPRTO << min(q.timeouts, 6)
	}
	t := n.cfg.ACKTimeout()
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
	q.rto.Set(n.net.Sched, now+n.rtoOf(q), n, tagRTO|uint64(q.idx)<<8)
	n.makeReady(q)
}

// Receive implements fabric.Node.
func (n *NIC) Receive(p *packet.Packet, in *fabric.Port) {
	p.Prio = n.cfg.Classifier.Classify(p)
	in.Counters.CountRx(p)
	switch p.Kind {
	case packet.Data:
		if n.cfg.DrainRate > 0 {
			n.buffer(p)
			return
		}
		n.rxData(p)
	case packet.Ack:
		n.rxAck(p)
	case packet.CNP:
		n.rxCNP(p)
	}
	n.net.Pool.Put(p)
}

// rxData is the responder receiving a data packet.
func (n *NIC) rxData(p *packet.Packet) {
	q := n.byQPN(p.DstQP)
	if q == nil {
		n.net.Discarded(p)
		return
	}
	if p.Opcode <= roce.OpWriteOnlyImm && p.Opcode >= roce.OpWriteFirst {
		n.HW.RxWriteRequests++
	} else {
		n.HW.RxSendRequests++
	}
	now := n.net.Sched.Now()
	if p.ECN == packet.CE && p.Class == packet.ClassRoCE {
		n.HW.NPECNMarkedRoCEPackets++
		if d := n.cfg.DCQCN; d != nil && d.Enabled(int(p.Prio)) {
			n.notify(q, now)
		}
	}
	switch d := roce.PSNDiff(p.PSN, q.ePSN); {
	case d == 0:
		n.net.Delivered(p)
		q.ePSN = roce.PSNAdd(q.ePSN, 1)
		q.nakSent = false
		q.msgBytes += int64(p.Payload)
		q.delivered += int64(p.Payload)
		q.lastDeliv = now
		q.sinceAck++
		if last, notify := isLast(p.Opcode); last {
			q.msn = roce.PSNAdd(q.msn, 1)
			if notify {
				n.tr.complete(q.conn, workload.Responder, opOf(p.Opcode), 0, q.msgBytes, workload.Success)
			}
			q.deliverMsg++
			q.msgBytes = 0
		}
		if p.AckReq || q.sinceAck >= n.cfg.AckCoalesce {
			n.sendAck(q, roce.SyndromeACKUnlimited)
		}
	case d > 0:
		n.HW.OutOfSequence++
		n.net.Discarded(p)
		if !q.nakSent {
			q.nakSent = true
			n.sendAck(q, roce.SyndromePSNSequenceError)
		}
	default:
		n.HW.DuplicateRequest++
		n.net.Discarded(p)
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
				n.npTimer.Set(n.net.Sched, d, n, tagNP|0xffffff<<8)
			}
		}
		return
	}
	if q.np.OnCE(now) {
		n.sendCNP(q, now)
	} else if d := q.np.NextDeadline(); d != unit.MaxTime {
		q.npTimer.Set(n.net.Sched, d, n, tagNP|uint64(q.idx)<<8)
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
	p := n.net.Pool.Get()
	p.Kind, p.Class, p.Opcode = kind, q.class, op
	p.Src, p.Dst = n.id, q.peerHost
	p.DstQP = q.peerQPN
	p.SrcPort = q.srcPort
	p.DSCP = dscp
	p.Prio, p.PCP, p.VLAN = prio, prio, n.cfg.VLAN
	p.TTL = n.cfg.TTL
	p.SentAt = n.net.Sched.Now()
	return p
}

// queueCtrl queues a control frame on its priority.
func (n *NIC) queueCtrl(p *packet.Packet) {
	n.cls[p.Prio].ctrl.Push(p)
	n.busy |= 1 << p.Prio
	n.port.Kick()
}

// rxAck is the requester receiving an ACK or NAK.
func (n *NIC) rxAck(p *packet.Packet) {
	q := n.byQPN(p.DstQP)
	if q == nil || q.failed {
		return
	}
	now := n.net.Sched.Now()
	switch roce.SyndromeKind(p.Syndrome) {
	case roce.KindACK:
		n.progress(q, q.ackTo(roce.PSNAdd(p.PSN, 1)), now)
	case roce.KindNAK:
		if p.Syndrome&0x1f != roce.NAKPSNSequenceError {
			return
		}
		n.HW.PacketSeqErr++
		n.progress(q, q.ackTo(p.PSN), now)
		if q.failed {
			return
		}
		q.retries--
		if q.retries < 0 {
			q.fail(workload.RetryExceeded)
			return
		}
		q.goBack(p.PSN)
		n.makeReady(q)
	}
}

// progress resets the retry budget and the timer after an acknowledgement
// that advanced the oldest unacknowledged PSN.
func (n *NIC) progress(q *qp, advanced bool, now unit.Time) {
	if !advanced {
		return
	}
	q.retries = n.cfg.RetryCnt
	q.timeouts = 0
	if q.outstanding() {
		q.rto.Set(n.net.Sched, now+n.rtoOf(q), n, tagRTO|uint64(q.idx)<<8)
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
	q.cc.OnCNP(n.net.Sched.Now())
	n.armCC(q)
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
