package twin

import (
	"rocelab/internal/counters"
	"rocelab/internal/metrics"
	"rocelab/internal/unit"
)

// An Observation is everything a run shows, as plain data: what ran, the
// health targets, totals, flows, counters, histograms, sampled series and
// the NCCL tables. Engines fill it; reports, the exporter's twin feed,
// --fail-on and tune read only it.
//
// Rules that hold for every engine:
//   - A field the engine does not model is absent (nil), not zero, and
//     named in Engine.NotModelled; an empty list means "modelled, none".
//   - Counters carry the names of internal/counters (mlx5 ethtool -S,
//     hw_counters and port counters), zeros included, in the order the
//     driver prints them.
//   - It is a snapshot: it shares no memory with the engine, so the engine
//     may run on after Observe.
//   - It is exact: times are integer picoseconds, counts integers,
//     histograms whole. A partitioned engine builds it by merging its
//     parts (Merge), and it survives a JSON round trip unchanged, so shards
//     of a sweep merge into the unsharded output byte for byte.
type Observation struct {
	Engine   EngineInfo `json:"engine"`
	Scenario Setup      `json:"scenario"`
	Sim      Sim        `json:"sim"`
	// Health is graded from Basis (Grade).
	Health metrics.Health `json:"health"`
	Basis  HealthBasis    `json:"health_basis"`
	Totals *Totals        `json:"totals"`
	Flows  []Flow         `json:"flows"`
	// Latency is the one-way latency of delivered data packets, per
	// priority that carried any.
	Latency []PrioLatency `json:"latency"`
	// Ports are every port, by port id (switch ports and host NIC ports).
	Ports []Port `json:"ports"`
	// NICs are the host NICs, by host index.
	NICs []NIC `json:"nics"`
	// Queues are the switch egress queues that ever held data, by port id
	// and priority.
	Queues []Queue `json:"queues"`
	// QPs are the sampled congestion-control state of rate-limited queue
	// pairs, by host and connection.
	QPs []QPSeries `json:"qps"`
	// Pauses are, for every port and priority that received PFC pause,
	// how long it was held, sampled over the run, by port id and
	// priority; nil when the engine does not sample pause over time.
	Pauses []PortPause `json:"pauses"`
	// Uplinks are the bytes routed over each uplink, by tier and port.
	Uplinks []Uplink `json:"uplinks"`
	NCCL    *NCCL    `json:"nccl"`
	// Config is the configuration the hosts and switches show an engineer
	// (mlnx_qos, DCQCN sysfs, ecnconfig); NCCLLog the NCCL_DEBUG=INFO
	// output of the NCCL job's ranks, "" without one. With the counters
	// they are the incident --out writes.
	Config  Setting `json:"config"`
	NCCLLog string  `json:"nccl_log,omitempty"`
	// NCCLTestsJSON is the nccl-tests run's JSON output (-J), nil without
	// an nccl-tests run.
	NCCLTestsJSON *TestsJSON `json:"nccl_tests_json,omitempty"`
	// Perftest holds the perftest runs' output, as perftest prints it on
	// the client.
	Perftest []PerftestRun `json:"perftest,omitempty"`
}

// A PerftestRun is one perftest run: its command, the client and server
// (machine names), and the client's output.
type PerftestRun struct {
	Command string `json:"command"`
	Client  string `json:"client"`
	Server  string `json:"server"`
	// ServerIP is the address the client connects to.
	ServerIP string `json:"server_ip"`
	Summary  string `json:"summary"`
	Output   string `json:"output"`
}

// Setting is the QoS, congestion-control and ECN configuration of the
// twin's hosts and switches, alike on every host and every switch.
type Setting struct {
	// Trust is the hosts' priority trust ("dscp" or "pcp"), PFC the
	// priorities with PFC enabled (bit p = priority p), DSCP each DSCP's
	// priority.
	Trust string    `json:"trust"`
	PFC   uint8     `json:"pfc"`
	DSCP  [64]uint8 `json:"dscp_to_priority"`
	// CCEnabled is the set of priorities DCQCN acts on, DCQCN its knobs by
	// mlx5 name; both empty with congestion control off.
	CCEnabled uint8   `json:"cc_enabled"`
	DCQCN     []Param `json:"dcqcn"`
	// ECN is the switches' RED/ECN profile of the lossless queue, nil when
	// they do not mark.
	ECN *ECNProfile `json:"ecn"`
}

