package fabric

import (
	"rocelab/internal/packet"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
)

// Event tags a Port serves (the low byte of the tag).
const (
	tagTxDone uint64 = iota
	tagArrive
	tagPauseApply
	tagWake
	tagPFCRefresh
	tagWatchdog
)

// Direction says whether a tapped frame was sent or received by the port.
type Direction uint8

// Directions.
const (
	Tx Direction = iota
	Rx
)

// A Tap sees every frame a port sends (at the start of transmission) and
// receives (when its last bit arrives). It must copy what it needs: the
// packet is reused afterwards.
type Tap interface {
	Frame(now unit.Time, pt *Port, dir Direction, p *packet.Packet)
}

// A LossHook decides whether a link loses a frame arriving at a port (an
// injected fault: bit errors, a dirty connector, a flapping optic).
type LossHook interface {
	Lose(now unit.Time, p *packet.Packet) bool
}

// A Port is one end of a full-duplex link: a transmitter that serializes
// frames at the port rate onto a cable with a propagation delay, and a MAC
// that obeys received PFC frames and sends its node's.
type Port struct {
	net   *Network
	node  Node
	name  string
	index int // index within the node
	id    int // index within the network

	rate  unit.BitRate
	delay unit.Time // one-way propagation delay to the peer
	cable unit.Length
	peer  *Port

	egress Egress
	busy   bool
	ctrl   packet.Queue // MAC control frames, sent ahead of data
	wire   packet.Queue // frames on the link toward the peer
	pfcRx  packet.Queue // received PFC frames waiting out the response time

	// response is how long after a PFC frame arrives its effect begins.
	response unit.Time
	pause    [8]pauseState
	pausing  uint8 // priorities with a pause state open (bit p = pause[p].active)
	wake     sim.Alarm

	pfc      pfcSender
	watchdog watchdog

	// up is the link's state; frames that arrive while it is down are lost.
	up bool
	// jitter, when positive, delays each frame's arrival at the peer by a
	// uniform draw from [0, jitter) (FEC codeword alignment), keeping
	// arrivals in order; lastArrival is the latest arrival scheduled.
	jitter      unit.Time
	jrng        *sim.Rand
	lastArrival unit.Time
	// loss, when set, may lose frames arriving at this port.
	loss LossHook

	// Counters are the port's mlx5-named counters.
	Counters Counters
	tap      Tap
}

// pauseState tracks how a received PFC pause holds one priority.
type pauseState struct {
	active     bool
	start, end unit.Time
	since      unit.Time // start of the current run of back-to-back pauses, for the watchdog
}

// Name returns "node/pN".
func (pt *Port) Name() string { return pt.name }

// Node returns the node owning the port.
func (pt *Port) Node() Node { return pt.node }

// Index returns the port's index within its node.
func (pt *Port) Index() int { return pt.index }

// ID returns the port's index within the network.
func (pt *Port) ID() int { return pt.id }

// Rate returns the port's line rate.
func (pt *Port) Rate() unit.BitRate { return pt.rate }

// Delay returns the one-way propagation delay of the attached cable.
func (pt *Port) Delay() unit.Time { return pt.delay }

// Cable returns the attached cable's length.
func (pt *Port) Cable() unit.Length { return pt.cable }

// Peer returns the port at the other end of the link.
func (pt *Port) Peer() *Port { return pt.peer }

// SetEgress sets what the port transmits.
func (pt *Port) SetEgress(e Egress) { pt.egress = e }

// SetTap installs a frame tap (nil removes it).
func (pt *Port) SetTap(t Tap) { pt.tap = t }

// SetResponseTime sets how long after a PFC frame arrives the port starts
// to obey it.
func (pt *Port) SetResponseTime(d unit.Time) { pt.response = d }

// QuantaTime returns the duration of q pause quanta (512 bit times each) at
// the port rate: 5.12 ns per quantum at 100G, 1.28 ns at 400G.
func (pt *Port) QuantaTime(q uint16) unit.Time {
	return pt.rate.TxTime(unit.Bytes(q) * 64)
}

// Busy reports whether the port is transmitting.
func (pt *Port) Busy() bool { return pt.busy }

// InFlight calls f for every packet on the link toward the peer, including
// the one being serialized, and for queued control frames.
func (pt *Port) InFlight(f func(p *packet.Packet)) {
	pt.wire.Each(f)
	pt.ctrl.Each(f)
}

