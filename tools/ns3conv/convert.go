package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/cc"
	"rocelab/internal/scenario"
	"rocelab/internal/topo"
	"rocelab/internal/unit"
)

// What the HPCC ns-3 model fixes in its code rather than its
// configuration (switch-mmu.cc, third.cc at 9f4be2a): every ingress queue's
// reserve, the XON offset below the PFC threshold, the dynamic threshold's
// share of the free pool at ports of the NIC's speed (a right shift by 3),
// the headroom of a port (three times the link's bandwidth-delay product),
// and the first sport of each host pair's flows (scenario.NS3SourcePorts).
//
// ns-3's switches hash ECMP with their node id as the seed: the same
// flows always take the same paths. The converter writes the scenario's
// seed into the flows' destination port, which the hash reads, so that
// each seed draws other paths in ns-3 as it does in rocelab; or the port
// switch.ecmp.dst_port gives. A scenario with switch.ecmp.model ns3 takes
// ns-3's hash and so its paths (ecmp.NS3); with rocelab's own hash single
// flows' paths differ between the two, a seed's statistics less, their
// average over seeds less again.
const (
	ns3Reserve    = 4 * unit.KiB
	ns3XONOffset  = 3 * unit.KiB
	ns3AlphaShift = 3
)

// ns-3's CC_MODE of each congestion control the converter maps.
const (
	ns3DCQCN  = 1
	ns3HPCC   = 3
	ns3Timely = 7
	ns3DCTCP  = 8
	ns3PINT   = 10
)

// ns3Mode returns the CC_MODE of host.cc, 0 for one the converter does not
// map.
func ns3Mode(cc string) int {
	switch cc {
	case "dcqcn":
		return ns3DCQCN
	case "hpcc":
		return ns3HPCC
	case "timely":
		return ns3Timely
	case "dctcp":
		return ns3DCTCP
	case "hpcc-pint":
		return ns3PINT
	}
	return 0
}

// ns3RateChange returns the host.qp.rate_change that takes a new rate as
// ns-3's CC_MODE mode does, with how ns-3 does it: DCQCN, TIMELY and
// DCTCP assign m_rate and leave the QP's next send where the last send put
// it; HPCC and PINT call ChangeRate, which moves it to one packet time at
// the new rate after the last send, later at a cut, and for a QP its
// window holds too. "" for no CC.
func ns3RateChange(mode int) (value, how string) {
	switch mode {
	case ns3DCQCN, ns3Timely, ns3DCTCP:
		return "next_packet", "assigns the new rate without moving the QP's next send"
	case ns3HPCC, ns3PINT:
		return "retime_all", "re-times the QP's next send at every new rate, a cut too"
	}
	return "", ""
}

// rateChange returns host.qp.rate_change as the scenario set it.
func rateChange(n *scenario.NICSpec) string {
	switch {
	case n.KeepPendingGap:
		return "next_packet"
	case n.RetimeAll:
		return "retime_all"
	}
	return "retime"
}

// ns-3's data packet is its payload and ns3DataHeaders bytes on the
// wire: the model's PppHeader, 14 bytes in Ethernet's place
// (ppp-header.cc), IPv4 20, UDP 8 and the sequence header 6
// (seq-ts-header.cc), which carries the INT header of the congestion
// control besides: TIMELY's 8-byte timestamp, HPCC's 5 hops (42),
// HPCC-PINT's 2. Its INT (int-header.h) counts a port's bytes in units of
// ns3INTByteUnit × INT_MULTI; an HPCC data packet carries ns3HPCCOverhead
// bytes besides its payload.
const (
	ns3DataHeaders  = 48
	ns3INTByteUnit  = 128
	ns3HPCCINT      = 42 // HPCC's INT header, 5 hops
	ns3HPCCOverhead = ns3DataHeaders + ns3HPCCINT
)

