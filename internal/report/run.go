// Package report turns a finished twin run into the records engineers read:
// the health targets, totals, per-flow completion, per-port mlx5 counters,
// queue depths and ECMP load, as a text summary, JSON, and ethtool -S files.
package report

import (
	"sort"

	"rocelab/internal/fabric"
	"rocelab/internal/metrics"
	"rocelab/internal/scenario"
	"rocelab/internal/unit"
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
	Queues   []Queue        `json:"queues"`
	ECMP     []ECMPTier     `json:"ecmp"`

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
	// Completed says whether every flow finished before the time limit.
	Completed bool   `json:"completed"`
	Events    uint64 `json:"events"`
}

// Totals are network-wide sums; byte figures are RDMA payload bytes, and
// bytes_sent = bytes_delivered + bytes_dropped + bytes_in_flight exactly.
type Totals struct {
	BytesSent        int64            `json:"bytes_sent"`
	BytesDelivered   int64            `json:"bytes_delivered"`
	BytesDropped     int64            `json:"bytes_dropped"`
	BytesInFlight    int64            `json:"bytes_in_flight"`
	PacketsSent      int64            `json:"packets_sent"`
	PacketsDelivered int64            `json:"packets_delivered"`
	PacketsDropped   int64            `json:"packets_dropped"`
	DropsByReason    map[string]int64 `json:"drops_by_reason"`
	PauseFrames      int64            `json:"pause_frames"`
	ECNMarked        int64            `json:"ecn_marked"`
}

