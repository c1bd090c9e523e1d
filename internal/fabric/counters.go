package fabric

import (
	"math/bits"

	"rocelab/internal/counters"
	"rocelab/internal/packet"
	"rocelab/internal/unit"
)

// DropReason says why a switch dropped a packet.
type DropReason uint8

// Drop reasons.
const (
	// DropLossyOverflow: a lossy-class packet found no room in the shared
	// buffer under its dynamic threshold.
	DropLossyOverflow DropReason = iota
	// DropHeadroomOverflow: a lossless-class packet arrived after XOFF and
	// found its priority group's headroom full — the headroom is too small
	// for the cable, MTU and peer response time.
	DropHeadroomOverflow
	// DropWatchdog: the PFC watchdog declared a pause storm and drops the
	// queue's packets.
	DropWatchdog
	// DropNoRoute: a switch had no route to the destination (a link
	// failure the topology cannot route around).
	DropNoRoute
	// DropLinkDown: the frame was on, or sent onto, a link that is down.
	DropLinkDown
	// DropLinkLoss: the link lost the frame (an injected loss fault: bit
	// errors, a bad optic).
	DropLinkLoss
	// DropHostOverflow: a host NIC's receive buffer was full (the host
	// drains slower than the link delivers and PFC did not hold it).
	DropHostOverflow
	// DropTTL: the packet's IP TTL ran out (a routing loop).
	DropTTL
	// NumDropReasons is the number of drop reasons.
	NumDropReasons
)

// String returns the reason's stable name.
func (r DropReason) String() string {
	switch r {
	case DropLossyOverflow:
		return "lossy_overflow"
	case DropHeadroomOverflow:
		return "headroom_overflow"
	case DropWatchdog:
		return "pfc_watchdog"
	case DropNoRoute:
		return "no_route"
	case DropLinkDown:
		return "link_down"
	case DropLinkLoss:
		return "link_loss"
	case DropHostOverflow:
		return "host_overflow"
	case DropTTL:
		return "ttl_expired"
	}
	return "drop?"
}

// DropReasons lists every drop reason in order.
func DropReasons() []DropReason {
	out := make([]DropReason, NumDropReasons)
	for i := range out {
		out[i] = DropReason(i)
	}
	return out
}

// Counters are one port's counters, kept as mlx5 ethtool -S keeps them:
// per-priority bytes and packets (frame bytes, FCS included, preamble and
// IFG excluded), PFC frames and pause durations, and discards. A switch
// port adds ECN marks and drops by reason.
type Counters struct {
	TxPhyPackets, TxPhyBytes int64
	RxPhyPackets, RxPhyBytes int64
	TxPrioPackets            [8]int64
	TxPrioBytes              [8]int64
	RxPrioPackets            [8]int64
	RxPrioBytes              [8]int64
	// TxPause and RxPause count PFC frames (XON included) per priority.
	TxPause, RxPause [8]int64
	// TxPauseDuration is how long the port held each priority off at its
	// peer; RxPauseDuration how long received pauses held the port's own
	// transmission of each priority.
	TxPauseDuration, RxPauseDuration [8]unit.Time
	// RxPauseTransition counts pause episodes begun (pause off → on).
	RxPauseTransition [8]int64
	// RxDiscards counts packets dropped at ingress for lack of buffer
	// (rx_discards_phy), RxPrioDiscards the same per priority.
	RxDiscards     int64
	RxPrioDiscards [8]int64
	// LinkDownEvents counts the times the port's link went down.
	LinkDownEvents int64
	// Drops counts packets dropped at this port, by reason: ingress
	// admission drops on the port they arrived on, watchdog drops on the
	// stormed egress port.
	Drops [NumDropReasons]int64
	// ECNMarked counts packets marked CE on this port's egress queues.
	ECNMarked [8]int64
	// WatchdogStorms and WatchdogRestores count PFC watchdog actions.
	WatchdogStorms, WatchdogRestores [8]int64
	// Vport counts a host port's frames by transport as mlx5's vport
	// counters do: RDMA (RoCE data, ACKs, CNPs) apart from the other
	// Ethernet traffic (TCP); PFC frames are in neither.
	Vport [packet.NumClasses]VportCount
}

// VportCount is one transport's frames and bytes in each direction.
type VportCount struct {
	TxPackets, TxBytes, RxPackets, RxBytes int64
}

// countTx books a frame the port sends, unless its egress booked it (a
// switch port's data frames, whose counts lie in the egress class's line).
func (pt *Port) countTx(p *packet.Packet) {
	if p.Kind == packet.Pause {
		pt.ctr.TxPhyPackets++
		pt.ctr.TxPhyBytes += int64(p.Frame)
		return
	}
	if pt.hooks&hookEgressBooks == 0 {
		pt.txCount(p).add(p.Frame)
	}
}

