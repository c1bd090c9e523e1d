package scenario

import (
	"fmt"
	"sort"

	"rocelab/internal/fabric"
	"rocelab/internal/fluid"
	"rocelab/internal/nic"
	"rocelab/internal/packet"
	"rocelab/internal/topo"
	"rocelab/internal/twin"
	"rocelab/internal/workload"
)

var _ twin.Engine = (*FluidTwin)(nil)

// fluidNotModelled is what the fluid engine leaves out (docs/fluid.md).
var fluidNotModelled = []string{
	"per-packet latency and queueing delay: latencies are estimated per message from the path and the standing queues",
	"PFC's per-ingress-port sharing, head-of-line blocking and victim flows: rates are max-min fair per flow; pause time is estimated",
	"DCQCN's rate dynamics and their transients: flows take their fair share at once; ECN marks and CNPs come from DCQCN's fixed point",
	"drops from buffer overflow on lossy classes, and TCP's loss recovery",
	"the bandwidth of CNPs (their frames are counted)",
	"sampled queue depths and per-QP DCQCN rates over time (the peak standing queue is estimated)",
}

// Observe implements twin.Engine: what the fluid engine saw, under the
// packet engine's names; counts it estimates are rounded expected values.
func (tw *FluidTwin) Observe() twin.Observation {
	s, e := tw.Scenario, tw.Engine
	end := e.Now()
	conns := e.Conns()
	links := e.Links()
	nics := e.NICs()
	var roce uint8
	for _, c := range conns {
		if !c.TCP {
			roce |= 1 << s.switchPriority(c.DSCP, c.Priority)
		}
	}
	rl := s.lossless(roce)
	o := twin.Observation{
		Engine:   twin.EngineInfo{Name: twin.Fluid, NotModelled: append(append([]string{}, fluidNotModelled...), e.Config().Unsupported...)},
		Scenario: s.setup(s.fluidHeadrooms(), roce, rl),
		Sim:      twin.Sim{End: end, Completed: tw.Done(), Events: tw.Events()},
	}
	o.Totals = fluidTotals(conns, links)
	t := s.Topo
	hosts := make([]string, len(t.Hosts))
	for i, n := range t.Hosts {
		hosts[i] = t.Nodes[n].Name
	}
	tw.Workloads.observe(&o, hosts, func(qp workload.QP) ConnStat {
		c := &conns[qp]
		return ConnStat{Delivered: c.Delivered, Retransmitted: c.RetxBytes, LastDelivery: c.LastDeliv}
	})
	o.Latency = prioLatencies(e.Latency())
	ports := tw.portCounters(links)
	id, names := 0, fabric.NewEthtoolNames()
	for n, nd := range t.Nodes {
		for p := 0; p < nd.Ports; p++ {
			pt := twin.Port{Name: portName(t, n, p), Switch: nd.Kind == topo.Switch}
			if l := e.PortLink(n, p); l >= 0 {
				peer := linkEnds(t, l)
				pt.Peer, pt.LineRate = peer, t.Links[l/2].Rate
				pt.Counters = ports[id].Ethtool(names, s.pfcMask(), pt.Switch)
			}
			o.Ports = append(o.Ports, pt)
			if nd.Kind == topo.Host {
				h := len(o.NICs)
				hw := hwOf(nics[h])
				c := ports[id]
				o.NICs = append(o.NICs, twin.NIC{Name: nd.Name, Port: id, Rate: e.Rate(e.PortLink(n, 0)), HW: hw.List(), IB: ibPortCounters(&c)})
			}
			if l := e.PortLink(n, p); l >= 0 && nd.Kind == topo.Switch && links[l].PeakQueue > 0 {
				o.Queues = append(o.Queues, twin.Queue{Port: pt.Name, Priority: links[l].PeakClass, MaxBytes: links[l].PeakQueue})
			}
			id++
		}
	}
	o.Uplinks = tw.uplinks(links)
	o.Basis = tw.healthBasis(conns, ports, roce, rl)
	o.Health = o.Basis.Grade(end)
	return o
}