// A Param is one DCQCN knob: its role ("np", "rp"), mlx5 name and value.
type Param struct {
	Role  string `json:"role"`
	Name  string `json:"name"`
	Value int64  `json:"value"`
}

// ECNProfile is a WRED/ECN profile: marking from Kmin, rising to Pmax at
// Kmax.
type ECNProfile struct {
	Kmin unit.Bytes `json:"kmin"`
	Kmax unit.Bytes `json:"kmax"`
	Pmax float64    `json:"pmax"`
}

// EngineInfo names the engine that ran, why it was chosen, and what it
// does not model.
type EngineInfo struct {
	Name string `json:"name"`
	// Reason says why the pipeline chose this engine.
	Reason string `json:"reason"`
	// NotModelled lists the phenomena the engine leaves out, in words an
	// engineer reads ("PFC pause spreading", "per-packet latency").
	NotModelled []string `json:"not_modelled"`
	// Parallel says how a run used cores, for the log: never written out,
	// since the results must not depend on it.
	Parallel *Parallel `json:"-"`
}

// Parallel describes a partitioned packet run.
type Parallel struct {
	// Threads ran Domains domains, whose weights were Load (ports, a
	// host's counting double), in Windows rounds: windows of at most
	// Window, or Linked rounds in which the domains and the workloads run
	// to each other's published times (sim.Windows).
	Threads, Domains int
	// Auto says why the run took fewer threads than the default, the
	// machine's cores ("" when it did not, or the user chose them).
	Auto            string
	Load            []int
	Window          unit.Time
	Windows, Linked uint64
	// DomainEvents are the events each domain ran; CriticalEvents the sum
	// over windows of the most one domain ran; ControlEvents the
	// workloads' events; PathEvents the sum over windows of the events on
	// the busiest core's path, the workloads' included, with a core per
	// domain (sim.WindowStats), and RunPathEvents the same with the
	// workloads' events on the core the run gives them.
	DomainEvents                                             []uint64
	CriticalEvents, ControlEvents, PathEvents, RunPathEvents uint64
	// HomePathEvents is PathEvents with the workloads' events in the
	// domains of the hosts they touch, CrossEvents those that touch more
	// than one domain's and would hold the domains (sim.WindowStats).
	HomePathEvents, CrossEvents uint64
	// WaitShare is the share of the workers' wall time spent waiting at
	// barriers and, linked, for another domain, and ControlShare the share of the run's wall time the
	// planning of windows took alone, with the workloads when they ran
	// alone (0 without a clock).
	WaitShare, ControlShare float64
	// SlowestOverMean is the sum over windows of the busiest worker's
	// time over the sum of the workers' mean time (1 = every window
	// balanced in time; 0 without a clock).
	SlowestOverMean float64
	// Solo is how many of the rounds ran on one worker because the
	// workers waited too long (sim.Windows.Adapt).
	Solo uint64
	// ByControl, ByReply and ByLookahead count the windows whose
	// domains stopped at the workloads' next event, at the earliest
	// reply to a completion, or at the lookahead between domains;
	// ControlSteps the times the workloads ran within linked rounds,
	// and Held and Blocked the times a linked domain with events
	// pending stopped at the workloads' published time and at another
	// domain's (sim.WindowStats).
	ByControl, ByReply, ByLookahead uint64
	ControlSteps, Held, Blocked     uint64
}