// ns3IntMulti is the INT_MULTI the converter writes: run.py's bw/25, which
// keeps INT's 20-bit byte counter and 17-bit queue length in range at high
// rates, but no larger than keeps the counter's unit within one data
// packet. With a larger unit, consecutive ACKs of a QP often read the same
// count, and ns-3's HPCC (RdmaHw::UpdateRateHp, MULTI_RATE 0) takes a hop's
// sample only when its utilisation is above 0, the maximum's start: the
// time of an ACK that saw no byte is dropped, the next ACK's unit is
// counted over one interval, and U reads about twice the link's use, so
// HPCC holds its QPs near half the rate (at 400G with 1 KB payloads, bw/25
// = 16: a lone 5.5 MB flow took 233 µs in ns-3, 131 µs with INT_MULTI 1 to
// 8, rocelab's 132 µs; docs/engine.md). rocelab's INT is exact.
func ns3IntMulti(rate unit.BitRate, payload int) int64 {
	return max(1, min(int64(rate/(25*unit.Gbps)), int64(payload+ns3HPCCOverhead)/ns3INTByteUnit))
}

// ns3Headroom is the headroom third.cc gives a switch port of link l
// (ns3PortHeadroom).
func ns3Headroom(l topo.LinkSpec) unit.Bytes { return ns3PortHeadroom(l.Rate, l.Cable.Delay()) }

// files are the inputs of ns-3's scratch/third: its configuration and the
// files the configuration names.
type files struct {
	config, topology, flow, trace string
	// flows are the scenario's flows in flow.txt's order, each with the
	// sport ns-3 gives it.
	flows []flow
}

// flow is one scenario flow as ns-3 runs it.
type flow struct {
	scenario.FlowSpec
	sport int
}

// mismatches collects every setting ns-3 cannot follow, so that one run
// of the converter names them all.
type mismatches []string

func (m *mismatches) add(format string, a ...any) { *m = append(*m, fmt.Sprintf(format, a...)) }

func (m mismatches) err(file string) error {
	if len(m) == 0 {
		return nil
	}
	return fmt.Errorf("%s: the HPCC ns-3 model cannot run this scenario as written:\n  %s", file, strings.Join(m, "\n  "))
}

// convert writes s as the HPCC ns-3 model's input. The topology's hosts
// become ns-3 nodes 0..H-1 in host order (so that a host's index is its
// node id, which fct.txt's addresses carry), its switches the nodes after.
func convert(s *scenario.Scenario, file string) (*files, error) {
	var bad mismatches
	t := s.Topo
	nic := t.Links[0].Rate
	id := make([]int, len(t.Nodes))
	var switches []int
	for i, h := range t.Hosts {
		id[h] = i
	}
	for n, nd := range t.Nodes {
		if nd.Kind == topo.Switch {
			id[n] = len(t.Hosts) + len(switches)
			switches = append(switches, id[n])
		}
	}
	loss := linkErrorRates(s, &bad)
	pair := map[[2]int]bool{}
	var headroom []unit.Bytes
	var top strings.Builder
	for i, l := range t.Links {
		k := [2]int{min(l.A, l.B), max(l.A, l.B)}
		if pair[k] {
			bad.add("topology: parallel links between %s and %s (ns-3 keeps one interface per neighbour)", t.Nodes[l.A].Name, t.Nodes[l.B].Name)
		}
		pair[k] = true
		if l.Rate != nic {
			bad.add("topology: link %s-%s runs at %v, the hosts at %v (ns-3 doubles a port's PFC share per doubling of its speed over the NICs'; the converter writes one rate)", t.Nodes[l.A].Name, t.Nodes[l.B].Name, l.Rate, nic)
		}
		d := l.Cable.Delay()
		if d%unit.Nanosecond != 0 {
			bad.add("topology: link %s-%s delay %v is not whole nanoseconds (ns-3's time step)", t.Nodes[l.A].Name, t.Nodes[l.B].Name, d)
		}
		if hr := ns3Headroom(l.LinkSpec); !slices.Contains(headroom, hr) {
			headroom = append(headroom, hr)
		}
		fmt.Fprintf(&top, "%d %d %dbps %dns %s\n", id[l.A], id[l.B], int64(l.Rate), int64(d/unit.Nanosecond), strconv.FormatFloat(loss[i], 'g', -1, 64))
	}
	switch {
	case len(headroom) > 1:
		bad.add("topology: links of different delays, to which ns-3 gives different headroom (%v); rocelab's is one size", headroom)
	case s.Switch.PFC.Headroom != headroom[0]:
		l := t.Links[0]
		bad.add("switch.pfc.headroom: set %d (ns-3: 3 x %v x %v / 8)", int64(headroom[0]), l.Rate, l.Cable.Delay())
	}
	checkSwitch(s, &bad)
	ccMode, qcn, ackHigh := checkHost(s, &bad)
	f := &files{}
	var fl strings.Builder
	f.flows = flows(s, &bad)
	dport := s.NS3DstPort()
	fmt.Fprintf(&fl, "%d\n", len(f.flows))
	for _, x := range f.flows {
		fmt.Fprintf(&fl, "%d %d %d %d %d %s\n", x.Src, x.Dst, x.Priority, dport, int64(x.Bytes), startSeconds(x.Start))
	}
	if err := bad.err(file); err != nil {
		return nil, err
	}
	var hdr strings.Builder
	fmt.Fprintf(&hdr, "%d %d %d\n", len(t.Nodes), len(switches), len(t.Links))
	for i, sw := range switches {
		if i > 0 {
			hdr.WriteByte(' ')
		}
		fmt.Fprint(&hdr, sw)
	}
	hdr.WriteByte('\n')
	f.topology = hdr.String() + top.String()
	f.flow = fl.String()
	f.trace = "0\n\n"
	f.config = config(s, ccMode, qcn, ackHigh)
	return f, nil
}

