package scenario

import (
	"fmt"

	"rocelab/internal/topo"
	"rocelab/internal/unit"
)

// Estimate is the expected cost of running a scenario, computed before
// anything is built so that a scenario too large for the machine is refused
// up front.
type Estimate struct {
	Packets    int64 // data packets to send
	PacketHops int64 // packets × links traversed
	Events     int64
	Memory     unit.Bytes
}

// Cost model constants, measured on this code (see the benchmark note in
// docs/scenario.md): scheduler events per packet-hop, bytes per object.
const (
	eventsPerHop       = 2
	bytesPerPort       = 1 << 10
	bytesPerPacket     = 160
	bytesPerRouteEntry = 24
	bytesPerFlow       = 320
	bytesPerSample     = 8
)

// Estimate returns the cost of running s.
func (s *Scenario) Estimate() Estimate {
	var e Estimate
	hops := s.hopCounter()
	flows := s.Expand()
	for _, f := range flows {
		pk := (int64(f.Bytes) + int64(s.Host.MTU) - 1) / int64(s.Host.MTU)
		e.Packets += pk
		e.PacketHops += pk * int64(hops(f.Src, f.Dst))
	}
	s.Workload.estimate(&e, hops, int64(s.Host.MTU))
	nSwitch, nPorts := 0, 0
	for _, n := range s.Topo.Nodes {
		nPorts += n.Ports
		if n.Kind == topo.Switch {
			nSwitch++
		}
	}
	samples := int64(s.Duration / s.SampleInterval)
	e.Events = e.PacketHops*eventsPerHop + samples
	// In flight at most: every switch buffer full of minimum frames.
	inFlight := int64(nSwitch) * int64(s.Switch.Buffer) / 64
	inFlight = min(inFlight, e.Packets)
	mem := int64(nPorts)*bytesPerPort +
		int64(nSwitch)*int64(len(s.Topo.Hosts))*bytesPerRouteEntry +
		int64(len(flows))*bytesPerFlow +
		inFlight*bytesPerPacket +
		// sampled series: at worst every queue of every switch port
		int64(nPorts)*8*samples*bytesPerSample/4
	e.Memory = unit.Bytes(mem)
	return e
}

// hopCounter returns a function giving the number of links between hosts,
// from switch distances.
func (s *Scenario) hopCounter() func(a, b int) int {
	t := s.Topo
	edge := make([]int, len(t.Hosts))
	for _, l := range t.Links {
		if t.Nodes[l.A].Kind == topo.Host {
			edge[hostIndex(t, l.A)] = l.B
		}
	}
	tier := func(n int) int { return t.Nodes[n].Tier }
	return func(a, b int) int {
		ea, eb := edge[a], edge[b]
		if ea == eb {
			return 2
		}
		switch t.Kind {
		case "fat-tree":
			// Same pod: up to aggregation and back; otherwise via core.
			if podOf(t.Nodes[ea].Name) == podOf(t.Nodes[eb].Name) {
				return 4
			}
			return 6
		case "dumbbell":
			return 3
		}
		return 2 + 2*max(tier(ea), 1)
	}
}

func hostIndex(t *topo.Topology, node int) int {
	for i, n := range t.Hosts {
		if n == node {
			return i
		}
	}
	return 0
}

func podOf(name string) string {
	for i := range name {
		if name[i] == '_' {
			return name[:i]
		}
	}
	return name
}

// Limits bound what a run may cost.
type Limits struct {
	Memory unit.Bytes
	// Events caps the scheduler events; at the measured speed of a few
	// million events per second, it bounds the wall time.
	Events int64
}

// Check refuses an estimate over the limits, saying what it would cost.
func (e Estimate) Check(l Limits) error {
	if l.Memory > 0 && e.Memory > l.Memory {
		return fmt.Errorf("scenario too large: it needs about %s of memory (%d packets over %d packet-hops), more than the %s allowed; shrink it or raise --max-memory", human(e.Memory), e.Packets, e.PacketHops, human(l.Memory))
	}
	if l.Events > 0 && e.Events > l.Events {
		return fmt.Errorf("scenario too large: it needs about %d events (%d packet-hops), more than the %d allowed (about %s of wall time at 3 M events/s); shrink it or raise --max-events", e.Events, e.PacketHops, l.Events, unit.Time(e.Events/3)*unit.Microsecond)
	}
	return nil
}

func human(b unit.Bytes) string {
	switch {
	case b >= unit.GiB:
		return fmt.Sprintf("%.1f GiB", float64(b)/float64(unit.GiB))
	case b >= unit.MiB:
		return fmt.Sprintf("%.1f MiB", float64(b)/float64(unit.MiB))
	}
	return fmt.Sprintf("%d B", b)
}
