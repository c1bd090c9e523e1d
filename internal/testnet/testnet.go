// Package testnet is a small deterministic transport for testing
// workloads without the packet-level fabric. Every host is a NIC with a
// transmit and a receive side at line rate; hosts are joined by a
// non-blocking switch with a fixed one-way latency.
//
// The model, in full:
//   - A message is cut into segments (64 KiB by default). The transmit
//     side serves the queue pairs that have data round-robin, one segment
//     each, so concurrent queue pairs share the line fairly; a queue pair
//     with a rate cap waits between its segments.
//   - A segment's wire size is its payload plus one RoCEv2 header per MTU
//     (packet.Overhead: 82 bytes with preamble and gap), so a long
//     transfer reaches line rate × MTU/(MTU+82), as the twin's links do.
//   - A segment reaches the receiver Latency after it left; the receive
//     side serialises arrivals in arrival order at line rate, so an incast
//     is limited by the receiver's line.
//   - The responder completes a WRITE with immediate or a SEND when its
//     last segment is received (with no work request id, as the twin's NIC
//     and real RDMA give none); the requester completes Latency later (the
//     ACK). A READ sends a request packet and the data comes back on the
//     reverse path.
//
// There is no loss, no PFC, no congestion control and no priority: this
// is a reference for workload logic and analytic checks, not a model of
// a fabric.
package testnet

