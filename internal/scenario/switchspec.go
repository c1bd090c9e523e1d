package scenario

import (
	"strconv"

	"github.com/goccy/go-yaml/ast"

	"rocelab/internal/fabric"
	"rocelab/internal/headroom"
	"rocelab/internal/unit"
)

// switchSpec converts the switch section, every knob left out at its
// default.
func (c *conv) switchSpec(r *rawSwitch) SwitchSpec {
	s := SwitchSpec{
		Vendor: DefaultVendor, Buffer: DefaultBuffer, Alpha: DefaultAlpha, AlphaLossy: DefaultAlphaLossy,
		Reserve: DefaultReserve, XONOffset: DefaultXONOffset, Trust: fabric.TrustDSCP,
		Strict: DefaultStrict, HashFields: DefaultHash, PerSwitchSeed: true, NS3DstPort: -1,
		PFC: PFCSpec{Enabled: true, Priorities: 1 << DefaultPFCPriority, Quanta: DefaultPauseQuanta, XON: true,
			MTU: DefaultPortMTU, MACPHYDelay: DefaultMACPHYDelay, CellOccupancy: DefaultCellOccupancy, Formula: headroom.Mellanox},
		ECN:      ECNSpec{Enabled: true, Priorities: 1 << DefaultPFCPriority, Kmin: DefaultKmin, Kmax: DefaultKmax, Pmax: DefaultPmax, RTT: DefaultECNRTT},
		Watchdog: fabric.WatchdogConfig{Detect: DefaultWatchdogDetect, Restore: DefaultWatchdogRestore},
	}
	s.DSCPToPrio = c.dscpMap(nil, "")
	for p := range s.Weights {
		s.Weights[p] = 1
	}
	if r == nil {
		return s
	}
	s.Vendor = c.choice(r.Vendor, "switch.vendor", DefaultVendor, "sonic", "arista", "cumulus", "generic")
	s.Buffer = c.bytes(r.Buffer, "switch.buffer", s.Buffer)
	if s.Buffer == 0 {
		c.fail(r.Buffer, "switch.buffer", "expected a positive size")
	}
	s.Alpha = c.float(r.Alpha, "switch.alpha", s.Alpha, 1.0/128, 128)
	s.AlphaLossy = c.float(r.AlphaLossy, "switch.alpha_lossy", s.AlphaLossy, 1.0/128, 128)
	s.StaticTh = c.bytes(r.StaticTh, "switch.static_th", 0)
	s.Latency = c.duration(r.Latency, "switch.latency", 0)
	if s.Latency > MaxSwitchLatency {
		c.fail(r.Latency, "switch.latency", "expected at most %v: a switch forwards in a few microseconds at most", MaxSwitchLatency)
	}
	if r.StaticTh != nil && s.StaticTh == 0 {
		c.fail(r.StaticTh, "switch.static_th", "expected a positive size")
	}
	if r.StaticTh != nil && r.Alpha != nil {
		c.fail(r.StaticTh, "switch.static_th", "expected alpha (a dynamic threshold) or static_th, not both")
	}
	s.AlphaByRate = c.alphaByRate(r.AlphaByRate, "switch.alpha_by_rate")
	if r.StaticTh != nil && len(s.AlphaByRate) > 0 {
		c.fail(r.StaticTh, "switch.static_th", "expected alpha_by_rate (dynamic thresholds) or static_th, not both")
	}
	s.Reserve = c.bytes(r.Reserve, "switch.reserve", s.Reserve)
	if c.choice(r.Trust, "switch.trust", "dscp", "dscp", "pcp") == "pcp" {
		s.Trust = fabric.TrustPCP
	}
	s.DSCPToPrio = c.dscpMap(r.DSCPToPriority, "switch.dscp_to_priority")
	if r.Scheduler != nil {
		s.Strict, s.Weights = c.scheduler(r.Scheduler, "switch.scheduler", s.Strict, s.Weights)
	}
	if p := r.PFC; p != nil {
		const path = "switch.pfc"
		s.PFC.Enabled = c.boolean(p.Enabled, path+".enabled", true)
		s.PFC.Priorities = c.priorities(p.Priorities, path+".priorities", s.PFC.Priorities)
		s.PFC.Quanta = uint16(c.integer(p.Quanta, path+".quanta", DefaultPauseQuanta, 1, 0xFFFF))
		if txt, ok := c.scalar(p.Refresh, path+".refresh"); ok && txt != "auto" {
			s.PFC.Refresh = c.duration(p.Refresh, path+".refresh", 0)
		}
		s.PFC.XON = c.boolean(p.XON, path+".xon", true)
		s.XONOffset = c.bytes(p.XONOffset, path+".xon_offset", s.XONOffset)
		if txt, ok := c.scalar(p.Headroom, path+".headroom"); ok && txt != "auto" {
			s.PFC.Headroom = c.bytes(p.Headroom, path+".headroom", 0)
			switch {
			case s.PFC.Headroom == 0:
				c.fail(p.Headroom, path+".headroom", "expected a positive size or \"auto\"")
			case s.PFC.Headroom > fabric.MaxHeadroom:
				c.fail(p.Headroom, path+".headroom", "expected at most %v (2GiB less a byte), the most a priority group holds", unit.Bytes(fabric.MaxHeadroom))
			}
		}
		s.PFC.MTU = c.bytes(p.MTU, path+".mtu", s.PFC.MTU)
		c.headroomModel(p, &s.PFC)
		if txt, ok := c.scalar(p.ResponseTime, path+".response_time"); ok && txt != "auto" {
			s.PFC.ResponseTime = c.duration(p.ResponseTime, path+".response_time", 0)
			if s.PFC.ResponseTime == 0 {
				c.fail(p.ResponseTime, path+".response_time", "expected a positive time (1ps for at once), or auto for the IEEE 802.3 bound")
			}
		}
	}
	if e := r.ECN; e != nil {
		const path = "switch.ecn"
		s.ECN.Enabled = c.boolean(e.Enabled, path+".enabled", true)
		s.ECN.Priorities = c.priorities(e.Priorities, path+".priorities", s.ECN.Priorities)
		s.ECN.Kmin = c.bytes(e.Kmin, path+".kmin", s.ECN.Kmin)
		s.ECN.Kmax = c.bytes(e.Kmax, path+".kmax", s.ECN.Kmax)
		s.ECN.Pmax = c.float(e.Pmax, path+".pmax", s.ECN.Pmax, 0, 1)
		s.ECN.AtEnqueue = c.choice(e.At, path+".at", "dequeue", "dequeue", "enqueue") == "enqueue"
		s.ECN.RTT = c.duration(e.RTT, path+".rtt", s.ECN.RTT)
		if s.ECN.RTT == 0 {
			c.fail(e.RTT, path+".rtt", "expected a positive duration")
		}
		if s.ECN.Kmax < s.ECN.Kmin {
			c.fail(e.Kmax, path+".kmax", "must not be below kmin (%v)", s.ECN.Kmin)
		}
		s.ECN.ByRate = c.ecnByRate(e.ByRate, path+".by_rate", &s.ECN)
	}
	if w := r.Watchdog; w != nil {
		const path = "switch.watchdog"
		if c.boolean(w.Enabled, path+".enabled", true) {
			s.Watchdog.Detect = c.duration(w.Detection, path+".detection", DefaultWatchdogDetect)
			s.Watchdog.Restore = c.duration(w.Restoration, path+".restoration", DefaultWatchdogRestore)
			if s.Watchdog.Detect == 0 {
				c.fail(w.Detection, path+".detection", "expected a positive duration")
			}
		} else {
			s.Watchdog = fabric.WatchdogConfig{}
		}
	}
	if e := r.ECMP; e != nil {
		if items, ok := c.list(e.Hash, "switch.ecmp.hash"); ok {
			s.HashFields = 0
			names := map[string]fabric.HashField{
				"src_ip": fabric.HashSrcIP, "dst_ip": fabric.HashDstIP, "src_port": fabric.HashSrcPort,
				"dst_port": fabric.HashDstPort, "protocol": fabric.HashProto, "dst_qp": fabric.HashDstQP,
			}
			for i, it := range items {
				name := c.choice(it, "switch.ecmp.hash["+strconv.Itoa(i)+"]", "", "src_ip", "dst_ip", "src_port", "dst_port", "protocol", "dst_qp")
				s.HashFields |= names[name]
			}
			if s.HashFields == 0 && len(c.errs) == 0 {
				c.fail(e.Hash, "switch.ecmp.hash", "expected at least one field")
			}
		}
		s.PerSwitchSeed = c.boolean(e.PerSwitchSeed, "switch.ecmp.per_switch_seed", true)
		s.NS3 = c.choice(e.Model, "switch.ecmp.model", "rocelab", "rocelab", "ns3") == "ns3"
		s.NS3DstPort = int(c.integer(e.DstPort, "switch.ecmp.dst_port", -1, 0, 65535))
		switch {
		case !s.NS3 && e.DstPort != nil:
			c.fail(e.DstPort, "switch.ecmp.dst_port", "the destination port of ns-3's flows is read by model ns3 only")
		case s.NS3 && e.Hash != nil:
			c.fail(e.Hash, "switch.ecmp.hash", "model ns3 hashes ns-3's fields (addresses, ports): give model or hash, not both")
		case s.NS3 && e.PerSwitchSeed != nil:
			c.fail(e.PerSwitchSeed, "switch.ecmp.per_switch_seed", "model ns3 seeds each switch with its ns-3 node id")
		}
	}
	if r.LoadBalancing != nil {
		s.Paths = c.loadBalancing(r.LoadBalancing)
	}
	return s
}