// Setup describes what ran: the scenario and the configuration its
// results depend on.
type Setup struct {
	Name             string  `json:"name"`
	File             string  `json:"file"`
	Seed             uint64  `json:"seed"`
	Topology         string  `json:"topology"`
	Hosts            int     `json:"hosts"`
	Switches         int     `json:"switches"`
	Links            int     `json:"links"`
	Oversubscription float64 `json:"oversubscription,omitempty"`
	// Servers is set when hosts are NICs of GPU servers.
	Servers       *Servers `json:"servers,omitempty"`
	MTU           int32    `json:"mtu_bytes"`
	PFC           bool     `json:"pfc"`
	LosslessPrios []int    `json:"lossless_priorities"`
	HeadroomBytes []int64  `json:"headroom_bytes"`
	// SwitchLatencyNS is each switch's forwarding latency, when set.
	SwitchLatencyNS float64 `json:"switch_latency_ns,omitempty"`
	// ECMP names the switches' hash when it is not rocelab's own: "ns3",
	// the HPCC ns-3 model's (switch.ecmp.model).
	ECMP string `json:"ecmp,omitempty"`
	// CC is the NIC congestion control ("dcqcn (preset)", or "none") and
	// CCPrioMask the priorities it acts on (ROCE_CC_PRIO_MASK).
	CC         string `json:"cc"`
	CCPrioMask uint8  `json:"cc_prio_mask"`
	// RoCEPriorities are the priorities the switches queue the RoCE data
	// on, and RoCELossless whether PFC protects all of them.
	RoCEPriorities []int `json:"roce_priorities"`
	RoCELossless   bool  `json:"roce_lossless"`
}

// Servers describes the GPU servers the hosts belong to.
type Servers struct {
	Count         int  `json:"count"`
	GPUs          int  `json:"gpus_per_server"`
	NICs          int  `json:"nics_per_server"`
	RailOptimized bool `json:"rail_optimized"`
	// PCIe is how the servers are built on the PCIe side, for the lspci
	// the --out incident writes; it is not part of the run's JSON.
	PCIe *ServerPCIe `json:"-"`
	// PeerMem says the servers load the GPUDirect RDMA peer-memory module
	// (nvidia_peermem) and Bond is the ports of each RoCE LAG bond (0 or
	// 1: none), for the sysfs tree --out-sysfs and the twin exporter
	// serve; set with PCIe, neither is part of the run's JSON.
	PeerMem bool `json:"-"`
	Bond    int  `json:"-"`
}

// ServerPCIe is what a GPU server's scenario says about its PCIe: the
// GPU model (one per server when they differ) and its generation, the
// links as configured, where each GPU's NIC sits and whether ACS is on.
type ServerPCIe struct {
	// GPUs names each server's GPU model ("H100"): one entry, or one per
	// server; GPUGen is each one's PCIe generation.
	GPUs   []string
	GPUGen []int
	// GPULink is the generation the GPUs' links run at (topology.servers
	// gpu_pcie; 0: the model's).
	GPULink int
	// NICLink and NICWidth are the NICs' link generation and lanes
	// (nic_pcie, nic_pcie_width).
	NICLink, NICWidth int
	// Paths is each GPU's path to its nearest NIC ("PIX", "PXB", "PHB",
	// "SYS"), CPU the host CPU vendor ("intel", "amd", "arm").
	Paths []string
	CPU   string
	// ACS says Access Control Services redirect peer-to-peer traffic in
	// the PCIe switches.
	ACS bool
	// CardPorts is the ports of each NIC card (1: single-port cards).
	CardPorts int
}

// Sim is about the run itself.
type Sim struct {
	// End is the simulated time the run reached.
	End unit.Time `json:"end"`
	// Completed says whether every workload finished before the time
	// limit.
	Completed bool `json:"completed"`
	// Events counts the engine's work (Engine.Events).
	Events uint64 `json:"events"`
}

// Data counts data packets and their RDMA payload bytes.
type Data struct {
	Packets int64 `json:"packets"`
	Bytes   int64 `json:"bytes"`
}

// Totals are network-wide sums. For data, conservation holds exactly:
// sent + retransmitted = delivered + dropped + discarded + in_flight.
type Totals struct {
	Sent          Data `json:"sent"`
	Retransmitted Data `json:"retransmitted"`
	Delivered     Data `json:"delivered"`
	Dropped       Data `json:"dropped"`
	// Discarded are data packets their responder received but did not
	// accept: out of sequence after a loss, or duplicates.
	Discarded Data `json:"discarded"`
	InFlight  Data `json:"in_flight"`
	// Frames counts frames hosts and PFC senders put on the wire, by kind
	// (data, ack, cnp, pause); FramesDropped those dropped.
	Frames        map[string]int64 `json:"frames"`
	FramesDropped map[string]int64 `json:"frames_dropped"`
	DropsByReason map[string]int64 `json:"drops_by_reason"`
	PauseFrames   int64            `json:"pause_frames"`
	ECNMarked     int64            `json:"ecn_marked"`
}