import (
	"fmt"

	"rocelab/internal/packet"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// Config describes the network.
type Config struct {
	Hosts   int
	Rate    unit.BitRate
	Latency unit.Time
	// MTU is the payload per packet (4096 when zero).
	MTU int64
	// Segment is the round-robin unit (64 KiB when zero).
	Segment int64
}

// Net is the transport.
type Net struct {
	cfg   Config
	s     *sim.Scheduler
	hosts []host
	qps   []qp
	segs  []seg
	// later holds the posts made ahead of their time (PostAfter).
	later workload.Later
	free  []int32
	wakes workload.Wakes
	// Wire counts the wire bytes each host transmitted.
	Wire []int64
}

type host struct {
	txBusy bool
	rxFree unit.Time
	rr     []int32 // QPs with data, in service order
	head   int
}

type qp struct {
	src, dst int
	owner    workload.Owner
	cap      unit.BitRate
	q        []workload.Message
	sent     int64 // bytes of q[0] already segmented
	queued   bool
	paced    bool
	done     int64 // payload delivered in order
	last     unit.Time
	reverse  int32 // READ response QP, -1 until needed
	readFor  []int32
	readLen  []int64 // sizes of the READs in flight, in order
}

type seg struct {
	qp      int32
	payload int64
	last    bool
	msg     workload.Message
}

// Event kinds.
const (
	evTx = iota
	evRx
	evAck
	evWake
	evPace
)

// New returns a network on its own scheduler.
func New(cfg Config) *Net {
	if cfg.MTU == 0 {
		cfg.MTU = 4096
	}
	if cfg.Segment == 0 {
		cfg.Segment = 64 << 10
	}
	return &Net{cfg: cfg, s: sim.NewScheduler(), hosts: make([]host, cfg.Hosts), Wire: make([]int64, cfg.Hosts)}
}

// Scheduler returns the network's scheduler.
func (n *Net) Scheduler() *sim.Scheduler { return n.s }

// Now implements workload.Transport.
func (n *Net) Now() unit.Time { return n.s.Now() }

// Hosts implements workload.Transport.
func (n *Net) Hosts() int { return n.cfg.Hosts }

// Connect implements workload.Transport.
func (n *Net) Connect(src, dst int, o workload.QPOptions, owner workload.Owner) workload.QP {
	if src == dst || src < 0 || dst < 0 || src >= n.cfg.Hosts || dst >= n.cfg.Hosts {
		panic(fmt.Sprintf("testnet: bad connection %d -> %d", src, dst))
	}
	n.qps = append(n.qps, qp{src: src, dst: dst, owner: owner, cap: o.RateCap, reverse: -1})
	return workload.QP(len(n.qps) - 1)
}

// PostAfter implements workload.Transport.
func (n *Net) PostAfter(d unit.Time, q workload.QP, m workload.Message) {
	n.later.PostAfter(n, d, q, m)
}

// Post implements workload.Transport.
func (n *Net) Post(q workload.QP, m workload.Message) {
	p := &n.qps[q]
	if m.Op == workload.Read {
		// The request is a header-only packet; the data returns on the
		// reverse path, completing at the requester.
		if p.reverse < 0 {
			n.qps = append(n.qps, qp{src: p.dst, dst: p.src, reverse: -2})
			p = &n.qps[q]
			p.reverse = int32(len(n.qps) - 1)
		}
		r := &n.qps[p.reverse]
		r.readFor = append(r.readFor, int32(q))
		p.readLen = append(p.readLen, m.Bytes)
		req := m
		req.Bytes = 0
		n.enqueue(int32(q), req)
		return
	}
	n.enqueue(int32(q), m)
}

func (n *Net) enqueue(qi int32, m workload.Message) {
	p := &n.qps[qi]
	p.q = append(p.q, m)
	if !p.queued && !p.paced {
		p.queued = true
		h := &n.hosts[p.src]
		h.rr = append(h.rr, qi)
		n.kick(p.src)
	}
}

// After implements workload.Transport.
func (n *Net) After(d unit.Time, w workload.Waker, t uint64) {
	n.s.After(d, 0, n, tagOf(evWake, n.wakes.Add(w, t)))
}

// Progress implements workload.Transport.
func (n *Net) Progress(q workload.QP) (int64, unit.Time) { return n.qps[q].done, n.qps[q].last }

func tagOf(kind int, i int32) uint64 { return uint64(kind)<<32 | uint64(uint32(i)) }

// kick starts host h's transmitter if it is idle and has work.
func (n *Net) kick(h int) {
	hs := &n.hosts[h]
	if hs.txBusy || len(hs.rr) == 0 {
		return
	}
	if hs.head >= len(hs.rr) {
		hs.head = 0
	}
	qi := hs.rr[hs.head]
	p := &n.qps[qi]
	m := p.q[0]
	pay := min(m.Bytes-p.sent, n.cfg.Segment)
	p.sent += pay
	last := p.sent >= m.Bytes
	if last {
		p.q = p.q[1:]
		p.sent = 0
	}
	wire := pay + max(1, (pay+n.cfg.MTU-1)/n.cfg.MTU)*int64(packet.Overhead(false))
	n.Wire[h] += wire
	tx := n.cfg.Rate.TxTime(unit.Bytes(wire))
	si := n.newSeg(seg{qp: qi, payload: pay, last: last, msg: m})
	hs.txBusy = true
	n.s.After(tx, 0, n, tagOf(evTx, si))
	// Round robin: drop the QP if it has no more data or must pace.
	if len(p.q) == 0 || p.cap > 0 {
		hs.rr = append(hs.rr[:hs.head], hs.rr[hs.head+1:]...)
		p.queued = false
		if p.cap > 0 && len(p.q) > 0 {
			p.paced = true
			n.s.After(p.cap.TxTime(unit.Bytes(wire)), 0, n, tagOf(evPace, qi))
		}
	} else {
		hs.head++
	}
}

func (n *Net) newSeg(s seg) int32 {
	if k := len(n.free); k > 0 {
		i := n.free[k-1]
		n.free = n.free[:k-1]
		n.segs[i] = s
		return i
	}
	n.segs = append(n.segs, s)
	return int32(len(n.segs) - 1)
}

// Handle implements sim.Handler.
func (n *Net) Handle(now unit.Time, t uint64) {
	i := int32(uint32(t))
	switch t >> 32 {
	case evTx:
		s := n.segs[i]
		p := &n.qps[s.qp]
		n.hosts[p.src].txBusy = false
		// Receive side: serialise in arrival order at line rate.
		rx := &n.hosts[p.dst]
		wire := s.payload + max(1, (s.payload+n.cfg.MTU-1)/n.cfg.MTU)*int64(packet.Overhead(false))
		at := max(now+n.cfg.Latency, rx.rxFree+n.cfg.Rate.TxTime(unit.Bytes(wire)))
		rx.rxFree = at
		n.s.At(at, 0, n, tagOf(evRx, i))
		n.kick(p.src)
	case evRx:
		s := n.segs[i]
		p := &n.qps[s.qp]
		p.done += s.payload
		p.last = now
		if !s.last {
			n.free = append(n.free, i)
			return
		}
		switch {
		case p.reverse == -2:
			// A READ response arrived at the requester.
			req := p.readFor[0]
			p.readFor = p.readFor[1:]
			r := &n.qps[req]
			r.owner.Completed(workload.Completion{QP: workload.QP(req), Side: workload.Requester, Op: workload.Read, ID: s.msg.ID, Bytes: s.msg.Bytes, At: now})
			n.free = append(n.free, i)
			return
		case s.msg.Op == workload.Read:
			// The request reached the responder: send the data back.
			resp := s.msg
			resp.Bytes = p.readLen[0]
			p.readLen = p.readLen[1:]
			n.enqueue(p.reverse, resp)
			n.free = append(n.free, i)
			return
		case s.msg.Op == workload.WriteImm || s.msg.Op == workload.Send:
			// The responder learns no work request id (only the immediate),
			// as with the twin's NIC.
			p.owner.Completed(workload.Completion{QP: workload.QP(s.qp), Side: workload.Responder, Op: s.msg.Op, Bytes: s.msg.Bytes, At: now})
		}
		n.s.After(n.cfg.Latency, 0, n, tagOf(evAck, i))
	case evAck:
		s := n.segs[i]
		n.free = append(n.free, i)
		p := &n.qps[s.qp]
		p.owner.Completed(workload.Completion{QP: workload.QP(s.qp), Side: workload.Requester, Op: s.msg.Op, ID: s.msg.ID, Bytes: s.msg.Bytes, At: now})
	case evWake:
		w, tag := n.wakes.Take(i)
		w.Wake(now, tag)
	case evPace:
		p := &n.qps[i]
		p.paced = false
		if len(p.q) > 0 && !p.queued {
			p.queued = true
			n.hosts[p.src].rr = append(n.hosts[p.src].rr, i)
			n.kick(p.src)
		}
	}
}

// Run starts the workloads at time zero and runs until all are done. It
// returns an error if the network goes idle first (a workload waiting
// for something that never comes) or limit passes.
func (n *Net) Run(limit unit.Time, ws ...workload.Workload) error {
	for _, w := range ws {
		w.Start(n)
	}
	done := func() bool {
		for _, w := range ws {
			if !w.Done() {
				return false
			}
		}
		return true
	}
	for !done() {
		if n.s.Now() > limit {
			return fmt.Errorf("testnet: not done by %s", limit)
		}
		if !n.s.Step() {
			return fmt.Errorf("testnet: stalled at %s with workloads not done", n.s.Now())
		}
	}
	return nil
}
