package scenario

import (
	"cmp"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/goccy/go-yaml/ast"

	"rocelab/internal/fabric"
	"rocelab/internal/fault"
	"rocelab/internal/fluid"
	"rocelab/internal/hugepage"
	"rocelab/internal/nic"
	"rocelab/internal/packet"
	"rocelab/internal/sim"
	"rocelab/internal/topo"
	"rocelab/internal/unit"
)

// Twin is an assembled, runnable scenario: the packet engine, a
// twin.Engine.
type Twin struct {
	Scenario *Scenario
	// Workloads are the traffic the twin carries.
	*Workloads
	Net  *fabric.Network
	NICs []*nic.NIC
	// Transport carries the workloads over the NICs; through it the twin
	// is the workloads' workload.Transport.
	*nic.Transport
	// Nodes maps topology node index to the fabric node.
	Nodes []fabric.Node
	// Losses are the loss faults' models, for their counts.
	Losses []*fault.Loss
	// Partition is how the fabric is split into domains.
	Partition Partition

	links  []*fabric.Link
	run    *sim.Windows
	pauses []*fabric.PauseSampler // one per domain
	auto   string                 // why the default thread count was lowered, or ""
}

// Options are how a twin runs, as opposed to what it simulates: they
// never change its results.
type Options struct {
	// Threads is how many domains the fabric is split into, and how many
	// goroutines run them (0 means 1).
	Threads int
	// Auto says Threads is the default (the machine's cores), not the
	// user's: a run too small or too uneven to gain from it takes one
	// (autoThreads), and the workers may adapt (Clock).
	Auto bool
	// Workers, when set, runs the domains on that many goroutines instead:
	// more domains than workers measure how a run would split over more
	// cores than the machine has.
	Workers int
	// Windowed runs the domains in windows of the lookahead between
	// barriers even with a worker each, instead of in linked rounds
	// (sim.Windows): what the projection's calibration measures.
	Windowed bool
	// Spread puts each node in a domain of its own, round robin over
	// Threads domains, so that every link is cut: a test that the output
	// does not depend on the partitioning.
	Spread bool
	// Clock, when set, reads a wall clock in nanoseconds, for the run's
	// statistics (RunStats) and, with Auto, for the workers to fall back
	// to one while they wait so long that they run less than one would
	// (sim.Windows.Adapt); it never affects the run's results.
	Clock func() int64
	// Memory, when set, is the run's estimated memory (Estimate): the
	// build first asks for huge pages to back that much
	// (internal/hugepage), which changes its speed, never its results.
	Memory unit.Bytes
}

// Build assembles the fabric, NICs, traffic and faults of s, on one
// domain.
func Build(s *Scenario) (*Twin, error) { return BuildWith(s, Options{}) }

