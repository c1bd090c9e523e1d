// Package scenario reads a twin scenario from strict YAML, fills defaults,
// validates it with file:line:col messages, estimates its cost, and
// assembles the fabric, hosts and traffic it describes. It is the only
// package (with cmd) that puts concrete parts together.
package scenario

import (
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"rocelab/internal/fabric"
	"rocelab/internal/headroom"
	"rocelab/internal/topo"
	"rocelab/internal/unit"
)

// Scenario is a validated scenario with every default filled in.
type Scenario struct {
	File        string
	Name        string
	Description string
	Seed        uint64
	// Duration is the simulated time limit; a run ends earlier when every
	// flow has completed.
	Duration unit.Time

	Topo   *topo.Topology
	Switch SwitchSpec
	Host   HostSpec
	// Flows are the explicit flows; Generators make more when the
	// scenario is expanded (see Expand).
	Flows      []FlowSpec
	Generators []GeneratorSpec
	Faults     []FaultSpec
	// SampleInterval is how often queue depths are sampled.
	SampleInterval unit.Time
	// Warnings are problems that do not stop the scenario, in file order.
	Warnings Errors
	// NCCL holds the nccl section: NCCL environment variables by name.
	NCCL []Setting
	// PHY is the physical layer's imperfection.
	PHY PHYSpec
	// Workload is the NCCL job on the GPU servers, if any.
	Workload *WorkloadSpec
	// Perftests are the perftest runs of the traffic section.
	Perftests []PerftestSpec
	// Variants are the file's named variants, each the whole scenario
	// with its overrides applied; Variant names the one this is.
	Variants []*Scenario
	Variant  string
	// Digest identifies the source the scenario was loaded from and the
	// overrides applied since (Job's Key adds the variant and seed).
	Digest string

	// Where maps each key path given in the file ("switch.ecn.kmin",
	// "switch.pfc.priorities[0]") to the position of its value, so that
	// checks of a valid scenario (rocelab lint) can cite the line.
	Where map[string]Pos

	// Run is how the packet engine runs the scenario (cores, a clock for
	// its statistics): not part of the file, and never of the results.
	Run Options
}

// PHYSpec models what makes real links imperfectly regular: each port's
// clock is off by a uniform draw from ±ClockPPM parts per million, and each
// frame's arrival is delayed by up to FECJitter (the FEC codeword time of
// the link when Auto).
type PHYSpec struct {
	ClockPPM  float64
	FECJitter unit.Time
	Auto      bool
}

// MaxSwitchLatency bounds switch.latency: data-centre switches forward in
// 0.3-2 µs (cut-through to store-and-forward at 400G).
const MaxSwitchLatency = 100 * unit.Microsecond

// SwitchSpec is the switch configuration shared by every switch.
type SwitchSpec struct {
	// Vendor is the switch OS the configs are generated for: sonic,
	// arista, cumulus or generic. The twin does not use it.
	Vendor            string
	Buffer            unit.Bytes
	Alpha, AlphaLossy float64
	// AlphaByRate holds the lossless alpha of the ingress ports of other
	// speeds (switch.alpha_by_rate), as SONiC's per-speed buffer profiles
	// each carry a dynamic_th; ports of a rate not listed take Alpha.
	AlphaByRate []RateAlpha
	// StaticTh, when set, replaces Alpha: the bytes of the shared pool a
	// lossless PG may hold, whatever the pool's free space.
	StaticTh unit.Bytes
	// Latency is each switch's forwarding latency, arrival to egress
	// queue (switch.latency).
	Latency       unit.Time
	Reserve       unit.Bytes
	XONOffset     unit.Bytes
	Trust         fabric.Trust
	DSCPToPrio    [64]uint8
	Strict        uint8
	Weights       [8]int
	PFC           PFCSpec
	ECN           ECNSpec
	Watchdog      fabric.WatchdogConfig
	HashFields    fabric.HashField
	PerSwitchSeed bool
	// NS3 takes the HPCC ns-3 model's ECMP (switch.ecmp.model: ns3,
	// ecmp.NS3) instead of the seeded hash of HashFields; NS3DstPort is
	// the flows' destination port it hashes (switch.ecmp.dst_port), or -1
	// for 100 plus the run's seed, as tools/ns3conv writes flow.txt.
	NS3        bool
	NS3DstPort int
	// Paths is the path selection of each tier's switches, by topology
	// tier: 1 leaf (ToR, edge; a single switch, a dumbbell's two), 2
	// spine (aggregation), 3 core.
	Paths [4]fabric.PathConfig
}