// hwOf returns a NIC's counters as the packet NIC's hw_counters, rounded.
func hwOf(c fluid.NICCounters) nic.HWCounters {
	r := func(f float64) int64 { return int64(f + 0.5) }
	return nic.HWCounters{
		NPECNMarkedRoCEPackets: r(c.ECNMarked), NPCNPSent: r(c.CNPSent), RPCNPHandled: r(c.CNPHandled), RPCNPIgnored: r(c.CNPIgnored),
		OutOfSequence: r(c.OOS) + c.OutOfSequence, PacketSeqErr: r(c.NAKs) + c.PacketSeqErr, LocalAckTimeoutErr: c.LocalAckTimeoutErr,
		ReqCQEError: c.ReqCQEError, Retransmitted: r(c.Retransmitted),
	}
}

// portName is port p of topology node n as the packet engine names it.
func portName(t *topo.Topology, n, p int) string { return fmt.Sprintf("%s/p%d", t.Nodes[n].Name, p) }

// linkEnds returns the name of the port at the far end of directed link
// l.
func linkEnds(t *topo.Topology, l int) string {
	tl := t.Links[l/2]
	if l%2 == 0 {
		return portName(t, tl.B, tl.PB)
	}
	return portName(t, tl.A, tl.PA)
}

// portCounters returns every port's counters, by port id (topology node
// order, each node's ports in order, as the packet engine numbers them):
// what its link carried out and in, the pauses it obeyed and sent, and at
// a switch the ECN marks its queues made.
func (tw *FluidTwin) portCounters(links []fluid.LinkStats) []fabric.Counters {
	e, t := tw.Engine, tw.Scenario.Topo
	var out []fabric.Counters
	for n, nd := range t.Nodes {
		for p := 0; p < nd.Ports; p++ {
			var c fabric.Counters
			if l := e.PortLink(n, p); l >= 0 {
				tx, rx := &links[l], &links[l^1]
				for k := 0; k < 8; k++ {
					c.TxPrioBytes[k], c.TxPrioPackets[k] = tx.Bytes[k], tx.Packets[k]
					c.TxPhyBytes += tx.Bytes[k]
					c.TxPhyPackets += tx.Packets[k]
					// What arrives is what the peer sent, less what the
					// link lost (counted on the data class).
					c.RxPrioBytes[k], c.RxPrioPackets[k] = rx.Bytes[k], rx.Packets[k]
					c.RxPhyBytes += rx.Bytes[k]
					c.RxPhyPackets += rx.Packets[k]
					c.ECNMarked[k] = tx.Marks[k]
					if tx.PausePrios&(1<<k) != 0 {
						c.RxPauseDuration[k] = tx.Paused
						c.RxPause[k] = tx.PauseFrames
						c.RxPauseTransition[k] = 1
					}
					if rx.PausePrios&(1<<k) != 0 {
						c.TxPauseDuration[k] = rx.Paused
						c.TxPause[k] = rx.PauseFrames
					}
				}
				c.Drops[fabric.DropLinkLoss] = rx.Lost
			}
			out = append(out, c)
		}
	}
	return out
}

