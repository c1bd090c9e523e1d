package scenario

import "github.com/goccy/go-yaml/ast"

// The raw schema mirrors the YAML file. Every scalar is kept as its AST
// node so that a bad value is reported at its own line and column; the
// typed Scenario is built from it by convert.

type rawScenario struct {
	Name        ast.Node      `yaml:"name"`
	Description ast.Node      `yaml:"description"`
	Seed        ast.Node      `yaml:"seed"`
	Duration    ast.Node      `yaml:"duration"`
	Topology    *rawTopology  `yaml:"topology"`
	Switch      *rawSwitch    `yaml:"switch"`
	Host        *rawHost      `yaml:"host"`
	Traffic     *rawTraffic   `yaml:"traffic"`
	Faults      []*rawFault   `yaml:"faults"`
	Metrics     *rawMetrics   `yaml:"metrics"`
	NCCL        ast.Node      `yaml:"nccl"`
	PHY         *rawPHY       `yaml:"phy"`
	Workload    *rawWorkload  `yaml:"workload"`
	Variants    []*rawVariant `yaml:"variants"`
	// Tune is a parameter space for rocelab tune, which reads it; the
	// twin ignores it.
	Tune ast.Node `yaml:"tune"`
}

type rawPHY struct {
	ClockPPM  ast.Node `yaml:"clock_ppm"`
	FECJitter ast.Node `yaml:"fec_jitter"`
}

type rawLink struct {
	Rate  ast.Node `yaml:"rate"`
	Cable ast.Node `yaml:"cable"`
}

type rawServers struct {
	GPUs          ast.Node `yaml:"gpus"`
	NICs          ast.Node `yaml:"nics"`
	RailOptimized ast.Node `yaml:"rail_optimized"`
	// The GPU server model (see rawWorkload).
	GPU     ast.Node `yaml:"gpu"`
	GPUNIC  ast.Node `yaml:"gpu_nic"`
	CPU     ast.Node `yaml:"cpu"`
	PeerMem ast.Node `yaml:"peermem"`
	NICPCIe ast.Node `yaml:"nic_pcie"`
	// Host-side details (gpu.Host).
	NICPCIeWidth ast.Node `yaml:"nic_pcie_width"`
	GPUPCIe      ast.Node `yaml:"gpu_pcie"`
	SocketLink   ast.Node `yaml:"socket_link"`
	ACS          ast.Node `yaml:"acs"`
	NICBond      ast.Node `yaml:"nic_bond"`
	NICPorts     ast.Node `yaml:"nic_ports"`
	StepOverhead ast.Node `yaml:"step_overhead"`
	// NCCLTopoNICSpeed is the net speed of an NCCL_TOPO_FILE.
	NCCLTopoNICSpeed ast.Node `yaml:"nccl_topo_nic_speed"`
}

type rawTopology struct {
	Kind             ast.Node        `yaml:"kind"`
	Hosts            ast.Node        `yaml:"hosts"`
	Left             ast.Node        `yaml:"left"`
	Right            ast.Node        `yaml:"right"`
	TrunkLinks       ast.Node        `yaml:"trunk_links"`
	Leaves           ast.Node        `yaml:"leaves"`
	Spines           ast.Node        `yaml:"spines"`
	HostsPerLeaf     ast.Node        `yaml:"hosts_per_leaf"`
	UplinksPerLeaf   ast.Node        `yaml:"uplinks_per_leaf"`
	Oversubscription ast.Node        `yaml:"oversubscription"`
	K                ast.Node        `yaml:"k"`
	Switches         ast.Node        `yaml:"switches"`
	Links            []*rawGraphLink `yaml:"links"`
	Radix            ast.Node        `yaml:"radix"`
	HostLink         *rawLink        `yaml:"host_link"`
	FabricLink       *rawLink        `yaml:"fabric_link"`
	Servers          *rawServers     `yaml:"servers"`
}