// txCount returns the port's own count a sent frame of p's priority and
// class books to.
func (pt *Port) txCount(p *packet.Packet) *traffic {
	return &pt.txc[p.Prio&7][p.Class%packet.NumClasses]
}

// CountRx books a received frame on its priority. Nodes call it after
// classifying the frame (PFC frames never reach them).
func (pt *Port) CountRx(p *packet.Packet) { pt.rxCount(p).add(p.Frame) }

// rxCount returns the count a received frame of p's priority and class
// books to.
func (pt *Port) rxCount(p *packet.Packet) *traffic {
	return &pt.rxPrio[p.Prio&7].c[p.Class%packet.NumClasses]
}

// CountRxDiscard books a frame of priority prio dropped on arrival for
// lack of buffer (rx_discards_phy).
func (pt *Port) CountRxDiscard(prio uint8) {
	pt.ctr.RxDiscards++
	pt.ctr.RxPrioDiscards[prio&7]++
}

// TxBytes returns the frame bytes the port has sent.
func (pt *Port) TxBytes() int64 {
	b := pt.ctr.TxPhyBytes
	for p := range pt.txc {
		for cl := range pt.txc[p] {
			b += pt.sentCount(p, packet.Class(cl)).bytes
		}
	}
	return b
}

// sentCount returns the frames of priority prio and class cl the port
// has sent: its own count, and at a switch port the RoCE frames its
// egress booked.
func (pt *Port) sentCount(prio int, cl packet.Class) traffic {
	t := pt.txc[prio][cl]
	if pt.hooks&hookEgressBooks != 0 && cl == packet.ClassRoCE {
		s := pt.egress.(*switchEgress).cls[prio].sent
		t.pkts += s.pkts
		t.bytes += s.bytes
	}
	return t
}

// A Counter is one named value, as ethtool -S prints it.
type Counter = counters.Sample

// EthtoolNames are the names Ethtool gives, looked up in the counters
// table once: an observation names the counters of every port of the
// fabric, and the lookups cost more than the rest of it. An observer
// makes them with NewEthtoolNames and passes them to each port's Ethtool.
type EthtoolNames struct {
	phy   [5]string    // rx packets, rx bytes, tx packets, tx bytes, rx discards
	crc   string       // frames received with a bad FCS
	down  string       // link down events
	prio  [8][5]string // rx bytes, rx packets, rx discards, tx bytes, tx packets
	pause [8][5]string // rx frames, rx duration, tx frames, tx duration, rx transitions
	vport [6]string    // vport rx/tx packets, RDMA rx packets/bytes, tx packets/bytes
	ecn   [8]string
	drops [NumDropReasons]string
	wd    [8][2]string // storms, restores
}

// NewEthtoolNames looks up the names Ethtool gives.
func NewEthtoolNames() *EthtoolNames {
	t := counters.Default()
	name := func(cn counters.Concept, d counters.Dir, prio int) string {
		return t.Name(counters.MLX5, counters.Ethtool, cn, d, prio)
	}
	sw := func(cn counters.Concept, prio int) string {
		return t.Name(counters.Twin, counters.SwitchPort, cn, counters.NoDir, prio)
	}
	n := &EthtoolNames{
		crc:  name(counters.PhyCRCErrors, counters.RX, 0),
		down: name(counters.PhyLinkDown, counters.RX, 0),
		phy: [5]string{name(counters.PhyPackets, counters.RX, 0), name(counters.PhyBytes, counters.RX, 0),
			name(counters.PhyPackets, counters.TX, 0), name(counters.PhyBytes, counters.TX, 0),
			name(counters.PhyDiscards, counters.RX, 0)},
		vport: [6]string{name(counters.VportUnicastPackets, counters.RX, 0), name(counters.VportUnicastPackets, counters.TX, 0),
			name(counters.RDMAUnicastPackets, counters.RX, 0), name(counters.RDMAUnicastBytes, counters.RX, 0),
			name(counters.RDMAUnicastPackets, counters.TX, 0), name(counters.RDMAUnicastBytes, counters.TX, 0)},
	}
	for p := 0; p < 8; p++ {
		n.prio[p] = [5]string{name(counters.PrioBytes, counters.RX, p), name(counters.PrioPackets, counters.RX, p),
			name(counters.PrioDiscards, counters.RX, p), name(counters.PrioBytes, counters.TX, p),
			name(counters.PrioPackets, counters.TX, p)}
		n.pause[p] = [5]string{name(counters.PauseFrames, counters.RX, p), name(counters.PauseDuration, counters.RX, p),
			name(counters.PauseFrames, counters.TX, p), name(counters.PauseDuration, counters.TX, p),
			name(counters.PauseTransition, counters.RX, p)}
		n.ecn[p] = sw(counters.ECNMarkedPrio, p)
		n.wd[p] = [2]string{sw(counters.WDStorms, p), sw(counters.WDRestores, p)}
	}
	for _, r := range DropReasons() {
		n.drops[r] = "drop_" + r.String()
	}
	return n
}

