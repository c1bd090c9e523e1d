package scenario

import (
	"cmp"
	"slices"

	"rocelab/internal/ecmp"
	"rocelab/internal/fabric"
)

// The HPCC ns-3 model's ECMP (switch.ecmp.model: ns3): its hash, its
// order of the next hops, the source ports it gives the flows, and what a
// scenario must be for them to mean the same paths.

// NS3ECMP returns the HPCC ns-3 model's ECMP when the scenario takes it
// (switch.ecmp.model: ns3), else nil.
func (s *Scenario) NS3ECMP() *ecmp.NS3 {
	if !s.Switch.NS3 {
		return nil
	}
	return &ecmp.NS3{DstPort: s.NS3DstPort()}
}

// NS3DstPort is the destination port of every flow in the HPCC ns-3
// model's flow.txt: switch.ecmp.dst_port, else 100 + the seed, as
// tools/ns3conv writes it so that each seed draws other paths.
func (s *Scenario) NS3DstPort() uint16 {
	if s.Switch.NS3DstPort >= 0 {
		return uint16(s.Switch.NS3DstPort)
	}
	return uint16(100 + s.Seed)
}

// ecmpModel names the switches' hash for reports when it is not
// rocelab's own.
func (s *Scenario) ecmpModel() string {
	if s.Switch.NS3 {
		return "ns3"
	}
	return ""
}

// NS3SourcePorts returns the UDP source port the HPCC ns-3 model gives
// each of fs (third.cc's portNumder): 10000 for a host pair's first flow
// in start order (flow.txt's; equal starts in fs's order), one more for
// each next.
func NS3SourcePorts(fs []FlowSpec) []uint16 {
	order := make([]int, len(fs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(fs[a].Start, fs[b].Start) })
	ports := make([]uint16, len(fs))
	next := map[[2]int]uint16{}
	for _, i := range order {
		k := [2]int{fs[i].Src, fs[i].Dst}
		ports[i] = 10000 + next[k]
		next[k]++
	}
	return ports
}

// checkNS3 reports, at switch.ecmp.model, what ns-3's ECMP cannot route
// alike: path selection other than the hash, parallel links (ns-3 keeps
// one interface per neighbour) and more hosts than its addresses number.
func (c *conv) checkNS3(s *Scenario, r *rawSwitch) {
	if !s.Switch.NS3 || s.Topo == nil {
		return
	}
	at := r.ECMP.Model
	for tier, p := range s.Switch.Paths {
		if p.Mode != fabric.PathECMP {
			c.fail(at, "switch.ecmp.model", "model ns3 is ECMP by hash, but switch.load_balancing sets %v at tier %d", p.Mode, tier)
			return
		}
	}
	if len(s.Topo.Hosts) > 1<<16 {
		c.fail(at, "switch.ecmp.model", "ns-3's addresses number 65536 hosts, the topology has %d", len(s.Topo.Hosts))
	}
	seen := map[[2]int]bool{}
	for _, l := range s.Topo.Links {
		k := [2]int{min(l.A, l.B), max(l.A, l.B)}
		if seen[k] {
			c.fail(at, "switch.ecmp.model", "parallel links between %s and %s: ns-3 keeps one interface per neighbour", s.Topo.Nodes[l.A].Name, s.Topo.Nodes[l.B].Name)
			return
		}
		seen[k] = true
	}
}
