package fluid

import (
	"fmt"
	"math"

	"rocelab/internal/ecmp"
	"rocelab/internal/metrics"
	"rocelab/internal/packet"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// QPNBase is the number of a host's first queue pair, as the packet NIC
// numbers them (the responder's number is ECMP entropy under dst_qp).
const QPNBase = 0x100

// Event tags: the kind in the low byte, a flow (or wake) index above.
const (
	tagStart uint64 = iota
	tagWake
	tagSolve
	tagIdle
	tagResp
	tagReq
	tagStall
	tagRefuse
	tagLoss
)

// flowHop is an active flow crossing a link, at hop of its legs, in
// class cls; data says the hop is on its data's path (not its ACKs').
type flowHop struct {
	flow int32
	hop  int16
	cls  uint8
	data bool
}

// refusal is a work request the engine completes with an error.
type refusal struct {
	qp     workload.QP
	m      workload.Message
	status workload.Status
}

// Engine is the fluid twin: it implements workload.Transport with
// connections whose sending is a fluid at max-min fair rates over their
// paths, recomputed only when a connection starts or stops sending.
type Engine struct {
	cfg   *Config
	sched *sim.Scheduler
	net   *network
	flows []flow
	sol   solver
	// later holds the posts made ahead of their time (PostAfter).
	later workload.Later

	wakes     workload.Wakes
	workloads []workload.Workload
	doneTo    int // the workloads before it have finished
	started   bool
	refused   []refusal

	sport  *sim.Rand
	lossR  *sim.Rand
	qpns   []uint32 // per host, QPs created so far
	dirty  []int32  // links whose flows changed since the last solve
	queued bool     // a solve is scheduled
	// maxAckW is the largest ackW of any connection, depth the ACK hops
	// a change is followed for (near).
	maxAckW float64
	depth   int

	// qEpoch counts the changes of any link's standing queue (a
	// connection's cached latency is good for one epoch); marking counts
	// the (link, class) pairs that mark packets now.
	qEpoch  uint64
	marking int

	nics    []NICCounters
	solves  int64
	flowsIn int64 // flows recomputed, summed over solves
	// tau is min_time_between_cnps in seconds; dcqcnQ memoises the
	// DCQCN marking equilibrium by rate (Mb/s); shared is each switch's
	// shared buffer.
	tau    float64
	dcqcnQ map[int]float64
	shared []float64
	// lat holds each delivered packet's estimated one-way latency.
	lat *metrics.Latency
	// delay is how long after the NIC writes a completion the workload
	// sees it; while it handles one, inCQE is set and Now is cqeAt, the
	// NIC's time (as the packet engine's transport does).
	delay unit.Time
	inCQE bool
	cqeAt unit.Time
}

// New builds the engine for c.
func New(c *Config) (*Engine, error) {
	net, err := newNetwork(c)
	if err != nil {
		return nil, err
	}
	e := &Engine{cfg: c, sched: sim.NewScheduler(), net: net, delay: c.CompletionDelay}
	streams := sim.NewStreams(c.Seed)
	e.sport = streams.Stream("qp/udp-sport")
	e.lossR = streams.Stream("fluid/loss")
	e.qpns = make([]uint32, len(c.Topo.Hosts))
	e.nics = make([]NICCounters, len(c.Topo.Hosts))
	e.sol.init(len(net.links), 0)
	e.dcqcnQ = map[int]float64{}
	e.lat = metrics.NewLatency()
	if c.DCQCN != nil {
		e.tau = float64(c.DCQCN.MinTimeBetweenCnps) * 1e-6
	}
	e.sharedPools()
	e.armLosses()
	return e, nil
}

// Sched returns the engine's scheduler.
func (e *Engine) Sched() *sim.Scheduler { return e.sched }

// Now implements workload.Transport: the scheduler's time, or, while a
// workload handles a completion, the time the NIC wrote it.
func (e *Engine) Now() unit.Time {
	if e.inCQE {
		return e.cqeAt
	}
	return e.sched.Now()
}

// Hosts implements workload.Transport.
func (e *Engine) Hosts() int { return len(e.cfg.Topo.Hosts) }

// Connect implements workload.Transport. The connection takes the path
// the packet engine would give it: the same UDP source port draw, the
// same queue pair numbers, the same hash.
func (e *Engine) Connect(src, dst int, o workload.QPOptions, owner workload.Owner) workload.QP {
	if src == dst || src < 0 || dst < 0 || src >= e.Hosts() || dst >= e.Hosts() {
		panic(fmt.Sprintf("fluid: Connect(%d, %d) over %d hosts", src, dst, e.Hosts()))
	}
	c := e.cfg
	id := int32(len(e.flows))
	dscp := c.DSCP
	if o.SetTC {
		dscp = o.TC >> 2
	}
	prio := c.NIC.Priority(dscp, 0, false)
	if c.NIC.Trust == 1 { // trust pcp: the class selector
		prio = dscp >> 3
	}
	if c.NICPriority >= 0 {
		prio = uint8(c.NICPriority)
	}
	if o.PinPriority {
		prio = o.Priority & 7
	}
	swPrio := c.Switch.Priority(dscp, prio, c.VLAN)
	fl := flow{
		src: int32(src), dst: int32(dst), owner: owner, tcp: o.Class == workload.TCP, prio: prio, dscp: dscp,
		tag: o.Tag, capBps: float64(o.RateCap), mss: c.MTU, eff: 1,
		timeout: ackTimeout(c.Timeout), retryCnt: c.RetryCnt,
	}
	if fl.tcp {
		fl.mss = c.TCPMSS
		fl.timeout = c.TCPRTO
	} else if o.Timeout > 0 {
		fl.timeout = ackTimeout(uint8(min(o.Timeout, 31)))
		fl.retryCnt = min(max(o.RetryCount, 0), 7)
	}
	fl.ccOn = !fl.tcp && c.DCQCN != nil && c.DCQCN.Enabled(int(prio))
	fl.reqQPN = QPNBase + e.qpns[src]
	e.qpns[src]++
	fl.respQPN = QPNBase + e.qpns[dst]
	e.qpns[dst]++
	fl.sport = o.SrcPort
	if fl.sport == 0 {
		fl.sport = uint16(49152 + e.sport.IntN(16384))
	}
	path := e.net.path(src, dst, ecmp.Key{Src: int32(src), Dst: int32(dst), SrcPort: fl.sport, DstQP: fl.respQPN}, nil)
	back := e.net.path(dst, src, ecmp.Key{Src: int32(dst), Dst: int32(src), SrcPort: fl.sport, DstQP: fl.reqQPN, Reply: true}, nil)
	if path == nil || back == nil {
		fl.noRoute = true
		path, back = nil, nil
	}
	// The flow's legs: its data's path, then its ACKs' path back.
	fl.legs = append(path, back...)
	fl.path, fl.back = fl.legs[:len(path)], fl.legs[len(path):]
	fl.cls = make([]uint8, len(fl.legs))
	fl.pos = make([]int32, len(fl.legs))
	fl.subs = make([]int32, len(fl.legs))
	for h, l := range fl.legs {
		fl.cls[h] = swPrio
		if e.net.links[l].nicTx {
			fl.cls[h] = prio
		}
		fl.subs[h] = subOf(l, fl.cls[h])
	}
	for _, l := range fl.path {
		lk := &e.net.links[l]
		fl.baseLat += lk.delay + lk.jitter
	}
	if len(fl.path) > 0 {
		fl.txRate = e.net.links[fl.path[0]].rate
	}
	fl.ackFrame = packet.DataFrame(0, packet.AETH, c.VLAN)
	if fl.tcp {
		fl.ackFrame = packet.TCPFrame(0, c.VLAN)
	}
	for _, l := range back {
		lk := &e.net.links[l]
		fl.ackLat += lk.rate.TxTime(unit.Bytes(fl.ackFrame+packet.PreambleIFG)) + lk.delay + lk.jitter
	}
	// ACKs take their share of the links back: one ACK frame per
	// AckCoalesce full packets of data.
	data := float64(int64(fl.mss)+int64(packet.Overhead(c.VLAN))) * float64(max(c.AckCoalesce, 1))
	fl.ackW = float64(fl.ackFrame+packet.PreambleIFG) / data
	if fl.ackW > e.maxAckW {
		e.maxAckW, e.depth = fl.ackW, ackDepth(fl.ackW)
	}
	fl.ub = math.Inf(1)
	if fl.capBps > 0 {
		fl.ub = fl.capBps
	}
	for _, l := range path {
		fl.ub = math.Min(fl.ub, e.net.links[l].bps)
	}
	fl.swPrio = swPrio
	fl.pData, fl.pAck = e.pathLoss(fl.path), e.pathLoss(back)
	e.flows = append(e.flows, fl)
	e.sol.grow(len(e.flows))
	return workload.QP(id)
}

// ackTimeout returns 4.096 µs × 2^exp.
func ackTimeout(exp uint8) unit.Time { return 4096 * unit.Nanosecond << exp }

// PostAfter implements workload.Transport.
func (e *Engine) PostAfter(d unit.Time, qp workload.QP, m workload.Message) {
	e.later.PostAfter(e, d, qp, m)
}

// Post implements workload.Transport.
func (e *Engine) Post(qp workload.QP, m workload.Message) {
	f := int32(qp)
	fl := &e.flows[f]
	now := e.sched.Now() // the NIC takes a post when the workload makes it
	switch {
	case m.Op == workload.Read:
		// READ is not carried, as in the packet NIC: the responder
		// refuses it.
		e.refuse(qp, m, workload.RemoteInvalidRequest)
		return
	case fl.failed:
		e.refuse(qp, m, workload.Flushed)
		return
	case fl.noRoute:
		// Nothing reaches the peer: the requester retries retry_cnt
		// times, one timeout each, and fails.
		fl.failed = true
		e.nics[fl.src].LocalAckTimeoutErr += int64(fl.retryCnt + 1)
		e.nics[fl.src].ReqCQEError++
		e.refuseAt(now+unit.Time(fl.retryCnt+1)*fl.timeout, qp, m, workload.RetryExceeded)
		return
	}
	if !fl.posted {
		fl.posted, fl.firstPost = true, now
	}
	wire, pkts, last := e.wireOf(fl, m.Op, m.Bytes)
	fl.total += float64(wire)
	e.retire(f, now)
	fl.msgs.push(msg{op: m.Op, bytes: m.Bytes, id: m.ID, wire: wire, end: fl.total, pkts: pkts, lastWire: last, posted: now, unsig: m.Unsignaled})
	idx := fl.msgs.len() - 1
	if fl.stalled {
		// The first packet of this message reaches the responder after a
		// gap: it NAKs, and the requester resends the lost tail.
		if !fl.nak {
			t := now + e.latOf(f, last) + fl.ackLat + e.latOf(f, last)
			if t < fl.resolveAt {
				fl.resolveAt, fl.nak = t, true
				e.setTimer(&fl.stallT, t+e.delay, tagStall|uint64(f)<<8)
			}
		}
		return
	}
	if fl.active {
		e.setTimer(&fl.idleT, fl.timeTo(fl.total), tagIdle|uint64(f)<<8)
		return
	}
	if pkts == 1 && fl.send == idx {
		// A one-packet message on an idle connection (a CTS, a small
		// step) does not start a fluid: it leaves after its own
		// serialization, and the rates of the others stay as they are.
		done := max(now, fl.miceFree) + fl.txRate.TxTime(unit.Bytes(wire))
		fl.miceFree = done
		fl.sent = fl.total
		fl.upd = now
		e.settled(f, fl.msgs.at(idx), done)
		fl.send++
		e.armResp(f)
		return
	}
	e.activate(f)
}

// refuse completes a work request with an error status, as an event now.
func (e *Engine) refuse(qp workload.QP, m workload.Message, st workload.Status) {
	e.refuseAt(e.sched.Now(), qp, m, st)
}

// refuseAt completes a work request with an error status, written by the
// NIC at t. Refusals are rare (a READ, a dead path): each keeps its slot.
func (e *Engine) refuseAt(t unit.Time, qp workload.QP, m workload.Message, st workload.Status) {
	e.sched.Send(t+e.delay, 0, e, tagRefuse|uint64(len(e.refused))<<8)
	e.refused = append(e.refused, refusal{qp, m, st})
}

// After implements workload.Transport.
func (e *Engine) After(d unit.Time, w workload.Waker, tag uint64) {
	// From a completion, d counts from the NIC's time, but no earlier than
	// the workload saw it.
	at := e.sched.Now()
	if base := e.Now(); d > at-base {
		at = base + min(d, unit.MaxTime-base)
	}
	e.sched.Send(at, 0, e, tagWake|uint64(e.wakes.Add(w, tag))<<8)
}

// Progress implements workload.Transport.
func (e *Engine) Progress(qp workload.QP) (int64, unit.Time) {
	fl := &e.flows[qp]
	return fl.delivered, fl.lastDeliv
}

// Start adds workloads, started at the current time once the run goes.
func (e *Engine) Start(ws ...workload.Workload) {
	e.workloads = append(e.workloads, ws...)
	if !e.started {
		e.started = true
		e.sched.Send(e.sched.Now(), 0, e, tagStart)
	}
}

// Done reports whether every workload has finished. A workload that has
// finished stays finished, so the ones before doneTo are not asked again.
func (e *Engine) Done() bool {
	for ; e.doneTo < len(e.workloads); e.doneTo++ {
		if !e.workloads[e.doneTo].Done() {
			return false
		}
	}
	return true
}

// RunUntil runs until every workload is done or until limit, and returns
// the simulated time reached.
func (e *Engine) RunUntil(limit unit.Time) unit.Time {
	if !e.Done() {
		e.sched.RunUntil(limit)
	}
	return e.sched.Now()
}

// Events returns the events run so far.
func (e *Engine) Events() uint64 { return e.sched.Executed() }

// Handle serves the engine's events.
func (e *Engine) Handle(now unit.Time, tag uint64) {
	f := int32(tag >> 8)
	switch tag & 0xff {
	case tagStart:
		for _, w := range e.workloads {
			w.Start(e)
		}
	case tagWake:
		w, wt := e.wakes.Take(f)
		w.Wake(now, wt)
	case tagSolve:
		e.queued = false
		e.resolve(now)
	case tagIdle:
		if e.fireTimer(&e.flows[f].idleT, now, tag) {
			e.idle(f, now)
		}
	// Completions run CompletionDelay after the NIC wrote them: their
	// timers are set that much later, and hand on the NIC's time.
	case tagResp:
		if e.fireTimer(&e.flows[f].respT, now, tag) {
			e.respond(f, now-e.delay)
		}
	case tagReq:
		if e.fireTimer(&e.flows[f].reqT, now, tag) {
			e.acked(f, now-e.delay)
		}
	case tagStall:
		if e.fireTimer(&e.flows[f].stallT, now, tag) {
			e.unstall(f, now-e.delay)
		}
	case tagRefuse:
		r := e.refused[f]
		if r.status == workload.RemoteInvalidRequest {
			e.nics[e.flows[r.qp].src].ReqCQEError++
		}
		e.complete(r.qp, workload.Requester, r.m.Op, r.m.ID, r.m.Bytes, r.status, now-e.delay)
	case tagLoss:
		e.lossChange(now, int(tag>>8))
	}
	e.checkDone()
}

// complete delivers a completion the NIC wrote at at to the connection's
// owner, which handles it as of that time.
func (e *Engine) complete(qp workload.QP, side workload.Side, op workload.Op, id uint64, bytes int64, st workload.Status, at unit.Time) {
	e.inCQE, e.cqeAt = true, at
	e.flows[qp].owner.Completed(workload.Completion{QP: qp, Side: side, Op: op, ID: id, Bytes: bytes, Status: st, At: at})
	e.inCQE = false
}

// checkDone stops the run once every workload has finished.
func (e *Engine) checkDone() {
	if e.started && e.Done() {
		e.sched.Stop()
	}
}

// activate starts flow f's fluid; its rate comes with the next solve.
func (e *Engine) activate(f int32) {
	fl := &e.flows[f]
	fl.active, fl.rate, fl.upd = true, 0, e.sched.Now()
	for h, l := range fl.legs {
		lk := &e.net.links[l]
		fl.pos[h] = int32(len(lk.flows))
		lk.flows = append(lk.flows, flowHop{flow: f, hop: int16(h), cls: fl.cls[h], data: h < len(fl.path)})
	}
	e.touch(f)
}

// deactivate takes flow f out of the links it crossed.
func (e *Engine) deactivate(f int32) {
	fl := &e.flows[f]
	fl.active = false
	for h, l := range fl.legs {
		lk := &e.net.links[l]
		i := fl.pos[h]
		last := lk.flows[len(lk.flows)-1]
		lk.flows[i] = last
		e.flows[last.flow].pos[last.hop] = i
		lk.flows = lk.flows[:len(lk.flows)-1]
	}
	e.touch(f)
}

// touch marks f's links for the next solve and schedules it now.
func (e *Engine) touch(f int32) {
	e.dirty = append(e.dirty, e.flows[f].legs...)
	if !e.queued {
		e.queued = true
		e.sched.Send(e.sched.Now(), 0, e, tagSolve)
	}
}
