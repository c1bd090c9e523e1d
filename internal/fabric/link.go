package fabric

import (
	"math/rand/v2"
	"unsafe"

	"rocelab/internal/packet"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
)

// A Link is a full-duplex cable between two ports: the frames in flight
// in each direction, the state of each end, the cut between two domains
// when its ends lie in different ones, and the target of link faults.
// A sender hands a frame to the link with its arrival time; the link
// schedules the arrival at the receiving port, or, across domains, passes
// the frame to the receiving domain as a timestamped message. The sender
// never calls into the receiver.
type Link struct {
	dir   [2]linkDir // dir[0] carries frames from end a to end b
	id    int
	rate  unit.BitRate
	cable unit.Length
	delay unit.Time
	_     [32]byte
}

// linkDir is one direction of a link. What a frame's send and arrival
// read fills its first cache line, the sender's FEC jitter state with
// it (a transmission read it in a line of the port's of its own); the
// receiving node, which an arrival calls, lies in its second. A frame's
// arrival is the link direction's event (linkArrival), whose first two
// lines the event loop fetches ahead, so that it reads no line of the
// receiving port but its priority's. A direction is two whole lines, and
// the link a whole number of lines that starts with its directions, so
// that each direction's lines are lines (TestLinkLines).
type linkDir struct {
	// wire holds the frames on their way, in the receiver's domain,
	// first to arrive first; the one being serialised is included.
	wire packet.List
	// key orders the arrivals among the receiver's equal-time events:
	// its node, then the sending port.
	key sim.Key
	to  *Port
	// lastArrival is the latest arrival the sender scheduled, jsrc the
	// source of its jitter draws (Port.SetPHY).
	lastArrival unit.Time
	jsrc        rand.PCG
	// cut says the ends lie in different domains.
	cut bool
	// down is the receiving end's view of the link: frames that arrive
	// while it is down are lost.
	down bool
	// rxHooks mirrors the receiving port's tap and loss hook (rxTapped,
	// rxLossy; Port.syncRx), which every arrival asks about.
	rxHooks uint8
	_       [5]byte
	// node is the receiving port's node.
	node Node
	from *Port
	link *Link
	_    [32]byte
}

// The receiving port's hooks an arrival asks about (linkDir.rxHooks).
const (
	rxTapped uint8 = 1 << iota // the port has a tap
	rxLossy                    // the port has a loss hook
)

// linkArrival is a link direction as the handler of its frames' arrivals
// at its receiving port.
type linkArrival linkDir

// Handle takes the frame at the head of the wire, which has arrived: it
// may be lost, is tapped, and is then a PFC frame for the port or a frame
// for its node.
func (a *linkArrival) Handle(now unit.Time, _ uint64) {
	d := (*linkDir)(a)
	p := d.wire.Pop()
	pt := d.to
	if (d.down || d.rxHooks&rxLossy != 0) && pt.lost(now, p) {
		return
	}
	if d.rxHooks&rxTapped != 0 {
		pt.tap.Frame(now, pt, Rx, p)
	}
	if p.Kind == packet.Pause {
		pt.receivePause(now, p)
		return
	}
	d.node.Receive(p, pt)
}

// Link joins a and b with a full-duplex link at rate over a cable of the
// given length (propagation delay 5 ns/m).
func (n *Network) Link(a, b *Port, rate unit.BitRate, cable unit.Length) *Link {
	l := &Link{id: len(n.Links), rate: rate, cable: cable, delay: cable.Delay()}
	for i, e := range [2][2]*Port{{a, b}, {b, a}} {
		from, to := e[0], e[1]
		l.dir[i] = linkDir{link: l, from: from, to: to, node: to.node, key: sim.NodeKey(to.key.Node(), sim.SrcPort(from.id)), cut: from.dom != to.dom}
		from.tx, to.rx = &l.dir[i], &l.dir[i]
		to.syncRx()
		from.setRate(rate)
		from.cable, from.delay = cable, l.delay
		from.response = PeerResponseTime(rate)
		from.peer = to
	}
	n.Links = append(n.Links, l)
	return l
}

// ID returns the link's index in the network.
func (l *Link) ID() int { return l.id }

// Ends returns the link's two ports.
func (l *Link) Ends() (a, b *Port) { return l.dir[0].from, l.dir[0].to }

// Cut reports whether the link joins two domains.
func (l *Link) Cut() bool { return l.dir[0].cut }

// Lookahead is how far ahead of its sender a frame on the link can take
// effect at the receiver: the propagation delay plus the serialisation of
// the smallest frame. Domains joined by the link may run that far apart.
func (l *Link) Lookahead() unit.Time {
	return l.delay + min(l.dir[0].from.rate, l.dir[1].from.rate).TxTime(packet.MinFrame+packet.PreambleIFG)
}

// ScheduleState takes the link down (up false) or back up at t: each end
// sees the change at t, in its own domain, and a link coming up has both
// ends look for something to send.
func (l *Link) ScheduleState(t unit.Time, up bool) {
	tag := tagLinkDown
	if up {
		tag = tagLinkUp
	}
	for i := range l.dir {
		to := l.dir[i].to
		to.dom.Sched.Send(t, sim.NodeKey(to.key.Node(), sim.SrcControl), to, tag)
	}
}

// send puts p on the wire toward the receiver, arriving at t; dom is the
// sender's domain.
func (d *linkDir) send(dom *Domain, p *packet.Packet, t unit.Time) {
	if d.cut {
		dom.post(d, p, t)
		return
	}
	d.wire.Push(p)
	// Both ends lie in the sender's domain: its scheduler is at hand.
	dom.Sched.SendHint(t, d.key, (*linkArrival)(d), tagArrive, uintptr(unsafe.Pointer(p)))
}