// Flow is one flow's outcome. FCT is the time from its start to the
// requester's completion (the ACK of its last packet), nil when it did
// not complete; goodput (Gb/s, 10^9 bits per second) is then measured up
// to its last delivered byte. Delivered and Retransmitted count payload
// bytes.
type Flow struct {
	ID            int32    `json:"id"`
	Name          string   `json:"name"`
	Src           string   `json:"src"`
	Dst           string   `json:"dst"`
	Bytes         int64    `json:"bytes"`
	Priority      uint8    `json:"priority"`
	StartUS       float64  `json:"start_us"`
	FCTUS         *float64 `json:"fct_us"`
	GoodputGbps   float64  `json:"goodput_gbps"`
	Delivered     int64    `json:"delivered_bytes"`
	Retransmitted int64    `json:"retransmitted_bytes"`
	// Status is "ok", "running", "not started", "cancelled", or the
	// ibv_wc_status of a failed completion.
	Status string `json:"status"`
}

// PrioLatency is one priority's latency histogram, in nanoseconds.
type PrioLatency struct {
	Priority int               `json:"priority"`
	Hist     metrics.Histogram `json:"hist"`
}

// A Counter is one named counter value.
type Counter = counters.Sample

// Port is one port's counters under mlx5 ethtool -S names, zeros
// included, in ethtool's order.
type Port struct {
	Name   string `json:"name"`
	Peer   string `json:"peer"`
	Switch bool   `json:"switch"`
	// LineRate is the port's nominal speed, as ethtool reports it.
	LineRate unit.BitRate `json:"line_rate"`
	// Counters is nil when the engine does not model per-port counters.
	Counters []Counter `json:"counters"`
}

// NIC is one host NIC.
type NIC struct {
	Name string `json:"name"`
	// Port is the NIC's port: its index in Observation.Ports.
	Port int          `json:"port"`
	Rate unit.BitRate `json:"rate"`
	// Machine, Device and Netdev name the NIC as its host shows it: the
	// hostname (a GPU server's, or the host's own), the RDMA device and
	// the netdev; IP is its address and MTU its RoCE MTU.
	Machine string `json:"machine"`
	Device  string `json:"device"`
	Netdev  string `json:"netdev"`
	IP      string `json:"ip"`
	MTU     int    `json:"mtu"`
	// HW are the RDMA hw_counters, and IB the IB port counters
	// (counters/: port_*_data in 4-byte words), zeros included.
	HW []Counter `json:"hw_counters"`
	IB []Counter `json:"port_counters"`
	// Reorder is the reordering the NIC saw as a receiver (packet engine
	// only; mlx5 has no such counters).
	Reorder Reorder `json:"reorder"`
}

// Reorder is what reached a receiver out of order: first transmissions
// that arrived after a higher PSN of their QP, the largest such distance
// in PSNs, and the packets an out-of-order responder placed ahead of the
// expected PSN.
type Reorder struct {
	Packets          int64 `json:"reordered_packets"`
	MaxPSNs          int64 `json:"reorder_max_psns"`
	PlacedOutOfOrder int64 `json:"placed_out_of_order"`
}

// Queue is one switch egress queue: its exact peak and sampled depth in
// bytes.
type Queue struct {
	Port     string         `json:"port"`
	Priority int            `json:"priority"`
	MaxBytes int64          `json:"max_bytes"`
	Depth    metrics.Points `json:"depth"`
	// Levels are the thresholds the queue's depth is read against; nil
	// when the engine does not report them.
	Levels *QueueLevels `json:"levels,omitempty"`
}

