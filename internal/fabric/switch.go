package fabric

import (
	"fmt"
	"math/bits"
	"unsafe"

	"rocelab/internal/ecmp"
	"rocelab/internal/packet"
	"rocelab/internal/prefetch"
	"rocelab/internal/qos"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
)

// Trust says which header a switch classifies priority from (see package
// qos).
type Trust = qos.Trust

// Trust modes.
const (
	TrustDSCP = qos.TrustDSCP
	TrustPCP  = qos.TrustPCP
)

// SwitchConfig is the QoS and buffer configuration of a switch. What every
// frame reads comes first, so that a switch, which keeps its own copy
// right after its per-frame state, reads it in one cache line.
type SwitchConfig struct {
	// Classifier classifies arriving packets.
	Classifier
	// Lossless is the set of PFC-enabled priorities (bit p = priority p).
	Lossless uint8
	// ECNAtEnqueue marks on arrival instead of at departure (see ECN).
	ECNAtEnqueue bool
	// HashFields and Seed drive ECMP.
	HashFields HashField
	Seed       uint64
	// NS3, when set, replaces that hash with the HPCC ns-3 model's, this
	// switch being its node NS3Node (ecmp.NS3; the routes must then list
	// the candidates in its order, topo.NS3Routes).
	NS3     *ecmp.NS3
	NS3Node uint32
	// Buffer is the total packet buffer.
	Buffer unit.Bytes
	// Alpha is the dynamic threshold of lossless priority groups: a PG may
	// hold at most Alpha × the free shared buffer (SAI dynamic_th n gives
	// Alpha = 2^n). AlphaLossy is the same for lossy egress queues.
	Alpha, AlphaLossy float64
	// AlphaByRate replaces Alpha at the ingress ports of the given rates.
	AlphaByRate []RateAlpha
	// StaticTh, when positive, takes Alpha's place for lossless PGs: a PG
	// may hold at most StaticTh bytes of the shared buffer however full
	// the pool is (SAI's static threshold mode, SONiC's static_th).
	StaticTh unit.Bytes
	// Reserve is the guaranteed minimum of each lossless PG.
	Reserve unit.Bytes
	// XONOffset is how far below the threshold a PG's shared use must fall
	// before XON.
	XONOffset unit.Bytes
	// PFC says how XOFF frames are sent.
	PFC PFCConfig
	// Headroom returns the headroom of a port's lossless PGs.
	Headroom func(pt *Port) unit.Bytes
	// Watchdog is the PFC watchdog; zero Detect disables it.
	Watchdog WatchdogConfig
	// ECN is the marking profile of each priority's egress queue.
	ECN [8]RED
	// ECNByRate replaces ECN at ports of the given rates (a fabric of
	// mixed speeds marks each at its own thresholds).
	ECNByRate []RateRED
	// Strict is the set of strict-priority queues (higher priority served
	// first); the others share by DWRR with Weights (ETS bandwidth %).
	Strict  uint8
	Weights [8]int
	// Path is how the switch picks among equal-cost ports; the zero value
	// is ECMP.
	Path PathConfig
	// Latency is the forwarding latency: from a frame's arrival to its
	// joining the egress queue (see pipeline).
	Latency unit.Time
	// PINT, when set, has the switch write HPCC-PINT's telemetry.
	PINT *PINTConfig
}

// Switch is a shared-buffer switch: it classifies, routes with ECMP, admits
// into its buffer, sends PFC for its ingress priority groups, marks ECN and
// schedules each egress port's eight queues. Its fields are laid out by
// use (TestSwitchHotLines): its first two lines hold what routing a frame
// reads (ports, routes, the ECMP seed, the configuration's flags and which
// optional stages it has), its third the classifier and what admission
// and release read of the buffer; the rest is read only by a stage the
// switch has, at build or at observation. The classifier is shared by the
// switches of one classification, so that its table stays in the cache.
type Switch struct {
	// egress0 is the first port's egress: a frame's hop reaches its out
	// port's from it by the port's index (egressOf), where the egress
	// slice's header lies beyond the lines a hop reads.
	egress0 *switchEgress
	port    []Port // side by side
	// routes gives the ports toward each host.
	routes       routeTable
	seed         uint64 // cfg.Seed
	lossless     uint8  // cfg.Lossless
	ecnAtEnqueue bool   // cfg.ECNAtEnqueue
	hashFields   HashField
	stages       stage // the optional stages the switch has
	classifier   *Classifier
	buf          buffer

	dom    *Domain
	egress []switchEgress // by port
	// path is the path selector; nil for ECMP.
	path  *pathSelector
	rng   *sim.Rand
	marks MarkObserver
	// pint is each port's HPCC-PINT state, nil without PINT; pintRNG
	// draws its codes' rounding.
	pint []pintPort
	pipe pipeline
	cfg  SwitchConfig

	domIdx int // the switch's index among its domain's
	id     uint32
	name   string

	pintRNG *sim.Rand
	_       [16]byte // to whole lines (TestSwitchHotLines): switches lie side by side
}

