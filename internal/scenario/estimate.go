package scenario

import (
	"fmt"
	"log/slog"
	"math"

	"rocelab/internal/collective"
	"rocelab/internal/fabric"
	"rocelab/internal/metrics"
	"rocelab/internal/packet"
	"rocelab/internal/textout"
	"rocelab/internal/topo"
	"rocelab/internal/twin"
	"rocelab/internal/unit"
)

// Estimate is the expected cost of running a scenario, computed before
// anything is built so that a scenario too large for the machine is refused
// up front. It follows the traffic (packets × hops), not the duration: the
// duration only caps how long the run may last.
type Estimate struct {
	Flows      int64 // flows, generators expanded
	Packets    int64 // data packets to send
	PacketHops int64 // packets × links traversed
	Events     int64
	Memory     unit.Bytes
	// Until is how long the run is expected to last: the duration when the
	// traffic may not complete (loss on a class PFC does not protect, a
	// pause storm, a flow starting after the end), else a bound on the time
	// the traffic needs, capped by the duration.
	Until unit.Time
	// Why says why the run is expected to last the whole duration ("" when
	// the traffic bounds it).
	Why string
	// Samples is the number of queue-depth samples taken until then.
	Samples int64
	// Domains is how many domains the run is split into: each costs
	// bytesPerDomain more memory than Memory, which is the run's on one.
	// Check counts it; String leaves it out, since what a run prints does
	// not depend on its threads.
	Domains int
	// Ports is the fabric's ports, host and switch: what sets how much of
	// the state a frame's hop touches stays in the processor's cache.
	Ports int
}

// Cost model constants, measured on this code (see the benchmark note in
// docs/scenario.md): scheduler events per packet-hop, bytes per object.
const (
	// eventsPerHop counts a packet's hops and its share of the ACKs, CNPs
	// and timers of the RDMA NIC: executed/estimated is 0.98-1.24 on the
	// lossless examples with 2.2 (TestEstimateBoundHolds). A port runs no
	// event when a frame has left unless another waits, so a hop costs
	// one event, its arrival, plus one where queues form.
	eventsPerHop = 2.2
	// pipelinePerHop is what switch.latency adds: a frame's exit from a
	// switch's pipeline is an event of its own unless another frame's
	// falls at the same time (the 128-host permutation: +1.00 a hop).
	pipelinePerHop     = 1.0
	bytesPerPort       = 1 << 10
	bytesPerPacket     = 160
	bytesPerRouteEntry = 24
	bytesPerFlow       = 320
	bytesPerSample     = 8
	// poolChunkBytes is a chunk of a domain's packet pool, which takes
	// packet.PoolChunk packets at a time: a run of one packet costs one.
	poolChunkBytes = packet.PoolChunk * bytesPerPacket
	// bytesPerDomain is what each domain of a run split over threads adds:
	// its latency histograms (an HDR histogram of about 200 KB for each
	// priority and class its packets use, eleven at most), its sampler
	// and outboxes.
	bytesPerDomain = 3 << 20
	// maxExpand is the most flows the estimate expands one by one; beyond
	// it a generator's flows are counted with the longest path.
	maxExpand = 1 << 20
)

// Estimate returns the cost of running s.
func (s *Scenario) Estimate() Estimate { return s.estimate(s.Workload.traffic(int64(s.Host.MTU))) }