// checkSwitch compares the switches' buffer, PFC and ECN settings with
// what ns-3 fixes or can be told.
func checkSwitch(s *scenario.Scenario, bad *mismatches) {
	sw := s.Switch
	if sw.Buffer%unit.MiB != 0 {
		bad.add("switch.buffer: %v is not whole MiB (ns-3's BUFFER_SIZE)", sw.Buffer)
	}
	if sw.Alpha != 1.0/(1<<ns3AlphaShift) {
		bad.add("switch.alpha: set 1/%d (ns-3's PFC threshold is the free pool >> %d)", 1<<ns3AlphaShift, ns3AlphaShift)
	}
	if sw.Latency != 0 {
		bad.add("switch.latency: set 0 (ns-3's switches forward a frame as it arrives)")
	}
	if sw.Reserve != ns3Reserve {
		bad.add("switch.reserve: set 4KiB (ns-3's per-queue reserve)")
	}
	if sw.XONOffset != ns3XONOffset {
		bad.add("switch.pfc.xon_offset: set 3KiB (ns-3's resume offset)")
	}
	if !sw.PFC.Enabled {
		bad.add("switch.pfc.enabled: ns-3's switches always pause")
	}
	if sw.PFC.ResponseTime > unit.Nanosecond || sw.PFC.ResponseTime == 0 {
		bad.add("switch.pfc.response_time: set 1ps (ns-3 stops at the end of the frame on the wire; 0 means the IEEE bound in rocelab)")
	}
	e := sw.ECN
	if e.AtEnqueue {
		bad.add("switch.ecn.at: set dequeue (ns-3 marks as a packet leaves)")
	}
	if e.Kmin%unit.KB != 0 || e.Kmax%unit.KB != 0 {
		bad.add("switch.ecn: kmin %v and kmax %v must be whole KB (ns-3 reads them in units of 1000 B)", e.Kmin, e.Kmax)
	}
	if e.Enabled && e.Priorities != sw.PFC.Priorities {
		bad.add("switch.ecn.priorities: ns-3 marks every data queue; set them to the PFC priorities")
	}
}