// stage is a set of a switch's optional stages, which a frame's hop asks
// for in its first lines instead of loading each stage's own field.
type stage uint8

// Stages.
const (
	stagePipeline stage = 1 << iota // a forwarding latency
	stageNS3                        // the HPCC ns-3 model's ECMP hash
	stagePath                       // a path selector other than ECMP
	stagePINT                       // HPCC-PINT telemetry
)

// A MarkObserver sees every ECN marking decision: the queue length the
// packet saw, the RED probability, and whether it was marked.
type MarkObserver interface {
	ObserveMark(prio uint8, qlen int64, p float64, marked bool)
}

// SetMarkObserver installs an observer of ECN decisions (nil removes it).
func (s *Switch) SetMarkObserver(o MarkObserver) { s.marks = o }

// NewSwitch creates a switch with nports ports in domain d.
func (n *Network) NewSwitch(d *Domain, name string, nports int, cfg SwitchConfig) *Switch {
	s := &n.switches.take(1)[0]
	*s = Switch{dom: d, id: n.NewNodeID(), name: name, cfg: cfg, rng: n.Streams.Stream("ecn/" + name),
		seed: cfg.Seed, lossless: cfg.Lossless, ecnAtEnqueue: cfg.ECNAtEnqueue, hashFields: cfg.HashFields,
		classifier: n.classifier(cfg.Classifier)}
	// The ports and their queues lie side by side, each in one array.
	s.port = n.ports.take(nports)
	s.egress = n.egresses.take(nports)
	if nports > 0 {
		s.egress0 = &s.egress[0]
	}
	for i := range s.port {
		pt := &s.port[i]
		n.initPort(pt, d, s, s.id, i)
		e := &s.egress[i]
		*e = switchEgress{sw: s, port: int32(i), red: &s.cfg.ECN}
		e.ets = NewETS(cfg.Strict, cfg.Weights, func(c int) *DWRR { return &e.cls[c].dwrr })
		pt.SetEgress(&s.egress[i])
	}
	if cfg.PINT != nil {
		s.pint = make([]pintPort, nports)
		s.pintRNG = n.Streams.Stream("pint/" + name)
		s.stages |= stagePINT
	}
	if s.pipe.latency = cfg.Latency; cfg.Latency > 0 {
		s.stages |= stagePipeline
	}
	if cfg.Path.Mode != PathECMP {
		s.path = newPathSelector(cfg.Path, 0, n.Streams.Stream("path/"+name))
		s.stages |= stagePath
	}
	if cfg.NS3 != nil {
		s.stages |= stageNS3
	}
	n.Switches = append(n.Switches, s)
	s.domIdx = len(d.switches)
	d.switches = append(d.switches, s)
	return s
}

// Domain returns the switch's domain.
func (s *Switch) Domain() *Domain { return s.dom }

// Key returns the key of events the control side schedules for the
// switch (faults that change its routes).
func (s *Switch) Key() sim.Key { return sim.NodeKey(s.id, sim.SrcControl) }

// Name returns the switch's name.
func (s *Switch) Name() string { return s.name }

// Port returns the switch's i-th port.
func (s *Switch) Port(i int) *Port { return &s.port[i] }

// Ports returns the switch's ports, in a new slice.
func (s *Switch) Ports() []*Port {
	out := make([]*Port, len(s.port))
	for i := range s.port {
		out[i] = &s.port[i]
	}
	return out
}

// Config returns the switch's configuration, to read only: NewSwitch
// took what a hop reads into the switch's first lines (and the
// classifier from the network's copy, which the switches that classify
// alike share: Network.classifier), so a change here would change
// nothing.
func (s *Switch) Config() *SwitchConfig { return &s.cfg }

// SetRoutes sets the candidate ports toward each destination host. It
// keeps none of r, so r may be reused once it returns (the lists are
// copied into the switch's table).
func (s *Switch) SetRoutes(r [][]int16) { s.install(newRouteTable(r)) }

