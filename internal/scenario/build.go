package scenario

import (
	"fmt"
	"math/bits"

	"rocelab/internal/fabric"
	"rocelab/internal/fault"
	"rocelab/internal/nic"
	"rocelab/internal/packet"
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

	links  []fabricLink
	down   fault.LinkState
	pauses *fabric.PauseSampler
}

// fabricLink is a topology link's two fabric ports.
type fabricLink struct{ a, b *fabric.Port }

// Build assembles the fabric, NICs, traffic and faults of s.
func Build(s *Scenario) (*Twin, error) {
	net := fabric.NewNetwork(s.Seed)
	w, err := s.NewWorkloads()
	if err != nil {
		return nil, err
	}
	tw := &Twin{Scenario: s, Net: net, Workloads: w}
	ports := make([][]*fabric.Port, len(s.Topo.Nodes))
	routes := s.Topo.Routes()
	ncfg, err := s.nicConfig()
	if err != nil {
		return nil, err
	}
	for i, n := range s.Topo.Nodes {
		switch n.Kind {
		case topo.Host:
			h := nic.New(net, int32(len(tw.NICs)), n.Name, ncfg)
			if err := net.AddHost(h); err != nil {
				return nil, err
			}
			tw.NICs = append(tw.NICs, h)
			tw.Nodes = append(tw.Nodes, h)
			ports[i] = []*fabric.Port{h.Port()}
		case topo.Switch:
			sw := net.NewSwitch(n.Name, n.Ports, s.switchConfig(n.Name, n.Tier, net))
			sw.SetRoutes(routes[i])
			tw.Nodes = append(tw.Nodes, sw)
			ports[i] = sw.Ports()
		}
	}
	for _, l := range s.Topo.Links {
		a, b := ports[l.A][l.PA], ports[l.B][l.PB]
		net.Link(a, b, l.Rate, l.Cable)
		tw.links = append(tw.links, fabricLink{a, b})
	}
	for _, pt := range net.Ports {
		if pt.Peer() == nil {
			continue
		}
		rng := net.Streams.Stream("phy/" + pt.Name())
		ppm := (2*rng.Float64() - 1) * s.PHY.ClockPPM
		jitter := s.PHY.FECJitter
		if s.PHY.Auto {
			jitter = pt.Rate().TxTime(FECCodeword(pt.Rate()))
		}
		pt.SetPHY(ppm, jitter, rng)
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
		net.AddSampler(h)
	}
	if s.Switch.PFC.Enabled {
		net.PFCEnabled = s.Switch.PFC.Priorities
	}
	tw.Transport = nic.NewTransport(net, tw.NICs)
	tw.Transport.Start(w.List()...)
	tw.down.Down = make([]bool, len(s.Topo.Links))
	for i, f := range s.Faults {
		tw.addFault(i, f)
	}
	tw.pauses = fabric.NewPauseSampler(net.Ports, s.SampleInterval)
	net.AddSampler(tw.pauses)
	net.SampleQueues(s.SampleInterval)
	return tw, nil
}

// addFault arms one fault.
func (tw *Twin) addFault(i int, f FaultSpec) {
	s, net := tw.Scenario, tw.Net
	switch f.Kind {
	case "pause_storm":
		pt := tw.NICs[f.Host].Port()
		pt.SetPFC(fabric.PFCConfig{Quanta: s.Switch.PFC.Quanta, XON: true})
		(&fault.PauseStorm{Port: pt, Priority: f.Priority, Start: f.Start, End: f.End}).Schedule(net.Sched)
	case "loss":
		l := tw.links[f.Link]
		params := fault.Bernoulli(f.Rate)
		if f.Burst > 1 {
			params = fault.GilbertElliott(f.Rate, f.Burst)
		}
		params.Start, params.End = f.Start, f.End
		for side, pt := range []*fabric.Port{l.a, l.b} {
			m := fault.NewLoss(params, net.Streams.Stream(fmt.Sprintf("fault/%d/loss/%d", i, side)))
			pt.SetLoss(m)
			tw.Losses = append(tw.Losses, m)
		}
	case "link_down":
		(&fault.LinkDown{Link: f.Link, Port: tw.links[f.Link].a, Down: f.Start, Up: f.End, Reroute: f.Reroute, Converge: f.Converge}).
			Schedule(net.Sched, &tw.down, tw)
	case "route":
		sw := tw.Nodes[f.Switch].(*fabric.Switch)
		(&fault.Route{Switch: sw, Hosts: f.Hosts, Ports: f.Via, At: f.Start, Until: f.End}).Schedule(net.Sched)
	}
}