// Flow is one flow's outcome. FCT is null when the flow did not complete;
// goodput is then measured up to its last delivered byte.
type Flow struct {
	ID          int32    `json:"id"`
	Name        string   `json:"name"`
	Src         string   `json:"src"`
	Dst         string   `json:"dst"`
	Bytes       int64    `json:"bytes"`
	Priority    uint8    `json:"priority"`
	StartUS     float64  `json:"start_us"`
	FCTUS       *float64 `json:"fct_us"`
	GoodputGbps float64  `json:"goodput_gbps"`
	Delivered   int64    `json:"delivered"`
	Dropped     int64    `json:"dropped"`
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

// New collects the result of a finished run that ended at end.
func New(tw *scenario.Twin, end unit.Time) *Run {
	s, net := tw.Scenario, tw.Net
	r := &Run{end: end}
	r.Scenario = ScenarioInfo{
		Name: s.Name, File: s.File, Seed: s.Seed, Topology: s.Topo.Kind,
		Hosts: len(s.Topo.Hosts), Switches: len(net.Switches), Links: len(s.Topo.Links),
		Oversubscription: s.Topo.Oversubscription, MTU: s.Host.MTU, PFC: s.Switch.PFC.Enabled,
		LosslessPrios: prioList(s.Switch.PFC.Priorities), HeadroomBytes: headrooms(net),
	}
	if t := s.Topo; t.Servers > 0 {
		r.Scenario.Servers = &Servers{t.Servers, t.GPUsPerServer, t.NICsPerServer, t.RailOptimized}
	}
	r.Sim = SimInfo{EndUS: us(end), Completed: net.AllDone(), Events: net.Sched.Executed()}
	inB, _ := net.InFlight()
	t := net.Totals
	r.Totals = Totals{
		BytesSent: t.BytesSent, BytesDelivered: t.BytesDelivered, BytesDropped: t.BytesDropped, BytesInFlight: inB,
		PacketsSent: t.PacketsSent, PacketsDelivered: t.PacketsDelivered, PacketsDropped: t.PacketsDropped,
		DropsByReason: map[string]int64{}, PauseFrames: t.PauseFrames, ECNMarked: t.ECNMarked,
	}
	for _, d := range fabric.DropReasons() {
		r.Totals.DropsByReason[d.String()] = t.DropsByReason[d]
	}
	for i := range net.Flows {
		r.Flows = append(r.Flows, flowOf(tw, &net.Flows[i]))
	}
	for p := 0; p < 8; p++ {
		if n := net.Latency.Count(p); n > 0 {
			r.Latency = append(r.Latency, Latency{
				Priority: p, Packets: n,
				P50US: us(net.Latency.Quantile(p, 50)), P99US: us(net.Latency.Quantile(p, 99)),
				P999US: us(net.Latency.Quantile(p, 99.9)), MaxUS: us(net.Latency.Max(p)),
			})
		}
	}
	for _, pt := range net.Ports {
		_, isSwitch := pt.Node().(*fabric.Switch)
		cs := map[string]int64{}
		for _, c := range pt.Counters.Ethtool(tw.Net.PFCEnabled, isSwitch) {
			if c.Value != 0 {
				cs[c.Name] = c.Value
			}
		}
		r.Ports = append(r.Ports, Port{Name: pt.Name(), Peer: pt.Peer().Name(), Counters: cs})
	}
	r.Queues = queues(net)
	r.ECMP = ecmp(tw)
	r.Health = health(tw, end)
	return r
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

func flowOf(tw *scenario.Twin, f *fabric.Flow) Flow {
	spec := tw.Flows[f.ID]
	out := Flow{
		ID: f.ID, Name: spec.Name, Src: tw.Hosts[f.Src].Name(), Dst: tw.Hosts[f.Dst].Name(),
		Bytes: f.Bytes, Priority: f.Prio, StartUS: us(f.StartedAt), Delivered: f.Delivered, Dropped: f.Dropped,
	}
	if fct, ok := f.FCT(); ok {
		v := us(fct)
		out.FCTUS = &v
		out.GoodputGbps = float64(f.Bytes) * 8 / fct.Seconds() / 1e9
	} else if f.Started && f.LastDelivery > f.StartedAt {
		out.GoodputGbps = float64(f.Delivered) * 8 / (f.LastDelivery - f.StartedAt).Seconds() / 1e9
	}
	return out
}

func queues(net *fabric.Network) []Queue {
	var out []Queue
	every := us(net.SampleInterval())
	for _, q := range net.QueueSeries() {
		out = append(out, Queue{
			Port: q.Switch.Ports()[q.Port].Name(), Priority: q.Prio,
			MaxBytes: q.Switch.QueueMax(q.Port, q.Prio),
			FirstUS:  float64(q.First) * every, EveryUS: every, Samples: q.Bytes,
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

// health grades the run against the four targets.
//
//   - P99 latency: one-way latency of data packets on the lossless class
//     (all data when none was delivered there).
//   - Bandwidth utilization: payload bytes delivered to each receiving host
//     over its line rate × the time from its first flow's start to its last
//     delivery, summed over receivers.
//   - Loss: data packets dropped on the lossless class over data packets
//     sent into it (the class the switches classify the flow into).
//   - PFC pause ratio: the worst port's received pause time on any
//     priority over the run time.
func health(tw *scenario.Twin, end unit.Time) metrics.Health {
	s, net := tw.Scenario, tw.Net
	lossless := s.Switch.PFC.Priorities
	var p99 unit.Time
	var mask uint8
	for p := 0; p < 8; p++ {
		if lossless&(1<<p) != 0 && net.Latency.Count(p) > 0 {
			mask |= 1 << p
		}
	}
	if mask == 0 {
		mask = 0xff
	}
	p99 = net.Latency.QuantileOf(mask, 99)

	type window struct {
		start, end unit.Time
		bytes      int64
		seen       bool
	}
	win := make([]window, len(net.Hosts))
	var sentLossless int64
	for i := range net.Flows {
		f := &net.Flows[i]
		if s.Switch.Trust == fabric.TrustDSCP && lossless&(1<<s.Switch.DSCPToPrio[f.DSCP]) != 0 ||
			s.Switch.Trust == fabric.TrustPCP && s.Host.VLAN && lossless&(1<<f.Prio) != 0 {
			sentLossless += f.SentPkts
		}
		if !f.Started || f.Delivered == 0 {
			continue
		}
		w := &win[f.Dst]
		if !w.seen || f.StartedAt < w.start {
			w.start = f.StartedAt
		}
		w.end = max(w.end, f.LastDelivery)
		w.bytes += f.Delivered
		w.seen = true
	}
	var got, capacity float64
	for h, w := range win {
		if w.seen && w.end > w.start {
			got += float64(w.bytes)
			capacity += float64(net.Hosts[h].Port().Rate().BytesIn(w.end - w.start))
		}
	}
	util := 0.0
	if capacity > 0 {
		util = got / capacity
	}
	loss := 0.0
	if sentLossless > 0 {
		loss = float64(net.Totals.LosslessPacketsDropped) / float64(sentLossless)
	} else if net.Totals.LosslessPacketsDropped > 0 {
		loss = 1
	}
	var worst unit.Time
	for _, pt := range net.Ports {
		for p := 0; p < 8; p++ {
			worst = max(worst, pt.Counters.RxPauseDuration[p])
		}
	}
	ratio := 0.0
	if end > 0 {
		ratio = float64(worst) / float64(end)
	}
	return metrics.NewHealth(us(p99), util, loss, ratio)
}