// QueueLevels are the configured levels of an egress queue's priority.
type QueueLevels struct {
	// ECN is the RED/ECN marking profile; nil when the priority does not
	// mark.
	ECN *ECNLevels `json:"ecn,omitempty"`
	// XoffBytes is the ingress priority-group occupancy at which the
	// switch sends XOFF for this priority when one PG alone fills the
	// shared pool S under the dynamic threshold α: the PG's reserve plus
	// α·S/(1+α). More congested PGs lower it. Nil when the priority is
	// lossy.
	XoffBytes *int64 `json:"xoff_bytes,omitempty"`
}

// ECNLevels are a RED/ECN marking profile: no mark at or below Kmin,
// probability rising to Pmax at Kmax, every packet marked above.
type ECNLevels struct {
	KminBytes int64   `json:"kmin_bytes"`
	KmaxBytes int64   `json:"kmax_bytes"`
	Pmax      float64 `json:"pmax"`
}

// PortPause is how long received PFC pause held one priority of one port
// (ethtool's rx_prioN_pause_duration), sampled: Held's values are
// cumulative picoseconds, 0 before its first point, so the share of any
// interval the port was held is the difference of two points over it.
type PortPause struct {
	Port     string         `json:"port"`
	Priority int            `json:"priority"`
	Held     metrics.Points `json:"held_ps"`
}

// QPSeries is one rate-limited queue pair's DCQCN state over time: its
// rate in Gb/s and α.
type QPSeries struct {
	Host     string         `json:"host"`
	Flow     string         `json:"flow"`
	RateGbps metrics.Points `json:"rate_gbps"`
	Alpha    metrics.Points `json:"alpha"`
	// Delivered is the payload the QP's connection delivered in the run,
	// which ranks the busiest; 0 when the engine does not count it.
	Delivered int64 `json:"delivered_bytes,omitempty"`
}

// Uplink is the bytes routed over one uplink: from a switch of Level
// (1 = leaf or edge) toward the next tier.
type Uplink struct {
	Level int    `json:"level"`
	Tier  string `json:"tier"`
	Port  string `json:"port"`
	Bytes int64  `json:"bytes"`
}

// NCCL is the outcome of a scenario's NCCL workload.
type NCCL struct {
	// Comm describes the communicator: transport, NICs, GDR, channels.
	Comm string `json:"comm"`
	// Tuning is NCCL's choice for each size and the predicted time of
	// every candidate (NCCL_DEBUG_SUBSYS=TUNING).
	Tuning string `json:"tuning,omitempty"`
	// Tests is the nccl-tests output, as nccl-tests prints it.
	Tests      string          `json:"nccl_tests,omitempty"`
	Rows       []TestsRow      `json:"rows,omitempty"`
	AvgBusBW   float64         `json:"avg_busbw_GBps,omitempty"`
	Training   *TrainingResult `json:"training,omitempty"`
	Err        string          `json:"error,omitempty"`
	Background string          `json:"background,omitempty"`
	Completed  bool            `json:"completed"`
}

// TestsJSON is nccl-tests' JSON output: the file name and the document
// as nccl-tests writes it.
type TestsJSON struct {
	Name string `json:"name"`
	Doc  string `json:"doc"`
}

// TestsRow is one size of the nccl-tests table; bus bandwidths are in
// GB/s (10^9 bytes per second), as nccl-tests prints them.
type TestsRow struct {
	Bytes     int64   `json:"bytes"`
	Algo      string  `json:"algo"`
	OutTimeUS float64 `json:"out_time_us"`
	OutBusBW  float64 `json:"out_busbw_GBps"`
	InTimeUS  float64 `json:"in_time_us"`
	InBusBW   float64 `json:"in_busbw_GBps"`
}

// TrainingResult is a training run's per-iteration times.
type TrainingResult struct {
	Iterations    int     `json:"iterations"`
	IterationUS   float64 `json:"iteration_us"`
	ComputeUS     float64 `json:"compute_us"`
	TPUS          float64 `json:"tp_allreduce_us"`
	CommUS        float64 `json:"communication_us"`
	PPTransferUS  float64 `json:"pp_transfer_us"`
	DPAllReduceUS float64 `json:"dp_allreduce_us"`
	Summary       string  `json:"summary"`
}

// US converts a time to microseconds, the unit the reports print.
func US(t unit.Time) float64 { return float64(t) / float64(unit.Microsecond) }
