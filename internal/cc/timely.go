package cc

import "rocelab/internal/unit"

// TimelyConfig holds TIMELY's knobs (Mittal et al., "TIMELY: RTT-based
// Congestion Control for the Datacenter", SIGCOMM 2015), by the names of
// TimelyKnobs, in their units. Presets fill it.
type TimelyConfig struct {
	Alpha     int64 // alpha: EWMA weight of a new RTT difference, 1/1000
	Beta      int64 // beta: multiplicative-decrease factor, 1/1000
	TLow      int64 // t_low, µs
	THigh     int64 // t_high, µs
	MinRTT    int64 // min_rtt, µs
	AIRate    int64 // ai_rate δ, Mb/s
	HAIRate   int64 // hai_rate, Mb/s
	HAIThresh int64 // hai_thresh, increases in a row
	Segment   int64 // segment, bytes acknowledged per update; 0 once per RTT
	MinRate   int64 // min_rate, Mb/s
}

// TimelyKnobs is TIMELY's knob table.
var TimelyKnobs = &params[TimelyConfig]{algo: "TIMELY", table: []Param[TimelyConfig]{
	{Name: "alpha", Unit: "1/1000", Min: 1, Max: 1000, Paper: 875, NS3: 875,
		Meaning: "EWMA weight α of the newest RTT difference: rtt_diff ← (1−α)·rtt_diff + α·(rtt − prev_rtt)",
		Note:    "the HPCC ns-3 model's TimelyAlpha, read from the paper; the authors' later published code recommends 0.02",
		field:   func(c *TimelyConfig) *int64 { return &c.Alpha }},
	{Name: "beta", Unit: "1/1000", Min: 0, Max: 1000, Paper: 800, NS3: 800,
		Meaning: "multiplicative-decrease factor β: rate ← rate·(1 − β·gradient), or rate·(1 − β·(1 − T_high/rtt)) above T_high",
		field:   func(c *TimelyConfig) *int64 { return &c.Beta }},
	{Name: "t_low", Unit: "us", Min: 0, Max: 1_000_000, Paper: 50, NS3: 50,
		Meaning: "below this RTT the rate rises by δ whatever the gradient",
		Note:    "the authors' later code: 0 with per-packet pacing, 50 µs with 64 KB segments",
		field:   func(c *TimelyConfig) *int64 { return &c.TLow }},
	{Name: "t_high", Unit: "us", Min: 1, Max: 1_000_000, Paper: 500, NS3: 500,
		Meaning: "above this RTT the rate falls by β·(1 − T_high/rtt) whatever the gradient",
		field:   func(c *TimelyConfig) *int64 { return &c.THigh }},
	{Name: "min_rtt", Unit: "us", Min: 1, Max: 1_000_000, Paper: 20, NS3: 20,
		Meaning: "the fixed minimum RTT the gradient is normalised by: gradient = rtt_diff / min_rtt",
		field:   func(c *TimelyConfig) *int64 { return &c.MinRTT }},
	{Name: "ai_rate", Unit: "Mb/s", Min: 0, Max: 1_000_000, Paper: 10, NS3: 100,
		Meaning: "additive increment δ per update while the RTT is low or falling",
		Note:    "the paper's δ = 10 Mb/s is for 10G links; HPCC ns-3 run.py scales it as 10·bw/10 Mb/s (100 at 100G)",
		field:   func(c *TimelyConfig) *int64 { return &c.AIRate }},
	{Name: "hai_rate", Unit: "Mb/s", Min: 0, Max: 1_000_000, Paper: 50, NS3: 500,
		Meaning: "increment once hai_thresh increases came in a row (hyperactive increase, N·δ with N = 5)",
		field:   func(c *TimelyConfig) *int64 { return &c.HAIRate }},
	{Name: "hai_thresh", Unit: "updates", Min: 0, Max: 1 << 20, Paper: 5, NS3: 5,
		Meaning: "increases in a row before the step becomes hai_rate",
		field:   func(c *TimelyConfig) *int64 { return &c.HAIThresh }},
	{Name: "segment", Unit: "B", Min: 0, Max: 1 << 30, Paper: 16384, NS3: 0,
		Meaning: "acknowledged bytes per rate update (the paper's completion event of a segment); 0 updates once per RTT",
		Note:    "HPCC ns-3 updates when an ACK passes the sequence sent at the previous update",
		field:   func(c *TimelyConfig) *int64 { return &c.Segment }},
	{Name: "min_rate", Unit: "Mb/s", Min: 1, Max: 10_000_000, Paper: 1, NS3: 1000,
		Meaning: "rate floor",
		Note:    "the paper gives none; HPCC ns-3 run.py MIN_RATE is 1000 Mb/s",
		field:   func(c *TimelyConfig) *int64 { return &c.MinRate }},
}}

// TimelyPreset returns the named TIMELY configuration: "paper" or "ns3".
func TimelyPreset(name string) (TimelyConfig, error) {
	var c TimelyConfig
	return c, TimelyKnobs.preset(&c, name)
}

// Set sets the knob called name to v; out of range or unknown is an error.
func (c *TimelyConfig) Set(name string, v int64) error { return TimelyKnobs.set(c, name, v) }

// Get returns the knob called name.
func (c *TimelyConfig) Get(name string) (int64, error) { return TimelyKnobs.get(c, name) }

// Validate reports the first knob out of range.
func (c *TimelyConfig) Validate() error { return TimelyKnobs.validate(c) }