// checkHost compares the NICs with ns-3's RdmaHw and returns its CC_MODE,
// whether switches mark ECN, and whether the NICs send ACKs first, paused
// or not (ACK_HIGH_PRIO, host.qp.acks_first).
func checkHost(s *scenario.Scenario, bad *mismatches) (ccMode int, qcn, ackHigh bool) {
	h := s.Host
	n := h.NIC
	if h.MTU <= 0 {
		bad.add("host.mtu: expected a positive MTU")
	}
	if n.AckCoalesce != 1 {
		bad.add("host.qp.ack_coalesce: set 1 (ns-3's L2_ACK_INTERVAL counts bytes, not packets: its receiver ACKs every packet once a QP has that many)")
	}
	if n.SelectiveRepeat || n.OutOfOrder {
		bad.add("host.qp: ns-3 runs go-back-N with in-order receive")
	}
	if n.RxPFC {
		bad.add("host.rx.pfc: set false (ns-3's hosts never send PFC)")
	}
	if n.DrainRate != 0 {
		bad.add("host.rx.drain_rate: ns-3's hosts take packets at line rate")
	}
	if s.PHY.ClockPPM != 0 || s.PHY.FECJitter != 0 || s.PHY.Auto {
		bad.add("phy: set {clock_ppm: 0, fec_jitter: 0ns} (ns-3's links are ideal)")
	}
	if !n.QPOrderByIndex {
		bad.add("host.qp.order: set index (ns-3's NIC takes its QPs round robin in the order it made them: RdmaEgressQueue::GetNextQindex)")
	}
	if want, how := ns3RateChange(ns3Mode(n.CC)); want != "" && rateChange(&n) != want {
		bad.add("host.qp.rate_change: set %s (ns-3's %s %s)", want, n.CC, how)
	}
	switch n.CC {
	case "none":
		if s.Switch.ECN.Enabled && h.ECN {
			bad.add("host.ecn: with cc: none the NICs must not send ECT (ns-3 then runs with ENABLE_QCN 0)")
		}
		return ns3DCQCN, false, n.AcksFirst
	case "dcqcn":
		checkDCQCN(s, bad)
		if !s.Switch.ECN.Enabled || !h.ECN {
			bad.add("switch.ecn.enabled and host.ecn: DCQCN needs marks")
		}
		return ns3DCQCN, true, n.AcksFirst
	case "hpcc", "timely", "hpcc-pint":
		// ns-3 runs these alike with ENABLE_QCN 1 or 0 (it sets only the
		// switches' marks, which these algorithms ignore; the NICs wake
		// after a paced gap either way, qbb-net-device.cc); written 1, its
		// switches mark, and rocelab's NICs would answer marks with CNPs.
		if s.Switch.ECN.Enabled && h.ECN {
			bad.add("host.ecn: set false with cc: %s (it reads no ECN in ns-3; rocelab's NICs would send CNPs)", n.CC)
		}
		switch n.CC {
		case "hpcc":
			checkHPCC(n.HPCC.Config, bad)
			return ns3HPCC, true, n.AcksFirst
		case "hpcc-pint":
			if c := n.PINT.Config; c.BaseRTT != 0 || c.Window != 0 {
				bad.add("host.hpcc_pint.base_rtt and window: set 0 (ns-3's GLOBAL_T 1 and its window of the longest path's bandwidth-delay product)")
			}
			return ns3PINT, true, n.AcksFirst
		}
		checkTimely(n.Timely.Config, bad)
		return ns3Timely, true, n.AcksFirst
	case "dctcp":
		if !s.Switch.ECN.Enabled || !h.ECN {
			bad.add("switch.ecn.enabled and host.ecn: DCTCP needs marks")
		}
		checkDCTCP(n.DCTCP.Config, bad)
		return ns3DCTCP, true, n.AcksFirst
	}
	bad.add("host.cc: %s: the converter maps dcqcn, hpcc, hpcc-pint, timely, dctcp and none", n.CC)
	return 0, false, false
}

// checkHPCC compares HPCC's knobs with CC_MODE 3 as run.py writes it:
// GLOBAL_T 1 (T the longest path's RTT) and a window of the longest path's
// bandwidth-delay product scaled by the rate (HAS_WIN 1, VAR_WIN 1).
func checkHPCC(c *cc.HPCCConfig, bad *mismatches) {
	if c.BaseRTT != 0 {
		bad.add("host.hpcc.base_rtt: set 0 (ns-3's GLOBAL_T 1 takes the longest path's RTT)")
	}
	if c.Window != 0 {
		bad.add("host.hpcc.window: set 0 (ns-3's window is the longest path's bandwidth-delay product)")
	}
}