// RouteTable is a switch's candidates toward each host as its lookups
// read them, built ahead of the time the switch takes them
// (InstallRoutes): the routes a fabric reconverges to after a link goes
// down or up, one table per switch and time, where the rows it is built
// from would take a slice header per host.
type RouteTable struct{ t routeTable }

// NewRouteTable builds the table of candidates r, a row per host as
// SetRoutes takes it. It keeps none of r.
func NewRouteTable(r [][]int16) *RouteTable { return &RouteTable{newRouteTable(r)} }

// InstallRoutes sets the switch's routes to t. The switch shares t, which
// nothing changes once built (SetRoute builds a new table).
func (s *Switch) InstallRoutes(t *RouteTable) { s.install(t.t) }

// install takes t as the switch's routes.
func (s *Switch) install(t routeTable) {
	s.routes = t
	if s.path != nil && s.path.next != nil && len(s.path.next) < t.hosts {
		s.path.next = append(s.path.next, make([]uint32, t.hosts-len(s.path.next))...)
	}
}

// Route returns the candidate ports toward host dst.
func (s *Switch) Route(dst int) []int16 {
	if dst < 0 || dst >= s.routes.hosts {
		return nil
	}
	return s.routes.lookup(int32(dst))
}

// SetRoute replaces the candidate ports toward host dst.
func (s *Switch) SetRoute(dst int, ports []int16) {
	if dst >= 0 && dst < s.routes.hosts {
		r := s.routes.expand()
		r[dst] = ports
		s.routes = newRouteTable(r)
	}
}

// RoutedBytes returns the frame bytes the switch forwarded out of each
// port, in a new slice.
func (s *Switch) RoutedBytes() []int64 {
	out := make([]int64, len(s.egress))
	for i := range s.egress {
		out[i] = s.Routed(i)
	}
	return out
}

// Routed returns the frame bytes the switch forwarded out of port i,
// without RoutedBytes' slice of every port.
func (s *Switch) Routed(i int) int64 { return s.egress[i].routed }

// Start sizes the buffer once links and headroom are known. It fails when
// the headroom and reserves leave no shared buffer.
func (s *Switch) Start() error {
	b := &s.buf
	b.size = int64(s.cfg.Buffer)
	b.reserve = int64(s.cfg.Reserve)
	b.alpha, b.alphaLossy = s.cfg.Alpha, s.cfg.AlphaLossy
	b.static = int64(s.cfg.StaticTh)
	b.xonOffset = int64(s.cfg.XONOffset)
	if len(s.cfg.AlphaByRate) > 0 {
		b.portAlpha = make([]float64, len(s.port))
		for i := range b.portAlpha {
			b.portAlpha[i] = b.alpha
		}
	}
	used := int64(0)
	nLossless := int64(bits.OnesCount8(s.cfg.Lossless))
	for i := range s.port {
		pt := &s.port[i]
		for p := range pt.rxPrio {
			pt.rxPrio[p].pg = pgState{port: pt.index}
		}
		if pt.peer == nil {
			continue
		}
		var hr int64
		if s.cfg.Headroom != nil {
			hr = int64(s.cfg.Headroom(pt))
		}
		if hr > MaxHeadroom {
			return fmt.Errorf("switch %s: port %s: headroom %d bytes is over the %d a priority group can hold", s.name, pt.name, hr, MaxHeadroom)
		}
		for p := 0; p < 8; p++ {
			if s.cfg.Lossless&(1<<p) != 0 {
				pt.rxPrio[p].pg.headroomCap = int32(hr)
			}
		}
		used += nLossless * (hr + b.reserve)
		pt.SetPFC(s.cfg.PFC)
		pt.SetWatchdog(s.cfg.Watchdog)
		for k := range s.cfg.ECNByRate {
			if pt.Rate().Nominal(s.cfg.ECNByRate[k].Rate) {
				s.egress[i].red = &s.cfg.ECNByRate[k].ECN
			}
		}
		for _, r := range s.cfg.AlphaByRate {
			if pt.Rate().Nominal(r.Rate) {
				b.portAlpha[i] = r.Alpha
			}
		}
	}
	b.sharedSize = b.size - used
	if b.sharedSize <= 0 {
		return fmt.Errorf("switch %s: buffer %v is too small for the headroom and reserves (%d bytes)", s.name, s.cfg.Buffer, used)
	}
	return nil
}

