package nic

import (
	"math/bits"

	"rocelab/internal/cc"
	"rocelab/internal/fabric"
	"rocelab/internal/packet"
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
	tagPost
)

// txClass is one priority's egress: control frames first, then the QPs
// that may send now, round robin.
type txClass struct {
	ctrl  packet.Queue
	ready ring
	dwrr  fabric.DWRR // the class's share in the NIC's ETS
}

// NIC is one host's RDMA NIC behind one fabric port. It implements
// fabric.Endpoint.
type NIC struct {
	// What sending or receiving any frame reads comes first, in the
	// first line of the NIC as the heap places it (TestNICSendLine), so
	// that a packet reads one line of it besides its class: on a fabric of
	// thousands of hosts a NIC's state has left the caches by its next
	// packet.
	dom  *fabric.Domain
	cfg  *Config
	port *fabric.Port
	key  sim.Key // the NIC's own events
	ets  fabric.ETS
	busy uint8 // classes with a control frame or a ready QP (beside ets: every send reads both)
	id   int32
	qps  []*qp

	node uint32
	name string
	// posts holds the work requests the workloads posted, each in a slot
	// until its event (a post made ahead of its time may overtake one
	// made earlier); mail is the domain's mailbox to the workloads, for
	// completions.
	posts workload.Slots[posted]
	mail  *mailbox

	cls      [8]txClass
	cal      calendar
	calAlarm sim.Alarm
	// np is the port's notification point when CNPs are paced per port;
	// npLast the QP of the last mark it held back, npTimer its timer.
	np      cc.NP
	npLast  *qp
	npTimer sim.Timer
	rng     *sim.Rand

	rx rxBuffer

	// sampled is how many of its queue pairs have series, sampling those
	// queue pairs, and anyCC says some queue pair has congestion
	// control: once sampled reaches Config.SampleQPs, or with no
	// congestion control, a sample visits no other queue pair (each a
	// cache line: the 127->1 incast's receiver has 127); unsampled says
	// the NIC, without congestion control, has left its domain's samplers.
	sampled   int
	sampling  []*qp
	series    []*QPSeries
	anyCC     bool
	unsampled bool

	// HW holds the RDMA counters (hw_counters).
	HW HWCounters
}

