package fabric

import (
	"fmt"

	"rocelab/internal/metrics"
	"rocelab/internal/packet"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
)

// Count is a number of packets and the payload bytes they carry.
type Count struct {
	Packets, Bytes int64
}

func (c *Count) add(p *packet.Packet) {
	c.Packets++
	c.Bytes += int64(p.Payload)
}

// Totals are network-wide sums, counted by kind. For data packets the
// byte figures are payload bytes, and conservation holds exactly:
//
//	Sent + Retransmitted = Delivered + Dropped + Discarded + in flight
//
// where Discarded are data packets that reached their responder but were
// not accepted (out of sequence after a loss, or duplicates).
type Totals struct {
	// Data packets by fate.
	Sent, Retransmitted, Delivered, Discarded, Dropped Count
	// RoCESent and RoCEDropped are the data packets (first transmissions
	// and retransmissions) of class RoCE sent and dropped, for the loss
	// target.
	RoCESent, RoCEDropped Count
	// Frames counts frames put on the wire by hosts and switches' PFC, by
	// kind; DroppedByKind the frames dropped, by kind.
	Frames, DroppedByKind [packet.NumKinds]int64
	// DropsByReason counts dropped frames of every kind by reason.
	DropsByReason [NumDropReasons]int64
	PauseFrames   int64
	ECNMarked     int64
}

// Network holds every node and port of one twin run and the totals they
// book. It knows nothing of flows, queue pairs or workloads: hosts report
// what they send and receive through SentData, Delivered, Discarded and
// Drop.
type Network struct {
	// Sched is the run's event scheduler.
	Sched *sim.Scheduler
	// Pool recycles packets.
	Pool packet.Pool
	// INTs holds the in-band telemetry of packets that carry it.
	INTs packet.INTPool
	// Streams splits the run's seed into named random streams.
	Streams *sim.Streams

	Ports    []*Port
	Switches []*Switch
	Hosts    []Endpoint
	Totals   Totals
	// Latency holds the one-way latency of delivered data packets, by the
	// priority the receiving host classified them on and by class.
	Latency *metrics.Latency
	// PFCEnabled is the set of priorities PFC is enabled on, which the
	// counters list pause statistics for.
	PFCEnabled uint8

	sampler sampler
}

// Event tags the network serves.
const (
	tagSample uint64 = iota
)

// NewNetwork returns an empty network on a fresh scheduler.
func NewNetwork(seed uint64) *Network {
	return &Network{
		Sched:   sim.NewScheduler(),
		Streams: sim.NewStreams(seed),
		Latency: metrics.NewLatency(),
	}
}

// NewPort creates a port owned by node. It is attached to a link by Link.
func (n *Network) NewPort(node Node, index int) *Port {
	pt := &Port{net: n, node: node, index: index, id: len(n.Ports), up: true}
	pt.name = fmt.Sprintf("%s/p%d", node.Name(), index)
	n.Ports = append(n.Ports, pt)
	return pt
}

// Link joins a and b with a full-duplex link at rate over a cable of the
// given length (propagation delay 5 ns/m).
func (n *Network) Link(a, b *Port, rate unit.BitRate, cable unit.Length) {
	for _, pt := range []*Port{a, b} {
		pt.rate = rate
		pt.cable = cable
		pt.delay = cable.Delay()
		pt.response = PeerResponseTime(rate)
	}
	a.peer, b.peer = b, a
}

// AddHost registers an endpoint; its HostID must equal its index.
func (n *Network) AddHost(e Endpoint) error {
	if int(e.HostID()) != len(n.Hosts) {
		return fmt.Errorf("fabric: host %s has id %d, want %d", e.Name(), e.HostID(), len(n.Hosts))
	}
	n.Hosts = append(n.Hosts, e)
	return nil
}

// Handle serves the network's events.
func (n *Network) Handle(now unit.Time, tag uint64) {
	if tag == tagSample {
		n.sampler.sample(n, now)
	}
}