// SharedSize returns the size of the shared pool after headroom and reserves.
func (s *Switch) SharedSize() int64 { return s.buf.sharedSize }

// Alpha returns the lossless dynamic threshold of ingress port i.
func (s *Switch) Alpha(i int) float64 {
	if s.buf.portAlpha != nil {
		return s.buf.portAlpha[i]
	}
	return s.cfg.Alpha
}

// Headroom returns the headroom of port i's lossless priority groups.
func (s *Switch) Headroom(i int) int64 {
	for p := 0; p < 8; p++ {
		if s.cfg.Lossless&(1<<p) != 0 {
			return int64(s.port[i].rxPrio[p].pg.headroomCap)
		}
	}
	return 0
}

// route picks the egress port toward p's destination.
func (s *Switch) route(p *packet.Packet) (*Port, bool) {
	if p.Dst < 0 || int(p.Dst) >= s.routes.hosts {
		return nil, false
	}
	if i, ok := s.routes.direct(p.Dst); ok {
		return &s.port[i], true
	}
	r := s.routes.run(p.Dst)
	switch r.n {
	case 0:
		return nil, false
	case 1:
		return &s.port[s.routes.port(r, p.Dst)], true
	}
	c := s.routes.list(r, p.Dst)
	if s.stages&stageNS3 != 0 {
		k := ecmp.Key{Src: p.Src, Dst: p.Dst, SrcPort: p.SrcPort, Reply: p.Kind != packet.Data}
		return &s.port[c[s.cfg.NS3.Pick(s.cfg.NS3Node, k, len(c))]], true
	}
	if p.HashFields != uint8(s.hashFields) || p.FieldsHash == 0 {
		p.FieldsHash, p.HashFields = FieldsHash(s.hashFields, p), uint8(s.hashFields)
	}
	h := ecmp.Seeded(s.seed, p.FieldsHash)
	if s.stages&stagePath != 0 {
		return &s.port[s.path.pick(s, p, c, h, s.dom.Sched.Now())], true
	}
	return &s.port[c[ecmp.Pick(h, len(c))]], true
}

// Receive classifies, routes and admits a packet that arrived on in.
func (s *Switch) Receive(p *packet.Packet, in *Port) {
	p.Prio = s.classifier.Classify(p)
	// The port's frame counts lie beyond its first lines: their line is
	// asked for now and the frame booked once it is forwarded or dropped,
	// so that the load overlaps that work instead of stalling before it.
	rx, frame := in.rxCount(p), p.Frame
	prefetch.Line(uintptr(unsafe.Pointer(rx)))
	s.forward(p, in)
	rx.add(frame)
}

// forward routes and admits a classified packet that arrived on in, or
// drops it.
func (s *Switch) forward(p *packet.Packet, in *Port) {
	if p.TTL <= 1 {
		s.dom.Drop(p, DropTTL, in)
		return
	}
	p.TTL--
	out, ok := s.route(p)
	if !ok {
		s.dom.Drop(p, DropNoRoute, in)
		return
	}
	prio := int(p.Prio)
	e := s.egressOf(out)
	q := &e.cls[prio].q // prio < 8 from here: its masks need no shift guard
	if out.stormed(prio) {
		s.dom.Drop(p, DropWatchdog, out)
		return
	}
	size := int64(p.Frame)
	lossless := s.lossless&(1<<prio) != 0
	g, inPort := &in.rxPrio[prio].pg, in.rxPrio[prio].pg.port
	if lossless {
		ok = s.buf.admitLossless(g, int(inPort), size)
	} else {
		ok = s.buf.admitLossy(q.Bytes(), size)
	}
	if !ok {
		in.CountRxDiscard(uint8(prio))
		reason := DropLossyOverflow
		if lossless {
			reason = DropHeadroomOverflow
		}
		s.dom.Drop(p, reason, in)
		return
	}
	p.InPort = inPort
	e.routed += size
	if lossless && s.buf.wantXOFF(g, int(inPort)) {
		in.SendXOFF(prio)
	}
	if s.stages&stagePipeline != 0 {
		s.enterPipeline(p, out)
		return
	}
	if s.ecnAtEnqueue && markable(p) {
		s.markECN(p, e, out, q.Bytes())
	}
	if now := out.dom.Sched.Now(); e.busy == 0 && out.idle(now) {
		// Every queue of the port is empty and the line is free: the
		// packet goes straight through, with what its push, the port's
		// pick and its pop would have done to the queue's state.
		e.through(p, prio)
		out.sending = true // as in startTx, while the departure is booked
		s.departed(p, e, out, 0)
		e.cls[prio].count(out, p)
		out.sending = false
		out.transmit(now, p, false)
		return
	}
	e.push(p, prio)
	out.Kick()
}