// Kick asks an idle port to look for something to send.
func (pt *Port) Kick() {
	if !pt.busy {
		pt.startTx(pt.net.Sched.Now())
	}
}

// Handle serves the port's events.
func (pt *Port) Handle(now unit.Time, tag uint64) {
	switch tag & 0xff {
	case tagTxDone:
		pt.busy = false
		pt.startTx(now)
	case tagArrive:
		p := pt.wire.Pop()
		pt.peer.arrive(now, p)
	case tagPauseApply:
		f := pt.pfcRx.Pop()
		pt.applyPause(now, f)
		pt.net.Pool.Put(f)
		pt.Kick()
	case tagWake:
		pt.wake.Fired()
		pt.Kick()
	case tagPFCRefresh:
		pt.pfc.refresh(pt, now, int(tag>>8))
	case tagWatchdog:
		pt.watchdog.check(pt, now, int(tag>>8))
	}
}

// pausedMask returns the priorities the port may not send now, expiring
// pauses whose time is up.
func (pt *Port) pausedMask(now unit.Time) uint8 {
	if pt.pausing == 0 {
		return 0
	}
	var m uint8
	for p := range pt.pause {
		ps := &pt.pause[p]
		if !ps.active {
			continue
		}
		if now >= ps.end {
			pt.closePause(p, ps.end)
			continue
		}
		if now >= ps.start && !pt.watchdog.stormed(p) {
			m |= 1 << p
		}
	}
	return m
}

// startTx sends the next frame if the port is idle and has one.
func (pt *Port) startTx(now unit.Time) {
	if pt.busy {
		return
	}
	pt.busy = true // guards against re-entry from Dequeue
	p := pt.ctrl.Pop()
	if p == nil {
		p = pt.egress.Dequeue(pt, pt.pausedMask(now))
	}
	if p == nil {
		p = pt.ctrl.Pop() // a control frame queued during Dequeue
	}
	if p == nil {
		pt.busy = false
		pt.armWake(now)
		return
	}
	tx := pt.rate.TxTime(unit.Bytes(p.Wire()))
	pt.Counters.countTx(p)
	if pt.tap != nil {
		pt.tap.Frame(now, pt, Tx, p)
	}
	pt.wire.Push(p)
	s := pt.net.Sched
	s.At(now+tx, pt, tagTxDone)
	arrive := now + tx + pt.delay
	if pt.jitter > 0 {
		arrive = max(arrive+unit.Time(pt.jrng.Uint64()%uint64(pt.jitter)), pt.lastArrival)
		pt.lastArrival = arrive
	}
	s.At(arrive, pt, tagArrive)
}

// armWake schedules a retry at the earliest pause expiry, so that an idle
// port resumes sending when a pause runs out.
func (pt *Port) armWake(now unit.Time) {
	next := unit.MaxTime
	for p := range pt.pause {
		if ps := &pt.pause[p]; ps.active && ps.end > now {
			next = min(next, ps.end)
		}
	}
	if next != unit.MaxTime {
		pt.wake.ArmBy(pt.net.Sched, next, pt, tagWake)
	}
}

// SetPHY models the physical layer's imperfections: the transmitter's
// clock runs ppm parts per million off the nominal rate (IEEE 802.3
// allows ±100), and each frame reaches the peer up to jitter late, drawn
// uniformly from rng (the receiver's FEC decoder releases a frame only at
// the end of its last codeword, whose boundary falls anywhere in the
// frame). Both break the exact phase locks of perfectly regular senders.
func (pt *Port) SetPHY(ppm float64, jitter unit.Time, rng *sim.Rand) {
	pt.rate = unit.BitRate(float64(pt.rate) * (1 + ppm/1e6))
	pt.jitter, pt.jrng = jitter, rng
}

// SetLoss installs a loss hook on frames arriving at pt (nil removes it).
func (pt *Port) SetLoss(h LossHook) { pt.loss = h }

// SetLinkUp brings the link at pt up or down, at both ends. Frames that
// arrive while it is down are lost.
func (pt *Port) SetLinkUp(up bool) {
	pt.up = up
	if pt.peer != nil {
		pt.peer.up = up
	}
	if up {
		pt.Kick()
		if pt.peer != nil {
			pt.peer.Kick()
		}
	}
}

