package fluid

import (
	"cmp"
	"math"
	"slices"

	"rocelab/internal/unit"
)

// Congestion in the fluid engine: what max-min rates leave out, estimated
// per link from the rates and their bottlenecks (docs/fluid.md).
//
//   - PFC. A lossless class never drops. Without congestion control a
//     sender whose flows are held by a bottleneck further along sends at
//     line rate until PFC pauses it: a link whose flows are all held
//     downstream, in a lossless class, is paused for the share of time it
//     does not carry, 1 − load/capacity, and so is every link between it
//     and the bottleneck (pause spreading, in the fluid limit). Under
//     DCQCN the senders slow down instead; the transient pauses are not
//     modelled.
//   - ECN. A saturated switch queue that is some flow's bottleneck holds
//     a standing queue. Under DCQCN its marking probability is the fixed
//     point of the DCQCN fluid model (Zhu et al., CoNEXT 2016) for the N
//     flows it holds; the RED profile turns it into a queue depth. Without
//     congestion control the queue fills to the PFC threshold of the
//     ingress groups feeding it, and RED marks at that depth.
//   - CNPs: the receiver sends at most one per min_time_between_cnps per
//     QP: over a time D with marks at rate λ, about D/(τ + 1/λ).

// linkState is what a link carries now and what it has carried.
type linkState struct {
	since unit.Time
	load  float64 // wire bit/s
	// pause is the share of time the link's sender is paused, for the
	// priorities in pausePrios; markP the probability a packet leaving
	// its queue is CE-marked; queue its standing queue (bytes).
	pause      float64
	pausePrios uint8
	// congested is the classes whose queue at this port stands.
	congested uint8
	markP     [8]float64
	queue     float64

	// Integrated up to since: bits carried and seconds paused.
	busy      float64
	pauseTime float64
	// Booked per message as its last byte leaves, by class: frame bytes
	// (preamble and gap excluded) and frames, data and ACKs; frames lost
	// on the link; CE marks its queue made.
	bytes, packets [8]float64
	lost           float64
	marks          [8]float64
	peakLoad       float64
	peakQueue      float64
	peakClass      uint8
}

// integrate books the current state up to now.
func (lk *link) integrate(now unit.Time) {
	st := &lk.st
	dt := float64(now-st.since) / float64(unit.Second)
	if dt > 0 {
		st.busy += st.load * dt
		st.pauseTime += st.pause * dt
	}
	st.since = now
}

// addLoad changes the link's load by d from now on.
func (lk *link) addLoad(now unit.Time, d float64) {
	if d == 0 {
		return
	}
	lk.integrate(now)
	lk.st.load = math.Max(0, lk.st.load+d)
	lk.st.peakLoad = math.Max(lk.st.peakLoad, lk.st.load)
}

// NICCounters are a host NIC's RDMA counters, as expected values (the
// fluid engine counts what it estimates, rounded when observed).
type NICCounters struct {
	// Retransmitted packets (go-back-N), NAKs the requester received
	// (packet_seq_err) and the responder's out_of_sequence discards.
	Retransmitted, NAKs, OOS float64
	// Whole events from lost tails.
	PacketSeqErr, OutOfSequence, LocalAckTimeoutErr int64
	ReqCQEError                                     int64
	// ECN: CE-marked RoCE packets received, CNPs sent (as notification
	// point), handled and ignored (as reaction point).
	ECNMarked, CNPSent, CNPHandled, CNPIgnored float64
}