// BuildWith assembles the fabric, NICs, traffic and faults of s, split
// as o says.
func BuildWith(s *Scenario, o Options) (*Twin, error) {
	if o.Memory > 0 {
		hugepage.Prepare(int64(o.Memory))
	}
	w, err := s.NewWorkloads()
	if err != nil {
		return nil, err
	}
	tw := &Twin{Scenario: s, Workloads: w}
	if o.Spread {
		tw.Partition = spreadTopology(s.Topo, o.Threads)
	} else {
		tw.Partition = partitionTopology(s.Topo, o.Threads)
	}
	net := fabric.NewNetwork(s.Seed, tw.Partition.Domains)
	tw.Net = net
	ports := make([][]*fabric.Port, len(s.Topo.Nodes))
	ncfg, err := s.nicConfig()
	if err != nil {
		return nil, err
	}
	// What every switch shares, made once: HPCC-PINT's T walks every path
	// of the fabric.
	shared := fabric.SwitchConfig{NS3: s.NS3ECMP(), PINT: s.pintSwitch()}
	switches := 0
	for i, n := range s.Topo.Nodes {
		dom := net.Domains[tw.Partition.Domain[i]]
		switch n.Kind {
		case topo.Host:
			h := nic.New(dom, int32(len(tw.NICs)), n.Name, ncfg)
			if err := net.AddHost(h); err != nil {
				return nil, err
			}
			tw.NICs = append(tw.NICs, h)
			tw.Nodes = append(tw.Nodes, h)
			ports[i] = []*fabric.Port{h.Port()}
		case topo.Switch:
			sw := net.NewSwitch(dom, n.Name, n.Ports, s.switchConfig(n.Name, n.Tier, len(s.Topo.Hosts)+switches, net, &shared))
			switches++
			tw.Nodes = append(tw.Nodes, sw)
			ports[i] = sw.Ports()
		}
	}
	// Each switch's routes, folded into its table as they are gathered:
	// a table of every (switch, host) pair would hold a slice header
	// each, 252 MB at k=32.
	s.Topo.SwitchRoutes(nil, s.Switch.NS3, func(n int, r [][]int16) { tw.Nodes[n].(*fabric.Switch).SetRoutes(r) })
	for _, l := range s.Topo.Links {
		tw.links = append(tw.links, net.Link(ports[l.A][l.PA], ports[l.B][l.PB], l.Rate, l.Cable))
	}
	for _, pt := range net.Ports {
		if pt.Peer() == nil {
			continue
		}
		src := net.Streams.PCG("phy/" + pt.Name())
		ppm := (2*rand.New(&src).Float64() - 1) * s.PHY.ClockPPM
		jitter := s.PHY.FECJitter
		if s.PHY.Auto {
			jitter = pt.Rate().TxTime(FECCodeword(pt.Rate()))
		}
		pt.SetPHY(ppm, jitter, src)
	}
	if rt := s.Switch.PFC.ResponseTime; rt > 0 {
		for _, pt := range net.Ports {
			pt.SetResponseTime(rt)
		}
	}
	for _, sw := range net.Switches {
		if err := sw.Start(); err != nil {
			return nil, err
		}
	}
	for _, h := range tw.NICs {
		h.Start()
		h.Port().Domain().AddSampler(h)
	}
	if s.Switch.PFC.Enabled {
		net.PFCEnabled = s.Switch.PFC.Priorities
	}
	tw.Transport = nic.NewTransport(net, tw.NICs)
	tw.Transport.Start(w.List()...)
	for i, f := range s.Faults {
		tw.addFault(i, f)
	}
	tw.reroutes()
	tw.samplePauses()
	net.SampleQueues(s.SampleInterval)
	tw.run = &sim.Windows{
		Control: tw.Transport.Control(), Collect: tw.Transport.Collect, Deliver: tw.Transport.Deliver,
		Lookahead: tw.lookahead(), Reply: tw.Transport.CompletionDelay(),
		Workers: max(o.Threads, 1), Clock: o.Clock, Adapt: o.Auto, Windowed: o.Windowed,
		Lead: tw.Transport.Lead,
	}
	// A run of one part counts no homes (WindowStats.HomePathEvents);
	// only with more does the transport keep them.
	if len(net.Domains) > 1 {
		tw.Transport.CountHomes()
		tw.run.Homes = tw.Transport.Homes
	}
	if o.Workers > 0 {
		tw.run.Workers = o.Workers
	}
	for _, d := range net.Domains {
		tw.run.Parts = append(tw.run.Parts, tw.Transport.Part(d))
	}
	return tw, nil
}

// samplePauses has each domain sample the pause its ports receive.
func (tw *Twin) samplePauses() {
	byDomain := map[*fabric.Domain][]*fabric.Port{}
	for _, pt := range tw.Net.Ports {
		byDomain[pt.Domain()] = append(byDomain[pt.Domain()], pt)
	}
	for _, d := range tw.Net.Domains {
		ps := fabric.NewPauseSampler(byDomain[d], tw.Scenario.SampleInterval)
		d.AddSampler(ps)
		tw.pauses = append(tw.pauses, ps)
	}
}

// lookahead is the least lookahead of a link between domains, or
// unit.MaxTime when there are none.
func (tw *Twin) lookahead() unit.Time {
	la := unit.MaxTime
	for _, l := range tw.links {
		if l.Cut() {
			la = min(la, l.Lookahead())
		}
	}
	return la
}