// PFCSpec is the switches' PFC configuration.
type PFCSpec struct {
	Enabled bool
	// Priorities are the priorities PFC protects (the lossless class). When
	// PFC is disabled they still name the class that should have been
	// lossless, for the loss target.
	Priorities uint8
	Quanta     uint16
	Refresh    unit.Time
	XON        bool
	// Headroom is the per-PG headroom; zero means computed by Formula
	// (package headroom) from the port's speed and cable and the fields
	// below.
	Headroom unit.Bytes
	// Formula is the headroom formula; ASIC, when set, names the
	// ASIC_TABLE row whose cell size and MAC/PHY delay it uses unless
	// CellSize or MACPHYDelay are given.
	Formula            headroom.Formula
	ASIC               string
	CellSize           int
	SmallPacketPercent float64
	// MTU is the switch port MTU.
	MTU unit.Bytes
	// LosslessMTU is the largest lossless frame SONiC's formula adds once
	// (LOSSLESS_TRAFFIC_PATTERN mtu); zero means MTU.
	LosslessMTU unit.Bytes
	// MACPHYDelay zero means the ASIC's.
	MACPHYDelay unit.Bytes
	// CellOccupancy, when positive, replaces the occupancy the formula
	// derives from the cell size and small-packet share.
	CellOccupancy float64
	// ResponseTime is how long a port keeps sending after a pause
	// arrives; zero means the IEEE bound for the port speed.
	ResponseTime unit.Time
}

// ECNSpec is the switches' RED/ECN configuration.
type ECNSpec struct {
	Enabled    bool
	Priorities uint8
	Kmin, Kmax unit.Bytes
	Pmax       float64
	AtEnqueue  bool
	// RTT is the base round-trip time the thresholds are sized for; lint
	// and the calculators compare them with one BDP at the port speed.
	RTT unit.Time
	// ByRate holds the thresholds of ports of other speeds
	// (switch.ecn.by_rate), by rate: a fabric of mixed speeds gives each
	// its own WRED profile. Ports of a rate not listed take Kmin, Kmax and
	// Pmax.
	ByRate []RateECN
}

// RateAlpha is the lossless dynamic threshold of the ingress ports of one
// rate; Key is the rate as switch.alpha_by_rate writes it.
type RateAlpha struct {
	Rate  unit.BitRate
	Alpha float64
	Key   string
}

// AlphaAt returns the lossless alpha of an ingress port of the rate.
func (s *SwitchSpec) AlphaAt(rate unit.BitRate) float64 {
	for _, r := range s.AlphaByRate {
		if rate.Nominal(r.Rate) {
			return r.Alpha
		}
	}
	return s.Alpha
}

// RateECN is the marking thresholds of the ports of one rate; Key is
// the rate as switch.ecn.by_rate writes it ("400G"), for key paths.
type RateECN struct {
	Rate       unit.BitRate
	Kmin, Kmax unit.Bytes
	Pmax       float64
	Key        string
}

// At returns the thresholds of a port of the given rate: its by_rate
// entry (Key set), or the common ones (Key empty).
func (e *ECNSpec) At(rate unit.BitRate) RateECN {
	for _, r := range e.ByRate {
		if rate.Nominal(r.Rate) {
			return r
		}
	}
	b := e.Base()
	b.Rate = rate
	return b
}