// LinkUp reports whether the link at pt is up.
func (pt *Port) LinkUp() bool { return pt.up }

// arrive delivers a frame whose last bit reached pt, unless the link is
// down or loses it.
func (pt *Port) arrive(now unit.Time, p *packet.Packet) {
	switch {
	case !pt.up:
		pt.net.Drop(p, DropLinkDown, pt)
	case pt.loss != nil && pt.loss.Lose(now, p):
		pt.net.Drop(p, DropLinkLoss, pt)
	default:
		pt.receive(now, p)
	}
}

// receive handles a frame whose last bit has arrived at pt.
func (pt *Port) receive(now unit.Time, p *packet.Packet) {
	if pt.tap != nil {
		pt.tap.Frame(now, pt, Rx, p)
	}
	if p.Kind == packet.Pause {
		pt.Counters.RxPhyPackets++
		pt.Counters.RxPhyBytes += int64(p.Frame)
		for prio := 0; prio < 8; prio++ {
			if p.ClassVector&(1<<prio) != 0 {
				pt.Counters.RxPause[prio]++
			}
		}
		pt.pfcRx.Push(p)
		pt.net.Sched.At(now+pt.response, pt, tagPauseApply)
		return
	}
	pt.node.Receive(p, pt)
}

// applyPause puts a received PFC frame into effect. Each enabled class's
// pause now lasts its quanta from this moment: a later frame replaces the
// deadline, so a refresh extends it and a zero quanta (XON) ends it.
func (pt *Port) applyPause(now unit.Time, f *packet.Packet) {
	for prio := 0; prio < 8; prio++ {
		if f.ClassVector&(1<<prio) == 0 {
			continue
		}
		ps := &pt.pause[prio]
		if ps.active && now >= ps.end {
			pt.closePause(prio, ps.end)
		}
		q := f.Quanta[prio]
		if ps.active {
			if q == 0 {
				pt.closePause(prio, now)
			} else {
				ps.end = now + pt.QuantaTime(q)
			}
		} else if q > 0 {
			if now > ps.end || ps.since == 0 {
				ps.since = now // a gap ends the run of back-to-back pauses
			}
			ps.active, ps.start, ps.end = true, now, now+pt.QuantaTime(q)
			pt.pausing |= 1 << prio
			pt.Counters.RxPauseTransition[prio]++
		}
		pt.watchdog.onPause(pt, now, prio, q)
	}
}

// closePause ends priority prio's pause at t and books its duration.
func (pt *Port) closePause(prio int, t unit.Time) {
	ps := &pt.pause[prio]
	if !ps.active {
		return
	}
	if t > ps.start {
		pt.Counters.RxPauseDuration[prio] += t - ps.start
	}
	ps.active = false
	ps.end = t
	pt.pausing &^= 1 << prio
}

// Snapshot returns the port's counters as of now, with the pause time of
// pauses still in effect (received, and sent) counted up to now. It
// changes nothing: a run observed mid-way continues exactly as one that
// was not.
func (pt *Port) Snapshot() Counters {
	now := pt.net.Sched.Now()
	c := pt.Counters
	for p := range pt.pause {
		if ps := &pt.pause[p]; ps.active && now > ps.start {
			c.RxPauseDuration[p] += min(now, ps.end) - ps.start
		}
	}
	for p := 0; p < 8; p++ {
		if pt.pfc.xoff&(1<<p) != 0 {
			c.TxPauseDuration[p] += now - pt.pfc.since[p]
		}
	}
	return c
}

// PauseHeld returns how long received pause has held priority prio, up
// to now (a pause still in effect counts until now), and whether the port
// ever received one on it.
func (pt *Port) PauseHeld(prio int, now unit.Time) (unit.Time, bool) {
	held := pt.Counters.RxPauseDuration[prio]
	if ps := &pt.pause[prio]; ps.active && now > ps.start {
		held += min(now, ps.end) - ps.start
	}
	return held, pt.Counters.RxPauseTransition[prio] > 0
}

// Paused reports whether priority prio is held by a received pause now.
func (pt *Port) Paused(prio int) bool {
	return pt.pausedMask(pt.net.Sched.Now())&(1<<prio) != 0
}