type rawPFC struct {
	Enabled       ast.Node `yaml:"enabled"`
	Priorities    ast.Node `yaml:"priorities"`
	Quanta        ast.Node `yaml:"quanta"`
	Refresh       ast.Node `yaml:"refresh"`
	XON           ast.Node `yaml:"xon"`
	XONOffset     ast.Node `yaml:"xon_offset"`
	Headroom      ast.Node `yaml:"headroom"`
	MTU           ast.Node `yaml:"mtu"`
	MACPHYDelay   ast.Node `yaml:"mac_phy_delay"`
	CellOccupancy ast.Node `yaml:"cell_occupancy"`
	ResponseTime  ast.Node `yaml:"response_time"`
	Formula       ast.Node `yaml:"formula"`
	ASIC          ast.Node `yaml:"asic"`
	CellSize      ast.Node `yaml:"cell_size"`
	SmallPackets  ast.Node `yaml:"small_packet_percentage"`
	LosslessMTU   ast.Node `yaml:"lossless_mtu"`
}

type rawECN struct {
	Enabled    ast.Node `yaml:"enabled"`
	Priorities ast.Node `yaml:"priorities"`
	Kmin       ast.Node `yaml:"kmin"`
	Kmax       ast.Node `yaml:"kmax"`
	Pmax       ast.Node `yaml:"pmax"`
	At         ast.Node `yaml:"at"`
	RTT        ast.Node `yaml:"rtt"`
	ByRate     ast.Node `yaml:"by_rate"`
}

type rawWatchdog struct {
	Enabled     ast.Node `yaml:"enabled"`
	Detection   ast.Node `yaml:"detection"`
	Restoration ast.Node `yaml:"restoration"`
}

type rawECMP struct {
	Hash          ast.Node `yaml:"hash"`
	PerSwitchSeed ast.Node `yaml:"per_switch_seed"`
	Model         ast.Node `yaml:"model"`
	DstPort       ast.Node `yaml:"dst_port"`
}

type rawLB struct {
	Mode       ast.Node `yaml:"mode"`
	Leaf       ast.Node `yaml:"leaf"`
	Spine      ast.Node `yaml:"spine"`
	Core       ast.Node `yaml:"core"`
	FlowletGap ast.Node `yaml:"flowlet_gap"`
	Adaptive   ast.Node `yaml:"adaptive"`
	Spray      ast.Node `yaml:"spray"`
}

type rawScheduler struct {
	Strict  ast.Node `yaml:"strict"`
	Weights ast.Node `yaml:"weights"`
}

type rawSwitch struct {
	Vendor         ast.Node      `yaml:"vendor"`
	Buffer         ast.Node      `yaml:"buffer"`
	Alpha          ast.Node      `yaml:"alpha"`
	AlphaByRate    ast.Node      `yaml:"alpha_by_rate"`
	AlphaLossy     ast.Node      `yaml:"alpha_lossy"`
	StaticTh       ast.Node      `yaml:"static_th"`
	Latency        ast.Node      `yaml:"latency"`
	Reserve        ast.Node      `yaml:"reserve"`
	Trust          ast.Node      `yaml:"trust"`
	DSCPToPriority ast.Node      `yaml:"dscp_to_priority"`
	Scheduler      *rawScheduler `yaml:"scheduler"`
	PFC            *rawPFC       `yaml:"pfc"`
	ECN            *rawECN       `yaml:"ecn"`
	Watchdog       *rawWatchdog  `yaml:"watchdog"`
	ECMP           *rawECMP      `yaml:"ecmp"`
	LoadBalancing  *rawLB        `yaml:"load_balancing"`
}

type rawHost struct {
	MTU            ast.Node      `yaml:"mtu"`
	NetdevMTU      ast.Node      `yaml:"netdev_mtu"`
	DSCP           ast.Node      `yaml:"dscp"`
	Priority       ast.Node      `yaml:"priority"`
	Trust          ast.Node      `yaml:"trust"`
	DSCPToPriority ast.Node      `yaml:"dscp_to_priority"`
	VLAN           ast.Node      `yaml:"vlan"`
	ECN            ast.Node      `yaml:"ecn"`
	CC             ast.Node      `yaml:"cc"`
	DCQCN          ast.Node      `yaml:"dcqcn"`
	Timely         ast.Node      `yaml:"timely"`
	HPCC           ast.Node      `yaml:"hpcc"`
	DCTCP          ast.Node      `yaml:"dctcp"`
	PINT           ast.Node      `yaml:"hpcc_pint"`
	Firmware       ast.Node      `yaml:"firmware"`
	NICPorts       ast.Node      `yaml:"nic_ports"`
	QP             *rawQP        `yaml:"qp"`
	Rx             *rawRx        `yaml:"rx"`
	Scheduler      *rawScheduler `yaml:"scheduler"`
}

