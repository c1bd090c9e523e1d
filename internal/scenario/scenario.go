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
	// AfterCount is how many of After must complete before the flow
	// starts (after_count; all of them when 0): the k-th target of
	// csg-htsim's multishot trigger starts at the k-th completion.
	AfterCount int
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
