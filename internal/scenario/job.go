package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"rocelab/internal/twin"
)

// Plans lists the engines that can run s, in order of preference: each
// with its own estimate and its builder. An engine joins the pipeline by
// adding its plan here.
//
// Packet mode comes first: auto runs it when its estimate fits the limits,
// and the fluid engine (docs/fluid.md) when it does not.
func (s *Scenario) Plans() []twin.Plan {
	tr := s.Workload.traffic(int64(s.Host.MTU)) // laid out once for both estimates
	est := s.estimate(tr)
	o := s.Run
	var why string
	if o.Auto {
		o.Threads, why = autoThreads(s.Topo, o.Threads, est.Events)
		est.Domains = max(1, min(est.Domains, o.Threads))
		if o.Threads < 2 {
			o.Clock = nil // no workers to time or adapt
		}
	}
	return []twin.Plan{{Engine: twin.Packet, Estimate: est, Build: func() (twin.Engine, error) {
		o.Memory = est.memoryWith()
		tw, err := BuildWith(s, o)
		if err != nil {
			return nil, err
		}
		tw.auto = why
		return tw, nil
	}}, {Engine: twin.Fluid, Estimate: s.fluidEstimate(tr), Build: func() (twin.Engine, error) {
		tw, err := BuildFluid(s)
		if err != nil {
			return nil, err
		}
		return tw, nil
	}}}
}

// Job returns s as a job of the twin pipeline.
func (s *Scenario) Job() twin.Job {
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%d", s.Digest, s.Variant, s.Seed))
	return twin.Job{Name: s.Name, File: s.File, Variant: s.Variant, Description: s.Description, Seed: s.Seed,
		Duration: s.Duration, Key: hex.EncodeToString(h[:8]), Plans: s.Plans()}
}

// Jobs returns what running s runs: each of its variants, or s itself.
func (s *Scenario) Jobs() []twin.Job {
	if len(s.Variants) == 0 {
		return []twin.Job{s.Job()}
	}
	out := make([]twin.Job, len(s.Variants))
	for i, v := range s.Variants {
		out[i] = v.Job()
	}
	return out
}

// digest identifies source bytes.
func digest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}