// addFault arms one fault.
func (tw *Twin) addFault(i int, f FaultSpec) {
	s, net := tw.Scenario, tw.Net
	switch f.Kind {
	case "pause_storm":
		pt := tw.NICs[f.Host].Port()
		pt.SetPFC(fabric.PFCConfig{Quanta: s.Switch.PFC.Quanta, XON: true})
		(&fault.PauseStorm{Port: pt, Priority: f.Priority, Start: f.Start, End: f.End}).Schedule()
	case "loss":
		a, b := tw.links[f.Link].Ends()
		params := fault.Bernoulli(f.Rate)
		if f.Burst > 1 {
			params = fault.GilbertElliott(f.Rate, f.Burst)
		}
		params.Start, params.End = f.Start, f.End
		for side, pt := range []*fabric.Port{a, b} {
			m := fault.NewLoss(params, net.Streams.Stream(fmt.Sprintf("fault/%d/loss/%d", i, side)))
			pt.SetLoss(m)
			tw.Losses = append(tw.Losses, m)
		}
	case "link_down":
		(&fault.LinkDown{Link: tw.links[f.Link], Down: f.Start, Up: f.End}).Schedule()
	case "route":
		sw := tw.Nodes[f.Switch].(*fabric.Switch)
		(&fault.Route{Switch: sw, Hosts: f.Hosts, Ports: f.Via, At: f.Start, Until: f.End}).Schedule()
	}
}

// reroutes schedules the routing changes that link faults with reroute
// set cause: Converge after a link goes down or comes up, every switch
// gets the routes over the links down at that time.
func (tw *Twin) reroutes() {
	type change struct {
		at   unit.Time
		link int
		down bool
	}
	var changes []change
	var at []unit.Time
	for _, f := range tw.Scenario.Faults {
		if f.Kind != "link_down" {
			continue
		}
		changes = append(changes, change{f.Start, f.Link, true})
		if f.End > 0 {
			changes = append(changes, change{f.End, f.Link, false})
		}
		if f.Reroute {
			at = append(at, f.Start+f.Converge)
			if f.End > 0 {
				at = append(at, f.End+f.Converge)
			}
		}
	}
	slices.SortStableFunc(changes, func(a, b change) int { return cmp.Compare(a.at, b.at) })
	slices.Sort(at)
	at = slices.Compact(at)
	down := make([]bool, len(tw.Scenario.Topo.Links))
	next := 0
	for _, t := range at {
		for ; next < len(changes) && changes[next].at <= t; next++ {
			down[changes[next].link] = changes[next].down
		}
		// Each switch's row folded into its table as it is gathered, as
		// Build does: a table of every (switch, host) pair per time would
		// hold a slice header each, 252 MB at k=32.
		tw.Scenario.Topo.SwitchRoutes(down, tw.Scenario.Switch.NS3, func(n int, r [][]int16) {
			(&fault.Routes{Switch: tw.Nodes[n].(*fabric.Switch), Table: fabric.NewRouteTable(r), At: t}).Schedule()
		})
	}
}

// RunUntil runs the twin until every workload is done or until limit,
// whichever is first, and returns the simulated time reached. It changes
// nothing beyond running events, so a run split into pieces ends exactly
// as one run does.
func (tw *Twin) RunUntil(limit unit.Time) unit.Time {
	if !tw.Done() {
		tw.run.RunUntil(limit)
	}
	return tw.Net.Now()
}

// Advance runs the twin's events until limit or until the workloads
// finish, whether or not they had finished before, and returns the
// simulated time reached.
func (tw *Twin) Advance(limit unit.Time) unit.Time { return tw.run.RunUntil(limit) }

// Executed returns the events the run has executed, in the fabric's
// domains and on the workloads' side.
func (tw *Twin) Executed() uint64 { return tw.Net.Executed() + tw.Transport.Control().Executed() }

// RunStats describes how the run was split and how its windows went.
func (tw *Twin) RunStats() (Partition, unit.Time, sim.WindowStats) {
	return tw.Partition, tw.run.Window(), tw.run.Stats()
}

// Run runs the twin to completion or to the scenario's duration.
func (tw *Twin) Run() unit.Time { return tw.RunUntil(tw.Scenario.Duration) }

// Done reports whether every workload has finished.
func (tw *Twin) Done() bool { return tw.Transport.Done() }