// Base returns the thresholds of ports of a rate ByRate does not list.
func (e *ECNSpec) Base() RateECN { return RateECN{Kmin: e.Kmin, Kmax: e.Kmax, Pmax: e.Pmax} }

// HostSpec is the host NICs' configuration.
type HostSpec struct {
	MTU int32
	// NetdevMTU is the NIC's Ethernet (netdev) MTU; 0 means not given
	// (the twin frames at MTU and does not use it).
	NetdevMTU int
	DSCP      uint8
	// Priority is the priority the NIC queues and pauses on; -1 means
	// taken from DSCPToPrio of the flow's DSCP.
	Priority   int
	Trust      fabric.Trust
	DSCPToPrio [64]uint8
	VLAN, ECN  bool
	// NIC is the RDMA NIC's configuration.
	NIC NICSpec
}

// FlowSpec is one flow with its hosts resolved.
type FlowSpec struct {
	Name     string
	Src, Dst int
	Bytes    unit.Bytes
	Start    unit.Time
	DSCP     uint8
	Priority uint8
	Rate     unit.BitRate
	After    []int
}

// LoadFile reads and validates a scenario file (see LoadReader).
func LoadFile(path string) (*Scenario, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return LoadReader(path, f)
}

// Load validates scenario YAML. name is the file name used in messages.
// A file with variants also loads each of them (see Variants).
func Load(name string, data []byte) (*Scenario, error) { return load(name, data, false) }

// LoadDescription validates a cluster description: a scenario whose traffic
// may be absent (rocelab lint and config gen read the switch, host and
// topology sections). A description without traffic cannot be run.
func LoadDescription(name string, data []byte) (*Scenario, error) { return load(name, data, true) }

func load(name string, data []byte, description bool) (*Scenario, error) {
	raw, err := parseRaw(name, data)
	if err != nil {
		return nil, err
	}
	s, err := convert(name, raw, description)
	if err != nil {
		return nil, err
	}
	if len(raw.Variants) > 0 {
		if s.Variants, err = loadVariants(name, data, raw.Variants, description); err != nil {
			return nil, err
		}
	}
	s.Digest = digest(string(data))
	for _, v := range s.Variants {
		v.Digest = s.Digest
	}
	return s, nil
}

// convert builds the typed scenario from its raw form.
func convert(name string, raw *rawScenario, description bool) (*Scenario, error) {
	c := &conv{file: name, description: description}
	s := &Scenario{File: name}
	s.Name = c.text(raw.Name, "name", "unnamed")
	s.Description = c.text(raw.Description, "description", "")
	s.Seed = uint64(c.integer(raw.Seed, "seed", DefaultSeed, 0, 1<<62))
	s.Duration = c.duration(raw.Duration, "duration", DefaultDuration)
	if s.Duration == 0 {
		c.fail(raw.Duration, "duration", "expected a positive duration")
	}
	if raw.Topology == nil {
		c.errs = append(c.errs, &Error{File: name, Line: 1, Col: 1, Path: "topology", Msg: "missing: a scenario needs a topology (kind: single-switch, dumbbell, leaf-spine, fat-tree or graph)"})
		return nil, c.errs
	}
	s.Topo = c.topology(raw.Topology)
	s.Switch = c.switchSpec(raw.Switch)
	s.Host = c.hostSpec(raw.Host)
	if c.metrics(s, raw.Metrics); len(c.errs) > 0 || s.Topo == nil {
		return nil, c.errs
	}
	c.checkBuffer(s, raw.Switch)
	c.checkRates(s, raw.Switch)
	c.checkNS3(s, raw.Switch)
	s.NCCL = c.ncclEnv(raw.NCCL)
	s.PHY = c.phy(raw.PHY)
	c.workload(s, raw)
	if raw.Workload == nil || s.Workload != nil || raw.Traffic != nil {
		c.traffic(s, raw.Traffic) // a workload in error has said what is missing
	}
	if _, given := c.scalar(raw.Duration, "duration"); !given && (s.Workload != nil || len(s.Perftests) > 0) {
		// An NCCL job or a perftest runs until it is done: the cap is only
		// a guard.
		s.Duration = DefaultJobDuration
	}
	s.Host.NIC.defaultMask(s.rdmaPriorities())
	c.faults(s, raw.Faults)
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	s.Warnings = c.warns
	s.Where = c.pos
	return s, nil
}