// estimate returns the cost of running s with its job's traffic tr.
func (s *Scenario) estimate(tr []collective.Transfer) Estimate {
	var e Estimate
	var packets, hopsSum, wireBytes float64
	var serial unit.Time // the slowest single flow: start + bytes at its rate
	hops := s.hopCounter()
	overhead := float64(packet.Overhead(s.Host.VLAN))
	add := func(n float64, bytes unit.Bytes, start unit.Time, rate unit.BitRate, h int) {
		pk := float64((int64(bytes) + int64(s.Host.MTU) - 1) / int64(s.Host.MTU))
		packets += n * pk
		hopsSum += n * pk * float64(h)
		wireBytes += n * (float64(bytes) + pk*overhead)
		if rate > 0 {
			serial = max(serial, satAdd(start, rate.TxTime(bytes)))
		}
	}
	count := s.flowCount()
	e.Flows = int64(min(count, math.MaxInt64/2))
	if count <= maxExpand {
		for _, f := range s.Expand() {
			add(1, f.Bytes, f.Start, f.Rate, hops(f.Src, f.Dst))
		}
	} else {
		for _, f := range s.Flows {
			add(1, f.Bytes, f.Start, f.Rate, hops(f.Src, f.Dst))
		}
		longest := s.longestPath(hops)
		for _, g := range s.Generators {
			per := g.Bytes / unit.Bytes(g.QPs)
			add(g.flowCount()*float64(g.QPs), per, g.Start+g.Jitter, g.Rate, longest)
		}
	}
	for _, p := range s.Perftests {
		n, _ := p.Opts.Messages()
		per := n / int64(len(p.Opts.Sizes()))
		for _, size := range p.Opts.Sizes() {
			add(float64(per), unit.Bytes(max(size, 1)), 0, 0, hops(p.Client, p.Server))
		}
	}
	pk, ph, wb := packetCost(tr, hops, overhead)
	packets, hopsSum, wireBytes = packets+pk, hopsSum+ph, wireBytes+wb
	nSwitch, nPorts := 0, s.Topo.Ports()
	slowest := unit.BitRate(0)
	for _, n := range s.Topo.Nodes {
		if n.Kind == topo.Switch {
			nSwitch++
		}
	}
	for _, l := range s.Topo.Links {
		if slowest == 0 || l.Rate < slowest {
			slowest = l.Rate
		}
	}
	e.Until = s.Duration
	if e.Why = s.completes(); e.Why == "" {
		// Every byte through the slowest link one after the other, twice
		// over, plus a millisecond: loose, but a bound a lossless fabric
		// keeps, so that the sampled series are not underestimated.
		bound := unit.Time(min(2*wireBytes*8/float64(slowest)*float64(unit.Second), float64(unit.MaxTime/4)))
		bound = satAdd(satAdd(bound, s.latestStart()), unit.Millisecond)
		e.Until = min(s.Duration, max(bound, serial))
	}
	e.Samples = samplesUntil(e.Until, s.SampleInterval)
	e.Packets = sat(packets)
	e.PacketHops = sat(hopsSum)
	perHop := eventsPerHop
	if s.Switch.Latency > 0 {
		perHop += pipelinePerHop
	}
	e.Events = sat(hopsSum*perHop + float64(e.Samples))
	// In flight at most: every switch buffer full of minimum frames.
	inFlight := min(float64(nSwitch)*float64(s.Switch.Buffer)/64, packets)
	mem := float64(nPorts)*bytesPerPort +
		float64(nSwitch)*float64(len(s.Topo.Hosts))*bytesPerRouteEntry +
		count*bytesPerFlow +
		inFlight*bytesPerPacket +
		// sampled series, each bounded: at worst a quarter of the switch
		// queues busy
		float64(nPorts)*8*float64(min(e.Samples, metrics.DefaultSeriesCap))*bytesPerSample/4
	e.Memory = unit.Bytes(sat(mem))
	e.Domains = max(1, min(s.Run.Threads, nSwitch))
	e.Ports = nPorts
	return e
}

// eventRate is the events one thread runs per second of CPU on a fabric
// of the given ports, as measured (docs/engine.md, "Figures"): about 3 M
// while the ports, queues and packets a frame's hop touches stay in the
// processor's cache (the k=8 fat-tree's 768 ports), 0.75 M at k=16's 6144
// and 0.4 M at k=32's 49152, where nearly every one of them misses it;
// geometrically in between.
func eventRate(ports int) float64 {
	rates := [...]struct{ ports, rate float64 }{{1000, 3e6}, {6144, 0.75e6}, {49152, 0.4e6}}
	p := float64(ports)
	if p <= rates[0].ports {
		return rates[0].rate
	}
	for i := 1; i < len(rates); i++ {
		a, b := rates[i-1], rates[i]
		if p <= b.ports {
			return a.rate * math.Pow(b.rate/a.rate, math.Log(p/a.ports)/math.Log(b.ports/a.ports))
		}
	}
	return rates[len(rates)-1].rate
}

