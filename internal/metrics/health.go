package metrics

// A Target is one of the four health targets of a RoCE fabric for GPU
// training: value, target and whether it passes.
type Target struct {
	Value  float64 `json:"value"`
	Target float64 `json:"target"`
	Pass   bool    `json:"pass"`
	// Note says why a target fails although its value would pass.
	Note string `json:"note,omitempty"`
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

// Passed reports whether every target passes.
func (h Health) Passed() bool {
	return h.P99LatencyUS.Pass && h.BandwidthUtilization.Pass && h.LossRate.Pass && h.PFCPauseRatio.Pass
}