// metrics fills the metrics settings.
func (c *conv) metrics(s *Scenario, m *rawMetrics) {
	s.SampleInterval = DefaultSampleInterval
	if m != nil {
		s.SampleInterval = c.duration(m.SampleInterval, "metrics.sample_interval", DefaultSampleInterval)
		if s.SampleInterval == 0 {
			c.fail(m.SampleInterval, "metrics.sample_interval", "expected a positive interval")
		}
	}
}

func (c *conv) link(r *rawLink, path string, defRate unit.BitRate, defCable unit.Length) topo.LinkSpec {
	l := topo.LinkSpec{Rate: defRate, Cable: defCable}
	if r != nil {
		l.Rate = c.rate(r.Rate, path+".rate", defRate)
		l.Cable = c.length(r.Cable, path+".cable", defCable)
	}
	return l
}

// topology builds the topology, reporting a parameter that does not fit at
// its own position.
func (c *conv) topology(r *rawTopology) *topo.Topology {
	const maxCount = 1 << 20
	kind := c.choice(r.Kind, "topology.kind", "", "single-switch", "dumbbell", "leaf-spine", "fat-tree", "graph")
	if kind == "" {
		if _, ok := c.scalar(r.Kind, "topology.kind"); !ok {
			c.fail(r.Kind, "topology.kind", "missing: expected one of single-switch, dumbbell, leaf-spine, fat-tree, graph")
		}
		return nil
	}
	hostLink := c.link(r.HostLink, "topology.host_link", DefaultHostRate, DefaultHostCable)
	fabricLink := c.link(r.FabricLink, "topology.fabric_link", hostLink.Rate, DefaultFabricCable)
	nodes := map[string]ast.Node{
		"hosts": r.Hosts, "left": r.Left, "right": r.Right, "trunk_links": r.TrunkLinks,
		"leaves": r.Leaves, "spines": r.Spines, "hosts_per_leaf": r.HostsPerLeaf,
		"uplinks_per_leaf": r.UplinksPerLeaf, "k": r.K, "radix": r.Radix, "switches": r.Switches,
	}
	// The least each count may be, so that one message gives the range.
	least := map[string]int64{"hosts": 2, "k": 2}
	num := func(key string, def int64) int {
		return int(c.integer(nodes[key], "topology."+key, def, max(least[key], 1), maxCount))
	}
	// Keys that do not belong to the kind are a mistake worth reporting.
	allowed := map[string][]string{
		"single-switch": {"hosts"},
		"dumbbell":      {"left", "right", "trunk_links"},
		"leaf-spine":    {"leaves", "spines", "hosts_per_leaf", "uplinks_per_leaf", "radix"},
		"fat-tree":      {"k"},
		"graph":         {"hosts", "switches", "links"},
	}
	for _, key := range []string{"hosts", "left", "right", "trunk_links", "leaves", "spines", "hosts_per_leaf", "uplinks_per_leaf", "k", "radix", "switches"} {
		if Unwrap(nodes[key]) == nil || contains(allowed[kind], key) {
			continue
		}
		c.fail(nodes[key], "topology."+key, "does not apply to a %s topology (its keys: %s)", kind, strings.Join(allowed[kind], ", "))
	}
	if len(r.Links) > 0 && kind != "graph" {
		c.fail(r.Kind, "topology.links", "apply only to a graph topology")
	}
	if r.Oversubscription != nil && kind != "leaf-spine" {
		c.fail(r.Oversubscription, "topology.oversubscription", "applies only to a leaf-spine topology")
	}
	if r.Servers != nil && kind != "leaf-spine" {
		c.fail(r.Servers.NICs, "topology.servers", "GPU servers are modelled on a leaf-spine topology only")
	}
	if len(c.errs) > 0 {
		return nil
	}
	var t *topo.Topology
	var err error
	switch kind {
	case "single-switch":
		if n := int64(num("hosts", 2)); c.tooLarge(nodes["hosts"], kind, n, n) {
			return nil
		}
		t, err = topo.SingleSwitch(num("hosts", 2), hostLink)
	case "dumbbell":
		hosts := int64(num("left", 1)) + int64(num("right", 1))
		if c.tooLarge(r.Kind, kind, hosts, hosts+int64(num("trunk_links", 1))) {
			return nil
		}
		t, err = topo.Dumbbell(num("left", 1), num("right", 1), num("trunk_links", 1), hostLink, fabricLink)
	case "fat-tree":
		// k pods of k/2 edge and k/2 aggregation switches, (k/2)² cores:
		// k³/4 hosts, and k³/4 links in each of the three tiers.
		if k := int64(num("k", 4)); c.tooLarge(nodes["k"], kind, k*k*k/4, 3*k*k*k/4) {
			return nil
		}
		t, err = topo.FatTree(num("k", 4), hostLink)
	case "graph":
		if t, err = c.graph(r, nodes, num, hostLink, fabricLink); t == nil && err == nil {
			return nil
		}
	case "leaf-spine":
		spec := topo.LeafSpine{
			Leaves: num("leaves", 2), Spines: num("spines", 2), HostsPerLeaf: num("hosts_per_leaf", 4),
			HostLink: hostLink, FabricLink: fabricLink,
		}
		if r.Radix != nil {
			spec.Radix = num("radix", 0)
		}
		switch {
		case r.UplinksPerLeaf != nil && r.Oversubscription != nil:
			c.fail(r.Oversubscription, "topology.oversubscription", "give uplinks_per_leaf or oversubscription, not both")
		case r.UplinksPerLeaf != nil:
			spec.UplinksPerLeaf = num("uplinks_per_leaf", 0)
		default:
			over := c.float(r.Oversubscription, "topology.oversubscription", 1, 0.01, 1000)
			up := float64(int64(spec.HostsPerLeaf)*int64(hostLink.Rate)) / (over * float64(fabricLink.Rate))
			spec.UplinksPerLeaf = int(up + 0.5)
			if d := up - float64(spec.UplinksPerLeaf); d > 1e-9 || d < -1e-9 || spec.UplinksPerLeaf == 0 {
				node := r.Oversubscription
				if node == nil {
					node = r.HostsPerLeaf
				}
				c.fail(node, "topology.oversubscription", "%d hosts at %v over %v uplinks at %g:1 needs %.2f uplinks: not a whole number", spec.HostsPerLeaf, hostLink.Rate, fabricLink.Rate, over, up)
			}
			nodes["uplinks_per_leaf"] = r.Oversubscription
		}
		if r.Servers != nil {
			spec.NICsPerServer = int(c.integer(r.Servers.NICs, "topology.servers.nics", 1, 1, 64))
			spec.GPUsPerServer = int(c.integer(r.Servers.GPUs, "topology.servers.gpus", 8, 1, 64))
			spec.RailOptimized = c.boolean(r.Servers.RailOptimized, "topology.servers.rail_optimized", false)
			nodes["servers"] = r.Servers.NICs
		}
		if len(c.errs) > 0 {
			return nil
		}
		hosts := int64(spec.Leaves) * int64(spec.HostsPerLeaf)
		if c.tooLarge(nodes["leaves"], kind, hosts, hosts+int64(spec.Leaves)*int64(spec.UplinksPerLeaf)) {
			return nil
		}
		t, err = topo.BuildLeafSpine(spec)
	}
	if err != nil {
		if te, ok := err.(*topo.Error); ok {
			node := nodes[te.Field]
			if node == nil {
				node = r.Kind
			}
			c.fail(node, "topology."+te.Field, "%s", te.Msg)
		} else {
			c.fail(r.Kind, "topology", "%v", err)
		}
		return nil
	}
	return t
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

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
			if s.PFC.Headroom == 0 {
				c.fail(p.Headroom, path+".headroom", "expected a positive size or \"auto\"")
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

func (c *conv) hostSpec(r *rawHost) HostSpec {
	h := HostSpec{MTU: DefaultMTU, DSCP: DefaultDSCP, Priority: -1, Trust: fabric.TrustDSCP, ECN: true}
	h.DSCPToPrio = c.dscpMap(nil, "")
	h.NIC = c.nicSpec(r)
	if r == nil {
		return h
	}
	mtu := c.integer(r.MTU, "host.mtu", DefaultMTU, 256, 4096)
	switch mtu {
	case 256, 512, 1024, 2048, 4096:
		h.MTU = int32(mtu)
	default:
		c.fail(r.MTU, "host.mtu", "expected a RoCE path MTU: 256, 512, 1024, 2048 or 4096, got %d", mtu)
	}
	h.NetdevMTU = int(c.integer(r.NetdevMTU, "host.netdev_mtu", 0, 576, 65535))
	h.DSCP = uint8(c.integer(r.DSCP, "host.dscp", DefaultDSCP, 0, 63))
	h.Priority = int(c.integer(r.Priority, "host.priority", -1, 0, 7))
	if c.choice(r.Trust, "host.trust", "dscp", "dscp", "pcp") == "pcp" {
		h.Trust = fabric.TrustPCP
	}
	h.DSCPToPrio = c.dscpMap(r.DSCPToPriority, "host.dscp_to_priority")
	h.VLAN = c.boolean(r.VLAN, "host.vlan", false)
	// A NIC sets ECT on RoCE packets where an ECN-based congestion control
	// (DCQCN, DCTCP) is enabled; with congestion control off, or an RTT-
	// or INT-based one, it sends Not-ECT unless told otherwise.
	h.ECN = c.boolean(r.ECN, "host.ecn", h.NIC.CC == "dcqcn" || h.NIC.CC == "dctcp")
	if h.NIC.CC == "dctcp" && !h.ECN {
		c.fail(r.ECN, "host.ecn", "DCTCP reads the ECN marks its ACKs echo; expected true (the NICs send ECT)")
	}
	return h
}

// RoCEPriority is the priority the hosts send RoCE on: host.priority, else
// what host.dscp_to_priority maps host.dscp to.
func (h *HostSpec) RoCEPriority() int {
	if h.Priority >= 0 {
		return h.Priority
	}
	return int(h.DSCPToPrio[h.DSCP])
}

// hostRef resolves "h12" or 12 to a host index.
func (c *conv) hostRef(n ast.Node, path string, hosts int) int {
	s, ok := c.scalar(n, path)
	if !ok {
		c.fail(n, path, "missing: expected a host such as h0")
		return -1
	}
	num := strings.TrimPrefix(s, "h")
	i, err := strconv.Atoi(num)
	if err != nil || i < 0 || i >= hosts {
		c.fail(n, path, "expected a host from h0 to h%d, got %s", hosts-1, quote(s))
		return -1
	}
	return i
}

// phy reads the phy section.
func (c *conv) phy(r *rawPHY) PHYSpec {
	p := PHYSpec{ClockPPM: DefaultClockPPM, Auto: true}
	if r == nil {
		return p
	}
	p.ClockPPM = c.float(r.ClockPPM, "phy.clock_ppm", DefaultClockPPM, 0, 1000)
	if txt, ok := c.scalar(r.FECJitter, "phy.fec_jitter"); ok && txt != "auto" {
		p.Auto = false
		p.FECJitter = c.duration(r.FECJitter, "phy.fec_jitter", 0)
	}
	return p
}