// congestion updates the pause, marking and queue estimates of the links
// of the component just solved, and the marking of its flows.
func (e *Engine) congestion(now unit.Time) {
	s := &e.sol
	c := e.cfg
	// First the ports that hold a standing queue: a full port that is the
	// bottleneck of flows that could bring it more than it carries (a
	// clock offset of a few ppm between equal links does not count).
	cong := false
	for _, l := range s.links {
		lk := &e.net.links[l]
		lk.integrate(now)
		lk.st.congested = 0
		if lk.st.load < lk.bps*(1-1e-6) {
			continue
		}
		// What the flows held here could bring: each ingress link
		// delivers at most its own rate.
		in := e.sol.ingress[:0]
		for _, fh := range lk.flows {
			if fh.data && fh.hop > 0 && s.bneck[fh.flow] == int32(fh.hop) {
				fl := &e.flows[fh.flow]
				in = append(in, ingress{link: fl.path[fh.hop-1], cls: fh.cls, up: e.upstream(fl, int32(fh.hop))})
			}
		}
		slices.SortFunc(in, func(a, b ingress) int { return cmp.Or(cmp.Compare(a.cls, b.cls), cmp.Compare(a.link, b.link)) })
		var demand [8]float64
		for i := 0; i < len(in); {
			j, sum := i, 0.0
			for ; j < len(in) && in[j].link == in[i].link && in[j].cls == in[i].cls; j++ {
				sum += in[j].up
			}
			demand[in[i].cls] += math.Min(sum, e.net.links[in[i].link].bps)
			i = j
		}
		e.sol.ingress = in
		for p := 0; p < 8; p++ {
			if demand[p] > 1.01*lk.bps {
				lk.st.congested |= 1 << p
				cong = true
			}
		}
	}
	// Each link's estimate reads the bottlenecks of the flows crossing
	// it, some of them outside the component when it is near's.
	s.remark = s.remark[:0]
	for _, l := range s.links {
		lk := &e.net.links[l]
		oldQ, oldM := lk.st.queue, lk.st.markP
		lk.st.pause, lk.st.pausePrios, lk.st.queue = 0, 0, 0
		lk.st.markP = [8]float64{}
		if cong || s.local {
			e.estimate(l, lk)
		}
		if lk.st.queue != oldQ {
			e.qEpoch++
		}
		if lk.st.markP != oldM {
			s.remark = append(s.remark, l)
		}
		for p := range oldM {
			e.marking += b2i(lk.st.markP[p] > 0) - b2i(oldM[p] > 0)
		}
	}
	if !c.ECT {
		return
	}
	for _, f := range s.flows {
		e.markProb(f)
	}
	// Flows held outside the component that cross a link whose marking
	// changed.
	for _, l := range s.remark {
		for _, fh := range e.net.links[l].flows {
			if fh.data && s.flowSeen[fh.flow] != s.gen {
				e.markProb(fh.flow)
			}
		}
	}
}

