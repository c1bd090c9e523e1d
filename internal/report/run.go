// Package report turns the observation of a twin run into the records
// engineers read: the health targets, totals, per-flow completion,
// per-port mlx5 counters, queue depths and ECMP load, as a text summary,
// JSON, and ethtool -S files. It reads only the twin.Observation, never an
// engine.
package report

import (
	"cmp"
	"slices"

	"rocelab/internal/counters"

	"rocelab/internal/metrics"
	"rocelab/internal/twin"
)

// Run is the result of one twin run. Its JSON form is documented in
// docs/run-json.md; everything in it is a function of scenario and seed.
type Run struct {
	// Schema is the version of this JSON (twin.Schema).
	Schema int `json:"schema"`
	// Engine names the engine that ran, why, and what it leaves out.
	Engine   twin.EngineInfo `json:"engine"`
	Scenario twin.Setup      `json:"scenario"`
	Sim      SimInfo         `json:"sim"`
	Health   metrics.Health  `json:"health"`
	Totals   *twin.Totals    `json:"totals"`
	Flows    []twin.Flow     `json:"flows"`
	Latency  []Latency       `json:"latency"`
	Ports    []Port          `json:"ports"`
	NICs     []NIC           `json:"nics"`
	Queues   []Queue         `json:"queues"`
	QPs      []QPSeries      `json:"qp_series"`
	ECMP     []ECMPTier      `json:"ecmp"`
	// Busiest are the links that carried the most over the run, by the
	// share of their line rate their sender used.
	Busiest []LinkLoad `json:"busiest_links"`
	NCCL    *twin.NCCL `json:"nccl,omitempty"`

	obs *twin.Observation // what the run showed, for the files WriteDir writes
}