// speedup is what d domains gain on as many free cores, from the
// busiest domain's share of the events in each window on the k=16
// permutation (about 1.07/d + 0.03: 0.53 on 2, 0.17 on 8, 0.047 on 64),
// barriers left out.
func speedup(d int) float64 {
	if d <= 1 {
		return 1
	}
	return 1 / (1.07/float64(d) + 0.03)
}

// wall says how long the run would take: its events at the rate of one
// thread on a fabric of its size, over what its domains gain.
func (e Estimate) wall() string {
	r := eventRate(e.Ports)
	sec := int64(float64(e.Events) / r / speedup(e.Domains))
	on := ""
	if e.Domains > 1 {
		on = fmt.Sprintf(" on %d threads", e.Domains)
	}
	return fmt.Sprintf("about %s of wall time%s at %.1f M events/s a thread", wallTime(sec), on, r/1e6)
}

// memoryWith returns the memory the run needs split into its domains:
// Memory counts the packets in flight one by one, and each domain's pool
// may hold its last chunk of them in part.
func (e Estimate) memoryWith() unit.Bytes {
	d := unit.Bytes(max(e.Domains, 1))
	return e.Memory + d*poolChunkBytes + (d-1)*bytesPerDomain
}

// samplesUntil returns the queue samples taken until t: the sampler starts
// at every and doubles its interval after each metrics.DefaultSeriesCap
// samples, so a long run costs a number of samples logarithmic in its
// length.
func samplesUntil(t, every unit.Time) int64 {
	const c = metrics.DefaultSeriesCap
	var n int64
	for covered := unit.Time(0); ; every *= 2 {
		left := t - covered
		if every > left/c { // the last, partial round
			return n + int64(left/every) + 1
		}
		covered += every * c
		n += c
	}
}

// sat converts a non-negative float to int64, saturating.
func sat(f float64) int64 {
	if f >= math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(f)
}

// satAdd adds two non-negative times, saturating at MaxTime.
func satAdd(a, b unit.Time) unit.Time {
	if a > unit.MaxTime-b {
		return unit.MaxTime
	}
	return a + b
}

// flowCount returns the number of flows Expand makes, without making them.
func (s *Scenario) flowCount() float64 {
	n := float64(len(s.Flows))
	for _, g := range s.Generators {
		n += g.flowCount() * float64(g.QPs)
	}
	return n
}

// flowCount returns the host pairs of g (each carries QPs flows).
func (g *GeneratorSpec) flowCount() float64 {
	switch g.Kind {
	case "permutation":
		return float64(len(g.Hosts))
	case "all-to-all":
		n := float64(len(g.Hosts))
		return n * (n - 1)
	}
	return float64(len(g.Senders))
}

// longestPath returns the most links between two hosts.
func (s *Scenario) longestPath(hops func(a, b int) int) int {
	h := 2
	for b := range s.Topo.Hosts {
		h = max(h, hops(0, b))
	}
	return h
}

// latestStart bounds when the last flow starts: the latest start, plus the
// starts of flows that wait on others (their start counts from the end of
// what they wait for), plus generator jitter.
func (s *Scenario) latestStart() unit.Time {
	var latest, chained unit.Time
	for _, f := range s.Flows {
		if len(f.After) > 0 {
			chained = satAdd(chained, f.Start)
		} else {
			latest = max(latest, f.Start)
		}
	}
	for _, g := range s.Generators {
		latest = max(latest, satAdd(g.Start, g.Jitter))
	}
	return satAdd(latest, chained)
}