// checkTimely compares TIMELY's knobs with what CC_MODE 7 can be told:
// RATE_AI, RATE_HAI and MIN_RATE; the rest are RdmaHw attributes that
// third.cc leaves at their defaults, the ns3 preset.
func checkTimely(c *cc.TimelyConfig, bad *mismatches) {
	def, _ := cc.TimelyPreset("ns3")
	for _, k := range []string{"alpha", "beta", "t_low", "t_high", "min_rtt", "hai_thresh", "segment"} {
		want, _ := def.Get(k)
		if v, _ := c.Get(k); v != want {
			bad.add("host.timely.%s: set %d (ns-3 builds it in)", k, want)
		}
	}
}

// checkDCTCP compares DCTCP's knobs with what CC_MODE 8 can be told:
// EWMA_GAIN, DCTCP_RATE_AI, MIN_RATE and HAS_WIN (with VAR_WIN); α starts
// at 1 and the window is the largest bandwidth-delay product (GLOBAL_T 1).
func checkDCTCP(c *cc.DCTCPConfig, bad *mismatches) {
	if c.InitialAlpha != 1024 {
		bad.add("host.dctcp.initial_alpha: set 1024 (ns-3 starts alpha at 1)")
	}
	if c.BaseRTT != 0 || c.Window != 0 {
		bad.add("host.dctcp.base_rtt and window: set 0 (ns-3's window is the longest path's bandwidth-delay product)")
	}
}

// ns3Fixed are the DCQCN knobs whose value ns-3's Mellanox model
// (CC_MODE 1) builds in, with that value and why.
var ns3Fixed = []struct {
	knob string
	v    int64
	why  string
}{
	{"initial_alpha_value", 1024, "the first CNP sets alpha to 1"},
	{"rpg_gd", 11, "a cut is rate x (1 - alpha/2)"},
	{"rpg_byte_reset", 0, "no byte counter"},
	{"rpg_max_rate", 0, "the ceiling is the NIC's rate"},
	{"rate_to_set_on_first_cnp", 0, "the first CNP keeps the rate (RateOnFirstCnp 1.0)"},
	{"clamp_tgt_rate_after_time_inc", 1, "a cut clamps the target when the timer raised the rate"},
	{"min_time_between_cnps", 0, "every marked packet's ACK carries a CNP"},
}

// checkDCQCN compares the DCQCN knobs with what CC_MODE 1 can be told.
// ns-3 has no CNP packet: the receiver sets a flag on the ACK of a marked
// packet, which rides the data's queue in every switch, ACK_HIGH_PRIO or
// not (third.cc sets only the NICs' ACK queue with it, never the
// switches' AckHighPrio): the CNPs go on the data's priority.
func checkDCQCN(s *scenario.Scenario, bad *mismatches) {
	c := s.Host.NIC.DCQCN.Config
	if c.Variant != cc.VariantMLX5 {
		bad.add("host.dcqcn.preset: set mlx5 (ns-3's CC_MODE 1 is the Mellanox model)")
		return
	}
	for _, k := range ns3Fixed {
		if v, _ := c.Get(k.knob); v != k.v {
			bad.add("host.dcqcn.%s: set %d (ns-3: %s)", k.knob, k.v, k.why)
		}
	}
	if c.RpgMinDecFac > 50 {
		bad.add("host.dcqcn.rpg_min_dec_fac: set at most 50 (ns-3 has no floor; its cuts keep at least half)")
	}
	sw := s.Switch
	prio := uint8(c.Cnp802pPrio)
	if c.Cnp802pPrio < 0 || c.Cnp802pPrio > 7 || sw.DSCPToPrio[c.CnpDscp] != prio {
		bad.add("host.dcqcn.cnp_802p_prio and cnp_dscp: the CNP's DSCP must map to its priority")
	}
	for p := range 8 {
		if sw.PFC.Priorities&(1<<p) != 0 && int64(p) != c.Cnp802pPrio {
			bad.add("host.dcqcn.cnp_802p_prio and cnp_dscp: set the data's priority, %d: ns-3's CNP is a flag on an ACK, in the data's queue in every switch (ACK_HIGH_PRIO moves only the NIC's ACK queue: host.qp.acks_first)", p)
		}
	}
	if c.RateReduceMonitorPeriod == 0 {
		bad.add("host.dcqcn.rate_reduce_monitor_period: ns-3 cuts once per window; set a positive period")
	}
}