// SimInfo is about the simulation itself.
type SimInfo struct {
	EndUS float64 `json:"end_us"`
	// Completed says whether every workload finished before the time
	// limit.
	Completed bool   `json:"completed"`
	Events    uint64 `json:"events"`
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
	// Reordered counts first transmissions that reached this NIC after a
	// higher PSN of their QP (reordering in the fabric), ReorderMaxPSNs
	// the largest such distance, PlacedOutOfOrder the packets an
	// out-of-order responder placed ahead of the expected PSN. Twin-only:
	// mlx5 has no such counters.
	Reordered        int64 `json:"reordered_packets,omitempty"`
	ReorderMaxPSNs   int64 `json:"reorder_max_psns,omitempty"`
	PlacedOutOfOrder int64 `json:"placed_out_of_order,omitempty"`
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

// LinkLoad is what one link direction carried over the run: frame bytes
// (tx_bytes_phy) at its sender, as an average rate and a share of its
// line rate.
type LinkLoad struct {
	Port        string  `json:"port"`
	Peer        string  `json:"peer"`
	Gbps        float64 `json:"gbps"`
	Utilization float64 `json:"utilization"`
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

// New turns an observation into the result engineers read.
func New(o *twin.Observation) *Run {
	r := &Run{obs: o, Schema: twin.Schema, Engine: o.Engine, Scenario: o.Scenario, Health: o.Health, Totals: o.Totals, Flows: o.Flows, NCCL: o.NCCL,
		Sim: SimInfo{EndUS: twin.US(o.Sim.End), Completed: o.Sim.Completed, Events: o.Sim.Events}}
	for _, l := range o.Latency {
		h := &l.Hist
		r.Latency = append(r.Latency, Latency{
			Priority: l.Priority, Packets: h.Count(),
			P50US: twin.US(h.Quantile(50)), P99US: twin.US(h.Quantile(99)),
			P999US: twin.US(h.Quantile(99.9)), MaxUS: twin.US(h.Max()),
		})
	}
	for _, p := range o.Ports {
		r.Ports = append(r.Ports, Port{Name: p.Name, Peer: p.Peer, Counters: nonZero(p.Counters)})
	}
	for _, n := range o.NICs {
		r.NICs = append(r.NICs, NIC{Name: n.Name, Counters: nonZero(n.HW),
			Reordered: n.Reorder.Packets, ReorderMaxPSNs: n.Reorder.MaxPSNs, PlacedOutOfOrder: n.Reorder.PlacedOutOfOrder})
	}
	for _, q := range o.Queues {
		samples := make([]int64, len(q.Depth.Values))
		for i, v := range q.Depth.Values {
			samples[i] = int64(v)
		}
		r.Queues = append(r.Queues, Queue{Port: q.Port, Priority: q.Priority, MaxBytes: q.MaxBytes,
			FirstUS: twin.US(q.Depth.First), EveryUS: twin.US(q.Depth.Every), Samples: samples})
	}
	slices.SortStableFunc(r.Queues, func(a, b Queue) int { return cmp.Compare(b.MaxBytes, a.MaxBytes) })
	for _, q := range o.QPs {
		r.QPs = append(r.QPs, QPSeries{Host: q.Host, Flow: q.Flow, FirstUS: twin.US(q.RateGbps.First), EveryUS: twin.US(q.RateGbps.Every),
			RateGbps: q.RateGbps.Values, Alpha: q.Alpha.Values})
	}
	r.ECMP = ecmp(o.Uplinks)
	r.Busiest = busiest(o)
	return r
}

// busiestLinks is how many links the summary lists as busiest.
const busiestLinks = 10

// busiest returns the link directions whose senders used the most of
// their line rate over the run, most first (ties by port order).
func busiest(o *twin.Observation) []LinkLoad {
	secs := o.Sim.End.Seconds()
	if secs <= 0 {
		return nil
	}
	name := counters.Default().Name(counters.MLX5, counters.Ethtool, counters.PhyBytes, counters.TX, 0)
	var out []LinkLoad // the busiest so far, most first
	for _, p := range o.Ports {
		if p.LineRate <= 0 {
			continue
		}
		for _, c := range p.Counters {
			if c.Name != name {
				continue
			}
			if c.Value > 0 {
				g := float64(c.Value) * 8 / secs / 1e9
				out = keepBusiest(out, LinkLoad{Port: p.Name, Peer: p.Peer, Gbps: g, Utilization: g * 1e9 / float64(p.LineRate)})
			}
			break // a port lists each counter once (ethtool -S)
		}
	}
	return out
}

// keepBusiest adds l to top, the busiest links met so far, most first, and
// keeps busiestLinks of them: l goes after those as busy as it, met
// before it, as a stable sort of every link would place it. A fabric has
// thousands of links, of which the summary lists ten.
func keepBusiest(top []LinkLoad, l LinkLoad) []LinkLoad {
	i := len(top)
	for i > 0 && top[i-1].Utilization < l.Utilization {
		i--
	}
	if i == busiestLinks {
		return top
	}
	if len(top) < busiestLinks {
		top = append(top, LinkLoad{})
	}
	copy(top[i+1:], top[i:])
	top[i] = l
	return top
}

// nonZero keeps the counters that are not zero; nil (not modelled) stays
// nil.
func nonZero(cs []twin.Counter) map[string]int64 {
	if cs == nil {
		return nil
	}
	m := map[string]int64{}
	for _, c := range cs {
		if c.Value != 0 {
			m[c.Name] = c.Value
		}
	}
	return m
}

// ecmp sums the bytes routed over each tier's uplinks; uplinks come by
// tier.
func ecmp(ups []twin.Uplink) []ECMPTier {
	var out []ECMPTier
	for i := 0; i < len(ups); {
		j := i
		e := ECMPTier{Tier: ups[i].Tier}
		var sum int64
		for ; j < len(ups) && ups[j].Level == ups[i].Level; j++ {
			b := ups[j].Bytes
			sum += b
			e.MaxBytes = max(e.MaxBytes, b)
			if b == 0 {
				e.Unused++
			}
		}
		e.Uplinks = j - i
		e.MeanBytes = float64(sum) / float64(e.Uplinks)
		if e.MeanBytes > 0 {
			e.Imbalance = float64(e.MaxBytes) / e.MeanBytes
		}
		out = append(out, e)
		i = j
	}
	return out
}
