package scenario

import (
	"fmt"
	"math/bits"

	"rocelab/internal/fabric"
	"rocelab/internal/nic"
	"rocelab/internal/topo"
	"rocelab/internal/unit"
)

// Twin is an assembled, runnable scenario.
type Twin struct {
	Scenario *Scenario
	// Flows are the scenario's flows expanded with its seed, indexed like
	// the network's.
	Flows []FlowSpec
	Net   *fabric.Network
	Hosts []*nic.Standin
	// Nodes maps topology node index to the fabric node.
	Nodes []fabric.Node
}

// Build assembles the fabric, hosts, flows and faults of s.
func Build(s *Scenario) (*Twin, error) {
	net := fabric.NewNetwork(s.Seed)
	tw := &Twin{Scenario: s, Net: net, Flows: s.Expand()}
	ports := make([][]*fabric.Port, len(s.Topo.Nodes))
	routes := s.Topo.Routes()
	hostCfg := nic.Config{MTU: s.Host.MTU, VLAN: s.Host.VLAN, ECT: s.Host.ECN, DSCPToPrio: s.Host.DSCPToPrio, Trust: s.Host.Trust}
	for i, n := range s.Topo.Nodes {
		switch n.Kind {
		case topo.Host:
			h := nic.NewStandin(net, int32(len(tw.Hosts)), n.Name, hostCfg)
			net.AddHost(h)
			tw.Hosts = append(tw.Hosts, h)
			tw.Nodes = append(tw.Nodes, h)
			ports[i] = []*fabric.Port{h.Port()}
		case topo.Switch:
			sw := net.NewSwitch(n.Name, n.Ports, s.switchConfig(n.Name, net))
			sw.SetRoutes(routes[i])
			tw.Nodes = append(tw.Nodes, sw)
			ports[i] = sw.Ports()
		}
	}
	for _, l := range s.Topo.Links {
		net.Link(ports[l.A][l.PA], ports[l.B][l.PB], l.Rate, l.Cable)
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
	net.Lossless = s.Switch.PFC.Priorities
	if s.Switch.PFC.Enabled {
		net.PFCEnabled = s.Switch.PFC.Priorities
	}
	sport := net.Streams.Stream("flows/udp-sport")
	for i, f := range tw.Flows {
		after := make([]int32, len(f.After))
		for j, a := range f.After {
			after[j] = int32(a)
		}
		err := net.AddFlow(fabric.Flow{
			Src: int32(f.Src), Dst: int32(f.Dst), Bytes: int64(f.Bytes), Start: f.Start, After: after,
			DSCP: f.DSCP, Prio: f.Priority, Rate: f.Rate,
			// RoCEv2 source ports for QPs come from the dynamic range.
			SrcPort: uint16(49152 + sport.IntN(16384)),
			DstQP:   uint32(0x100 + i),
		})
		if err != nil {
			return nil, err
		}
	}
	for _, f := range s.Faults {
		if f.Kind == "pause_storm" {
			tw.Hosts[f.Host].PauseStorm(f.Priority, f.Start, f.End, fabric.PFCConfig{Quanta: s.Switch.PFC.Quanta, XON: true})
		}
	}
	net.SampleQueues(s.SampleInterval)
	return tw, nil
}

// switchConfig is the fabric configuration of switch name.
func (s *Scenario) switchConfig(name string, net *fabric.Network) fabric.SwitchConfig {
	sp := &s.Switch
	c := fabric.SwitchConfig{
		Buffer: sp.Buffer, Alpha: sp.Alpha, AlphaLossy: sp.AlphaLossy,
		Reserve: sp.Reserve, XONOffset: sp.XONOffset,
		Trust: sp.Trust, DSCPToPrio: sp.DSCPToPrio,
		PFC:      fabric.PFCConfig{Quanta: sp.PFC.Quanta, Refresh: sp.PFC.Refresh, XON: sp.PFC.XON},
		Watchdog: sp.Watchdog, ECNAtEnqueue: sp.ECN.AtEnqueue,
		Strict: sp.Strict, Weights: sp.Weights, HashFields: sp.HashFields,
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