// Reroute implements fault.Router: every switch's routes are recomputed
// over the links that are up.
func (tw *Twin) Reroute(down []bool) {
	routes := tw.Scenario.Topo.RoutesAvoiding(down)
	for i, n := range tw.Nodes {
		if sw, ok := n.(*fabric.Switch); ok {
			sw.SetRoutes(routes[i])
		}
	}
}

// RunUntil runs the twin until every workload is done or until limit,
// whichever is first, and returns the simulated time reached. It changes
// nothing beyond running events, so a run split into pieces ends exactly
// as one run does.
func (tw *Twin) RunUntil(limit unit.Time) unit.Time {
	if !tw.Done() {
		tw.Net.Sched.RunUntil(limit)
	}
	return tw.Net.Sched.Now()
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
		Strict:     n.Strict, Weights: n.Weights, TTL: DefaultTTL, SampleQPs: DefaultSampleQPs,
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
	if err := s.applyCC(c); err != nil {
		return nil, err
	}
	return c, nil
}

// switchConfig is the fabric configuration of switch name, of the given
// topology tier.
func (s *Scenario) switchConfig(name string, tier int, net *fabric.Network) fabric.SwitchConfig {
	sp := &s.Switch
	c := fabric.SwitchConfig{
		Buffer: sp.Buffer, Alpha: sp.Alpha, AlphaLossy: sp.AlphaLossy,
		Reserve: sp.Reserve, XONOffset: sp.XONOffset,
		Classifier: fabric.Classifier{Trust: sp.Trust, DSCPToPrio: sp.DSCPToPrio},
		PFC:        fabric.PFCConfig{Quanta: sp.PFC.Quanta, Refresh: sp.PFC.Refresh, XON: sp.PFC.XON},
		Watchdog:   sp.Watchdog, ECNAtEnqueue: sp.ECN.AtEnqueue,
		Strict: sp.Strict, Weights: sp.Weights, HashFields: sp.HashFields,
	}
	if tier > 0 && tier < len(sp.Paths) {
		c.Path = sp.Paths[tier]
	}
	if sp.PFC.Enabled {
		c.Lossless = sp.PFC.Priorities
		c.Headroom = func(pt *fabric.Port) unit.Bytes { return s.headroomOf(pt.Rate(), pt.Cable()) }
	}
	if sp.ECN.Enabled {
		for p := 0; p < 8; p++ {
			if sp.ECN.Priorities&(1<<p) != 0 {
				c.ECN[p] = fabric.RED{Kmin: int64(sp.ECN.Kmin), Kmax: int64(sp.ECN.Kmax), Pmax: sp.ECN.Pmax}
			}
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
// buffer, at the switch.buffer key.
func (c *conv) checkBuffer(s *Scenario, r *rawSwitch) {
	if !s.Switch.PFC.Enabled || s.Topo == nil {
		return
	}
	nl := int64(bits.OnesCount8(s.Switch.PFC.Priorities))
	need := make([]int64, len(s.Topo.Nodes))
	for _, l := range s.Topo.Links {
		for _, n := range []int{l.A, l.B} {
			if s.Topo.Nodes[n].Kind == topo.Switch {
				need[n] += nl * int64(s.headroomOf(l.Rate, l.Cable)+s.Switch.Reserve)
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
	sw := fabric.Classifier{Trust: tw.Scenario.Switch.Trust, DSCPToPrio: tw.Scenario.Switch.DSCPToPrio}
	var m uint8
	for _, c := range conns {
		if c.Class == packet.ClassRoCE {
			m |= 1 << sw.Priority(c.DSCP, c.Priority, tw.Scenario.Host.VLAN)
		}
	}
	pfc := uint8(0)
	if tw.Scenario.Switch.PFC.Enabled {
		pfc = tw.Scenario.Switch.PFC.Priorities
	}
	return m, m&^pfc == 0
}