// loadBalancing reads switch.load_balancing: a mode for every tier, or
// one per tier, and the modes' parameters.
func (c *conv) loadBalancing(r *rawLB) [4]fabric.PathConfig {
	const path = "switch.load_balancing"
	modes := map[string]fabric.PathMode{"ecmp": fabric.PathECMP, "flowlet": fabric.PathFlowlet, "adaptive": fabric.PathAdaptive, "spray": fabric.PathSpray}
	names := []string{"ecmp", "flowlet", "adaptive", "spray"}
	base := fabric.PathConfig{
		FlowletGap: c.duration(r.FlowletGap, path+".flowlet_gap", DefaultFlowletGap),
		PerPacket:  c.choice(r.Adaptive, path+".adaptive", "packet", "packet", "flowlet") == "packet",
		Random:     c.choice(r.Spray, path+".spray", "random", "random", "round-robin") == "random",
	}
	if base.FlowletGap <= 0 {
		c.fail(r.FlowletGap, path+".flowlet_gap", "expected a positive duration")
	}
	all := modes[c.choice(r.Mode, path+".mode", "ecmp", names...)]
	var out [4]fabric.PathConfig
	for tier, n := range []ast.Node{nil, r.Leaf, r.Spine, r.Core} {
		if tier == 0 {
			continue
		}
		out[tier] = base
		out[tier].Mode = modes[c.choice(n, path+"."+[]string{"", "leaf", "spine", "core"}[tier], all.String(), names...)]
	}
	return out
}

// scheduler parses an ETS configuration: strict priorities and 8 weights.
func (c *conv) scheduler(r *rawScheduler, path string, strict uint8, weights [8]int) (uint8, [8]int) {
	strict = c.priorities(r.Strict, path+".strict", strict)
	if items, ok := c.list(r.Weights, path+".weights"); ok {
		if len(items) != 8 {
			c.fail(r.Weights, path+".weights", "expected 8 weights (one per priority, as ETS bandwidth %%), got %d", len(items))
		} else {
			for i, it := range items {
				weights[i] = int(c.integer(it, path+".weights["+strconv.Itoa(i)+"]", 1, 0, 100))
			}
		}
	}
	return strict, weights
}
