package scenario

import (
	"fmt"

	"rocelab/internal/fabric"
	"rocelab/internal/fluid"
	"rocelab/internal/qos"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// FluidTwin is a scenario assembled on the fluid (flow-level) engine. It
// is a twin.Engine: the embedded engine carries the workloads.
type FluidTwin struct {
	*fluid.Engine
	Scenario *Scenario
	// Workloads are the traffic the engine carries.
	*Workloads
}

// BuildFluid assembles the scenario's traffic and jobs on the fluid
// engine, with the same topology, routes, seeds and QoS as Build.
func BuildFluid(s *Scenario) (*FluidTwin, error) {
	e, err := fluid.New(s.FluidConfig())
	if err != nil {
		return nil, err
	}
	w, err := s.NewWorkloads()
	if err != nil {
		return nil, err
	}
	e.Start(w.List()...)
	return &FluidTwin{Scenario: s, Workloads: w, Engine: e}, nil
}

// trafficFlows turns the scenario's flows into the Flows workload's; with
// ns-3's ECMP, each takes the UDP source port ns-3 gives it.
func (s *Scenario) trafficFlows(fs []FlowSpec) []workload.Flow {
	var ports []uint16
	if s.Switch.NS3 {
		ports = NS3SourcePorts(fs)
	}
	flows := make([]workload.Flow, len(fs))
	for i, f := range fs {
		flows[i] = workload.Flow{
			Name: f.Name, Src: f.Src, Dst: f.Dst, Bytes: int64(f.Bytes), Start: f.Start, After: f.After, AfterCount: f.AfterCount,
			Opts: workload.QPOptions{SetTC: true, TC: f.DSCP << 2, PinPriority: true, Priority: f.Priority, RateCap: f.Rate, Tag: f.Name},
		}
		if ports != nil {
			flows[i].Opts.SrcPort = ports[i]
		}
	}
	return flows
}

// FluidConfig returns what the fluid engine needs of s.
func (s *Scenario) FluidConfig() *fluid.Config {
	h, n, sw := &s.Host, &s.Host.NIC, &s.Switch
	c := &fluid.Config{
		Seed: s.Seed, Topo: s.Topo, Duration: s.Duration,
		MTU: h.MTU, TCPMSS: min(int32(sw.PFC.MTU)-52, 9000-52), VLAN: h.VLAN, DSCP: h.DSCP,
		NIC: qos.Classifier{Trust: h.Trust, DSCPToPrio: h.DSCPToPrio}, NICPriority: h.Priority,
		NICStrict: n.Strict, NICWeights: n.Weights,
		Switch:       qos.Classifier{Trust: sw.Trust, DSCPToPrio: sw.DSCPToPrio},
		SwitchStrict: sw.Strict, SwitchWeights: sw.Weights, SwitchLatency: sw.Latency,
		Hash: sw.HashFields, PerSwitchSeed: sw.PerSwitchSeed, NS3: s.NS3ECMP(),
		ClockPPM: s.PHY.ClockPPM,
		Timeout:  n.Timeout, RetryCnt: n.RetryCnt, TCPRTO: n.TCPRTO, AckCoalesce: n.AckCoalesce, CompletionDelay: DefaultCompletionDelay,
		PFCQuanta: sw.PFC.Quanta, PFCRefresh: sw.PFC.Refresh,
		Buffer: int64(sw.Buffer), Alpha: sw.Alpha, Reserve: int64(sw.Reserve),
		ECT: h.ECN, DCQCN: n.DCQCN.Config,
	}
	if s.PHY.Auto {
		c.Jitter = func(r unit.BitRate) unit.Time { return r.TxTime(FECCodeword(r)) }
	} else if j := s.PHY.FECJitter; j > 0 {
		c.Jitter = func(unit.BitRate) unit.Time { return j }
	}
	if sw.PFC.Enabled {
		c.Lossless = sw.PFC.Priorities
		c.Headroom = func(r unit.BitRate, l unit.Length) int64 { return int64(s.headroomOf(r, l)) }
	}
	if sw.ECN.Enabled {
		c.ECN = redOf[fluid.RED](&sw.ECN, sw.ECN.Base())
		for _, r := range sw.ECN.ByRate {
			c.ECNByRate = append(c.ECNByRate, fluid.RateRED{Rate: r.Rate, ECN: redOf[fluid.RED](&sw.ECN, r)})
		}
	}
	for i, f := range s.Faults {
		if f.Kind == "loss" {
			c.Losses = append(c.Losses, fluid.Loss{Link: f.Link, Rate: f.Rate, Burst: f.Burst, Start: f.Start, End: f.End})
			continue
		}
		c.Unsupported = append(c.Unsupported, fmt.Sprintf("fault %d (%s): only loss faults are modelled", i, f.Kind))
	}
	if len(sw.AlphaByRate) > 0 {
		c.Unsupported = append(c.Unsupported, "switch.alpha_by_rate: PFC queues are sized with switch.alpha at every port")
	}
	if n.DrainRate > 0 {
		c.Unsupported = append(c.Unsupported, "host.nic.drain_rate: a host slower than its link (receive buffer, host PFC)")
	}
	if n.Adaptive {
		c.Unsupported = append(c.Unsupported, "adaptive retransmission: lost tails wait the full local ACK timeout")
	}
	for tier, p := range sw.Paths {
		if p.Mode != fabric.PathECMP {
			c.Unsupported = append(c.Unsupported, fmt.Sprintf("switch.load_balancing %v at tier %d: every flow is hashed with ECMP", p.Mode, tier))
		}
	}
	if n.CC == "timely" || n.CC == "hpcc" || n.CC == "hpcc-pint" || n.CC == "dctcp" {
		c.Unsupported = append(c.Unsupported, "host.cc "+n.CC+": the fluid engine models DCQCN only; these flows run without congestion control")
	}
	if w := s.Workload; w != nil {
		for _, b := range w.Background {
			if b.Op == workload.Read {
				c.Unsupported = append(c.Unsupported, "RDMA READ (workload.background "+b.Name+"): the fluid engine refuses READs; the packet engine carries them")
				break
			}
		}
	}
	if n.OutOfOrder || n.SelectiveRepeat {
		c.Unsupported = append(c.Unsupported, "host.qp out-of-order receive and selective repeat: losses are recovered by go-back-N")
	}
	if n.KeepPendingGap {
		c.Unsupported = append(c.Unsupported, "host.qp.rate_change next_packet: a fluid flow takes each new rate at once")
	}
	if n.AcksFirst {
		c.Unsupported = append(c.Unsupported, "host.qp.acks_first: the fluid engine sends no ACKs")
	}
	if n.QPOrderByIndex {
		c.Unsupported = append(c.Unsupported, "host.qp.order index: a fluid NIC shares its rate among its flows, in no order")
	}
	return c
}
