package fabric

import (
	"fmt"
	"strconv"

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

func (c *Count) merge(o Count) {
	c.Packets += o.Packets
	c.Bytes += o.Bytes
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

// merge adds o to t.
func (t *Totals) merge(o *Totals) {
	for _, c := range []struct{ a, b *Count }{
		{&t.Sent, &o.Sent}, {&t.Retransmitted, &o.Retransmitted}, {&t.Delivered, &o.Delivered},
		{&t.Discarded, &o.Discarded}, {&t.Dropped, &o.Dropped}, {&t.RoCESent, &o.RoCESent}, {&t.RoCEDropped, &o.RoCEDropped},
	} {
		c.a.merge(*c.b)
	}
	for k := range t.Frames {
		t.Frames[k] += o.Frames[k]
		t.DroppedByKind[k] += o.DroppedByKind[k]
	}
	for r := range t.DropsByReason {
		t.DropsByReason[r] += o.DropsByReason[r]
	}
	t.PauseFrames += o.PauseFrames
	t.ECNMarked += o.ECNMarked
}

// Network holds every node, port and link of one twin run, split into
// domains: each domain has its own scheduler, packet pool, totals,
// latency histogram and sampler, and its nodes write only to it, so
// domains can run side by side (see Domain). The network's own methods
// merge the domains' figures exactly. It knows nothing of flows, queue
// pairs or workloads: hosts report what they send and receive through
// their domain's SentData, Delivered, Discarded and Drop.
type Network struct {
	// Streams splits the run's seed into named random streams.
	Streams *sim.Streams

	Domains  []*Domain
	Ports    []*Port
	Switches []*Switch
	Hosts    []Endpoint
	Links    []*Link
	// PFCEnabled is the set of priorities PFC is enabled on, which the
	// counters list pause statistics for.
	PFCEnabled uint8

	nodes uint32 // node ids issued; node 0 is the control side
	// classifiers are the switches' distinct classifiers, each shared by
	// the switches that classify alike.
	classifiers []*Classifier

	// ports, egresses and switches are where the network's ports,
	// switch egresses and switches are allocated, each starting on a
	// cache line.
	ports    lineSlab[Port]
	egresses lineSlab[switchEgress]
	switches lineSlab[Switch]
}

// NewNetwork returns an empty network of domains domains (at least one),
// each on a fresh scheduler.
func NewNetwork(seed uint64, domains int) *Network {
	n := &Network{Streams: sim.NewStreams(seed)}
	for i := 0; i < max(domains, 1); i++ {
		n.Domains = append(n.Domains, &Domain{ID: i, net: n, Sched: sim.NewScheduler(), Latency: metrics.NewLatency()})
	}
	for _, d := range n.Domains {
		d.out = make([][]frameMsg, len(n.Domains))
		d.in = make([]sim.Box[frameMsg], len(n.Domains))
	}
	return n
}

// classifier returns the network's classifier equal to c, made at the
// first switch that asks for it: the switches of a fabric read one table.
func (n *Network) classifier(c Classifier) *Classifier {
	for _, k := range n.classifiers {
		if *k == c {
			return k
		}
	}
	k := &c
	n.classifiers = append(n.classifiers, k)
	return k
}

// NewNodeID issues the id of a new node, which orders its equal-time
// events (sim.Key). Ids start at 1: 0 is the control side.
func (n *Network) NewNodeID() uint32 {
	n.nodes++
	return n.nodes
}

// NewPort creates a port of node, whose id is nodeID, in domain d. It is
// attached to a link by Link.
func (n *Network) NewPort(d *Domain, node Node, nodeID uint32, index int) *Port {
	pt := &n.ports.take(1)[0]
	n.initPort(pt, d, node, nodeID, index)
	return pt
}

// initPort sets up pt as NewPort's port.
func (n *Network) initPort(pt *Port, d *Domain, node Node, nodeID uint32, index int) {
	*pt = Port{dom: d, node: node, index: int16(index), id: len(n.Ports), key: sim.NodeKey(nodeID, sim.SrcSelf)}
	pt.name = node.Name() + "/p" + strconv.Itoa(index)
	n.Ports = append(n.Ports, pt)
}

// AddHost registers an endpoint; its HostID must equal its index.
func (n *Network) AddHost(e Endpoint) error {
	if int(e.HostID()) != len(n.Hosts) {
		return fmt.Errorf("fabric: host %s has id %d, want %d", e.Name(), e.HostID(), len(n.Hosts))
	}
	n.Hosts = append(n.Hosts, e)
	return nil
}

// Totals returns the network-wide totals: the sum of every domain's.
func (n *Network) Totals() Totals {
	var t Totals
	for _, d := range n.Domains {
		t.merge(&d.Totals)
	}
	return t
}

// Latency returns the one-way latency of delivered data packets, by the
// priority the receiving host classified them on and by class, merged
// over the domains into a new histogram.
func (n *Network) Latency() *metrics.Latency {
	if len(n.Domains) == 1 {
		return n.Domains[0].Latency
	}
	l := metrics.NewLatency()
	for _, d := range n.Domains {
		l.Merge(d.Latency)
	}
	return l
}

// Now returns the simulated time the network has reached: every domain's
// clock, which the run keeps equal between windows.
func (n *Network) Now() unit.Time { return n.Domains[0].Sched.Now() }

// Executed returns the events the domains have run, their samples
// counted once: every domain samples at the same times, so that figure
// does not depend on the partitioning.
func (n *Network) Executed() uint64 {
	var e uint64
	for _, d := range n.Domains {
		e += d.Sched.Executed() - d.sampler.events
	}
	return e + n.Domains[0].sampler.events
}

// PacketsAllocated returns how many packets the domains' pools have ever
// allocated.
func (n *Network) PacketsAllocated() int {
	a := 0
	for _, d := range n.Domains {
		a += d.Pool.Allocated()
	}
	return a
}

// PacketsLive returns how many packets the domains' pools have handed out
// and not had back.
func (n *Network) PacketsLive() int {
	l := 0
	for _, d := range n.Domains {
		l += d.Pool.Live()
	}
	return l
}

// InFlight walks every queue and link and returns the payload bytes and
// packets of data packets still in the network, hosts' receive buffers
// and frames between domains included. It is independent of the running
// totals, so that conservation can be checked against it.
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
	for _, d := range n.Domains {
		for i := range d.in {
			for _, msgs := range [][]frameMsg{d.out[i], d.in[i].Pending()} {
				for j := range msgs {
					count(&msgs[j].pkt)
				}
			}
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
