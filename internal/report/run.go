// Package report turns a finished twin run into the records engineers read:
// the health targets, totals, per-flow completion, per-port mlx5 counters,
// queue depths and ECMP load, as a text summary, JSON, and ethtool -S files.
package report

import (
	"sort"
	"strconv"

	"rocelab/internal/counters"
	"rocelab/internal/fabric"
	"rocelab/internal/metrics"
	"rocelab/internal/nic"
	"rocelab/internal/packet"
	"rocelab/internal/scenario"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// Run is the result of one twin run. Its JSON form is documented in
// docs/run-json.md; everything in it is a function of scenario and seed.
type Run struct {
	Scenario ScenarioInfo   `json:"scenario"`
	Sim      SimInfo        `json:"sim"`
	Health   metrics.Health `json:"health"`
	Totals   Totals         `json:"totals"`
	Flows    []Flow         `json:"flows"`
	Latency  []Latency      `json:"latency"`
	Ports    []Port         `json:"ports"`
	NICs     []NIC          `json:"nics"`
	Queues   []Queue        `json:"queues"`
	QPs      []QPSeries     `json:"qp_series"`
	ECMP     []ECMPTier     `json:"ecmp"`
	NCCL     *NCCL          `json:"nccl,omitempty"`

	end unit.Time // when the run ended, for the dumps WriteDir writes
}

// ScenarioInfo describes what ran.
type ScenarioInfo struct {
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
	MTU           int32    `json:"mtu"`
	PFC           bool     `json:"pfc"`
	LosslessPrios []int    `json:"lossless_priorities"`
	HeadroomBytes []int64  `json:"headroom_bytes"`
	// CC is the NIC congestion control ("dcqcn" preset, or "none") and
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
}

// SimInfo is about the simulation itself.
type SimInfo struct {
	EndUS float64 `json:"end_us"`
	// Completed says whether every workload finished before the time
	// limit.
	Completed bool   `json:"completed"`
	Events    uint64 `json:"events"`
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
// requester's completion (the ACK of its last packet), null when it did
// not complete; goodput is then measured up to its last delivered byte.
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
	Delivered     int64    `json:"delivered"`
	Retransmitted int64    `json:"retransmitted"`
	// Status is "ok", "running", "not started", "cancelled", or the
	// ibv_wc_status of a failed completion.
	Status string `json:"status"`
}

// Latency is one priority's one-way packet latency.
type Latency struct {
	Priority int     `json:"priority"`
	Packets  int64   `json:"packets"`
	P50US    float64 `json:"p50_us"`
	P99US    float64 `json:"p99_us"`
	P999US   float64 `json:"p999_us"`
	MaxUS    float64 `json:"max_us"`
}

// NIC is one host NIC's RDMA counters under their hw_counters names;
// zero counters are left out.
type NIC struct {
	Name     string           `json:"name"`
	Counters map[string]int64 `json:"counters"`
	// all holds every counter, zeros included, for the hw_counters files;
	// port the IB port counters (counters/) of the same port.
	all, port map[string]int64
}

// portCounters returns the IB port counters of a NIC port as mlx5 exposes
// them under counters/: packets, and data in 4-byte words.
func portCounters(c fabric.Counters) map[string]int64 {
	t := counters.Default()
	name := func(cn counters.Concept, d counters.Dir) string {
		return t.Name(counters.MLX5, counters.PortCounters, cn, d, 0)
	}
	return map[string]int64{
		name(counters.PortXmitPackets, counters.TX): c.TxPhyPackets,
		name(counters.PortRcvPackets, counters.RX):  c.RxPhyPackets,
		name(counters.PortXmitData, counters.TX):    c.TxPhyBytes / 4,
		name(counters.PortRcvData, counters.RX):     c.RxPhyBytes / 4,
	}
}

// Port is one port's counters under mlx5 ethtool -S names; zero counters
// are left out.
type Port struct {
	Name     string           `json:"name"`
	Peer     string           `json:"peer"`
	Counters map[string]int64 `json:"counters"`
}

// Queue is one switch egress queue that held data: its peak and samples.
type Queue struct {
	Port     string  `json:"port"`
	Priority int     `json:"priority"`
	MaxBytes int64   `json:"max_bytes"`
	FirstUS  float64 `json:"first_sample_us"`
	EveryUS  float64 `json:"sample_every_us"`
	Samples  []int64 `json:"samples_bytes"`
}

// QPSeries is one rate-limited queue pair's DCQCN state over time: its
// rate in Gb/s and α, sampled every every_us from first_us.
type QPSeries struct {
	Host     string    `json:"host"`
	Flow     string    `json:"flow"`
	FirstUS  float64   `json:"first_us"`
	EveryUS  float64   `json:"every_us"`
	RateGbps []float64 `json:"rate_gbps"`
	Alpha    []float64 `json:"alpha"`
}

// ECMPTier is the load over one tier's uplinks.
type ECMPTier struct {
	Tier      string  `json:"tier"`
	Uplinks   int     `json:"uplinks"`
	Unused    int     `json:"unused"`
	MeanBytes float64 `json:"mean_bytes"`
	MaxBytes  int64   `json:"max_bytes"`
	// Imbalance is max/mean: 1 is perfectly even.
	Imbalance float64 `json:"imbalance"`
}

func us(t unit.Time) float64 { return float64(t) / float64(unit.Microsecond) }

// New collects the result of a run that has reached end. It reads the
// twin without changing it: the run may continue afterwards.
func New(tw *scenario.Twin, end unit.Time) *Run {
	s, net := tw.Scenario, tw.Net
	r := &Run{end: end}
	cc := s.Host.NIC.CC
	if cc == "dcqcn" {
		cc += " (" + s.Host.NIC.DCQCN.Preset + ")"
	}
	rp, rl := tw.RoCEPriorities()
	r.Scenario = ScenarioInfo{
		Name: s.Name, File: s.File, Seed: s.Seed, Topology: s.Topo.Kind,
		Hosts: len(s.Topo.Hosts), Switches: len(net.Switches), Links: len(s.Topo.Links),
		Oversubscription: s.Topo.Oversubscription, MTU: s.Host.MTU, PFC: s.Switch.PFC.Enabled,
		LosslessPrios: prioList(s.Switch.PFC.Priorities), HeadroomBytes: headrooms(net),
		CC: cc, CCPrioMask: s.Host.NIC.CCPrioMask, RoCEPriorities: prioList(rp), RoCELossless: rl,
	}
	if t := s.Topo; t.Servers > 0 {
		r.Scenario.Servers = &Servers{t.Servers, t.GPUsPerServer, t.NICsPerServer, t.RailOptimized}
	}
	r.Sim = SimInfo{EndUS: us(end), Completed: tw.Done(), Events: tw.Executed()}
	r.Totals = totals(net)
	lat := net.Latency()
	conns := tw.Transport.Conns()
	for i, f := range tw.Flows {
		r.Flows = append(r.Flows, flowOf(tw, conns, i, f))
	}
	for p := 0; p < 8; p++ {
		if n := lat.Count(p); n > 0 {
			r.Latency = append(r.Latency, Latency{
				Priority: p, Packets: n,
				P50US: us(lat.Quantile(p, 50)), P99US: us(lat.Quantile(p, 99)),
				P999US: us(lat.Quantile(p, 99.9)), MaxUS: us(lat.Max(p)),
			})
		}
	}
	for _, pt := range net.Ports {
		_, isSwitch := pt.Node().(*fabric.Switch)
		snap := pt.Snapshot()
		r.Ports = append(r.Ports, Port{Name: pt.Name(), Peer: pt.Peer().Name(), Counters: nonZero(snap.Ethtool(net.PFCEnabled, isSwitch))})
	}
	for _, n := range tw.NICs {
		all := map[string]int64{}
		for _, c := range n.HW.List() {
			all[c.Name] = c.Value
		}
		r.NICs = append(r.NICs, NIC{Name: n.Name(), Counters: nonZero(n.HW.List()), all: all, port: portCounters(n.Port().Snapshot())})
	}
	r.Queues = queues(net)
	for _, n := range tw.NICs {
		for _, q := range n.Series() {
			r.QPs = append(r.QPs, QPSeries{
				Host: n.Name(), Flow: conns[q.Conn].Tag, FirstUS: us(q.Rate.First), EveryUS: us(q.Rate.Every),
				RateGbps: q.Rate.Values, Alpha: q.Alpha.Values,
			})
		}
	}
	r.ECMP = ecmp(tw)
	r.Health = health(tw, conns, end, rp, rl)
	r.NCCL = ncclResult(tw)
	return r
}

// nonZero keeps the counters that are not zero.
func nonZero(cs []fabric.Counter) map[string]int64 {
	m := map[string]int64{}
	for _, c := range cs {
		if c.Value != 0 {
			m[c.Name] = c.Value
		}
	}
	return m
}

// totals converts the network's totals.
func totals(net *fabric.Network) Totals {
	t := net.Totals()
	d := func(c fabric.Count) Data { return Data{Packets: c.Packets, Bytes: c.Bytes} }
	out := Totals{
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

func prioList(m uint8) []int {
	out := []int{}
	for p := 0; p < 8; p++ {
		if m&(1<<p) != 0 {
			out = append(out, p)
		}
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

func flowOf(tw *scenario.Twin, conns []nic.ConnInfo, i int, spec scenario.FlowSpec) Flow {
	st := tw.Traffic.State(i)
	out := Flow{
		ID: int32(i), Name: spec.Name, Src: tw.NICs[spec.Src].Name(), Dst: tw.NICs[spec.Dst].Name(),
		Bytes: int64(spec.Bytes), Priority: spec.Priority, StartUS: us(st.StartedAt), Status: "not started",
	}
	if !st.Started {
		if st.Cancelled {
			out.Status = "cancelled"
		}
		return out
	}
	c := conns[st.QP]
	out.Delivered, out.Retransmitted = c.Delivered, c.Retransmit
	switch {
	case !st.Done:
		out.Status = "running"
	case st.Status != workload.Success:
		out.Status = st.Status.String()
	default:
		out.Status = "ok"
	}
	if fct, ok := st.FCT(); ok {
		v := us(fct)
		out.FCTUS = &v
		if fct > 0 {
			out.GoodputGbps = float64(spec.Bytes) * 8 / fct.Seconds() / 1e9
		}
	} else if c.LastDelivery > st.StartedAt {
		out.GoodputGbps = float64(c.Delivered) * 8 / (c.LastDelivery - st.StartedAt).Seconds() / 1e9
	}
	return out
}

func queues(net *fabric.Network) []Queue {
	var out []Queue
	for _, q := range net.QueueSeries() {
		samples := make([]int64, len(q.Bytes.Values))
		for i, v := range q.Bytes.Values {
			samples[i] = int64(v)
		}
		out = append(out, Queue{
			Port: q.Switch.Ports()[q.Port].Name(), Priority: q.Prio,
			MaxBytes: q.Switch.QueueMax(q.Port, q.Prio),
			FirstUS:  us(q.Bytes.First), EveryUS: us(q.Bytes.Every), Samples: samples,
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].MaxBytes > out[j].MaxBytes })
	return out
}

// ecmp sums routed bytes over each tier's uplinks.
func ecmp(tw *scenario.Twin) []ECMPTier {
	tiers := map[int][]int64{}
	var order []int
	for _, l := range tw.Scenario.Topo.Links {
		if !l.Uplink {
			continue
		}
		lo, port := l.A, l.PA
		if tw.Scenario.Topo.Nodes[l.B].Tier < tw.Scenario.Topo.Nodes[l.A].Tier {
			lo, port = l.B, l.PB
		}
		sw := tw.Nodes[lo].(*fabric.Switch)
		tier := tw.Scenario.Topo.Nodes[lo].Tier
		if _, ok := tiers[tier]; !ok {
			order = append(order, tier)
		}
		tiers[tier] = append(tiers[tier], sw.RoutedBytes()[port])
	}
	sort.Ints(order)
	names := map[int]string{1: "leaf→spine", 2: "aggregation→core"}
	if tw.Scenario.Topo.Kind == "fat-tree" {
		names[1] = "edge→aggregation"
	}
	if tw.Scenario.Topo.Kind == "dumbbell" {
		names[1] = "trunk"
	}
	var out []ECMPTier
	for _, t := range order {
		loads := tiers[t]
		e := ECMPTier{Tier: names[t], Uplinks: len(loads)}
		var sum int64
		for _, b := range loads {
			sum += b
			if b > e.MaxBytes {
				e.MaxBytes = b
			}
			if b == 0 {
				e.Unused++
			}
		}
		e.MeanBytes = float64(sum) / float64(len(loads))
		if e.MeanBytes > 0 {
			e.Imbalance = float64(e.MaxBytes) / e.MeanBytes
		}
		out = append(out, e)
	}
	return out
}

// health grades the run against the four targets, on the traffic the
// scenario declares as RoCE (every RDMA connection), whatever priority the
// switches put it on.
//
//   - P99 latency: one-way latency of delivered RoCE data packets.
//   - Bandwidth utilization: payload bytes delivered to each receiving host
//     over its line rate × the time from the first send of a connection to
//     it to its last delivery, summed over receivers.
//   - Loss: RoCE data packets dropped over RoCE data packets sent (first
//     transmissions and retransmissions). It fails, whatever the count,
//     when RoCE rides a priority that PFC does not protect.
//   - PFC pause ratio: the worst port's received pause time on any
//     priority over the run time.
func health(tw *scenario.Twin, conns []nic.ConnInfo, end unit.Time, roce uint8, lossless bool) metrics.Health {
	net := tw.Net
	p99 := net.Latency().ClassQuantile(packet.ClassRoCE, 99)
	type window struct {
		start, end unit.Time
		bytes      int64
		seen       bool
	}
	win := make([]window, len(tw.NICs))
	for _, c := range conns {
		if !c.Started || c.Delivered == 0 {
			continue
		}
		w := &win[c.Dst]
		if !w.seen || c.FirstSend < w.start {
			w.start = c.FirstSend
		}
		w.end = max(w.end, c.LastDelivery)
		w.bytes += c.Delivered
		w.seen = true
	}
	var got, capacity float64
	for h, w := range win {
		if w.seen && w.end > w.start {
			got += float64(w.bytes)
			capacity += float64(tw.NICs[h].Port().Rate().BytesIn(w.end - w.start))
		}
	}
	util := 0.0
	if capacity > 0 {
		util = got / capacity
	}
	t := net.Totals()
	loss := 0.0
	if t.RoCESent.Packets > 0 {
		loss = float64(t.RoCEDropped.Packets) / float64(t.RoCESent.Packets)
	}
	var worst unit.Time
	for _, pt := range net.Ports {
		snap := pt.Snapshot()
		for p := 0; p < 8; p++ {
			worst = max(worst, snap.RxPauseDuration[p])
		}
	}
	ratio := 0.0
	if end > 0 {
		ratio = float64(worst) / float64(end)
	}
	h := metrics.NewHealth(us(p99), util, loss, ratio)
	if roce != 0 && !lossless {
		h.LossRate.Pass = false
		h.LossRate.Note = "RoCE rides priority " + joinInts(prioList(roce)) + ", which PFC does not protect"
	}
	return h
}

func joinInts(xs []int) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ","
		}
		s += strconv.Itoa(x)
	}
	return s
}