// Timely is TIMELY's rate computation for one queue pair, Algorithm 1 of the
// paper: each update takes an RTT sample, smooths the difference from the
// previous sample, and normalises it by min_rtt into a gradient.
//
//   - rtt < t_low: rate += δ (hai_rate once hai_thresh increases came in a
//     row);
//   - rtt > t_high: rate ← rate·(1 − β·(1 − t_high/rtt));
//   - gradient ≤ 0: rate += δ (or hai_rate), as above;
//   - otherwise: rate ← rate·(1 − β·gradient), never below 0.
//
// The rate stays within [min_rate, line]. Updates come once per segment
// bytes acknowledged (the paper's completion events), or once per RTT when
// segment is 0 (HPCC ns-3: an ACK beyond the sequence sent at the last
// update). The first sample only sets the previous RTT. TIMELY has no timer
// and ignores CNPs.
type Timely struct {
	ackDriven
	line, minRate      int64
	alpha, beta        float64
	tLow, tHigh, minRT float64 // ns
	ai, hai            int64
	haiThresh          int64
	segment            int64

	rate     int64
	prevRTT  float64 // ns; 0 before the first sample
	rttDiff  float64 // ns, smoothed
	stage    int64   // increases in a row
	acked    int64   // bytes toward the next segment
	lastSeq  int64   // per-RTT mode: the sequence sent at the last update
	primed   bool
	stats    TimelyStats
	lastRTT  unit.Time
	lastGrad float64
}

// TimelyStats counts what a TIMELY sender did.
type TimelyStats struct {
	Updates, Increases, Decreases int64
}

// New returns TIMELY for a QP on a port of the given line rate, starting at
// line rate. Out-of-range knobs are clamped into range.
func (c *TimelyConfig) New(line unit.BitRate) *Timely {
	v := TimelyKnobs.clamped(*c)
	mbps := func(x int64) int64 { return x * int64(unit.Mbps) }
	ns := func(us int64) float64 { return float64(us) * 1000 }
	l := max(int64(line), 1)
	return &Timely{
		line: l, minRate: min(mbps(v.MinRate), l),
		alpha: float64(v.Alpha) / 1000, beta: float64(v.Beta) / 1000,
		tLow: ns(v.TLow), tHigh: ns(v.THigh), minRT: ns(v.MinRTT),
		ai: mbps(v.AIRate), hai: mbps(v.HAIRate), haiThresh: v.HAIThresh, segment: v.Segment,
		rate: l,
	}
}

// Rate returns the current rate.
func (t *Timely) Rate() unit.BitRate { return unit.BitRate(t.rate) }

// Stats returns what the sender has done.
func (t *Timely) Stats() TimelyStats { return t.stats }

// Gradient returns the last normalised gradient and RTT sample.
func (t *Timely) Gradient() (float64, unit.Time) { return t.lastGrad, t.lastRTT }

// OnAck takes an RTT sample with the bytes the ACK acknowledged, in
// segment mode. In per-RTT mode use OnFeedback.
func (t *Timely) OnAck(now unit.Time, bytes int, rtt unit.Time) {
	t.OnFeedback(now, Feedback{Bytes: bytes, RTT: rtt})
}

// OnFeedback takes one acknowledgement's feedback.
func (t *Timely) OnFeedback(_ unit.Time, f Feedback) {
	if f.RTT <= 0 {
		return
	}
	if t.segment > 0 {
		t.acked += int64(f.Bytes)
		if t.primed && t.acked < t.segment {
			return
		}
		t.acked = 0
	} else if t.primed && f.Acked <= t.lastSeq {
		return
	}
	t.lastSeq = f.Next
	rtt := float64(f.RTT) / float64(unit.Nanosecond)
	t.lastRTT = f.RTT
	if !t.primed {
		t.primed, t.prevRTT = true, rtt
		return
	}
	t.stats.Updates++
	t.rttDiff = float64((1-t.alpha)*t.rttDiff) + float64(t.alpha*(rtt-t.prevRTT))
	t.prevRTT = rtt
	g := t.rttDiff / t.minRT
	t.lastGrad = g
	switch {
	case rtt < t.tLow:
		t.increase()
	case rtt > t.tHigh:
		t.decrease(1 - float64(t.beta*(1-t.tHigh/rtt)))
	case g <= 0:
		t.increase()
	default:
		t.decrease(max(1-float64(t.beta*g), 0))
	}
}

func (t *Timely) increase() {
	step := t.ai
	if t.stage >= t.haiThresh {
		step = t.hai
	}
	t.stage++
	t.rate = min(t.rate+step, t.line)
	t.stats.Increases++
}

func (t *Timely) decrease(c float64) {
	t.stage = 0
	t.rate = max(int64(float64(t.rate)*c), t.minRate)
	t.stats.Decreases++
}

// Feedback is what one acknowledgement tells an RTT-, INT- or ECN-echo-based
// sender.
// Sequence numbers count packets from the QP's first, without wrapping.
type Feedback struct {
	// Acked is the sequence of the oldest packet not yet acknowledged
	// (every earlier one is); Next the sequence of the next new packet the
	// QP will send.
	Acked, Next int64
	// Bytes is the payload newly acknowledged.
	Bytes int
	// RTT is the round trip of the packet that triggered the ACK; 0 when
	// unknown.
	RTT unit.Time
	// Hops is the INT the ACK echoes, hop by hop; nil without.
	Hops []Hop
	// CE says the ACK echoes a CE mark: the packet that triggered it
	// arrived marked (DCTCP).
	CE bool
	// PINT is the HPCC-PINT code the ACK echoes: the largest of the
	// hops' encoded utilisations (PINTCode).
	PINT uint16
}
