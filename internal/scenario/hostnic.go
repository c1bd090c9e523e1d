package scenario

import (
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"rocelab/internal/background"
	"rocelab/internal/cc"
	"rocelab/internal/collective"
	"rocelab/internal/spell"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// NICSpec is the RDMA NIC configuration of every host: transport, congestion
// control, firmware settings and the host's receive path.
type NICSpec struct {
	// CC is the congestion control: "dcqcn", "timely", "hpcc",
	// "hpcc-pint", "dctcp" or "none"
	// (PFC only).
	CC string
	// DCQCN holds the DCQCN preset and knob settings by their mlx5 names.
	DCQCN DCQCNSpec
	// Timely and HPCC hold those algorithms' presets and knobs, and the
	// configuration they make when host.cc selects them.
	Timely CCSpec[cc.TimelyConfig]
	HPCC   CCSpec[cc.HPCCConfig]
	DCTCP  CCSpec[cc.DCTCPConfig]
	PINT   CCSpec[cc.PINTConfig]
	// CCPrioMask is ROCE_CC_PRIO_MASK (host.firmware, or roce_cc_prio_mask
	// in host.dcqcn): the priorities CC acts on; zero when CC is none.
	CCPrioMask uint8
	// CCPrioMaskDefault is set when the description gives no mask and
	// CCPrioMask is the RoCE priority alone.
	CCPrioMaskDefault bool
	// Firmware holds every mlxconfig setting given, by name, as written.
	Firmware []Setting
	// Ports is the number of ports of one NIC adapter (host.nic_ports):
	// mlxconfig sets a dual-port card's parameters per port (_P1, _P2),
	// a single-port card's with _P1 alone.
	Ports int

	// RC transport.
	Timeout      uint8
	RetryCnt     int
	AckCoalesce  int
	Adaptive     bool
	AdaptiveBase unit.Time
	TCPRTO       unit.Time
	// OutOfOrder places packets that arrive ahead of the expected PSN
	// (host.qp.receive: out-of-order); SelectiveRepeat resends only the
	// PSNs a NAK names (host.qp.retransmission: selective-repeat).
	OutOfOrder      bool
	SelectiveRepeat bool
	ReorderWindow   int
	NAKThreshold    int
	// KeepPendingGap: host.qp.rate_change next_packet; RetimeAll:
	// retime_all (nic.Config).
	KeepPendingGap, RetimeAll bool
	// AcksFirst: host.qp.acks_first; QPOrderByIndex: host.qp.order index
	// (nic.Config).
	AcksFirst, QPOrderByIndex bool

	// Receive path (a host slower than its link).
	DrainRate     unit.BitRate
	RxBuffer      unit.Bytes
	RxXOFF, RxXON unit.Bytes
	RxPFC         bool

	// Strict and Weights configure the NIC's egress ETS.
	Strict  uint8
	Weights [8]int
}

// DCQCNSpec is the DCQCN configuration: a preset and the knobs set over it
// by their mlx5 names, and the configuration they make (nil when host.cc
// is none).
type DCQCNSpec struct {
	Preset string
	Knobs  []Setting
	Config *cc.DCQCNConfig
}

// CCSpec is an RTT- or INT-based algorithm's preset, the knobs set over it
// by name, and the configuration they make (nil unless host.cc selects
// it).
type CCSpec[C any] struct {
	Preset string
	Knobs  []Setting
	Config *C
}

// Setting is one named value from the scenario with its position.
type Setting struct {
	Name, Value string
	Line, Col   int
}

// Int returns the setting as an integer (decimal or 0x hex).
func (s Setting) Int() (int64, error) { return strconv.ParseInt(s.Value, 0, 64) }

// settings reads a mapping of names to scalar values, in file order.
func (c *conv) settings(n ast.Node, path string, valid func(name string) bool, expect string) []Setting {
	n = Unwrap(n)
	if n == nil {
		return nil
	}
	if _, null := n.(*ast.NullNode); null {
		return nil
	}
	pairs, ok := MappingPairs(n)
	if !ok {
		c.fail(n, path, "expected a mapping of %s to values", expect)
		return nil
	}
	var out []Setting
	seen := map[string]bool{}
	for _, kv := range pairs {
		name := kv.Key.GetToken().Value
		if valid != nil && !valid(name) {
			c.fail(kv.Key, path, "unknown name %s: expected %s", quote(name), expect)
			continue
		}
		if seen[name] {
			c.fail(kv.Key, path, "%s is set twice", name)
			continue
		}
		seen[name] = true
		v, ok := c.scalar(kv.Value, path+"."+name)
		if !ok {
			c.fail(kv.Value, path+"."+name, "expected a value")
			continue
		}
		e := at(c.file, kv.Key, "", "")
		out = append(out, Setting{Name: name, Value: v, Line: e.Line, Col: e.Col})
	}
	return out
}

// nicSpec fills the NIC settings of host: cc, dcqcn, firmware, qp, rx,
// scheduler.
func (c *conv) nicSpec(r *rawHost) NICSpec {
	s := NICSpec{
		CC: DefaultCC, Ports: DefaultNICPorts,
		DCQCN:   DCQCNSpec{Preset: DefaultDCQCNPreset},
		Timely:  CCSpec[cc.TimelyConfig]{Preset: "paper"},
		HPCC:    CCSpec[cc.HPCCConfig]{Preset: "ns3"},
		DCTCP:   CCSpec[cc.DCTCPConfig]{Preset: "ns3"},
		PINT:    CCSpec[cc.PINTConfig]{Preset: "ns3"},
		Timeout: DefaultQPTimeout, RetryCnt: DefaultRetryCnt, AckCoalesce: DefaultAckCoalesce,
		ReorderWindow: DefaultReorderWindow, NAKThreshold: DefaultNAKThreshold,
		AdaptiveBase: DefaultAdaptiveBase, TCPRTO: DefaultTCPRTO,
		RxBuffer: DefaultRxBuffer, RxPFC: true, Strict: DefaultStrict,
	}
	for p := range s.Weights {
		s.Weights[p] = 1
	}
	if r == nil {
		s.RxXOFF, s.RxXON = s.RxBuffer/2, s.RxBuffer/4
		s.DCQCN.Config = c.dcqcnConfig(&s)
		s.CCPrioMask = ccMask(s.DCQCN.Config)
		return s
	}
	s.CC = c.choice(r.CC, "host.cc", DefaultCC, "dcqcn", "timely", "hpcc", "hpcc-pint", "dctcp", "none")
	s.DCQCN.Preset, s.DCQCN.Knobs = c.ccSection(r.DCQCN, "host.dcqcn", s.DCQCN.Preset, "DCQCN knobs by their mlx5 names", "mlx5", "paper")
	s.Timely.Preset, s.Timely.Knobs = c.ccSection(r.Timely, "host.timely", s.Timely.Preset, "TIMELY knobs (docs/cc.md)", "paper", "ns3")
	s.HPCC.Preset, s.HPCC.Knobs = c.ccSection(r.HPCC, "host.hpcc", s.HPCC.Preset, "HPCC knobs (docs/cc.md)", "ns3", "paper")
	s.DCTCP.Preset, s.DCTCP.Knobs = c.ccSection(r.DCTCP, "host.dctcp", s.DCTCP.Preset, "DCTCP knobs (docs/cc.md)", "ns3", "paper")
	s.PINT.Preset, s.PINT.Knobs = c.ccSection(r.PINT, "host.hpcc_pint", s.PINT.Preset, "HPCC-PINT knobs (docs/cc.md)", "ns3", "paper")
	s.Firmware = c.settings(r.Firmware, "host.firmware", isMlxconfigName, "mlxconfig settings such as ROCE_CC_PRIO_MASK")
	s.Ports = int(c.integer(r.NICPorts, "host.nic_ports", DefaultNICPorts, 1, 2))
	for _, f := range s.Firmware {
		if s.Ports == 1 && strings.HasSuffix(f.Name, "_P2") {
			c.errs = append(c.errs, &Error{File: c.file, Line: f.Line, Col: f.Col, Path: "host.firmware." + f.Name,
				Msg: "names port 2, but host.nic_ports is 1: a single-port adapter has no _P2 parameters (set host.nic_ports: 2 for a dual-port card)"})
		}
	}
	if q := r.QP; q != nil {
		s.Timeout = uint8(c.integer(q.Timeout, "host.qp.timeout", DefaultQPTimeout, 0, 31))
		s.RetryCnt = int(c.integer(q.RetryCnt, "host.qp.retry_cnt", DefaultRetryCnt, 0, 7))
		s.AckCoalesce = int(c.integer(q.AckCoalesce, "host.qp.ack_coalesce", DefaultAckCoalesce, 1, 1<<20))
		s.Adaptive = c.boolean(q.Adaptive, "host.qp.adaptive_retransmission", false)
		s.AdaptiveBase = c.duration(q.AdaptiveBase, "host.qp.adaptive_base", DefaultAdaptiveBase)
		s.TCPRTO = c.duration(q.TCPRTO, "host.qp.tcp_rto", DefaultTCPRTO)
		if s.AdaptiveBase == 0 {
			c.fail(q.AdaptiveBase, "host.qp.adaptive_base", "expected a positive duration")
		}
		s.SelectiveRepeat = c.choice(q.Retransmit, "host.qp.retransmission", "go-back-n", "go-back-n", "selective-repeat") == "selective-repeat"
		recv := c.choice(q.Receive, "host.qp.receive", "", "in-order", "out-of-order")
		s.OutOfOrder = recv == "out-of-order" || recv == "" && s.SelectiveRepeat
		if recv == "in-order" && s.SelectiveRepeat {
			c.fail(q.Receive, "host.qp.receive", "selective repeat needs a responder that keeps what arrives after a gap: receive: out-of-order")
		}
		s.ReorderWindow = int(c.integer(q.Window, "host.qp.reorder_window", DefaultReorderWindow, 1, 1<<20))
		// A responder asked to tolerate reordering waits it out before a
		// NAK; one there only for selective repeat (IRN's) NAKs at once.
		def := int64(0)
		if recv == "out-of-order" {
			def = DefaultNAKThreshold
		}
		s.NAKThreshold = int(c.integer(q.NAKThreshold, "host.qp.nak_threshold", def, 0, 1<<20))
		rc := c.choice(q.RateChange, "host.qp.rate_change", "retime", "retime", "retime_all", "next_packet")
		s.KeepPendingGap, s.RetimeAll = rc == "next_packet", rc == "retime_all"
		s.AcksFirst = c.boolean(q.AcksFirst, "host.qp.acks_first", false)
		s.QPOrderByIndex = c.choice(q.Order, "host.qp.order", "ready", "ready", "index") == "index"
	}
	if x := r.Rx; x != nil {
		s.DrainRate = c.rate(x.DrainRate, "host.rx.drain_rate", 0)
		s.RxBuffer = c.bytes(x.Buffer, "host.rx.buffer", DefaultRxBuffer)
		s.RxPFC = c.boolean(x.PFC, "host.rx.pfc", true)
	}
	s.RxXOFF, s.RxXON = s.RxBuffer/2, s.RxBuffer/4
	if x := r.Rx; x != nil {
		s.RxXOFF = c.bytes(x.XOFF, "host.rx.xoff", s.RxXOFF)
		s.RxXON = c.bytes(x.XON, "host.rx.xon", s.RxXON)
		if s.RxXOFF > s.RxBuffer {
			c.fail(x.XOFF, "host.rx.xoff", "must not exceed the buffer (%v)", s.RxBuffer)
		}
		if s.RxXON > s.RxXOFF {
			c.fail(x.XON, "host.rx.xon", "must not exceed xoff (%v)", s.RxXOFF)
		}
	}
	if r.Scheduler != nil {
		s.Strict, s.Weights = c.scheduler(r.Scheduler, "host.scheduler", s.Strict, s.Weights)
	}
	s.DCQCN.Config = c.dcqcnConfig(&s)
	s.CCPrioMask = ccMask(s.DCQCN.Config)
	c.rttCC(&s)
	return s
}

// ccSection reads host.dcqcn, host.timely or host.hpcc: a preset and knobs
// by name, in file order.
func (c *conv) ccSection(n ast.Node, path, preset, expect string, presets ...string) (string, []Setting) {
	n = Unwrap(n)
	if n == nil {
		return preset, nil
	}
	pairs, _ := MappingPairs(n)
	if pairs == nil {
		c.settings(n, path, nil, expect)
		return preset, nil
	}
	var knobs []ast.Node
	for _, kv := range pairs {
		if kv.Key.GetToken().Value == "preset" {
			preset = c.choice(kv.Value, path+".preset", preset, presets...)
			continue
		}
		knobs = append(knobs, kv)
	}
	return preset, c.settings(&ast.MappingNode{Values: mappingValues(knobs)}, path, nil, expect)
}

// ccMask returns the priorities congestion control acts on.
// defaultMask gives congestion control the priorities the scenario's RDMA
// traffic rides (mask) when the description sets no ROCE_CC_PRIO_MASK
// (host.firmware or host.dcqcn.roce_cc_prio_mask): RoCE's priority alone
// for most, and a storage class's too where one runs: what config gen
// writes, so that what the twin simulates is what gets deployed. A
// description that wants the firmware default says ROCE_CC_PRIO_MASK: 0xFF.
func (n *NICSpec) defaultMask(mask uint8) {
	rtt := n.CC == "timely" || n.CC == "hpcc" || n.CC == "hpcc-pint" || n.CC == "dctcp"
	if n.DCQCN.Config == nil && !rtt || mask == 0 {
		return
	}
	for _, f := range n.Firmware {
		if strings.HasPrefix(f.Name, "ROCE_CC_PRIO_MASK") {
			return
		}
	}
	for _, k := range n.DCQCN.Knobs {
		if k.Name == "roce_cc_prio_mask" {
			return
		}
	}
	if !rtt {
		n.DCQCN.Config.RoceCcPrioMask = int64(mask)
	}
	n.CCPrioMask = mask
	n.CCPrioMaskDefault = true
}

// rdmaPriorities is the mask of the priorities RDMA traffic rides: the
// hosts' RoCE priority, explicit flows and generators, and RoCE background
// streams (storage).
func (s *Scenario) rdmaPriorities() uint8 {
	h := &s.Host
	m := uint8(1) << h.RoCEPriority()
	for _, f := range s.Flows {
		m |= 1 << (f.Priority & 7)
	}
	for _, g := range s.Generators {
		m |= 1 << (g.Priority & 7)
	}
	var bg []background.Flow
	if s.Workload != nil {
		bg = s.Workload.Background
	}
	for _, b := range bg {
		if b.Class != workload.RoCE {
			continue
		}
		p := h.RoCEPriority()
		if b.TC >= 0 {
			if h.Priority >= 0 {
				p = h.Priority
			} else {
				p = int(h.DSCPToPrio[(b.TC>>2)&63])
			}
		}
		m |= 1 << (p & 7)
	}
	return m
}

func ccMask(d *cc.DCQCNConfig) uint8 {
	if d == nil {
		return 0
	}
	return uint8(d.RoceCcPrioMask)
}

// mappingValues converts key-value nodes back into a mapping's values.
func mappingValues(ns []ast.Node) []*ast.MappingValueNode {
	out := make([]*ast.MappingValueNode, 0, len(ns))
	for _, n := range ns {
		out = append(out, n.(*ast.MappingValueNode))
	}
	return out
}

// isMlxconfigName accepts mlxconfig parameter names: upper case, digits
// and underscores.
func isMlxconfigName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// isNCCLName accepts NCCL environment variable names.
func isNCCLName(s string) bool { return strings.HasPrefix(s, "NCCL_") && isMlxconfigName(s) }

// ncclEnv reads the top-level nccl section: NCCL environment variables by
// their real names.
//
// NCCL ignores a variable it does not know, so a misspelt one (
// NCCL_IB_QPS_PER_CONECTION) runs as if unset: it is a warning at its
// position naming the variable meant.
func (c *conv) ncclEnv(n ast.Node) []Setting {
	env := c.settings(n, "nccl", isNCCLName, "NCCL environment variables such as NCCL_IB_TC")
	known := collective.KnownVars()
	for _, s := range env {
		if collective.IsKnownVar(s.Name) {
			continue
		}
		if meant, ok := spell.Closest(s.Name, known, nil); ok {
			c.warnAt(s.Line, s.Col, "nccl."+s.Name, "not an NCCL variable: NCCL ignores it; did you mean %s?", meant)
		}
	}
	return env
}