// Ethtool returns the counters under their mlx5 ethtool -S names (n,
// from the counters table), in a fixed order. As mlx5 does, it lists the PFC
// counters (pause frames, durations, transitions) only for the priorities
// in pfc, the ones with PFC enabled. Pause durations are in microseconds,
// as mlx5 reports them. rx_crc_errors_phy follows the phy counters on a
// port that received frames a loss fault corrupted, link_down_events_phy
// on a port whose link went down. A host port (withSwitch unset) adds the vport
// counters, RDMA apart from other Ethernet traffic. Switch-only counters (ECN marks, drops by reason,
// watchdog) follow when withSwitch is set.
func (c *Counters) Ethtool(n *EthtoolNames, pfc uint8, withSwitch bool) []Counter {
	size := len(n.phy) + 8*len(n.prio[0]) + bits.OnesCount8(pfc)*len(n.pause[0])
	if withSwitch {
		size += len(n.ecn) + len(n.drops) + 8*len(n.wd[0])
	} else {
		size += len(n.vport)
	}
	out := make([]Counter, 0, size)
	out = append(out,
		Counter{Name: n.phy[0], Value: c.RxPhyPackets}, Counter{Name: n.phy[1], Value: c.RxPhyBytes},
		Counter{Name: n.phy[2], Value: c.TxPhyPackets}, Counter{Name: n.phy[3], Value: c.TxPhyBytes},
		Counter{Name: n.phy[4], Value: c.RxDiscards})
	// A frame a loss fault takes arrives corrupted: the receiver counts it
	// a bad FCS, where an engineer looks for a dirty optic. Listed only when
	// it moved, so a run without loss reads as before.
	if x := c.Drops[DropLinkLoss]; x > 0 {
		out = append(out, Counter{Name: n.crc, Value: x})
	}
	if c.LinkDownEvents > 0 {
		out = append(out, Counter{Name: n.down, Value: c.LinkDownEvents})
	}
	us := func(t unit.Time) int64 { return int64(t / unit.Microsecond) }
	for p := 0; p < 8; p++ {
		pn := &n.prio[p]
		out = append(out,
			Counter{Name: pn[0], Value: c.RxPrioBytes[p]}, Counter{Name: pn[1], Value: c.RxPrioPackets[p]}, Counter{Name: pn[2], Value: c.RxPrioDiscards[p]},
			Counter{Name: pn[3], Value: c.TxPrioBytes[p]}, Counter{Name: pn[4], Value: c.TxPrioPackets[p]})
		if pfc&(1<<p) == 0 {
			continue
		}
		pa := &n.pause[p]
		out = append(out,
			Counter{Name: pa[0], Value: c.RxPause[p]}, Counter{Name: pa[1], Value: us(c.RxPauseDuration[p])},
			Counter{Name: pa[2], Value: c.TxPause[p]}, Counter{Name: pa[3], Value: us(c.TxPauseDuration[p])},
			Counter{Name: pa[4], Value: c.RxPauseTransition[p]})
	}
	if !withSwitch {
		e, r := c.Vport[packet.ClassTCP], c.Vport[packet.ClassRoCE]
		return append(out,
			Counter{Name: n.vport[0], Value: e.RxPackets}, Counter{Name: n.vport[1], Value: e.TxPackets},
			Counter{Name: n.vport[2], Value: r.RxPackets}, Counter{Name: n.vport[3], Value: r.RxBytes},
			Counter{Name: n.vport[4], Value: r.TxPackets}, Counter{Name: n.vport[5], Value: r.TxBytes})
	}
	for p := 0; p < 8; p++ {
		out = append(out, Counter{Name: n.ecn[p], Value: c.ECNMarked[p]})
	}
	for r := range n.drops {
		out = append(out, Counter{Name: n.drops[r], Value: c.Drops[r]})
	}
	for p := 0; p < 8; p++ {
		out = append(out, Counter{Name: n.wd[p][0], Value: c.WatchdogStorms[p]}, Counter{Name: n.wd[p][1], Value: c.WatchdogRestores[p]})
	}
	return out
}