type rawQP struct {
	Timeout      ast.Node `yaml:"timeout"`
	RetryCnt     ast.Node `yaml:"retry_cnt"`
	AckCoalesce  ast.Node `yaml:"ack_coalesce"`
	Adaptive     ast.Node `yaml:"adaptive_retransmission"`
	AdaptiveBase ast.Node `yaml:"adaptive_base"`
	TCPRTO       ast.Node `yaml:"tcp_rto"`
	Retransmit   ast.Node `yaml:"retransmission"`
	Receive      ast.Node `yaml:"receive"`
	Window       ast.Node `yaml:"reorder_window"`
	NAKThreshold ast.Node `yaml:"nak_threshold"`
	RateChange   ast.Node `yaml:"rate_change"`
	AcksFirst    ast.Node `yaml:"acks_first"`
	Order        ast.Node `yaml:"order"`
}

type rawRx struct {
	DrainRate ast.Node `yaml:"drain_rate"`
	Buffer    ast.Node `yaml:"buffer"`
	XOFF      ast.Node `yaml:"xoff"`
	XON       ast.Node `yaml:"xon"`
	PFC       ast.Node `yaml:"pfc"`
}

type rawFlow struct {
	Src      ast.Node `yaml:"src"`
	Dst      ast.Node `yaml:"dst"`
	Bytes    ast.Node `yaml:"bytes"`
	Start    ast.Node `yaml:"start"`
	DSCP     ast.Node `yaml:"dscp"`
	Priority ast.Node `yaml:"priority"`
	Rate     ast.Node `yaml:"rate"`
	After    ast.Node `yaml:"after"`
	AfterN   ast.Node `yaml:"after_count"`
	Name     ast.Node `yaml:"name"`
}

type rawGenerator struct {
	Kind     ast.Node `yaml:"kind"`
	Bytes    ast.Node `yaml:"bytes"`
	Start    ast.Node `yaml:"start"`
	DSCP     ast.Node `yaml:"dscp"`
	Priority ast.Node `yaml:"priority"`
	Rate     ast.Node `yaml:"rate"`
	QPs      ast.Node `yaml:"qps"`
	Senders  ast.Node `yaml:"senders"`
	Receiver ast.Node `yaml:"receiver"`
	Hosts    ast.Node `yaml:"hosts"`
	Jitter   ast.Node `yaml:"jitter"`
	Name     ast.Node `yaml:"name"`
}

type rawTraffic struct {
	Flows      []*rawFlow      `yaml:"flows"`
	Generators []*rawGenerator `yaml:"generators"`
	Perftest   []*rawPerftest  `yaml:"perftest"`
}

type rawPerftest struct {
	Command ast.Node `yaml:"command"`
	Client  ast.Node `yaml:"client"`
	Server  ast.Node `yaml:"server"`
}

type rawFault struct {
	Kind     ast.Node `yaml:"kind"`
	Host     ast.Node `yaml:"host"`
	Priority ast.Node `yaml:"priority"`
	Start    ast.Node `yaml:"start"`
	End      ast.Node `yaml:"end"`
	Link     ast.Node `yaml:"link"`
	Rate     ast.Node `yaml:"rate"`
	Burst    ast.Node `yaml:"burst"`
	Reroute  ast.Node `yaml:"reroute"`
	Converge ast.Node `yaml:"converge"`
	Switch   ast.Node `yaml:"switch"`
	Hosts    ast.Node `yaml:"hosts"`
	Via      ast.Node `yaml:"via"`
}

type rawMetrics struct {
	SampleInterval ast.Node `yaml:"sample_interval"`
}