// New creates host id's NIC with one port, in domain d.
func New(d *fabric.Domain, id int32, name string, cfg *Config) *NIC {
	net := d.Network()
	n := &NIC{dom: d, id: id, node: net.NewNodeID(), name: name, cfg: cfg}
	n.ets = fabric.NewETS(cfg.Strict, cfg.Weights, func(c int) *fabric.DWRR { return &n.cls[c].dwrr })
	if cfg.QPOrderByIndex {
		for i := range n.cls {
			n.cls[i].ready.idx = &indexOrder{last: -1}
		}
	}
	n.key = sim.NodeKey(n.node, sim.SrcSelf)
	n.port = net.NewPort(d, n, n.node, 0)
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

// newQP makes the NIC's idx-th queue pair end, which joins the NIC when
// the run delivers its connect (Transport.Deliver). It reads only the
// NIC's configuration (and initCC the port's rate, fixed once built), so
// the control side may call them while the NIC's domain runs.
func (n *NIC) newQP(idx int32, conn workload.QP, class packet.Class, prio, dscp uint8, rateCap unit.BitRate) *qp {
	q := &qp{
		nic: n, idx: idx, qpn: QPNBase + uint32(idx), conn: conn,
		class: class, prio: prio, dscp: dscp, mss: n.cfg.MTU, rateCap: rateCap,
		retries: n.cfg.RetryCnt, retryCnt: n.cfg.RetryCnt, timeoutExp: n.cfg.Timeout,
	}
	if class == packet.ClassTCP {
		q.mss = n.cfg.TCPMSS
	} else {
		q.ooo = n.cfg.Receive == PlaceOutOfOrder && n.cfg.ReorderWindow > 0
		q.sr = n.cfg.SelectiveRepeat
	}
	if d := n.cfg.DCQCN; d != nil && class == packet.ClassRoCE {
		q.np = d.NewNP()
	}
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
			n.calAlarm.ArmBy(n.dom.Sched, n.cal.min(), n.key, n, tagCalendar)
		}
		n.port.Kick()
	case tagRTO:
		q := n.qps[tag>>8]
		if q.rto.Fire(n.dom.Sched, now) {
			n.timeout(q, now)
		}
	case tagCC:
		q := n.qps[tag>>8]
		if q.ccTimer.Fire(n.dom.Sched, now) {
			q.cc.OnDeadline(now)
			n.armCC(q)
			n.repace(q, now)
		}
	case tagDrain:
		n.drain(now)
	case tagPost:
		n.post(int32(tag >> 8))
	case tagNP:
		if tag>>8 == 0xffffff {
			if n.npTimer.Fire(n.dom.Sched, now) && n.np.OnDeadline(now) {
				n.sendCNP(n.npLast, now)
			}
			return
		}
		q := n.qps[tag>>8]
		if q.npTimer.Fire(n.dom.Sched, now) && q.np.OnDeadline(now) {
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
	now := n.dom.Sched.Now()
	if q.nextTx > now {
		q.where = inCalendar
		n.cal.push(q.nextTx, q)
		n.calAlarm.ArmBy(n.dom.Sched, n.cal.min(), n.key, n, tagCalendar)
		return
	}
	q.where = inRing
	c := &n.cls[q.prio]
	c.ready.push(q)
	n.busy |= 1 << (q.prio & 7) // a class: its mask needs no shift guard
	n.port.Kick()
}

// Head implements fabric.HeadSizer.
func (n *NIC) Head(prio int) (int64, *fabric.DWRR) {
	c := &n.cls[prio]
	if h := c.ctrl.Head(); h != nil {
		return int64(h.Frame), &c.dwrr
	}
	return c.ready.head().headFrame(), &c.dwrr
}

// Dequeue implements fabric.Egress.
func (n *NIC) Dequeue(pt *fabric.Port, paused uint8) (*packet.Packet, bool) {
	if n.cfg.AcksFirst {
		if p := n.ctrlFirst(); p != nil {
			return p, n.busy&^paused != 0 || n.hasCtrl(n.busy&paused)
		}
	}
	ready := n.busy &^ paused
	// A QP that failed while queued leaves its ring lazily, here.
	for m := ready; m != 0; m &= m - 1 {
		prio := bits.TrailingZeros8(m)
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
		return nil, false
	}
	// One class ready, as nearly always: it is charged the frame made,
	// where Pick would work the frame's length out before (Head).
	var prio int
	charge := false
	if ready&(ready-1) == 0 {
		prio, charge = n.ets.Next(ready)
	} else {
		prio = n.ets.Pick(ready, n)
	}
	c := &n.cls[prio]
	if h := c.ctrl.Head(); h != nil {
		if charge {
			n.ets.Charge(&c.dwrr, int64(h.Frame))
		}
		p := n.popCtrl(prio) // which may empty the class: busy after it
		return p, n.busy&^paused != 0
	}
	q := c.ready.pop()
	q.where = idle
	now := n.dom.Sched.Now()
	p, retx := q.segment(now)
	if charge {
		n.ets.Charge(&c.dwrr, int64(p.Frame))
	}
	n.sent(q, p, retx, now)
	if c.ready.len() == 0 && c.ctrl.Len() == 0 {
		if q.hasData() && q.nextTx <= now {
			// The class's only QP, ready again at once, goes straight
			// back: emptied and makeReady would clear the class's busy
			// bit and set it again, and kick the port, which is
			// sending (startTx) and so does nothing. Only the deficit's
			// reset is left to do.
			c.dwrr.Emptied()
			q.where = inRing
			c.ready.push(q)
			return p, n.busy&^paused != 0
		}
		n.emptied(prio)
	}
	n.makeReady(q)
	return p, n.busy&^paused != 0
}

// ctrlFirst takes the next control frame of any class, paused or not,
// the highest priority's first (Config.AcksFirst), or nil. A class with a
// control frame is busy, so only the busy ones are looked at.
func (n *NIC) ctrlFirst() *packet.Packet {
	for m := n.busy; m != 0; m &^= 1 << (bits.Len8(m) - 1) {
		if p := n.popCtrl(bits.Len8(m) - 1); p != nil {
			return p
		}
	}
	return nil
}

// popCtrl takes class prio's next control frame, or nil.
func (n *NIC) popCtrl(prio int) *packet.Packet {
	c := &n.cls[prio]
	p := c.ctrl.Pop()
	if p == nil {
		return nil
	}
	if c.ctrl.Len() == 0 && c.ready.len() == 0 {
		n.emptied(prio)
	}
	n.dom.SentControl(p)
	return p
}

// hasCtrl reports whether a control frame waits in a class of mask.
func (n *NIC) hasCtrl(mask uint8) bool {
	for m := mask; m != 0; m &= m - 1 {
		if n.cls[bits.TrailingZeros8(m)].ctrl.Len() > 0 {
			return true
		}
	}
	return false
}

// emptied clears a class that has nothing left to send.
func (n *NIC) emptied(prio int) {
	n.busy &^= 1 << prio
	n.cls[prio].dwrr.Emptied()
}

// Receive implements fabric.Node.
func (n *NIC) Receive(p *packet.Packet, in *fabric.Port) {
	p.Prio = n.cfg.Classifier.Classify(p)
	in.CountRx(p)
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
	n.dom.Free(p)
}