// flows returns the scenario's flows in start order (ns-3 reads flow.txt
// in time order), each with the sport ns-3 gives it: 10000 for a host
// pair's first flow, one more for each next.
func flows(s *scenario.Scenario, bad *mismatches) []flow {
	specs := s.Expand()
	out := make([]flow, len(specs))
	for i, f := range specs {
		if len(f.After) > 0 {
			bad.add("traffic: flow %s waits on another (ns-3's flow.txt has start times only)", f.Name)
		}
		if f.Rate != 0 {
			bad.add("traffic: flow %s has a rate cap (ns-3's flows send at the NIC's rate)", f.Name)
		}
		if f.Bytes > 1<<32-1 {
			bad.add("traffic: flow %s sends %v, above ns-3's 32-bit size", f.Name, f.Bytes)
		}
		if f.Start%unit.Nanosecond != 0 {
			bad.add("traffic: flow %s starts at %v, not whole nanoseconds", f.Name, f.Start)
		}
		if s.Switch.PFC.Priorities&(1<<f.Priority) == 0 {
			bad.add("traffic: flow %s rides priority %d, which PFC does not protect (ns-3's data queues are all lossless)", f.Name, f.Priority)
		}
		out[i].FlowSpec = f
	}
	checkScheduler(s.Switch, specs, bad)
	for i, p := range scenario.NS3SourcePorts(specs) {
		out[i].sport = int(p)
	}
	slices.SortStableFunc(out, func(a, b flow) int { return cmp.Compare(a.Start, b.Start) })
	return out
}

// linkErrorRates is each link's error rate in topology.txt: a loss
// fault's rate on its link, which ns-3 loses each packet arriving at
// either end with, as the fault does (independent losses, each port its
// own draws), for the whole run. Other faults ns-3 has no way to run.
func linkErrorRates(s *scenario.Scenario, bad *mismatches) []float64 {
	loss := make([]float64, len(s.Topo.Links))
	for i, f := range s.Faults {
		switch {
		case f.Kind != "loss":
			bad.add("faults[%d]: a %s fault (ns-3's third.cc runs only lossy links, topology.txt's error rate, from its first packet to its last)", i, f.Kind)
		case f.Burst > 1:
			bad.add("faults[%d]: losses in bursts of %g (ns-3's error model loses packets one by one)", i, f.Burst)
		case f.Start != 0 || f.End != 0:
			bad.add("faults[%d]: a loss for part of the run (start %v, end %v; ns-3's error model acts from the first packet to the last)", i, f.Start, f.End)
		case loss[f.Link] != 0:
			bad.add("faults[%d]: a second loss fault on link %s (ns-3 gives a link one error rate)", i, f.LinkName)
		default:
			loss[f.Link] = f.Rate
		}
	}
	return loss
}