// nicConfig is the configuration of every host NIC.
func (s *Scenario) nicConfig() (*nic.Config, error) {
	h, n := &s.Host, &s.Host.NIC
	c := &nic.Config{
		MTU: h.MTU, TCPMSS: int32(s.Switch.PFC.MTU) - 52, VLAN: h.VLAN, ECT: h.ECN, DSCP: h.DSCP, Priority: h.Priority,
		Classifier: fabric.Classifier{Trust: h.Trust, DSCPToPrio: h.DSCPToPrio},
		Strict:     n.Strict, Weights: n.Weights, TTL: DefaultTTL, SampleQPs: DefaultSampleQPs, CompletionDelay: DefaultCompletionDelay,
		Timeout: n.Timeout, RetryCnt: n.RetryCnt, AckCoalesce: n.AckCoalesce, TCPRTO: n.TCPRTO,
		DrainRate: n.DrainRate, RxBuffer: n.RxBuffer, RxXOFF: n.RxXOFF, RxXON: n.RxXON,
		PFC: fabric.PFCConfig{Quanta: s.Switch.PFC.Quanta, Refresh: s.Switch.PFC.Refresh, XON: s.Switch.PFC.XON},
	}
	if c.TCPMSS > 9000-52 {
		c.TCPMSS = 9000 - 52
	}
	if n.RxPFC {
		c.RxPFC = s.Switch.PFC.Priorities
	}
	if n.Adaptive {
		c.Adaptive = &nic.Adaptive{Base: n.AdaptiveBase}
	}
	if n.OutOfOrder {
		c.Receive = nic.PlaceOutOfOrder
	}
	c.SelectiveRepeat, c.ReorderWindow, c.NAKThreshold = n.SelectiveRepeat, n.ReorderWindow, n.NAKThreshold
	c.KeepPendingGap, c.RetimeAll, c.AcksFirst = n.KeepPendingGap, n.RetimeAll, n.AcksFirst
	c.QPOrderByIndex = n.QPOrderByIndex
	if err := s.applyCC(c); err != nil {
		return nil, err
	}
	return c, nil
}

// switchConfig returns the configuration of switch name at the given tier;
// node is its ns-3 node id, which the HPCC ns-3 model's ECMP seeds with
// (the hosts first, then the switches, in topology order, as
// tools/ns3conv numbers them); shared carries what every switch takes
// alike (ns-3's ECMP, HPCC-PINT's telemetry).
func (s *Scenario) switchConfig(name string, tier, node int, net *fabric.Network, shared *fabric.SwitchConfig) fabric.SwitchConfig {
	sp := &s.Switch
	c := fabric.SwitchConfig{
		Buffer: sp.Buffer, Alpha: sp.Alpha, AlphaLossy: sp.AlphaLossy, StaticTh: sp.StaticTh, Latency: sp.Latency,
		Reserve: sp.Reserve, XONOffset: sp.XONOffset,
		Classifier: fabric.Classifier{Trust: sp.Trust, DSCPToPrio: sp.DSCPToPrio},
		PFC:        fabric.PFCConfig{Quanta: sp.PFC.Quanta, Refresh: sp.PFC.Refresh, XON: sp.PFC.XON},
		Watchdog:   sp.Watchdog, ECNAtEnqueue: sp.ECN.AtEnqueue,
		Strict: sp.Strict, Weights: sp.Weights, HashFields: sp.HashFields,
		NS3: shared.NS3, NS3Node: uint32(node), PINT: shared.PINT,
	}
	for _, r := range sp.AlphaByRate {
		c.AlphaByRate = append(c.AlphaByRate, fabric.RateAlpha{Rate: r.Rate, Alpha: r.Alpha})
	}
	if tier > 0 && tier < len(sp.Paths) {
		c.Path = sp.Paths[tier]
	}
	if sp.PFC.Enabled {
		c.Lossless = sp.PFC.Priorities
		c.Headroom = func(pt *fabric.Port) unit.Bytes { return s.headroomOf(pt.Rate(), pt.Cable()) }
	}
	if sp.ECN.Enabled {
		c.ECN = redOf[fabric.RED](&sp.ECN, sp.ECN.Base())
		for _, r := range sp.ECN.ByRate {
			c.ECNByRate = append(c.ECNByRate, fabric.RateRED{Rate: r.Rate, ECN: redOf[fabric.RED](&sp.ECN, r)})
		}
	}
	stream := "ecmp"
	if sp.PerSwitchSeed {
		stream = "ecmp/" + name
	}
	c.Seed = net.Streams.Stream(stream).Uint64()
	return c
}