// fluidTotals adds up the network's data: payload sent, resent,
// delivered, lost on links, discarded by go-back-N, and still in flight.
func fluidTotals(conns []fluid.ConnStats, links []fluid.LinkStats) *twin.Totals {
	t := &twin.Totals{Frames: map[string]int64{}, FramesDropped: map[string]int64{}, DropsByReason: map[string]int64{}}
	for _, c := range conns {
		t.Sent.Packets += c.SentPkts
		t.Sent.Bytes += c.Sent
		t.Retransmitted.Packets += c.RetxPkts
		t.Delivered.Packets += c.DeliveredPkts
		t.Delivered.Bytes += c.Delivered
		t.ECNMarked += c.Marked
		t.Frames[packet.CNP.String()] += c.CNPs
		t.Frames[packet.Ack.String()] += c.Acks
	}
	per := 0.0
	if t.Sent.Packets > 0 {
		per = float64(t.Sent.Bytes) / float64(t.Sent.Packets)
	}
	t.Retransmitted.Bytes = int64(per*float64(t.Retransmitted.Packets) + 0.5)
	var data int64
	for _, l := range links {
		t.Dropped.Packets += l.Lost
		t.PauseFrames += l.PauseFrames
	}
	for _, c := range conns {
		data += c.SentPkts + c.RetxPkts
	}
	t.Dropped.Bytes = int64(per*float64(t.Dropped.Packets) + 0.5)
	t.Discarded.Packets = max(t.Retransmitted.Packets-t.Dropped.Packets, 0)
	t.Discarded.Bytes = int64(per*float64(t.Discarded.Packets) + 0.5)
	// In flight is the rest, so that conservation holds exactly.
	t.InFlight.Packets = max(t.Sent.Packets+t.Retransmitted.Packets-t.Delivered.Packets-t.Dropped.Packets-t.Discarded.Packets, 0)
	t.InFlight.Bytes = max(t.Sent.Bytes+t.Retransmitted.Bytes-t.Delivered.Bytes-t.Dropped.Bytes-t.Discarded.Bytes, 0)
	t.Frames[packet.Data.String()] = data
	t.Frames[packet.Pause.String()] = t.PauseFrames
	t.FramesDropped[packet.Data.String()] = t.Dropped.Packets
	t.DropsByReason[fabric.DropLinkLoss.String()] = t.Dropped.Packets
	for _, r := range fabric.DropReasons() {
		if _, ok := t.DropsByReason[r.String()]; !ok {
			t.DropsByReason[r.String()] = 0
		}
	}
	for k := packet.Kind(0); k < packet.NumKinds; k++ {
		if _, ok := t.Frames[k.String()]; !ok {
			t.Frames[k.String()] = 0
		}
		if _, ok := t.FramesDropped[k.String()]; !ok {
			t.FramesDropped[k.String()] = 0
		}
	}
	return t
}

// uplinks lists the bytes sent over each uplink, by tier.
func (tw *FluidTwin) uplinks(links []fluid.LinkStats) []twin.Uplink {
	t := tw.Scenario.Topo
	var out []twin.Uplink
	for i, l := range t.Links {
		if !l.Uplink {
			continue
		}
		lo, port, dir := l.A, l.PA, 0
		if t.Nodes[l.B].Tier < t.Nodes[l.A].Tier {
			lo, port, dir = l.B, l.PB, 1
		}
		var bytes int64
		for _, b := range links[2*i+dir].Bytes {
			bytes += b
		}
		level := t.Nodes[lo].Tier
		out = append(out, twin.Uplink{Level: level, Tier: tierName(t, level), Port: portName(t, lo, port), Bytes: bytes})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Level < out[j].Level })
	return out
}

// healthBasis collects what the health targets are graded on.
func (tw *FluidTwin) healthBasis(conns []fluid.ConnStats, ports []fabric.Counters, roce uint8, lossless bool) twin.HealthBasis {
	e := tw.Engine
	b := twin.HealthBasis{
		RoCELatency:    e.Latency().ClassHistogram(packet.ClassRoCE),
		Receivers:      make([]twin.Window, e.Hosts()),
		RoCEPriorities: roce, RoCELossless: lossless,
	}
	t := tw.Scenario.Topo
	for h := range b.Receivers {
		b.Receivers[h].Rate = e.Rate(e.PortLink(t.Hosts[h], 0))
	}
	for _, c := range conns {
		if c.Started {
			b.Receivers[c.Dst].Add(c.FirstPost, c.LastDeliv, c.Delivered)
		}
		if !c.TCP {
			b.RoCESent += c.SentPkts + c.RetxPkts
		}
	}
	for _, p := range ports {
		for k := 0; k < 8; k++ {
			b.WorstPause = max(b.WorstPause, p.RxPauseDuration[k])
		}
		b.RoCEDropped += p.Drops[fabric.DropLinkLoss]
	}
	return b
}

// fluidHeadrooms lists the distinct per-PG headroom sizes of the switch
// ports.
func (s *Scenario) fluidHeadrooms() []int64 {
	out := []int64{}
	if !s.Switch.PFC.Enabled {
		return out
	}
	seen := map[int64]bool{}
	for _, l := range s.Topo.Links {
		h := int64(s.headroomOf(l.Rate, l.Cable))
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
