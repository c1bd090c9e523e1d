package metrics

// A Target is one of the four health targets of a RoCE fabric for GPU
// training: value, target and whether it passes.
type Target struct {
	Value  float64 `json:"value"`
	Target float64 `json:"target"`
	Pass   bool    `json:"pass"`
	// NA says there was nothing to measure (no RoCE traffic ran): the
	// target neither passes nor fails, and Value means nothing.
	NA bool `json:"na,omitempty"`
	// Note says why a target fails although its value would pass, or why
	// it is not applicable.
	Note string `json:"note,omitempty"`
}

// NotApplicable is a target with nothing to measure, and why.
func NotApplicable(target float64, why string) Target {
	return Target{Target: target, NA: true, Note: why}
}

// Health holds the four targets (the seed's table): P99 latency < 10 us,
// bandwidth utilization > 90 % of line rate, zero loss on the lossless
// class, and PFC pause time < 0.1 %.
type Health struct {
	P99LatencyUS         Target `json:"p99_latency_us"`
	BandwidthUtilization Target `json:"bandwidth_utilization"`
	LossRate             Target `json:"loss_rate"`
	PFCPauseRatio        Target `json:"pfc_pause_ratio"`
}

// Target thresholds.
const (
	TargetP99LatencyUS = 10.0
	TargetUtilization  = 0.90
	TargetLoss         = 0.0
	TargetPauseRatio   = 0.001
)

// NewHealth grades measured values against the targets.
func NewHealth(p99us, utilization, loss, pauseRatio float64) Health {
	return Health{
		P99LatencyUS:         Target{Value: p99us, Target: TargetP99LatencyUS, Pass: p99us < TargetP99LatencyUS},
		BandwidthUtilization: Target{Value: utilization, Target: TargetUtilization, Pass: utilization > TargetUtilization},
		LossRate:             Target{Value: loss, Target: TargetLoss, Pass: loss <= TargetLoss},
		PFCPauseRatio:        Target{Value: pauseRatio, Target: TargetPauseRatio, Pass: pauseRatio < TargetPauseRatio},
	}
}

// A NamedTarget is one target of a Health under its JSON name.
type NamedTarget struct {
	Name string
	Target
}

// Targets lists the four targets in the table's order, under their JSON
// names.
func (h Health) Targets() []NamedTarget {
	return []NamedTarget{
		{"p99_latency_us", h.P99LatencyUS},
		{"bandwidth_utilization", h.BandwidthUtilization},
		{"loss_rate", h.LossRate},
		{"pfc_pause_ratio", h.PFCPauseRatio},
	}
}

// Met counts the targets that pass.
func (h Health) Met() int {
	n := 0
	for _, t := range h.Targets() {
		if t.Pass {
			n++
		}
	}
	return n
}
