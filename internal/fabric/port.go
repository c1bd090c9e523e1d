package fabric

import (
	"math/rand/v2"
	"unsafe"

	"rocelab/internal/packet"
	"rocelab/internal/prefetch"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
)

// Event tags a Port serves (the low byte of the tag), tagArrive as a linkArrival.
const (
	tagTxDone uint64 = iota
	tagArrive
	tagPauseApply
	tagWake
	tagPFCRefresh
	tagWatchdog
	tagLinkDown
	tagLinkUp
)

// Port hooks (Port.hooks): what a frame's path asks of a port's lines
// beyond the first two.
const (
	hookTap         uint8 = 1 << iota // a tap is set
	hookEgressBooks                   // the egress books the data frames it sends
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
//
// The transmitter schedules no event when a frame's serialisation ends
// unless something waits to go next: it notes when the line frees up,
// and a frame that becomes sendable later starts then, or at once if the
// line is already free. A store-and-forward switch port that forwards a
// stream at line rate so runs one event per frame, its arrival.
//
// The state every frame touches fills the port's first two cache lines
// (the event loop fetches both ahead of the port's events), the size is a
// whole number of lines so that every port of a switch's array starts on
// one (TestPortHotLines checks both), and the per-priority frame counts
// come next, so that a frame costs the port few lines: a fabric of tens
// of thousands of ports otherwise spends its time on cache misses.
type Port struct {
	// Line 0: what the sending side reads, so that a switch forwarding
	// a frame straight to the line reads one line of its out port: the
	// link it sends on, the transmitter's state, the serialisation memo,
	// the cable's delay and jitter, the node's index.
	tx  *linkDir // the link direction the port sends on
	dom *Domain
	key sim.Key // the key of the node's own events
	// busyUntil is when the frame being sent has left; txQueued says an
	// event is queued for then; sending guards against re-entry while the
	// egress picks a frame.
	busyUntil unit.Time
	// txLast is the serialisation time of the last frame length sent
	// (serialisation): nearly every frame's, so the rate it is worked out
	// from lies in the second line.
	txLast txMemo
	delay  unit.Time // one-way propagation delay to the peer
	// jitter, when positive, delays each frame's arrival at the peer by a
	// uniform draw from [0, jitter) (FEC codeword alignment) from the link
	// direction's source, keeping arrivals in order.
	jitter unit.Time
	index  int16 // index within the node (a packet's InPort)
	// pausing are the priorities with a received pause in effect (bit p
	// = pause[p].active), storm those the PFC watchdog holds in its storm
	// state.
	pausing, storm    uint8
	txQueued, sending bool
	// hooks says whether tap is set and whether the egress books the
	// frames it sends, ctrlQueued that ctrl holds a frame: every frame
	// sent asks them, and tap, ctrl and txc lie beyond the lines fetched
	// ahead (an arrival asks its link direction: linkDir.rxHooks).
	hooks      uint8
	ctrlQueued bool

	// Line 1: the link direction the port receives from, the node, the
	// loss hook (a data frame arriving at a port with no hook reads
	// neither line of the port: its link direction holds what it asks,
	// linkArrival; a tapped or lossy port's, a down link's and a PFC
	// frame's arrival read this one), the egress a look at the
	// queues dequeues from and the line rate, which a NIC's pacing reads
	// after its look.
	rx     *linkDir
	egress Egress
	node   Node
	// loss, when set, may lose frames arriving at this port.
	loss LossHook
	rate unit.BitRate

	// rxPrio is each priority's receive side, one line each: its frame
	// counts and, at a switch, its priority group's buffer use, which a
	// frame's admission reads right after counting it, and whether the
	// port holds the priority off at its peer, which the frame's
	// departure reads with the buffer use it releases.
	rxPrio [8]ingress

	tap  Tap
	ctrl packet.Queue // MAC control frames, sent ahead of data

	// txc counts frames and frame bytes per priority and class: a frame
	// touches one entry, 16 bytes. A switch port's RoCE frames count in
	// their egress class's line instead (egressClass.sent), which their
	// dequeue touches anyway.
	txc [8][packet.NumClasses]traffic

	name  string
	id    int // index within the network
	cable unit.Length
	peer  *Port
	pfcRx packet.Queue // received PFC frames waiting out the response time

	// response is how long after a PFC frame arrives its effect begins.
	response unit.Time
	pause    [8]pauseState
	wake     sim.Alarm

	pfc      pfcSender
	watchdog watchdog

	// ctr holds the counters besides txc and rxPrio; its phy counts
	// are PFC frames only (Snapshot adds the rest). It ends the port, whose
	// size must stay a whole number of cache lines (TestPortHotLines): pad
	// after it when its size changes.
	ctr Counters
	_   [24]byte
}

// ingress is one priority's receive side at a port: its frame counts by
// class and its ingress priority group's buffer use, one cache line.
type ingress struct {
	c  [packet.NumClasses]traffic
	pg pgState
}

// traffic is a count of frames and their bytes.
type traffic struct{ pkts, bytes int64 }

// add counts one frame of the given length.
func (t *traffic) add(frame int32) {
	t.pkts++
	t.bytes += int64(frame)
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
func (pt *Port) Index() int { return int(pt.index) }

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

// Link returns the link the port is attached to, or nil.
func (pt *Port) Link() *Link {
	if pt.tx == nil {
		return nil
	}
	return pt.tx.link
}

// Domain returns the domain the port's node belongs to.
func (pt *Port) Domain() *Domain { return pt.dom }

// Key returns the key of the events the port's node schedules for itself.
func (pt *Port) Key() sim.Key { return pt.key }

// SetEgress sets what the port transmits. A switch's egress books the
// frames the port sends itself (egressClass.count), and the port's own
// count of them (countTx) then stands aside: hookEgressBooks says so.
func (pt *Port) SetEgress(e Egress) {
	pt.egress = e
	pt.hooks &^= hookEgressBooks
	if _, ok := e.(*switchEgress); ok {
		pt.hooks |= hookEgressBooks
	}
}

// SetTap installs a frame tap (nil removes it).
func (pt *Port) SetTap(t Tap) {
	pt.tap = t
	pt.hooks &^= hookTap
	if t != nil {
		pt.hooks |= hookTap
	}
	pt.syncRx()
}

// syncRx tells the link direction the port receives from, if any, about
// the port's tap and loss hook, which its arrivals ask about.
func (pt *Port) syncRx() {
	if pt.rx == nil {
		return
	}
	var h uint8
	if pt.tap != nil {
		h |= rxTapped
	}
	if pt.loss != nil {
		h |= rxLossy
	}
	pt.rx.rxHooks = h
}

// SetResponseTime sets how long after a PFC frame arrives the port starts
// to obey it.
func (pt *Port) SetResponseTime(d unit.Time) { pt.response = d }

// QuantaTime returns the duration of q pause quanta (512 bit times each) at
// the port rate: 5.12 ns per quantum at 100G, 1.28 ns at 400G.
func (pt *Port) QuantaTime(q uint16) unit.Time {
	return pt.rate.TxTime(unit.Bytes(q) * 64)
}

// Busy reports whether the port is transmitting.
func (pt *Port) Busy() bool { return pt.sending || pt.dom.Sched.Now() < pt.busyUntil }

// InFlight calls f for every packet on the link toward the peer, including
// the one being serialized, and for queued control frames.
func (pt *Port) InFlight(f func(p *packet.Packet)) {
	if pt.tx != nil {
		pt.tx.wire.Each(f)
	}
	pt.ctrl.Each(f)
}

// Kick tells the port that something may have become sendable: an idle
// port starts sending now, a busy one when its frame has left. A port
// whose line is busy with its look queued has nothing to do (startTx
// would find the same), and returns without the call: a frame queued
// behind others at a congested port kicks it so.
func (pt *Port) Kick() {
	if now := pt.dom.Sched.Now(); !pt.txQueued || now >= pt.busyUntil {
		pt.startTx(now)
	}
}

// Handle serves the port's events but its frames' arrivals.
func (pt *Port) Handle(now unit.Time, tag uint64) {
	switch tag & 0xff {
	case tagTxDone:
		pt.txQueued = false
		pt.startTx(now)
	case tagPauseApply:
		f := pt.pfcRx.Pop()
		pt.applyPause(now, f)
		pt.dom.Pool.Put(f)
		pt.Kick()
	case tagWake:
		pt.wake.Fired()
		pt.Kick()
	case tagPFCRefresh:
		pt.pfc.refresh(pt, now, int(tag>>8))
	case tagWatchdog:
		pt.watchdog.check(pt, now, int(tag>>8))
	case tagLinkDown:
		if !pt.rx.down {
			pt.ctr.LinkDownEvents++
		}
		pt.rx.down = true
	case tagLinkUp:
		pt.rx.down = false
		pt.Kick()
	}
}

// pausedMask returns the priorities the port may not send now, expiring
// pauses whose time is up. It inlines: most looks find no pause.
func (pt *Port) pausedMask(now unit.Time) uint8 {
	if pt.pausing == 0 {
		return 0
	}
	return pt.pausedNow(now)
}

// pausedNow is pausedMask of a port with a received pause in effect.
func (pt *Port) pausedNow(now unit.Time) uint8 {
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
		if now >= ps.start && !pt.stormed(p) {
			m |= 1 << p
		}
	}
	return m
}

// startTx sends the next frame if the line is free and there is one; if
// the line is busy, it makes sure the port looks again when it frees up.
func (pt *Port) startTx(now unit.Time) {
	if pt.sending {
		return
	}
	if now < pt.busyUntil {
		pt.txAt(pt.busyUntil)
		return
	}
	pt.sending = true // guards against re-entry from Dequeue
	// A control frame goes ahead of the data; the port then looks again
	// when it has left, since data may wait behind it.
	p := pt.popCtrl()
	more := p != nil
	if p == nil {
		p, more = pt.egress.Dequeue(pt, pt.pausedMask(now))
	}
	if p == nil {
		p = pt.popCtrl() // a control frame queued during Dequeue
	}
	pt.sending = false
	if p == nil {
		pt.armWake(now)
		return
	}
	pt.transmit(now, p, more)
}

// idle reports whether a frame queued now would go at once: the line is
// free, the port is not choosing a frame, and no control frame or
// received pause stands in the way.
func (pt *Port) idle(now unit.Time) bool {
	return !pt.sending && !pt.ctrlQueued && pt.pausing == 0 && now >= pt.busyUntil
}

// transmit sends p, which startTx chose, now; more says that another
// frame waits.
func (pt *Port) transmit(now unit.Time, p *packet.Packet, more bool) {
	tx := pt.serialisation(p.Wire())
	pt.busyUntil = now + tx
	if more || pt.ctrlQueued {
		pt.txAt(pt.busyUntil)
	} else if pt.pausing != 0 {
		pt.armWake(now)
	}
	pt.countTx(p)
	if pt.hooks&hookTap != 0 {
		pt.tap.Frame(now, pt, Tx, p)
	}
	arrive, d := now+tx+pt.delay, pt.tx
	if pt.jitter > 0 {
		arrive = max(arrive+unit.Time(d.jsrc.Uint64()%uint64(pt.jitter)), d.lastArrival)
		d.lastArrival = arrive
	}
	d.send(pt.dom, p, arrive)
}

// txMemo is a frame length (wire bytes, above txMemoBits) and its
// serialisation time in picoseconds (below), or 0 for none.
type txMemo uint64

// txMemoBits holds any serialisation time: 2^48 ps is 281 s.
const txMemoBits = 48

// serialisation returns the time to send wire bytes at the port's rate.
// A port sends frames of a length or two (its data's, its ACKs'), and
// TxTime divides 128 bits by the rate: the last length's time is kept
// and reused, exact, as the division would give it.
func (pt *Port) serialisation(wire int32) unit.Time {
	if m := pt.txLast; m>>txMemoBits == txMemo(wire) {
		return unit.Time(m & (1<<txMemoBits - 1))
	}
	return pt.serialiseNew(wire)
}

// serialiseNew is serialisation of a length other than the last, out of
// line so that serialisation inlines.
//
//go:noinline
func (pt *Port) serialiseNew(wire int32) unit.Time {
	tx := pt.rate.TxTime(unit.Bytes(wire))
	if wire > 0 && wire < 1<<(64-txMemoBits) && tx < 1<<txMemoBits {
		pt.txLast = txMemo(wire)<<txMemoBits | txMemo(tx)
	}
	return tx
}

// pushCtrl queues a MAC control frame ahead of the data.
func (pt *Port) pushCtrl(f *packet.Packet) {
	pt.ctrl.Push(f)
	pt.ctrlQueued = true
}

// popCtrl takes the first queued control frame, or nil. It inlines: most
// looks find none.
func (pt *Port) popCtrl() *packet.Packet {
	if !pt.ctrlQueued {
		return nil
	}
	return pt.popQueuedCtrl()
}

// popQueuedCtrl is popCtrl of a port with a control frame queued, out of
// line so that popCtrl inlines.
//
//go:noinline
func (pt *Port) popQueuedCtrl() *packet.Packet {
	p := pt.ctrl.Pop()
	pt.ctrlQueued = pt.ctrl.Len() > 0
	return p
}

// txAt queues the port's next look at its queues for t, once.
func (pt *Port) txAt(t unit.Time) {
	if !pt.txQueued {
		pt.txQueued = true
		// The egress's data is fetched ahead of the port's next look.
		pt.dom.Sched.SendHint(t, pt.key, pt, tagTxDone, uintptr(prefetch.Of(unsafe.Pointer(&pt.egress))))
	}
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
		pt.wake.ArmBy(pt.dom.Sched, next, pt.key, pt, tagWake)
	}
}