// checkScheduler refuses flows that rocelab's switches serve otherwise
// than ns-3's (switch-node.cc, BEgressQueue::DequeueRR): ns-3's queue 0
// holds its CNPs and PFC frames, served first and outside the MMU (no
// admission, no PFC), so data there has no counterpart; queues 1-7 take
// a packet each in turn, so flows on several of them need priorities
// weighted alike and none strict here; and its NIC serves QPs in turn
// whatever their group, so a host's flows need one priority.
func checkScheduler(sw scenario.SwitchSpec, specs []scenario.FlowSpec, bad *mismatches) {
	var used []uint8
	for _, f := range specs {
		if !slices.Contains(used, f.Priority) {
			used = append(used, f.Priority)
		}
	}
	if len(used) == 0 {
		return // no flows: a workload-only scenario
	}
	slices.Sort(used)
	first := map[int]scenario.FlowSpec{} // each sender's first flow
	for _, f := range specs {
		g, ok := first[f.Src]
		if !ok {
			first[f.Src] = f
		} else if g.Priority != f.Priority {
			bad.add("traffic: flows %s and %s leave one host on priorities %d and %d: ns-3's NIC serves its QPs a packet each whatever their group (RdmaEgressQueue::GetNextQindex), rocelab's shares the port by priority first; give a host's flows one priority", g.Name, f.Name, g.Priority, f.Priority)
			first[f.Src] = f
		}
	}
	if used[0] == 0 {
		bad.add("traffic: flows on priority 0, ns-3's queue 0, which holds its CNPs and PFC frames, served first and outside the switch's MMU (no admission, no PFC): give them another priority")
	}
	weight := 0
	for _, p := range used {
		switch {
		case p == 0 || len(used) < 2:
		case sw.Strict&(1<<p) != 0:
			bad.add("switch.scheduler: flows ride priorities %v, which ns-3's switches take a packet each in turn: priority %d is strict here", used, p)
		case weight != 0 && sw.Weights[p] != weight:
			bad.add("switch.scheduler.weights: flows ride priorities %v, which ns-3's switches take a packet each in turn: weigh them alike (priority %d: %d, against %d)", used, p, sw.Weights[p], weight)
		default:
			weight = sw.Weights[p]
		}
	}
}

// seconds writes t in seconds, to the nanosecond.
func seconds(t unit.Time) string {
	ns := int64(t / unit.Nanosecond)
	return fmt.Sprintf("%d.%09d", ns/1_000_000_000, ns%1_000_000_000)
}

// startSeconds writes a flow's start so that ns-3 starts it at t: to the
// nanosecond where ns-3 reads that back as t, else half a nanosecond
// later, which ns-3 cuts down to t (ns3Seconds; the double's error is
// below 10^-6 ns for a start under 10^6 s).
func startSeconds(t unit.Time) string {
	s := seconds(t)
	if v, _ := strconv.ParseFloat(s, 64); ns3Seconds(v) != t {
		s += "5"
	}
	return s
}

