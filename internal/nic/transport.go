package nic

import (
	"fmt"
	"slices"

	"rocelab/internal/cc"
	"rocelab/internal/fabric"
	"rocelab/internal/packet"
	"rocelab/internal/roce"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// conn is one reliable connection: its requester QP on the source NIC and
// its responder QP on the destination NIC.
type conn struct {
	req, resp *qp
	owner     workload.Owner
	opts      workload.QPOptions
	// grouped says the owner groups hosts (Group): its completions are
	// keyed by their NIC's group.
	grouped bool
}

// Transport implements workload.Transport over the NICs of a network: the
// packet-level twin. Connections are RC queue pairs, or TCP-class
// connections with kernel framing and the Linux minimum RTO.
//
// The workloads run on the control side, on a scheduler of their own
// (Control), and touch the NICs only by messages with timestamps: a post
// waits in the transport's outbox until the run hands it to the NIC's
// domain (Deliver), whose worker makes it an event at the NIC at the time
// of the post, first among the NIC's events at that time (Part.Receive);
// a completion reaches the workload Config.CompletionDelay after the NIC
// wrote it (the CQE's DMA and the poll that finds it), through its
// domain's mailbox, which the domain's worker hands over (Part.Flush) and
// the control side takes (Collect). So the
// workloads' state is never touched from two domains at once, the
// control side can run beside the domains, and a run split over domains
// sees every completion and post at the same time as a run on one.
// Connections are made on the control side too, at once: the two queue
// pairs are built there, with their numbers and UDP source port (drawn in
// the order the workloads connect), and join their NICs when the run
// delivers the connect, which may be before the NIC's clock reaches the
// time of the connect: nothing reaches a new queue pair before its peer
// learns of it, and the sampler skips queue pairs younger than its time.
//
// A workload handles a completion as of the time the NIC wrote it: Now
// returns that time and After counts from it, so the latencies a workload
// models after a completion (a proxy thread's, a kernel's) include the
// CQE's way to the host, and only reactions faster than CompletionDelay
// wait for it. Posts take effect when the workload saw the completion.
type Transport struct {
	sched *sim.Scheduler
	nics  []*NIC
	conns []conn
	wakes workload.Wakes
	sport *sim.Rand
	delay unit.Time
	// qpns counts the queue pairs made on each NIC; out holds the
	// messages to the NICs (posts, new queue pairs) the run has not
	// delivered yet, staged the same by domain while they are delivered.
	qpns   []uint32
	out    []posted
	staged [][]posted

	// mail holds a mailbox per domain, where its NICs write; parts the
	// domains' boxes between the two sides; comps the completions
	// between their collection and their event.
	mail  []*mailbox
	parts []*Part
	comps workload.Slots[workload.Completion]
	// inCQE is set while a workload handles a completion, which it sees
	// at the time the NIC wrote it, cqeAt.
	inCQE bool
	cqeAt unit.Time

	workloads []workload.Workload
	started   bool

	home homes
	// group is, by host, the node of its workload steps' keys: 1 + the
	// least host of its group (Group), 0 (the control side) for a host in
	// none; nil until a workload calls Group. groupers are the owners
	// that group.
	group    []uint32
	groupers []workload.Owner
}

// Transport event tags.
const (
	tagStart uint64 = iota
	tagWake
	tagComplete
)

// NewTransport returns the transport over nics; nics[i] must be host i.
func NewTransport(net *fabric.Network, nics []*NIC) *Transport {
	t := &Transport{sched: sim.NewScheduler(), nics: nics, sport: net.Streams.Stream("qp/udp-sport"), qpns: make([]uint32, len(nics))}
	for _, d := range net.Domains {
		t.mail = append(t.mail, &mailbox{})
		t.parts = append(t.parts, &Part{Domain: d, t: t})
	}
	t.staged = make([][]posted, len(net.Domains))
	t.home = homes{cur: noHome, parts: make([]uint64, len(net.Domains))}
	for _, n := range nics {
		n.mail = t.mail[n.dom.ID]
		t.delay = max(t.delay, n.cfg.CompletionDelay)
	}
	for _, m := range t.mail {
		m.delay = t.delay
	}
	return t
}

// Control returns the scheduler the workloads run on.
func (t *Transport) Control() *sim.Scheduler { return t.sched }

// CompletionDelay returns how long after a NIC writes a completion the
// workload sees it: the least lookahead from the domains to the control
// side.
func (t *Transport) CompletionDelay() unit.Time { return t.delay }

// NICs returns the NICs, by host.
func (t *Transport) NICs() []*NIC { return t.nics }

// Now implements workload.Transport.
func (t *Transport) Now() unit.Time {
	if t.inCQE {
		return t.cqeAt
	}
	return t.sched.Now()
}

// Hosts implements workload.Transport.
func (t *Transport) Hosts() int { return len(t.nics) }

// Connect implements workload.Transport.
func (t *Transport) Connect(src, dst int, o workload.QPOptions, owner workload.Owner) workload.QP {
	if src == dst || src < 0 || dst < 0 || src >= len(t.nics) || dst >= len(t.nics) {
		panic(fmt.Sprintf("nic: Connect(%d, %d) over %d hosts", src, dst, len(t.nics)))
	}
	id := workload.QP(len(t.conns))
	s, d := t.nics[src], t.nics[dst]
	cfg := s.cfg
	dscp := cfg.DSCP
	if o.SetTC {
		dscp = o.TC >> 2
	}
	prio := cfg.Classifier.Priority(dscp, 0, false)
	if cfg.Classifier.Trust == fabric.TrustPCP {
		prio = dscpDefaultPrio(dscp)
	}
	if cfg.Priority >= 0 {
		prio = uint8(cfg.Priority)
	}
	if o.PinPriority {
		prio = o.Priority & 7
	}
	class := packet.ClassRoCE
	if o.Class == workload.TCP {
		class = packet.ClassTCP
	}
	req := s.newQP(t.qpn(s), id, class, prio, dscp, o.RateCap)
	if o.Timeout > 0 {
		// The application's QP attributes (NCCL_IB_TIMEOUT, NCCL_IB_RETRY_CNT).
		req.timeoutExp = uint8(min(o.Timeout, 31))
		req.retryCnt = min(max(o.RetryCount, 0), 7)
		req.retries = req.retryCnt
	}
	resp := d.newQP(t.qpn(d), id, class, prio, dscp, 0)
	req.peerHost, req.peerQPN = d.id, resp.qpn
	resp.peerHost, resp.peerQPN = s.id, req.qpn
	// RoCEv2 QPs take their UDP source port from the dynamic range; it is
	// the only per-QP ECMP entropy.
	req.srcPort = o.SrcPort
	if req.srcPort == 0 {
		req.srcPort = uint16(49152 + t.sport.IntN(16384))
	}
	resp.srcPort = req.srcPort
	if class == packet.ClassRoCE {
		s.initCC(req)
		// The responder echoes on its ACKs what the requester's
		// controller reads from them.
		resp.echo = req.wire
	}
	t.conns = append(t.conns, conn{req: req, resp: resp, owner: owner, opts: o, grouped: slices.Contains(t.groupers, owner)})
	if t.home.on {
		t.home.touch(s.dom.ID)
		t.home.touch(d.dom.ID)
	}
	req.joined, resp.joined = t.sched.Now(), t.sched.Now()
	t.out = append(t.out, posted{q: req, join: true}, posted{q: resp, join: true})
	return id
}

// qpn numbers the next queue pair of n.
func (t *Transport) qpn(n *NIC) int32 {
	i := t.qpns[n.id]
	t.qpns[n.id]++
	return int32(i)
}

// initCC gives a RoCE QP the congestion control its priority selects.
func (n *NIC) initCC(q *qp) {
	line, prio := n.port.Rate(), int(q.prio)
	switch cfg := n.cfg; {
	case cfg.DCQCN != nil:
		if cfg.DCQCN.Enabled(prio) {
			cfg.DCQCN.Init(&q.dcqcn, line)
			q.cc = &q.dcqcn
		}
	case cfg.CCPrio>>prio&1 == 0:
	case cfg.Timely != nil:
		q.setAck(cfg.Timely.New(line))
	case cfg.HPCC != nil:
		q.setAck(cfg.HPCC.Sender(line))
	case cfg.DCTCP != nil:
		q.setAck(cfg.DCTCP.New(line))
	case cfg.PINT != nil:
		q.setAck(cfg.PINT.New(line))
	}
}

// setAck makes a an ACK-driven controller q's congestion control.
func (q *qp) setAck(a cc.AckDriven) {
	q.cc, q.ack, q.wire, q.win = a, a, a.Wire(), a.Window()
}

// responderCC gives a responder that starts answering READs the DCQCN
// reaction point of its priority: it is the data source. TIMELY, HPCC,
// HPCC-PINT and DCTCP need the requester's ACKs, which READ responses do not get, so a
// READ responder under them sends at line rate.
func (n *NIC) responderCC(q *qp) {
	if d := q.nic.cfg.DCQCN; q.class == packet.ClassRoCE && d != nil && d.Enabled(int(q.prio)) {
		d.Init(&q.dcqcn, q.nic.port.Rate())
		q.cc = &q.dcqcn
		q.nic.ccJoined()
	}
}

// dscpDefaultPrio is the priority a NIC trusting PCP puts a DSCP on: the
// class selector (DSCP / 8), what mlx5 maps by default.
func dscpDefaultPrio(dscp uint8) uint8 { return dscp >> 3 }

// Post implements workload.Transport: the work request reaches the
// requester's NIC as an event at the current time, once the run delivers
// it.
func (t *Transport) Post(id workload.QP, m workload.Message) {
	q := t.conns[id].req
	if t.home.on {
		t.home.touch(q.nic.dom.ID)
	}
	t.out = append(t.out, posted{at: t.sched.Now(), q: q, m: m})
}

// PostAfter implements workload.Transport: the work request reaches the
// requester's NIC as an event d after now (counted as After counts); it
// is handed to the NIC's domain with the next delivery, an event there
// in place of one on the workloads' side.
func (t *Transport) PostAfter(d unit.Time, id workload.QP, m workload.Message) {
	q := t.conns[id].req
	if t.home.on {
		t.home.touch(q.nic.dom.ID)
	}
	t.out = append(t.out, posted{at: t.after(d), q: q, m: m})
}

// Deliver hands the NICs' domains what the workloads sent them since the
// last call, in order: new queue pairs, which join their NICs, and work
// requests, which become events at the time they take effect, when each
// domain's worker takes them (Part.Receive). It returns the earliest time
// of those events, or unit.MaxTime for none. The run calls it on the
// control side's worker, before any NIC's clock passes the earliest.
func (t *Transport) Deliver() unit.Time {
	first := unit.MaxTime
	for _, w := range t.out {
		d := w.q.nic.dom.ID
		t.staged[d] = append(t.staged[d], w)
		if !w.join {
			first = min(first, w.at)
		}
	}
	clear(t.out)
	t.out = t.out[:0]
	for d := range t.staged {
		t.parts[d].posts.Put(&t.staged[d])
	}
	return first
}

// Part returns domain d as a part of the run (sim.Part): its frames, and
// the posts and completions of its NICs.
func (t *Transport) Part(d *fabric.Domain) *Part { return t.parts[d.ID] }

// A Part is a domain of the network with the posts the workloads sent its
// NICs and the completions they wrote, each in a box between the domain's
// worker and the control side's. The boxes begin lines and the part is
// whole lines (a size class Go places on a 64-byte boundary), so that
// each box's sender's and receiver's lines are their own, whichever part
// it is (TestPartLines): at 272 bytes (a class of 288), a part could lie
// 32 bytes into a line, each of its boxes sharing a line between its two
// sides.
type Part struct {
	*fabric.Domain
	t     *Transport
	_     [48]byte
	posts sim.Box[posted]
	comps sim.Box[mail]
}

// Receive implements sim.Part: the frames other domains sent, then the
// posts and new queue pairs the control side delivered.
func (p *Part) Receive() {
	p.Domain.Receive()
	for _, w := range p.posts.Take() {
		n := w.q.nic
		if w.join {
			n.qps = append(n.qps, w.q)
			if w.q.cc != nil {
				n.ccJoined()
			}
			continue
		}
		i := n.posts.Add(w)
		n.dom.Sched.Send(w.at, sim.NodeKey(n.node, sim.SrcControl), n, tagPost|uint64(i)<<8)
	}
}

// Flush implements sim.Part: the frames onto other domains, then the
// completions the domain's NICs wrote, to the control side.
func (p *Part) Flush() {
	p.Domain.Flush()
	p.comps.Put(&p.t.mail[p.ID].msgs)
}

// After implements workload.Transport.
func (t *Transport) After(d unit.Time, w workload.Waker, tag uint64) {
	t.wake(controlKey, d, w, tag)
}

// wake has w woken with tag d from now, keyed k.
func (t *Transport) wake(k sim.Key, d unit.Time, w workload.Waker, tag uint64) {
	i := t.wakes.Add(w, tag)
	if t.home.on {
		// A crossing step's wakes restart at no home (homes).
		keep(&t.home.wake, i, max(t.home.cur, noHome))
	}
	t.sched.Send(t.after(d), k, t, tagWake|uint64(i)<<8)
}

// Group implements workload.Grouper.
func (t *Transport) Group(o workload.Owner, hosts []int) {
	if !slices.Contains(t.groupers, o) {
		t.groupers = append(t.groupers, o)
	}
	if t.group == nil {
		// Made with the first grouper, even of no host: its completions
		// read their NIC's group (completionKey).
		t.group = make([]uint32, len(t.nics))
	}
	if len(hosts) == 0 {
		return
	}
	g := uint32(slices.Min(hosts)) + 1
	for _, h := range hosts {
		t.group[h] = g
	}
}

// AfterOn implements workload.Grouper. A group's wakes go before its
// completions (completionKey), as the control side's own wakes go before
// every completion.
func (t *Transport) AfterOn(host int, d unit.Time, w workload.Waker, tag uint64) {
	g := uint32(0)
	if t.group != nil {
		g = t.group[host]
	}
	t.wake(sim.NodeKey(g, sim.SrcSelf), d, w, tag)
}

// after returns the time d after now, as a workload sees now (Now), and
// no earlier than the control side's clock.
func (t *Transport) after(d unit.Time) unit.Time {
	at := t.sched.Now()
	if base := t.Now(); d > at-base {
		at = base + min(d, unit.MaxTime-base)
	}
	return at
}

// Lead returns how far past the control side's clock nothing the
// workloads do from now on takes effect at a NIC (sim.Windows.Lead): the
// least of their leads (workload.Leader) less the completion delay, as a
// completion's Now is the NIC's time, that far behind; zero when a
// workload gives none or cannot promise one. A completion in error, which
// may end a workload at once, holds its domain instead (NIC.complete).
func (t *Transport) Lead() unit.Time {
	if !t.started || len(t.workloads) == 0 {
		return 0
	}
	lead := unit.MaxTime
	for _, w := range t.workloads {
		l, ok := w.(workload.Leader)
		if !ok {
			return 0
		}
		d, ahead := l.Lead()
		if !ahead {
			return 0
		}
		lead = min(lead, d)
	}
	return max(lead-t.delay, 0)
}

// controlKey is the key of the transport's own events: node 0, the
// control side.
const controlKey = sim.Key(sim.SrcSelf)

// Progress implements workload.Transport. It reads the NICs, so only
// between runs.
func (t *Transport) Progress(id workload.QP) (int64, unit.Time) {
	c := &t.conns[id]
	return c.resp.delivered + c.req.delivered, max(c.resp.lastDeliv, c.req.lastDeliv)
}

// Start adds workloads, started at the current time once the run goes.
func (t *Transport) Start(ws ...workload.Workload) {
	t.workloads = append(t.workloads, ws...)
	if !t.started {
		t.started = true
		t.sched.Send(t.Now(), controlKey, t, tagStart)
	}
}

// Done reports whether every workload has finished.
func (t *Transport) Done() bool {
	for _, w := range t.workloads {
		if !w.Done() {
			return false
		}
	}
	return true
}

// Handle serves the transport's events.
func (t *Transport) Handle(now unit.Time, tag uint64) {
	i := int32(tag >> 8)
	if t.home.on {
		t.home.enter(tag&0xff, i)
	}
	switch tag & 0xff {
	case tagStart:
		for _, w := range t.workloads {
			w.Start(t)
		}
	case tagWake:
		w, wt := t.wakes.Take(i)
		w.Wake(now, wt)
	case tagComplete:
		c := t.comps.Take(i)
		t.inCQE, t.cqeAt = true, c.At
		t.conns[c.QP].owner.Completed(c)
		t.inCQE = false
	}
	if t.home.on {
		t.home.book()
		t.home.cur = noHome
	}
	if t.started && t.Done() {
		t.sched.Stop()
	}
}

// Collect moves the completions the domains handed over (Part.Flush)
// onto the control side, each CompletionDelay after its NIC wrote it,
// ordered among equal times by the NIC. The run calls it on the control
// side's worker.
func (t *Transport) Collect() {
	for _, p := range t.parts {
		for _, m := range p.comps.Take() {
			i := t.comps.Add(m.c)
			if t.home.on {
				keep(&t.home.comp, i, int32(p.ID))
			}
			t.sched.Send(m.c.At+t.delay, t.completionKey(m), t, tagComplete|uint64(i)<<8)
		}
	}
}

// completionKey orders a completion among the workloads' equal-time
// events: by the NIC that wrote it, and if its owner groups hosts, after
// the wakes of the NIC's group (Group).
func (t *Transport) completionKey(m mail) sim.Key {
	g := uint32(0)
	if c := &t.conns[m.c.QP]; c.grouped {
		n := c.req.nic
		if m.c.Side == workload.Responder {
			n = c.resp.nic
		}
		g = t.group[n.id]
	}
	return sim.NodeKey(g, sim.SrcFrom(int(m.node)))
}

// mailbox holds the completions a domain's NICs wrote, in order, until
// the control side collects them. A line of its own: two domains'
// mailboxes of 32 bytes, allocated one after the other, shared one, which
// both workers wrote at each completion.
type mailbox struct {
	msgs  []mail
	delay unit.Time // the transport's CompletionDelay
	_     [32]byte
}

// mail is one completion from a NIC.
type mail struct {
	node uint32
	c    workload.Completion
}

// posted is a work request on its way to the NIC, posted at at, or with
// join set a new queue pair.
type posted struct {
	at   unit.Time
	q    *qp
	m    workload.Message
	join bool
}

// complete writes a completion for the workload that owns the connection.
// The domain runs no further than just before the workload sees it: a
// run of one domain may otherwise go on to the workloads' next event
// (sim.Windows). One in error may end its workload, and with it the run,
// when the workload sees it: no domain may run past that (Transport.Lead,
// sim.Scheduler.Hold).
func (n *NIC) complete(id workload.QP, side workload.Side, op workload.Op, wr uint64, bytes int64, st workload.Status) {
	now := n.dom.Sched.Now()
	n.mail.msgs = append(n.mail.msgs, mail{node: n.node, c: workload.Completion{QP: id, Side: side, Op: op, ID: wr, Bytes: bytes, Status: st, At: now}})
	n.dom.Sched.Bound(now + n.mail.delay - 1)
	if st != workload.Success {
		n.dom.Sched.Hold(now + n.mail.delay)
	}
}

// post takes the work request in slot i: a QP in the error state
// flushes it at once, and anything else waits its turn to be sent.
func (n *NIC) post(i int32) {
	w := n.posts.Take(i)
	q := w.q
	switch {
	case q.failed:
		q.post(w.m)
		q.flush()
	default:
		q.post(w.m)
		n.makeReady(q)
	}
}

// ConnInfo describes one connection for reports.
type ConnInfo struct {
	Src, Dst     int32
	Class        packet.Class
	Priority     uint8
	DSCP         uint8
	SrcPort      uint16
	ReqQPN       uint32
	RespQPN      uint32
	Tag          string
	FirstSend    unit.Time
	Started      bool
	Sent         int64 // payload bytes sent for the first time
	Retransmit   int64 // payload bytes sent again
	SentPkts     int64 // data packets sent for the first time
	RetxPkts     int64 // data packets sent again
	Delivered    int64 // payload bytes delivered in order
	LastDelivery unit.Time
	Failed       bool
	HasCC        bool
	// Pending says the requester still holds work it has not completed:
	// a connection stalled at the end of a run. Unacked counts the data
	// packets it has sent that no ACK has covered yet, and UnackedBy
	// splits them by the latest time each was first sent (so their age at
	// the end is at least the end minus that time); nil while READs are
	// outstanding, whose responses leave the responder as it serves its
	// queue, not when they were asked for. Timeout is the QP's
	// local ACK timeout, 0 for none (exponent 0).
	Pending   bool
	Unacked   int64
	UnackedBy []UnackedRun
	Timeout   unit.Time
}

// Conns returns every connection's state, in Connect order.
func (t *Transport) Conns() []ConnInfo {
	out := make([]ConnInfo, len(t.conns))
	for i, c := range t.conns {
		out[i] = ConnInfo{
			Src: c.req.nic.id, Dst: c.resp.nic.id, Class: c.req.class, Priority: c.req.prio, DSCP: c.req.dscp,
			SrcPort: c.req.srcPort, ReqQPN: c.req.qpn, RespQPN: c.resp.qpn, Tag: c.opts.Tag,
			FirstSend: c.req.firstPost, Started: c.req.posted,
			Sent: c.req.sentBytes + c.resp.sentBytes, Retransmit: c.req.retxBytes + c.resp.retxBytes,
			SentPkts: c.req.sentPkts + c.resp.sentPkts, RetxPkts: c.req.retxPkts + c.resp.retxPkts,
			Delivered: c.resp.delivered + c.req.delivered, LastDelivery: max(c.resp.lastDeliv, c.req.lastDeliv), Failed: c.req.failed, HasCC: c.req.cc != nil,
			Pending: c.req.sqLen > 0 && !c.req.failed, Unacked: int64(roce.PSNDiff(c.req.sndMax, c.req.sndUna)),
			Timeout: c.req.timeout(),
		}
		if c.req.reads == 0 {
			out[i].UnackedBy = c.req.marks.unacked(c.req.sndUna, c.req.sndMax, c.req.lastTx)
		}
	}
	return out
}