// setRate sets the port's line rate and forgets the serialisation time
// kept for the last frame length (txLast), which was at the old rate.
func (pt *Port) setRate(r unit.BitRate) { pt.rate, pt.txLast = r, 0 }

// SetPHY models the physical layer's imperfections: the transmitter's
// clock runs ppm parts per million off the nominal rate (IEEE 802.3
// allows ±100), and each frame reaches the peer up to jitter late, drawn
// uniformly from src (the receiver's FEC decoder releases a frame only at
// the end of its last codeword, whose boundary falls anywhere in the
// frame). Both break the exact phase locks of perfectly regular senders.
// The jitter's state lies in the link direction the port sends on: a port
// takes it once linked, and an unlinked one keeps no jitter.
func (pt *Port) SetPHY(ppm float64, jitter unit.Time, src rand.PCG) {
	pt.setRate(unit.BitRate(float64(pt.rate) * (1 + ppm/1e6)))
	if pt.tx != nil {
		pt.jitter, pt.tx.jsrc = jitter, src
	}
}

// SetLoss installs a loss hook on frames arriving at pt (nil removes it).
func (pt *Port) SetLoss(h LossHook) {
	pt.loss = h
	pt.syncRx()
}

// LinkUp reports whether the port sees its link up.
func (pt *Port) LinkUp() bool { return pt.rx != nil && !pt.rx.down }

