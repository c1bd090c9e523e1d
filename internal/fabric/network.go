package fabric

import (
	"fmt"

	"rocelab/internal/metrics"
	"rocelab/internal/packet"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
)

// A Flow is a transfer of Bytes from host Src to host Dst. It is the unit
// of traffic the fabric accounts: its packets carry its index.
type Flow struct {
	ID       int32
	Src, Dst int32
	Bytes    int64
	// Start is when the flow starts, or, for a flow with dependencies, how
	// long after the last of them completes.
	Start unit.Time
	// After lists flows that must complete before this one starts.
	After []int32
	// DSCP is the IP DSCP the sender marks; Prio the priority the sending
	// NIC queues and pauses it on.
	DSCP, Prio uint8
	// Rate caps the sender's rate; zero means line rate.
	Rate unit.BitRate
	// SrcPort is the UDP source port (ECMP entropy); DstQP the queue pair.
	SrcPort uint16
	DstQP   uint32

	// Progress.
	Started, Done         bool
	StartedAt, FinishedAt unit.Time
	Sent, Delivered       int64 // payload bytes
	Dropped               int64 // payload bytes
	SentPkts, DelivPkts   int64
	DroppedPkts           int64
	// LastDelivery is when the flow's last delivered packet arrived.
	LastDelivery unit.Time
	waiting      int32 // dependencies not yet complete
	dependents   []int32
}

// FCT returns the flow completion time, or false if it did not complete.
func (f *Flow) FCT() (unit.Time, bool) {
	if !f.Done {
		return 0, false
	}
	return f.FinishedAt - f.StartedAt, true
}

// Totals are network-wide sums. Byte figures are RDMA payload bytes, so
// that BytesSent = BytesDelivered + BytesDropped + bytes in flight holds
// exactly.
type Totals struct {
	BytesSent, BytesDelivered, BytesDropped       int64
	PacketsSent, PacketsDelivered, PacketsDropped int64
	DropsByReason                                 [numDropReasons]int64
	// LosslessPacketsDropped counts drops on PFC-enabled priorities.
	LosslessPacketsDropped int64
	PauseFrames            int64
	ECNMarked              int64
}

// Network holds every node, port and flow of one twin run.
type Network struct {
	// Sched is the run's event scheduler.
	Sched *sim.Scheduler
	// Pool recycles packets.
	Pool packet.Pool
	// Streams splits the run's seed into named random streams.
	Streams *sim.Streams

	Ports    []*Port
	Switches []*Switch
	Hosts    []Endpoint
	Flows    []Flow
	Totals   Totals
	// Latency holds one-way latency of delivered data packets.
	Latency *metrics.Latency
	// Lossless is the set of priorities that should be lossless (bit p =
	// priority p), for the loss accounting of the health targets.
	Lossless uint8
	// PFCEnabled is the set of priorities PFC is enabled on, which the
	// counters list pause statistics for.
	PFCEnabled uint8

	flowsLeft int
	lastDone  unit.Time
	sampler   sampler
}