// SentData books a data packet a host put on the wire; retx says it is a
// retransmission of a PSN sent before.
func (n *Network) SentData(p *packet.Packet, retx bool) {
	n.Totals.Frames[packet.Data]++
	if retx {
		n.Totals.Retransmitted.add(p)
	} else {
		n.Totals.Sent.add(p)
	}
	if p.Class == packet.ClassRoCE {
		n.Totals.RoCESent.add(p)
	}
}

// SentControl books a control frame (ACK, NAK, CNP) a host put on the
// wire.
func (n *Network) SentControl(p *packet.Packet) {
	n.Totals.Frames[p.Kind]++
}

// Delivered books a data packet its responder accepted in order, and its
// one-way latency. The caller keeps the packet.
func (n *Network) Delivered(p *packet.Packet) {
	n.Totals.Delivered.add(p)
	n.Latency.Record(p.Class, p.Prio, n.Sched.Now()-p.SentAt)
}

// Discarded books a data packet its responder received and did not accept
// (out of sequence, or a duplicate). The caller keeps the packet.
func (n *Network) Discarded(p *packet.Packet) {
	n.Totals.Discarded.add(p)
}

// Drop books a frame discarded at port at (a switch's ingress or egress,
// a link, or a host's receive buffer) and frees it.
func (n *Network) Drop(p *packet.Packet, reason DropReason, at *Port) {
	at.Counters.Drops[reason]++
	n.Totals.DropsByReason[reason]++
	n.Totals.DroppedByKind[p.Kind]++
	if p.Kind == packet.Data {
		n.Totals.Dropped.add(p)
		if p.Class == packet.ClassRoCE {
			n.Totals.RoCEDropped.add(p)
		}
	}
	n.Free(p)
}

// Free returns a packet a node has consumed to the pool, with its
// telemetry record.
func (n *Network) Free(p *packet.Packet) {
	if p.INT != nil {
		n.INTs.Put(p.INT)
	}
	n.Pool.Put(p)
}

// InFlight walks every queue and link and returns the payload bytes and
// packets of data packets still in the network, hosts' receive buffers
// included. It is independent of the running totals, so that conservation
// can be checked against it.
func (n *Network) InFlight() Count {
	var c Count
	count := func(p *packet.Packet) {
		if p.Kind == packet.Data {
			c.add(p)
		}
	}
	for _, pt := range n.Ports {
		pt.InFlight(count)
	}
	for _, s := range n.Switches {
		s.EachQueued(count)
	}
	for _, h := range n.Hosts {
		if b, ok := h.(Buffered); ok {
			b.EachBuffered(count)
		}
	}
	return c
}

// A Buffered endpoint holds received packets before it processes them (a
// NIC receive buffer draining at the host's speed).
type Buffered interface {
	EachBuffered(f func(p *packet.Packet))
}

// PeerResponseTime is the IEEE 802.3 Annex 31B.3.7 upper bound on how long
// a port may keep sending after a pause frame arrives, in pause quanta per
// speed (905 at 400G and 800G, 453 at 200G, 394 at 100G, 147 at 50G, 118
// at 40G, 80 at 25G, 67 at 10G), as SONiC's headroom calculation uses it.
func PeerResponseTime(rate unit.BitRate) unit.Time {
	return rate.TxTime(unit.Bytes(PeerResponseQuanta(rate)) * 64)
}

// PeerResponseQuanta returns the IEEE response budget in quanta for the
// nearest standard speed at or above rate.
func PeerResponseQuanta(rate unit.BitRate) int {
	switch g := rate / unit.Gbps; {
	case g > 200:
		return 905
	case g > 100:
		return 453
	case g > 50:
		return 394
	case g > 40:
		return 147
	case g > 25:
		return 118
	case g > 10:
		return 80
	default:
		return 67
	}
}