// completes says why the traffic may not complete long before the duration
// runs out, or "" when it can be expected to, so that the run ends early:
// every flow rides a priority PFC protects with enough headroom (a loss
// costs a NAK round or an ACK timeout of seconds), no fault stops the
// fabric, and no flow starts after the end.
func (s *Scenario) completes() string {
	const lost = ": lost packets are resent after a NAK or, for a lost tail, the ACK timeout (4.3 s at NCCL's default), so the run may last the whole duration"
	switch {
	case len(s.Faults) > 0:
		return "a fault may hold the traffic"
	case !s.Switch.PFC.Enabled:
		return "PFC is off" + lost
	}
	if h := s.Switch.PFC.Headroom; h > 0 {
		for _, l := range s.Topo.Links {
			if need := ComputeHeadroom(l.Rate, l.Cable, s.Switch.PFC); h < need {
				return fmt.Sprintf("the PFC headroom %v is below the %v a %v link on %v of cable needs, so packets may be dropped%s", h, need, l.Rate, l.Cable, lost)
			}
		}
	}
	check := func(what string, dscp, prio uint8, start unit.Time) string {
		// The switch classifies by DSCP, or by the PCP of tagged frames.
		sw := s.Switch.DSCPToPrio[dscp&63]
		if s.Switch.Trust == fabric.TrustPCP {
			sw = 0
			if s.Host.VLAN {
				sw = prio
			}
		}
		for _, p := range []uint8{prio, sw} {
			if s.Switch.PFC.Priorities&(1<<p) == 0 {
				return fmt.Sprintf("%s rides priority %d at the switch, which PFC does not protect%s", what, p, lost)
			}
		}
		if start >= s.Duration {
			return fmt.Sprintf("%s starts at %s, after the run ends", what, start)
		}
		return ""
	}
	for _, f := range s.Flows {
		if why := check("flow "+f.Name, f.DSCP, f.Priority, f.Start); why != "" {
			return why
		}
	}
	for _, g := range s.Generators {
		if why := check("generator "+g.Name, g.DSCP, g.Priority, g.Start); why != "" {
			return why
		}
	}
	return ""
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

// Check refuses an estimate over the limits, saying what it would cost.
func (e Estimate) Check(l twin.Limits) error {
	until := fmt.Sprintf("%s until %s", textout.Count(e.Samples, "queue sample", "queue samples"), e.Until)
	if e.Why != "" {
		until += " (the whole duration: " + e.Why + ")"
	}
	if m := e.memoryWith(); l.Memory > 0 && m > l.Memory {
		split := ""
		if e.Domains > 1 {
			split = fmt.Sprintf(" split into %d domains for %d threads", e.Domains, e.Domains)
		}
		return fmt.Errorf("scenario too large: it needs about %s of memory%s (%s, %s over %s, %s), more than the %s allowed; shrink it or raise --max-memory",
			human(m), split, textout.Count(e.Flows, "flow", "flows"), textout.Count(e.Packets, "packet", "packets"), textout.Count(e.PacketHops, "packet-hop", "packet-hops"), until, human(l.Memory))
	}
	if l.Events > 0 && e.Events > l.Events {
		return fmt.Errorf("scenario too large: it needs about %d events (%s, %s) and %s of memory, more than the %d events allowed (%s); shrink it or raise --max-events",
			e.Events, textout.Count(e.PacketHops, "packet-hop", "packet-hops"), until, human(e.Memory), l.Events, e.wall())
	}
	return nil
}

// Work implements twin.Estimate: the scheduler events expected.
func (e Estimate) Work() int64 { return e.Events }

// String implements twin.Estimate.
func (e Estimate) String() string {
	return fmt.Sprintf("about %d events and %s of memory", e.Events, human(e.Memory))
}

// LogAttrs implements twin.Estimate.
func (e Estimate) LogAttrs() []slog.Attr {
	return []slog.Attr{slog.Int64("est_packet_hops", e.PacketHops), slog.Int64("est_events", e.Events), slog.String("est_memory", fmt.Sprint(e.Memory))}
}

// wallTime formats whole seconds for a person: "45 s", "12 min", "3.2 h",
// "4.1 days".
func wallTime(sec int64) string {
	switch {
	case sec < 120:
		return fmt.Sprintf("%d s", sec)
	case sec < 7200:
		return fmt.Sprintf("%d min", sec/60)
	case sec < 2*86400:
		return fmt.Sprintf("%.1f h", float64(sec)/3600)
	}
	return fmt.Sprintf("%.1f days", float64(sec)/86400)
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