// Event tags the network serves.
const (
	tagFlowStart uint64 = iota
	tagSample
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
	pt := &Port{net: n, node: node, index: index, id: len(n.Ports)}
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
func (n *Network) AddHost(e Endpoint) {
	if int(e.HostID()) != len(n.Hosts) {
		panic(fmt.Sprintf("fabric: host %s has id %d, want %d", e.Name(), e.HostID(), len(n.Hosts)))
	}
	n.Hosts = append(n.Hosts, e)
}

// AddFlow registers a flow and schedules its start. Flows must be added in
// ID order, and dependencies must name flows added before.
func (n *Network) AddFlow(f Flow) error {
	f.ID = int32(len(n.Flows))
	if f.Src < 0 || int(f.Src) >= len(n.Hosts) || f.Dst < 0 || int(f.Dst) >= len(n.Hosts) {
		return fmt.Errorf("flow %d: host out of range", f.ID)
	}
	for _, d := range f.After {
		if d < 0 || d >= f.ID {
			return fmt.Errorf("flow %d: dependency %d is not an earlier flow", f.ID, d)
		}
		n.Flows[d].dependents = append(n.Flows[d].dependents, f.ID)
	}
	f.waiting = int32(len(f.After))
	n.Flows = append(n.Flows, f)
	n.flowsLeft++
	if f.waiting == 0 {
		n.Sched.At(f.Start, n, tagFlowStart|uint64(f.ID)<<8)
	}
	return nil
}

// Handle serves the network's events.
func (n *Network) Handle(now unit.Time, tag uint64) {
	switch tag & 0xff {
	case tagFlowStart:
		f := &n.Flows[tag>>8]
		f.Started, f.StartedAt = true, now
		n.Hosts[f.Src].StartFlow(f)
	case tagSample:
		n.sampler.sample(n, now)
	}
}

// Sent books a data packet the sending NIC put on the wire.
func (n *Network) Sent(p *packet.Packet) {
	f := &n.Flows[p.Flow]
	f.Sent += int64(p.Payload)
	f.SentPkts++
	n.Totals.BytesSent += int64(p.Payload)
	n.Totals.PacketsSent++
}

// Delivered books a data packet that reached its destination NIC and frees
// it.
func (n *Network) Delivered(p *packet.Packet) {
	now := n.Sched.Now()
	f := &n.Flows[p.Flow]
	f.Delivered += int64(p.Payload)
	f.DelivPkts++
	f.LastDelivery = now
	n.Totals.BytesDelivered += int64(p.Payload)
	n.Totals.PacketsDelivered++
	n.Latency.Record(p.Prio, now-p.SentAt)
	n.Pool.Put(p)
	if f.Delivered == f.Bytes && !f.Done {
		n.complete(f, now)
	}
}

// complete marks f done and starts the flows waiting on it.
func (n *Network) complete(f *Flow, now unit.Time) {
	f.Done, f.FinishedAt = true, now
	n.lastDone = now
	for _, d := range f.dependents {
		g := &n.Flows[d]
		g.waiting--
		if g.waiting == 0 {
			n.Sched.At(now+g.Start, n, tagFlowStart|uint64(d)<<8)
		}
	}
	n.flowsLeft--
	if n.flowsLeft == 0 {
		n.Sched.Stop()
	}
}

// Drop books a packet a switch discarded and frees it.
func (n *Network) Drop(p *packet.Packet, reason DropReason, at *Port) {
	at.Counters.Drops[reason]++
	n.Totals.DropsByReason[reason]++
	n.Totals.PacketsDropped++
	if n.Lossless&(1<<p.Prio) != 0 {
		n.Totals.LosslessPacketsDropped++
	}
	if p.Flow >= 0 {
		f := &n.Flows[p.Flow]
		f.Dropped += int64(p.Payload)
		f.DroppedPkts++
		n.Totals.BytesDropped += int64(p.Payload)
	}
	n.Pool.Put(p)
}

// AllDone reports whether every flow has completed.
func (n *Network) AllDone() bool { return n.flowsLeft == 0 }

// LastCompletion returns when the last flow completed so far.
func (n *Network) LastCompletion() unit.Time { return n.lastDone }

// Run runs the network until every flow completes or until the limit,
// whichever is first, and books the counters of pauses still in effect.
// It returns the simulated time reached.
func (n *Network) Run(limit unit.Time) unit.Time {
	if n.flowsLeft > 0 {
		n.Sched.RunUntil(limit)
	}
	now := n.Sched.Now()
	for _, pt := range n.Ports {
		pt.finish(now)
	}
	return now
}

// InFlight walks every queue and link and returns the payload bytes and
// packets of data packets still in the network. It is independent of the
// running totals, so that conservation can be checked against it.
func (n *Network) InFlight() (bytes, pkts int64) {
	count := func(p *packet.Packet) {
		if p.Kind == packet.Data {
			bytes += int64(p.Payload)
			pkts++
		}
	}
	for _, pt := range n.Ports {
		pt.InFlight(count)
	}
	for _, s := range n.Switches {
		s.eachQueued(count)
	}
	return bytes, pkts
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
