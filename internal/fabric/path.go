package fabric

import (
	"fmt"

	"rocelab/internal/ecmp"
	"rocelab/internal/packet"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
)

// PathMode is how a switch chooses among the equal-cost egress ports
// toward a destination.
type PathMode uint8

// Path modes.
const (
	// PathECMP hashes the configured header fields: every packet of a flow
	// takes one path (no reordering, and collisions last as long as the
	// flows).
	PathECMP PathMode = iota
	// PathFlowlet hashes each flowlet: a flow that has been idle for longer
	// than the gap is hashed again onto a fresh path (Broadcom DLB in
	// flowlet mode, LetFlow). A gap longer than the paths' delay
	// difference keeps packets in order.
	PathFlowlet
	// PathAdaptive sends a packet (or a flowlet) to the candidate port
	// whose egress queue, of the packet's priority, holds the fewest bytes
	// at the decision; ties keep the ECMP port. The choice is local only:
	// the switch sees its own queues, not those downstream (as the
	// adaptive routing of Spectrum-X or Broadcom DLB in per-packet mode
	// decides).
	PathAdaptive
	// PathSpray sends each packet to a random candidate port (a new
	// entropy per packet, as Ultra Ethernet sprays) or to the next one,
	// round robin per destination. Packets of one flow reorder whenever
	// the paths' queues differ: random spraying makes them differ,
	// round robin keeps near-equal loads near-equal.
	PathSpray
)

// String returns the mode's scenario name.
func (m PathMode) String() string {
	switch m {
	case PathFlowlet:
		return "flowlet"
	case PathAdaptive:
		return "adaptive"
	case PathSpray:
		return "spray"
	}
	return "ecmp"
}

// PathConfig is a switch's path selection.
type PathConfig struct {
	Mode PathMode
	// FlowletGap is the idle time after which a flow's next packet starts
	// a new flowlet (flowlet, and adaptive per flowlet).
	FlowletGap unit.Time
	// PerPacket makes adaptive routing decide for every packet instead of
	// every flowlet.
	PerPacket bool
	// Random makes spraying pick a random port; otherwise the next one.
	Random bool
}

// Validate reports a configuration that cannot work.
func (c PathConfig) Validate() error {
	if c.Mode > PathSpray {
		return fmt.Errorf("fabric: path mode %d unknown", c.Mode)
	}
	if (c.Mode == PathFlowlet || c.Mode == PathAdaptive && !c.PerPacket) && c.FlowletGap <= 0 {
		return fmt.Errorf("fabric: %v needs a positive flowlet gap", c.Mode)
	}
	return nil
}

// flowletSlots is the size of a switch's flowlet table: flows hash into
// it, and two flows in one slot share their flowlets, as in a hardware
// table.
const flowletSlots = 4096

// flowlet is one slot of the flowlet table.
type flowlet struct {
	last unit.Time // when the slot last saw a packet
	gen  uint32    // flowlets started in the slot, mixed into the hash
	port int16     // the flowlet's egress port
	used bool
}

// pathSelector holds a switch's path-selection state: the flowlet table,
// the round-robin counters, the random stream.
type pathSelector struct {
	cfg     PathConfig
	flowlet []flowlet
	next    []uint32 // round robin, per destination host
	rng     *sim.Rand
}

func newPathSelector(cfg PathConfig, hosts int, rng *sim.Rand) *pathSelector {
	ps := &pathSelector{cfg: cfg, rng: rng}
	switch cfg.Mode {
	case PathFlowlet, PathAdaptive:
		if cfg.Mode == PathFlowlet || !cfg.PerPacket {
			ps.flowlet = make([]flowlet, flowletSlots)
		}
	case PathSpray:
		ps.next = make([]uint32, hosts)
	}
	return ps
}

// pick chooses among the candidate ports c (two or more) toward p.Dst; h
// is the packet's seeded flow hash.
func (ps *pathSelector) pick(s *Switch, p *packet.Packet, c []int16, h uint64, now unit.Time) int16 {
	switch ps.cfg.Mode {
	case PathSpray:
		if ps.cfg.Random {
			return c[ps.rng.IntN(len(c))]
		}
		i := ps.next[p.Dst]
		ps.next[p.Dst]++
		return c[i%uint32(len(c))]
	case PathAdaptive:
		if ps.cfg.PerPacket {
			return s.leastLoaded(c, int(p.Prio), ecmp.Pick(h, len(c)))
		}
	}
	f := &ps.flowlet[h&(flowletSlots-1)]
	if f.used && now-f.last <= ps.cfg.FlowletGap && containsPort(c, f.port) {
		f.last = now
		return f.port
	}
	f.used, f.last = true, now
	f.gen++
	i := ecmp.Pick(ecmp.Seeded(uint64(f.gen), h), len(c))
	if ps.cfg.Mode == PathAdaptive {
		f.port = s.leastLoaded(c, int(p.Prio), i)
	} else {
		f.port = c[i]
	}
	return f.port
}

// leastLoaded returns the candidate whose egress queue of priority prio
// holds the fewest bytes, preferring c[first] on a tie.
func (s *Switch) leastLoaded(c []int16, prio, first int) int16 {
	best := c[first]
	load := s.egress[best].cls[prio].q.Bytes()
	for k := 1; k < len(c) && load > 0; k++ {
		pi := c[(first+k)%len(c)]
		if b := s.egress[pi].cls[prio].q.Bytes(); b < load {
			best, load = pi, b
		}
	}
	return best
}

func containsPort(c []int16, p int16) bool {
	for _, x := range c {
		if x == p {
			return true
		}
	}
	return false
}