// egressOf returns the egress of pt, one of the switch's ports: &s.egress[pt.index]
// from the switch's first line and the port's, which a hop reads anyway.
func (s *Switch) egressOf(pt *Port) *switchEgress {
	return (*switchEgress)(unsafe.Add(unsafe.Pointer(s.egress0), uintptr(pt.index)*unsafe.Sizeof(switchEgress{})))
}

// markable reports whether p may be marked: it is ECN-capable and not
// marked yet. The callers of markECN ask it first, so that a packet
// without ECN (a fabric without congestion control) costs no call.
func markable(p *packet.Packet) bool { return p.ECN-packet.ECT1 <= packet.ECT0-packet.ECT1 }

// markECN marks a markable packet CE by the queue's RED profile. out's
// egress is e.
func (s *Switch) markECN(p *packet.Packet, e *switchEgress, out *Port, qlen int64) {
	r := &e.red[p.Prio]
	if !r.Enabled() {
		return
	}
	marked := r.Mark(qlen, s.rng)
	if s.marks != nil {
		s.marks.ObserveMark(p.Prio, qlen, r.Probability(qlen), marked)
	}
	if marked {
		p.ECN = packet.CE
		out.ctr.ECNMarked[p.Prio]++
		s.dom.Totals.ECNMarked++
	}
}

// departed credits the buffer for a packet leaving for out, whose egress
// is e, releases the upstream if its PG drained, and marks ECN and writes
// telemetry at dequeue. A packet that is sent, not flushed, is booked as
// sent next (egressClass.count), after its telemetry, which counts the
// bytes the port sent before it.
func (s *Switch) departed(p *packet.Packet, e *switchEgress, out *Port, qlen int64) {
	prio := int(p.Prio)
	in := &s.port[p.InPort]
	g := &in.rxPrio[prio].pg // prio < 8 from here: its mask needs no shift guard
	lossless := s.lossless&(1<<prio) != 0
	s.buf.release(g, int64(p.Frame), lossless)
	if lossless && g.xoff && s.buf.wantXON(g, int(g.port)) {
		in.SendXON(prio)
	}
	if !s.ecnAtEnqueue && markable(p) {
		s.markECN(p, e, out, qlen)
	}
	if p.INT != nil && p.Kind == packet.Data {
		s.pushINT(p, out)
	}
	if s.stages&stagePINT != 0 {
		s.pintDeparted(p, out)
	}
}

// pushINT writes the egress port's hop into p's telemetry: the time, the
// bytes the port sent before p, the bytes still queued on all its
// priorities, and its rate (HPCC's INT, written at dequeue).
func (s *Switch) pushINT(p *packet.Packet, out *Port) {
	p.INT.Push(packet.INTHop{Port: int32(out.id), Time: s.dom.Sched.Now(), TxBytes: out.TxBytes(), QLen: s.queued(out), Rate: out.rate})
}

// queued returns the bytes queued for out on all its priorities.
func (s *Switch) queued(out *Port) int64 {
	var q int64
	e := &s.egress[out.index]
	for prio := range e.cls {
		q += e.cls[prio].q.Bytes()
	}
	return q
}

// EachQueued calls f for every packet in the switch's queues and its
// forwarding pipeline.
func (s *Switch) EachQueued(f func(p *packet.Packet)) {
	s.eachPiped(f)
	for k := range s.egress {
		e := &s.egress[k]
		for i := range e.cls {
			e.cls[i].q.Each(f)
		}
	}
}

// RED returns the marking profile of port i's priority prio queue.
func (s *Switch) RED(i, prio int) RED { return s.egress[i].red[prio] }

// QueueBytes returns the bytes queued at port i, priority prio.
func (s *Switch) QueueBytes(i, prio int) int64 { return s.egress[i].cls[prio].q.Bytes() }

// QueueMax returns the largest depth port i's priority prio queue reached.
func (s *Switch) QueueMax(i, prio int) int64 { return s.egress[i].cls[prio].maxBytes }

// RateAlpha is the lossless alpha of the ingress ports of one rate.
type RateAlpha struct {
	Rate  unit.BitRate
	Alpha float64
}

// RateRED is the marking profiles of the ports of one rate.
type RateRED struct {
	Rate unit.BitRate
	ECN  [8]RED
}