// config writes ns-3's config.txt. Its keys are those of the model's
// run.py; the comments of docs/engine.md ("Against the HPCC ns-3 model")
// give each one's rocelab setting.
func config(s *scenario.Scenario, ccMode int, qcn, ackHigh bool) string {
	var b strings.Builder
	kv := func(k string, v any) { fmt.Fprintf(&b, "%s %v\n", k, v) }
	boolean := func(x bool) int {
		if x {
			return 1
		}
		return 0
	}
	kv("ENABLE_QCN", boolean(qcn))
	kv("USE_DYNAMIC_PFC_THRESHOLD", 1)
	kv("PACKET_PAYLOAD_SIZE", s.Host.MTU)
	kv("TOPOLOGY_FILE", "topology.txt")
	kv("FLOW_FILE", "flow.txt")
	kv("TRACE_FILE", "trace.txt")
	kv("TRACE_OUTPUT_FILE", "mix.tr")
	kv("FCT_OUTPUT_FILE", "fct.txt")
	kv("PFC_OUTPUT_FILE", "pfc.txt")
	kv("SIMULATOR_STOP_TIME", seconds(s.Duration))
	kv("CC_MODE", ccMode)
	n := s.Host.NIC
	d := n.DCQCN.Config
	if d == nil {
		p, _ := cc.Preset("mlx5")
		d = &p
	}
	// RATE_AI, RATE_HAI and MIN_RATE are each algorithm's own; HPCC's
	// window and its knobs as run.py's hp writes them.
	ai, hai, minRate := d.RpgAiRate, d.RpgHaiRate, d.RpgMinRate
	gain := float64(1024-d.DceTcpG) / 1024
	hp, _ := cc.HPCCPreset("ns3")
	dctcpAI := int64(1000)
	logBase := "1.05"
	win := 0
	switch {
	case n.CC == "hpcc":
		hp = *n.HPCC.Config
		ai, hai, minRate, win = hp.AIRate, hp.AIRate, hp.MinRate, 1
	case n.CC == "timely":
		t := n.Timely.Config
		ai, hai, minRate = t.AIRate, t.HAIRate, t.MinRate
	case n.CC == "hpcc-pint":
		p := n.PINT.Config
		hp.Eta, hp.MaxStage = p.Eta, p.MaxStage
		ai, hai, minRate, win = p.AIRate, p.AIRate, p.MinRate, 1
		logBase = fmt.Sprintf("%g", float64(p.LogBase)/1000)
	case n.CC == "dctcp":
		t := n.DCTCP.Config
		gain, dctcpAI, minRate, win = float64(t.G)/1024, t.AIRate, t.MinRate, int(t.UseWindow)
	}
	kv("ALPHA_RESUME_INTERVAL", d.DceTcpRtt)
	kv("RATE_DECREASE_INTERVAL", d.RateReduceMonitorPeriod)
	kv("CLAMP_TARGET_RATE", d.ClampTgtRate)
	kv("RP_TIMER", d.RpgTimeReset)
	kv("EWMA_GAIN", fmt.Sprintf("%g", gain))
	kv("FAST_RECOVERY_TIMES", d.RpgThreshold)
	kv("RATE_AI", fmt.Sprintf("%dMb/s", ai))
	kv("RATE_HAI", fmt.Sprintf("%dMb/s", hai))
	kv("MIN_RATE", fmt.Sprintf("%dMb/s", minRate))
	kv("DCTCP_RATE_AI", fmt.Sprintf("%dMb/s", dctcpAI))
	kv("ERROR_RATE_PER_LINK", "0.0000")
	kv("L2_CHUNK_SIZE", 4000)
	kv("L2_ACK_INTERVAL", n.AckCoalesce)
	kv("L2_BACK_TO_ZERO", 0)
	kv("HAS_WIN", win)
	kv("GLOBAL_T", 1)
	kv("VAR_WIN", win)
	kv("FAST_REACT", hp.FastReact*int64(win)*int64(boolean(n.CC == "hpcc" || n.CC == "hpcc-pint")))
	kv("U_TARGET", fmt.Sprintf("%g", float64(hp.Eta)/1000))
	kv("MI_THRESH", hp.MaxStage)
	kv("INT_MULTI", ns3IntMulti(s.Topo.Links[0].Rate, int(s.Host.MTU)))
	kv("MULTI_RATE", 0)
	kv("SAMPLE_FEEDBACK", 0)
	kv("PINT_LOG_BASE", logBase)
	kv("PINT_PROB", "1.0")
	kv("RATE_BOUND", 1)
	kv("ACK_HIGH_PRIO", boolean(ackHigh))
	kv("LINK_DOWN", "0 0 0")
	kv("ENABLE_TRACE", 0)
	rate := int64(s.Topo.Links[0].Rate)
	e := s.Switch.ECN
	kv("KMAX_MAP", fmt.Sprintf("1 %d %d", rate, int64(e.Kmax/unit.KB)))
	kv("KMIN_MAP", fmt.Sprintf("1 %d %d", rate, int64(e.Kmin/unit.KB)))
	kv("PMAX_MAP", fmt.Sprintf("1 %d %g", rate, e.Pmax))
	kv("BUFFER_SIZE", int64(s.Switch.Buffer/unit.MiB))
	kv("QLEN_MON_FILE", "qlen.txt")
	// The queue monitor starts after the run: it would sample every
	// switch port each 100 ns.
	kv("QLEN_MON_START", int64(s.Duration/unit.Nanosecond)+1)
	kv("QLEN_MON_END", int64(s.Duration/unit.Nanosecond)+1)
	return b.String()
}

// write writes the files into dir through create.
func (f *files) write(create func(name string) (io.WriteCloser, error)) error {
	var errs []error
	for _, x := range []struct{ name, text string }{
		{"config.txt", f.config}, {"topology.txt", f.topology}, {"flow.txt", f.flow}, {"trace.txt", f.trace},
	} {
		w, err := create(x.name)
		if err != nil {
			return err
		}
		_, err = io.WriteString(w, x.text)
		errs = append(errs, err, w.Close())
	}
	return errors.Join(errs...)
}