// lost reports whether a frame arriving at pt is lost, the link being
// down or losing it, and books the drop.
func (pt *Port) lost(now unit.Time, p *packet.Packet) bool {
	switch {
	case pt.rx.down:
		pt.dom.Drop(p, DropLinkDown, pt)
	case pt.loss != nil && pt.loss.Lose(now, p):
		pt.dom.Drop(p, DropLinkLoss, pt)
	default:
		return false
	}
	return true
}

// receivePause counts a PFC frame that arrived at pt and queues it to take
// effect after the response time.
func (pt *Port) receivePause(now unit.Time, p *packet.Packet) {
	pt.ctr.RxPhyPackets++
	pt.ctr.RxPhyBytes += int64(p.Frame)
	for prio := 0; prio < 8; prio++ {
		if p.ClassVector&(1<<prio) != 0 {
			pt.ctr.RxPause[prio]++
		}
	}
	pt.pfcRx.Push(p)
	pt.dom.Sched.Send(now+pt.response, pt.key, pt, tagPauseApply)
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
			if pt.ctr.RxPauseTransition[prio] == 0 {
				pt.dom.paused = append(pt.dom.paused, portPrio{pt, int8(prio)})
			}
			pt.ctr.RxPauseTransition[prio]++
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
		pt.ctr.RxPauseDuration[prio] += t - ps.start
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
	now := pt.dom.Sched.Now()
	c := pt.ctr
	for p := range pt.txc {
		for cl := range pt.txc[p] {
			t, r := pt.sentCount(p, packet.Class(cl)), pt.rxPrio[p].c[cl]
			c.TxPrioPackets[p] += t.pkts
			c.TxPrioBytes[p] += t.bytes
			c.RxPrioPackets[p] += r.pkts
			c.RxPrioBytes[p] += r.bytes
			v := &c.Vport[cl]
			v.TxPackets += t.pkts
			v.TxBytes += t.bytes
			v.RxPackets += r.pkts
			v.RxBytes += r.bytes
		}
		c.TxPhyPackets += c.TxPrioPackets[p]
		c.TxPhyBytes += c.TxPrioBytes[p]
		c.RxPhyPackets += c.RxPrioPackets[p]
		c.RxPhyBytes += c.RxPrioBytes[p]
	}
	for p := range pt.pause {
		if ps := &pt.pause[p]; ps.active && now > ps.start {
			c.RxPauseDuration[p] += min(now, ps.end) - ps.start
		}
	}
	for p := 0; p < 8; p++ {
		if pt.XOFF(p) {
			c.TxPauseDuration[p] += now - pt.pfc.since[p]
		}
	}
	return c
}

// PauseHeld returns how long received pause has held priority prio, up
// to now (a pause still in effect counts until now).
func (pt *Port) PauseHeld(prio int, now unit.Time) unit.Time {
	held := pt.ctr.RxPauseDuration[prio]
	if ps := &pt.pause[prio]; ps.active && now > ps.start {
		held += min(now, ps.end) - ps.start
	}
	return held
}

// LongestPauseHeld returns the longest received pause has held any one
// priority, up to now: Snapshot's largest RxPauseDuration, without the
// rest of the snapshot.
func (pt *Port) LongestPauseHeld() unit.Time {
	now := pt.dom.Sched.Now()
	var most unit.Time
	for p := range pt.pause {
		most = max(most, pt.PauseHeld(p, now))
	}
	return most
}

// Paused reports whether priority prio is held by a received pause now.
func (pt *Port) Paused(prio int) bool {
	return pt.pausedMask(pt.dom.Sched.Now())&(1<<prio) != 0
}