// checkBuffer reports a switch whose headroom and reserves leave no shared
// buffer, at the switch.buffer key, and a computed headroom over what a
// priority group holds (switchSpec refuses a configured one).
func (c *conv) checkBuffer(s *Scenario, r *rawSwitch) {
	if !s.Switch.PFC.Enabled || s.Topo == nil {
		return
	}
	nl := int64(bits.OnesCount8(s.Switch.PFC.Priorities))
	need := make([]int64, len(s.Topo.Nodes))
	for _, l := range s.Topo.Links {
		h := s.headroomOf(l.Rate, l.Cable)
		if h > fabric.MaxHeadroom {
			var at ast.Node
			if r != nil && r.PFC != nil {
				at = r.PFC.Headroom
			}
			c.fail(at, "switch.pfc.headroom", "the %v a %v link on %v of cable needs is over the %v (2GiB less a byte) a priority group holds: set it lower", h, l.Rate, l.Cable, unit.Bytes(fabric.MaxHeadroom))
			return
		}
		for _, n := range []int{l.A, l.B} {
			if s.Topo.Nodes[n].Kind == topo.Switch {
				need[n] += nl * int64(h+s.Switch.Reserve)
			}
		}
	}
	for i, n := range s.Topo.Nodes {
		if need[i] >= int64(s.Switch.Buffer) {
			var node = r
			path := "switch.buffer"
			if node == nil {
				c.errs = append(c.errs, &Error{File: c.file, Path: path, Msg: fmt.Sprintf("the default buffer %v cannot hold %s's lossless headroom and reserves (%d bytes over %d ports): set switch.buffer", s.Switch.Buffer, n.Name, need[i], n.Ports)})
				return
			}
			c.fail(r.Buffer, path, "%v cannot hold %s's lossless headroom and reserves (%d bytes over %d ports); raise it or lower switch.pfc.headroom", s.Switch.Buffer, n.Name, need[i], n.Ports)
			return
		}
	}
}

// RoCEPriorities returns the priorities the switches queue the RoCE data of
// every connection on (bit p = priority p), and whether PFC protects all
// of them.
func (tw *Twin) RoCEPriorities() (uint8, bool) { return tw.rocePriorities(tw.Transport.Conns()) }

func (tw *Twin) rocePriorities(conns []nic.ConnInfo) (uint8, bool) {
	s := tw.Scenario
	var m uint8
	for _, c := range conns {
		if c.Class == packet.ClassRoCE {
			m |= 1 << s.switchPriority(c.DSCP, c.Priority)
		}
	}
	return m, s.lossless(m)
}

// switchPriority is the priority the switches queue a connection's
// packets on: by its DSCP, or the PCP its NIC priority sets.
func (s *Scenario) switchPriority(dscp, prio uint8) uint8 {
	sw := fabric.Classifier{Trust: s.Switch.Trust, DSCPToPrio: s.Switch.DSCPToPrio}
	return sw.Priority(dscp, prio, s.Host.VLAN)
}

// pfcMask is the priorities PFC protects, none when it is off.
func (s *Scenario) pfcMask() uint8 {
	if s.Switch.PFC.Enabled {
		return s.Switch.PFC.Priorities
	}
	return 0
}

// lossless reports whether PFC protects every priority of mask m.
func (s *Scenario) lossless(m uint8) bool { return m&^s.pfcMask() == 0 }

// redOf is the marking profile of each priority's queue at a port with
// thresholds r: the ECN priorities mark, the others do not.
func redOf[R fabric.RED | fluid.RED](e *ECNSpec, r RateECN) [8]R {
	var out [8]R
	for p := 0; p < 8; p++ {
		if e.Priorities&(1<<p) != 0 {
			out[p] = R{Kmin: int64(r.Kmin), Kmax: int64(r.Kmax), Pmax: r.Pmax}
		}
	}
	return out
}
