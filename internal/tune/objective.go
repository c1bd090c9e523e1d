package tune

import (
	"math"
	"sort"

	"rocelab/internal/twin"
)

// A Score grades one run; higher is better. Candidates are ranked by Met,
// then by Value, then by index (the base first).
type Score struct {
	// Met is how many health targets the run meets.
	Met int `json:"met"`
	// Value is the objective's continuous measure.
	Value float64 `json:"value"`
}

// Better reports whether a ranks above b under an objective.
func (a Score) Better(b Score, byMet bool) bool {
	if byMet && a.Met != b.Met {
		return a.Met > b.Met
	}
	return a.Value > b.Value
}

// An Objective turns a run's observation into a score.
type Objective struct {
	Name, What string
	// ByMet ranks by the number of targets met before Value.
	ByMet bool
	Score func(o *twin.Observation) float64
}

// objectives are the objectives a space may name. busbw joins them when
// the report carries the NCCL workload's busbw.
var objectives = map[string]Objective{
	"targets": {Name: "targets", ByMet: true, Score: slack,
		What: "most health targets met, then the largest total slack: each target's ratio to its threshold in decades (log10), capped at +1 so that no target is over-optimised"},
	"utilization": {Name: "utilization", Score: func(o *twin.Observation) float64 { return o.Health.BandwidthUtilization.Value },
		What: "highest bandwidth utilization"},
	"p99": {Name: "p99", Score: func(o *twin.Observation) float64 { return -o.Health.P99LatencyUS.Value },
		What: "lowest P99 latency on the lossless class"},
	"pause": {Name: "pause", Score: func(o *twin.Observation) float64 { return -o.Health.PFCPauseRatio.Value },
		What: "lowest PFC pause ratio"},
	"loss": {Name: "loss", Score: func(o *twin.Observation) float64 { return -o.Health.LossRate.Value },
		What: "lowest loss on the lossless class"},
}

// ObjectiveNames lists the objectives, sorted.
func ObjectiveNames() []string {
	var out []string
	for n := range objectives {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// slack sums each target's margin in decades: log10(threshold/value) for
// P99 latency and pause ratio (values floored at 1e-6 of the threshold),
// log10(value/threshold) for utilization, and −log10(1 + loss/1e-6) for
// loss, whose threshold is 0. Each term is capped at +1, so meeting a
// target by more than 10× earns nothing more, while a miss keeps counting.
func slack(o *twin.Observation) float64 {
	h := o.Health
	dec := func(good, bad float64) float64 {
		bad = math.Max(bad, good*1e-6)
		return math.Min(1, math.Log10(good/bad))
	}
	util := math.Max(h.BandwidthUtilization.Value, 1e-6)
	return dec(h.P99LatencyUS.Target, h.P99LatencyUS.Value) +
		math.Min(1, math.Log10(util/h.BandwidthUtilization.Target)) -
		math.Log10(1+h.LossRate.Value/1e-6) +
		dec(h.PFCPauseRatio.Target, h.PFCPauseRatio.Value)
}
