package scenario

import (
	"bytes"
	"sort"
	"strings"

	"rocelab/internal/cc"
	"rocelab/internal/collective"
	"rocelab/internal/counters"
	"rocelab/internal/fabric"
	"rocelab/internal/gpu"
	"rocelab/internal/metrics"
	"rocelab/internal/nccltests"
	"rocelab/internal/nic"
	"rocelab/internal/packet"
	"rocelab/internal/topo"
	"rocelab/internal/twin"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

var _ twin.Engine = (*Twin)(nil)

// Events implements twin.Engine: the scheduler events executed.
func (tw *Twin) Events() uint64 { return tw.Executed() }

// Observe implements twin.Engine: the packet engine's observation, read
// from the fabric, the NICs and the workloads without changing them.
func (tw *Twin) Observe() twin.Observation {
	s, net := tw.Scenario, tw.Net
	end := net.Now()
	conns := tw.Transport.Conns()
	rp, rl := tw.rocePriorities(conns)
	o := twin.Observation{
		Engine:   twin.EngineInfo{Name: twin.Packet, NotModelled: []string{}, Parallel: tw.parallel()},
		Scenario: s.setup(headrooms(net), rp, rl),
		Sim:      twin.Sim{End: end, Completed: tw.Done(), Events: tw.Events()},
		Totals:   totals(net),
		Config:   s.setting(net.PFCEnabled),
	}
	rates := s.portRates()
	node := map[fabric.Node]int{}
	for i, n := range tw.Nodes {
		node[n] = i
	}
	hosts := make([]string, len(tw.NICs))
	for i, n := range tw.NICs {
		hosts[i] = n.Name()
	}
	tw.Workloads.observe(&o, hosts, func(qp workload.QP) ConnStat {
		c := &conns[qp]
		return ConnStat{Delivered: c.Delivered, Retransmitted: c.Retransmit, LastDelivery: c.LastDelivery}
	})
	o.Latency = prioLatencies(net.Latency())
	names := fabric.NewEthtoolNames()
	for _, pt := range net.Ports {
		_, isSwitch := pt.Node().(*fabric.Switch)
		snap := pt.Snapshot()
		peer := ""
		if pt.Peer() != nil {
			peer = pt.Peer().Name()
		}
		o.Ports = append(o.Ports, twin.Port{Name: pt.Name(), Peer: peer, Switch: isSwitch, LineRate: rates[[2]int{node[pt.Node()], pt.Index()}],
			Counters: snap.Ethtool(names, net.PFCEnabled, isSwitch)})
	}
	for _, n := range tw.NICs {
		snap := n.Port().Snapshot()
		o.NICs = append(o.NICs, twin.NIC{Name: n.Name(), Port: n.Port().ID(), Rate: n.Port().Rate(),
			HW: n.HW.List(), IB: ibPortCounters(&snap),
			Reorder: twin.Reorder{Packets: n.HW.Reordered, MaxPSNs: n.HW.ReorderMax, PlacedOutOfOrder: n.HW.PlacedOutOfOrder}})
	}
	s.nameNICs(o.NICs)
	// Modelled, even when none: empty, not absent.
	o.Queues, o.QPs = []twin.Queue{}, []twin.QPSeries{}
	for _, q := range net.QueueSeries() {
		o.Queues = append(o.Queues, twin.Queue{Port: q.Switch.Port(q.Port).Name(), Priority: q.Prio,
			MaxBytes: q.Switch.QueueMax(q.Port, q.Prio), Depth: q.Bytes.Points(), Levels: queueLevels(q.Switch, q.Port, q.Prio)})
	}
	o.Pauses = tw.pauseSeries()
	for _, n := range tw.NICs {
		for _, q := range n.Series() {
			c := &conns[q.Conn]
			o.QPs = append(o.QPs, twin.QPSeries{Host: n.Name(), Flow: c.Tag, RateGbps: q.Rate.Points(), Alpha: q.Alpha.Points(), Delivered: c.Delivered})
		}
	}
	o.Uplinks = append([]twin.Uplink{}, tw.uplinks()...)
	o.Basis = tw.healthBasis(conns, rp, rl)
	o.Health = o.Basis.Grade(end)
	return o
}

// parallel describes how the run was split and how its windows went.
func (tw *Twin) parallel() *twin.Parallel {
	p, window, st := tw.RunStats()
	out := &twin.Parallel{Threads: tw.run.Workers, Auto: tw.auto, Domains: p.Domains, Load: p.Load, Window: window, Windows: st.Windows, Linked: st.Linked,
		DomainEvents: st.PartEvents, CriticalEvents: st.CriticalEvents, ControlEvents: st.ControlEvents, PathEvents: st.PathEvents,
		RunPathEvents:  st.RunPathEvents,
		HomePathEvents: st.HomePathEvents, CrossEvents: st.CrossEvents,
		Solo: st.Solo, ByControl: st.ByControl, ByReply: st.ByReply, ByLookahead: st.ByLookahead,
		ControlSteps: st.ControlSteps, Held: st.Held, Blocked: st.Blocked}
	var work, wait int64
	for i := range st.WorkerNS {
		work += st.WorkerNS[i]
		wait += st.WaitNS[i]
	}
	if work+wait > 0 {
		out.WaitShare = float64(wait) / float64(work+wait)
		out.ControlShare = float64(st.ControlNS) / float64(st.ControlNS+(work+wait)/int64(len(st.WorkerNS)))
	}
	if st.MeanNS > 0 {
		out.SlowestOverMean = float64(st.SlowestNS) / float64(st.MeanNS)
	}
	return out
}

// setup describes s for an observation, with the headroom sizes in use and
// the priorities RoCE rides.
func (s *Scenario) setup(headroom []int64, roce uint8, lossless bool) twin.Setup {
	cc := s.Host.NIC.CC
	if cc == "dcqcn" {
		cc += " (" + s.Host.NIC.DCQCN.Preset + ")"
	}
	out := twin.Setup{
		Name: s.Name, File: s.File, Seed: s.Seed, Topology: s.Topo.Kind,
		Hosts: len(s.Topo.Hosts), Switches: len(s.Topo.Nodes) - len(s.Topo.Hosts), Links: len(s.Topo.Links),
		Oversubscription: s.Topo.Oversubscription, MTU: s.Host.MTU, PFC: s.Switch.PFC.Enabled,
		LosslessPrios: twin.Priorities(s.Switch.PFC.Priorities), HeadroomBytes: headroom,
		CC: cc, CCPrioMask: s.Host.NIC.CCPrioMask, RoCEPriorities: twin.Priorities(roce), RoCELossless: lossless,
		SwitchLatencyNS: float64(s.Switch.Latency) / float64(unit.Nanosecond),
		ECMP:            s.ecmpModel(),
	}
	if t := s.Topo; t.Servers > 0 {
		out.Servers = &twin.Servers{Count: t.Servers, GPUs: t.GPUsPerServer, NICs: t.NICsPerServer, RailOptimized: t.RailOptimized}
		if s.Workload != nil {
			out.Servers.PCIe = serverPCIe(&s.Workload.System)
			out.Servers.PeerMem, out.Servers.Bond = s.Workload.System.Server.PeerMem, s.Workload.System.Server.Bond
		}
	}
	return out
}

// serverPCIe is the PCIe side of the job's servers, for the --out lspci.
func serverPCIe(sys *collective.System) *twin.ServerPCIe {
	srv := sys.Server
	models := sys.Models
	if len(models) == 0 {
		models = []gpu.Model{srv.GPU}
	}
	p := &twin.ServerPCIe{GPULink: srv.GPUPCIe, NICLink: srv.NICPCIe, NICWidth: srv.NICPCIeWidth,
		CPU: strings.ToLower(srv.CPU.String()), ACS: srv.ACS, CardPorts: max(srv.CardPorts, 1)}
	for _, m := range models {
		p.GPUs = append(p.GPUs, m.Name)
		p.GPUGen = append(p.GPUGen, m.PCIe)
	}
	for g := 0; g < srv.GPUs; g++ {
		p.Paths = append(p.Paths, srv.PathOf(g).String())
	}
	return p
}

// queueLevels are the ECN and XOFF levels of a switch port's queue of
// priority prio.
func queueLevels(sw *fabric.Switch, port, prio int) *twin.QueueLevels {
	cfg := sw.Config()
	lv := &twin.QueueLevels{}
	if r := sw.RED(port, prio); r.Enabled() {
		lv.ECN = &twin.ECNLevels{KminBytes: r.Kmin, KmaxBytes: r.Kmax, Pmax: r.Pmax}
	}
	if cfg.Lossless&(1<<prio) != 0 {
		s, a := float64(sw.SharedSize()), sw.Alpha(port)
		x := int64(cfg.Reserve) + int64(a*s/(1+a))
		if cfg.StaticTh > 0 {
			x = int64(cfg.Reserve + cfg.StaticTh)
		}
		lv.XoffBytes = &x
	}
	return lv
}

// portRates maps (topology node, port) to the nominal rate of its link.
func (s *Scenario) portRates() map[[2]int]unit.BitRate {
	rates := map[[2]int]unit.BitRate{}
	for _, l := range s.Topo.Links {
		rates[[2]int{l.A, l.PA}], rates[[2]int{l.B, l.PB}] = l.Rate, l.Rate
	}
	return rates
}

// nameNICs names each host NIC (by host index) as its machine shows it.
func (s *Scenario) nameNICs(nics []twin.NIC) {
	for i := range nics {
		m := s.machineNames(i)
		n := &nics[i]
		n.Machine, n.Device, n.Netdev, n.IP, n.MTU = m.Host, m.Device, m.Netdev, m.IP.String(), int(s.Host.MTU)
	}
}

// setting is the QoS, DCQCN and ECN configuration of s's hosts and
// switches; pfc is the priorities with PFC in effect.
func (s *Scenario) setting(pfc uint8) twin.Setting {
	out := twin.Setting{Trust: "dscp", PFC: pfc, DSCP: s.Host.DSCPToPrio}
	if s.Host.Trust == fabric.TrustPCP {
		out.Trust = "pcp"
	}
	if c := s.Host.NIC.DCQCN.Config; c != nil {
		for p := 0; p < 8; p++ {
			if c.Enabled(p) {
				out.CCEnabled |= 1 << p
			}
		}
		// Knobs that are not mlx5's, and the priority mask, which is an
		// mlxconfig setting, have no sysfs file.
		for _, k := range cc.Knobs() {
			if k.Extension || (k.Point != "np" && k.Point != "rp") {
				continue
			}
			if v, err := c.Get(k.Name); err == nil {
				out.DCQCN = append(out.DCQCN, twin.Param{Role: k.Point, Name: k.Name, Value: v})
			}
		}
	}
	if e := s.Switch.ECN; e.Enabled {
		out.ECN = &twin.ECNProfile{Kmin: e.Kmin, Kmax: e.Kmax, Pmax: e.Pmax}
	}
	return out
}

// ibPortCounters derives the IB port counters of a NIC's port (counters/)
// from its physical-port counters, as mlx5 exposes them: all of the port's
// traffic is RoCE, and data counts in 4-byte words.
func ibPortCounters(c *fabric.Counters) []twin.Counter {
	t := counters.Default()
	name := func(cn counters.Concept, d counters.Dir) string {
		return t.Name(counters.MLX5, counters.PortCounters, cn, d, 0)
	}
	return []twin.Counter{
		{Name: name(counters.PortXmitData, counters.TX), Value: c.TxPhyBytes / 4},
		{Name: name(counters.PortRcvData, counters.RX), Value: c.RxPhyBytes / 4},
		{Name: name(counters.PortXmitPackets, counters.TX), Value: c.TxPhyPackets},
		{Name: name(counters.PortRcvPackets, counters.RX), Value: c.RxPhyPackets},
	}
}

// totals converts the network's totals.
func totals(net *fabric.Network) *twin.Totals {
	t := net.Totals()
	d := func(c fabric.Count) twin.Data { return twin.Data{Packets: c.Packets, Bytes: c.Bytes} }
	out := &twin.Totals{
		Sent: d(t.Sent), Retransmitted: d(t.Retransmitted), Delivered: d(t.Delivered),
		Dropped: d(t.Dropped), Discarded: d(t.Discarded), InFlight: d(net.InFlight()),
		Frames: map[string]int64{}, FramesDropped: map[string]int64{}, DropsByReason: map[string]int64{},
		PauseFrames: t.PauseFrames, ECNMarked: t.ECNMarked,
	}
	for k := packet.Kind(0); k < packet.NumKinds; k++ {
		out.Frames[k.String()] = t.Frames[k]
		out.FramesDropped[k.String()] = t.DroppedByKind[k]
	}
	for _, r := range fabric.DropReasons() {
		out.DropsByReason[r.String()] = t.DropsByReason[r]
	}
	return out
}

// headrooms lists the distinct per-PG headroom sizes in use.
func headrooms(net *fabric.Network) []int64 {
	seen := map[int64]bool{}
	out := []int64{}
	for _, sw := range net.Switches {
		for i := range sw.Ports() {
			if h := sw.Headroom(i); h > 0 && !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// uplinks lists the bytes routed over each uplink, by tier.
func (tw *Twin) uplinks() []twin.Uplink {
	t := tw.Scenario.Topo
	var out []twin.Uplink
	for _, l := range t.Links {
		if !l.Uplink {
			continue
		}
		lo, port := l.A, l.PA
		if t.Nodes[l.B].Tier < t.Nodes[l.A].Tier {
			lo, port = l.B, l.PB
		}
		sw := tw.Nodes[lo].(*fabric.Switch)
		level := t.Nodes[lo].Tier
		out = append(out, twin.Uplink{Level: level, Tier: tierName(t, level), Port: sw.Port(port).Name(), Bytes: sw.Routed(port)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Level < out[j].Level })
	return out
}

// tierName names the uplinks from switches of a level (1 = leaf or edge).
func tierName(t *topo.Topology, level int) string {
	switch {
	case level == 2:
		return "aggregation→core"
	case t.Kind == "fat-tree":
		return "edge→aggregation"
	case t.Kind == "dumbbell":
		return "trunk"
	}
	return "leaf→spine"
}

// StallRTTs is how many base round trips a RoCE data packet may wait for
// its acknowledgement before it counts as stalled rather than in flight:
// far more than any queue the examples build takes to drain (a 16:1 incast
// into a 2 MB queue at 100G adds 160 µs, some 40 base RTTs).
const StallRTTs = 250

// StallAfter is how long a packet waits unacknowledged before it is
// stalled: StallRTTs base round trips, and never less than 100 µs (ten
// times the P99 goal).
func StallAfter(baseRTT unit.Time) unit.Time {
	return max(StallRTTs*baseRTT, 100*unit.Microsecond)
}

// healthBasis collects what the health targets are graded on, for the
// traffic the scenario declares as RoCE (every RDMA connection), whatever
// priority the switches put it on.
func (tw *Twin) healthBasis(conns []nic.ConnInfo, roce uint8, lossless bool) twin.HealthBasis {
	net := tw.Net
	tot := net.Totals()
	b := twin.HealthBasis{
		RoCELatency: net.Latency().ClassHistogram(packet.ClassRoCE),
		Receivers:   make([]twin.Window, len(tw.NICs)),
		RoCESent:    tot.RoCESent.Packets, RoCEDropped: tot.RoCEDropped.Packets,
		RoCEPriorities: roce, RoCELossless: lossless,
	}
	for h, n := range tw.NICs {
		b.Receivers[h].Rate = n.Port().Rate()
	}
	end := net.Now()
	for _, c := range conns {
		if !c.Started {
			continue
		}
		until := c.LastDelivery
		if c.Pending || c.Failed {
			until = end
		}
		b.Receivers[c.Dst].Add(c.FirstSend, until, c.Delivered)
	}
	// Packets a connection sent and no ACK covered are in flight, queued,
	// held by a paused port, or lost and waiting to be resent. Those first
	// sent longer ago than the stall bound are stalled, each at least as
	// late as its age.
	b.StallAfter = StallAfter(tw.Scenario.BaseRTT())
	var ages []metrics.Value
	for _, c := range conns {
		if !c.Pending || c.Class != packet.ClassRoCE {
			continue
		}
		bound := b.StallAfter
		if c.Timeout > 0 {
			bound = min(bound, c.Timeout)
		}
		for _, r := range c.UnackedBy {
			if age := end - r.At; age > bound {
				b.RoCEStalled += r.Packets
				ages = append(ages, metrics.Value{V: int64(age / unit.Nanosecond), N: r.Packets})
			}
		}
	}
	b.RoCEStalledAge = b.RoCELatency.Sibling(ages)
	for _, pt := range net.Ports {
		b.WorstPause = max(b.WorstPause, pt.LongestPauseHeld())
	}
	return b
}

// testsSweep is the nccl-tests run, nil without one.
func (j *Jobs) testsSweep() *nccltests.Sweep {
	if j == nil {
		return nil
	}
	return j.Sweep
}

// observe is the NCCL workload's outcome, nil without one.
func (j *Jobs) observe() *twin.NCCL {
	if j == nil {
		return nil
	}
	n := &twin.NCCL{}
	if s := j.Sweep; s != nil {
		n.Comm = s.Comm.Describe()
		n.Tuning = s.Explain()
		n.Completed = s.Done() && s.Err == nil
		var b bytes.Buffer
		if _, err := s.WriteTo(&b); err == nil {
			n.Tests = b.String()
		}
		n.AvgBusBW = s.AvgBusBW()
		for i, r := range s.Rows {
			row := twin.TestsRow{Bytes: r.Size, OutTimeUS: r.Out.Time, OutBusBW: r.Out.BusBW, InTimeUS: r.In.Time, InBusBW: r.In.BusBW}
			if ch := s.RowChoice(i); ch != "" {
				row.Algo = ch
			}
			n.Rows = append(n.Rows, row)
		}
		if s.Err != nil {
			n.Err = s.Err.Error()
		}
	}
	if w := j.Training; w != nil {
		r := w.Report
		n.Completed = w.Done() && w.Err == nil
		n.Training = &twin.TrainingResult{Iterations: r.Iterations, IterationUS: twin.US(r.Iteration), ComputeUS: twin.US(r.Compute), TPUS: twin.US(r.TP),
			CommUS: twin.US(r.Communication()), PPTransferUS: twin.US(r.PP), DPAllReduceUS: twin.US(r.DP), Summary: r.String()}
		if w.Err != nil {
			n.Err = w.Err.Error()
		}
	}
	if bg := j.Background; bg != nil {
		n.Background = bg.Summary()
	}
	return n
}

// pauseSeries collects the domains' pause series, by port and priority
// whatever the partitioning.
func (tw *Twin) pauseSeries() []twin.PortPause {
	var all []*fabric.PauseSeries
	for _, s := range tw.pauses {
		all = append(all, s.Series()...)
	}
	sort.Slice(all, func(i, j int) bool {
		if a, b := all[i].Port.ID(), all[j].Port.ID(); a != b {
			return a < b
		}
		return all[i].Prio < all[j].Prio
	})
	out := []twin.PortPause{}
	for _, p := range all {
		out = append(out, twin.PortPause{Port: p.Port.Name(), Priority: p.Prio, Held: p.Held.Points()})
	}
	return out
}

// prioLatencies is the latency histogram of each priority that carried
// packets, in priority order: the same on either engine.
func prioLatencies(lat *metrics.Latency) []twin.PrioLatency {
	out := []twin.PrioLatency{}
	for p := 0; p < 8; p++ {
		if lat.Count(p) > 0 {
			out = append(out, twin.PrioLatency{Priority: p, Hist: lat.Histogram(p)})
		}
	}
	return out
}