// markProb sets the probability that a packet of flow f arrives
// CE-marked, from the marking of the links on its path.
func (e *Engine) markProb(f int32) {
	fl := &e.flows[f]
	if fl.tcp {
		fl.pMark = 0
		return
	}
	keep := 1.0
	for h, l := range fl.path {
		keep *= 1 - e.net.links[l].st.markP[fl.cls[h]]
	}
	fl.pMark = 1 - keep
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// estimate sets link l's pause share, standing queue and marking from
// the rates and bottlenecks of the flows crossing it.
func (e *Engine) estimate(l int32, lk *link) {
	c := e.cfg
	if len(lk.flows) == 0 {
		return
	}
	util := lk.st.load / lk.bps
	var held, here [8]int
	var ingress, heldIn [8]uint64 // distinct upstream links feeding a bottleneck here, and a held flow (small hash sets)
	var nin, nheld [8]int
	for _, fh := range lk.flows {
		if !fh.data {
			continue // its ACKs
		}
		fl := &e.flows[fh.flow]
		cls := fh.cls
		b := e.dataBottleneck(fh.flow)
		switch {
		case b > int32(fh.hop):
			// Held by a congested port further along, without
			// congestion control to slow the sender first.
			bl := &e.net.links[fl.path[b]]
			if !fl.ccOn && bl.st.congested&(1<<fl.cls[b]) != 0 {
				held[cls]++
				countUpstream(&heldIn[cls], &nheld[cls], fl, fh.hop)
			}
		case b == int32(fh.hop):
			here[cls]++
			countUpstream(&ingress[cls], &nin[cls], fl, fh.hop)
		}
	}
	for p := 0; p < 8; p++ {
		lossless := c.Lossless&(1<<p) != 0
		if lossless && held[p] > 0 && util < 1 {
			lk.st.pause = math.Max(lk.st.pause, 1-util)
			lk.st.pausePrios |= 1 << p
			lk.everPaused |= 1 << p
			if !lk.nicTx {
				// A paused switch port fills its ingress groups to
				// their thresholds before it pauses its own senders.
				e.standing(lk, e.pfcQueue(lk, max(nheld[p], 1), true), p)
			}
		}
		red := c.red(lk.rate, p)
		if here[p] == 0 || lk.nicTx || lk.st.congested&(1<<p) == 0 {
			continue
		}
		// A standing queue: the DCQCN equilibrium when the flows it
		// holds are rate controlled, else the PFC threshold.
		var q float64
		if e.ccHeldHere(l, uint8(p)) && red.Kmax > 0 {
			pm := e.dcqcnMark(lk.bps / float64(here[p]))
			lk.st.markP[p] = pm
			q = float64(red.Kmin) + pm/math.Max(red.Pmax, 1e-9)*float64(red.Kmax-red.Kmin)
			if pm >= red.Pmax {
				q = float64(red.Kmax)
			}
		} else {
			q = e.pfcQueue(lk, max(nin[p], 1), lossless)
			lk.st.markP[p] = redProb(red, q)
		}
		e.standing(lk, q, p)
	}
}

// countUpstream counts the link fl comes in on at hop once in n, with set
// a small hash set of the links counted (none before its first hop).
func countUpstream(set *uint64, n *int, fl *flow, hop int16) {
	if hop == 0 {
		return
	}
	up := uint64(1) << (uint(fl.path[hop-1]) % 64)
	if *set&up == 0 {
		*set |= up
		*n++
	}
}

// ingress is a flow held at a port, by the link it comes in on.
type ingress struct {
	link int32
	cls  uint8
	up   float64
}

// standing books a standing queue of q bytes in class p at lk's sender.
func (e *Engine) standing(lk *link, q float64, p int) {
	lk.st.queue = math.Max(lk.st.queue, q)
	if q > lk.st.peakQueue {
		lk.st.peakQueue, lk.st.peakClass = q, uint8(p)
	}
}

// upstream is the most flow fl could bring to hop h: its own cap and the
// slowest link before h.
func (e *Engine) upstream(fl *flow, h int32) float64 {
	up := math.Inf(1)
	if fl.capBps > 0 {
		up = fl.capBps
	}
	for _, l := range fl.path[:h] {
		up = math.Min(up, e.net.links[l].bps)
	}
	return up
}

// dataBottleneck returns the hop of its data path flow f froze at, or -1
// when its own cap or its ACKs' way back held it.
func (e *Engine) dataBottleneck(f int32) int32 {
	if b := e.sol.bneck[f]; int(b) < len(e.flows[f].path) {
		return b
	}
	return -1
}

// ccHeldHere reports whether the flows bottlenecked at link l in class p
// are rate controlled by DCQCN.
func (e *Engine) ccHeldHere(l int32, p uint8) bool {
	for _, fh := range e.net.links[l].flows {
		if fh.data && fh.cls == p && e.sol.bneck[fh.flow] == int32(fh.hop) && e.flows[fh.flow].ccOn {
			return true
		}
	}
	return false
}

// redProb is the RED marking probability at queue q bytes.
func redProb(r RED, q float64) float64 {
	switch {
	case r.Kmax <= 0 || q <= float64(r.Kmin):
		return 0
	case q > float64(r.Kmax):
		return 1
	case r.Kmax == r.Kmin:
		return r.Pmax
	}
	return r.Pmax * (q - float64(r.Kmin)) / float64(r.Kmax-r.Kmin)
}

// pfcQueue estimates the queue of a congested switch port fed by n
// ingress groups without congestion control: each lossless group fills to
// the dynamic threshold α·free before it pauses its upstream, so n groups
// hold n·(reserve + αS/(1+nα)) of a shared pool S. A lossy queue fills to
// its own threshold and drops beyond.
func (e *Engine) pfcQueue(lk *link, n int, lossless bool) float64 {
	c := e.cfg
	shared := e.shared[lk.from]
	a := c.Alpha
	if a <= 0 {
		a = 1
	}
	if !lossless {
		return a * shared / (1 + a)
	}
	nf := float64(n)
	return nf * (float64(c.Reserve) + a*shared/(1+nf*a))
}

// sharedPools sets the shared buffer of each switch: the buffer less
// every port's lossless headroom and reserves.
func (e *Engine) sharedPools() {
	e.shared = make([]float64, len(e.net.portLink))
	for sw := range e.net.portLink {
		e.shared[sw] = e.sharedPool(int32(sw))
	}
}

// sharedPool returns the shared buffer of switch node sw.
func (e *Engine) sharedPool(sw int32) float64 {
	c := e.cfg
	used := 0.0
	nl := 0
	for p := 0; p < 8; p++ {
		if c.Lossless&(1<<p) != 0 {
			nl++
		}
	}
	for _, l := range e.net.portLink[sw] {
		if l < 0 {
			continue
		}
		lk := &e.net.links[l]
		var hr int64
		if c.Headroom != nil {
			hr = c.Headroom(lk.rate, lk.cable)
		}
		used += float64(nl) * float64(hr+c.Reserve)
	}
	return math.Max(float64(c.Buffer)-used, 0)
}

// dcqcnMark returns the per-packet marking probability at which DCQCN
// flows sharing a bottleneck hold rate rc (bit/s each): the fixed point of
// the DCQCN fluid model, where the rate cuts (one per CNP window τ that
// saw a mark, by α/2) balance the increases (one per timer period T, and
// one per B bytes when the byte counter runs, R_AI each, after F fast
// recovery steps). Memoised per rate.
func (e *Engine) dcqcnMark(rc float64) float64 {
	key := int(rc / 1e6)
	if p, ok := e.dcqcnQ[key]; ok {
		return p
	}
	d := e.cfg.DCQCN
	pkt := float64(int64(e.cfg.MTU)+82) * 8
	R := rc / pkt // packets/s
	tau := float64(max(d.MinTimeBetweenCnps, 1)) * 1e-6
	tauA := float64(max(d.DceTcpRtt, 1)) * 1e-6
	T := float64(max(d.RpgTimeReset, 1)) * 1e-6
	rai := float64(d.RpgAiRate) * 1e6 / pkt
	F := float64(d.RpgThreshold)
	B := math.Inf(1)
	if d.RpgByteReset > 0 {
		B = float64(d.RpgByteReset) * 8 / pkt
	}
	f := func(p float64) float64 {
		q := 1 - p
		a := 1 - math.Pow(q, tau*R)
		alpha := 1 - math.Pow(q, tauA*R)
		tr := R * p / (math.Pow(q, -T*R) - 1)
		br := 0.0
		if !math.IsInf(B, 1) {
			br = R * p / (math.Pow(q, -B) - 1)
		}
		inc := rai * (br*math.Pow(q, F*B) + tr*math.Pow(q, F*T*R))
		return R*alpha*a*a - tau*tau*(br+tr)*inc
	}
	lo, hi := 1e-9, 0.999
	if f(lo) > 0 {
		e.dcqcnQ[key] = lo
		return lo
	}
	for i := 0; i < 60; i++ {
		m := math.Sqrt(lo * hi)
		if f(m) > 0 {
			hi = m
		} else {
			lo = m
		}
	}
	e.dcqcnQ[key] = hi
	return hi
}
