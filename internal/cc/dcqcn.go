package cc

import "rocelab/internal/unit"

// DCQCN is the reaction point of one RC queue pair: its current rate RC,
// target rate RT, congestion estimate α, and the timers and byte counter that
// move them. It is a value the NIC may embed in its QP (Init) or hold by
// pointer (New); it does not allocate after construction.
//
// The algorithm, per Zhu et al. (SIGCOMM 2015), NVIDIA's DCQCN pages and the
// HPCC ns-3 model (docs/cc.md walks through it and its sources):
//
//   - Decrease. A CNP (or, with a monitor period, the end of a window in
//     which one arrived) cuts RC ← max(RC·(1 − α/Gd), RC·rpg_min_dec_fac%,
//     rpg_min_rate), after setting RT ← RC when clamp_tgt_rate is set, or
//     when clamp_tgt_rate_after_time_inc is set and the timer raised the
//     rate since the last decrease. The cut resets both stage counters and
//     the byte counter and restarts the increase timer.
//   - α. mlx5: every dce_tcp_rtt on a grid from the first CNP, α ← α·G/1024,
//     plus (1 − G/1024) if a CNP arrived in that period. Paper: each CNP,
//     after its cut, α ← α·G/1024 + (1 − G/1024); α ← α·G/1024 once per
//     dce_tcp_rtt after the last CNP. Both are kept lazily (no timer).
//   - Increase. The timer (every rpg_time_reset) and the byte counter (every
//     rpg_byte_reset bytes) each count a stage, T or BC, and then step:
//     fast recovery RC ← (RT + RC)/2 while max(T, BC) ≤ F; hyper increase
//     when min(T, BC) > F, RT += R_HAI (mlx5) or i·R_HAI with i = min(T,BC)
//     − F (paper), then the average; additive increase otherwise, RT +=
//     R_AI, then the average. With the byte counter off (rpg_byte_reset 0)
//     the timer's stage alone decides, as in the HPCC ns-3 model: fast
//     recovery while T ≤ F, additive increase at T = F+1, hyper beyond.
//   - Bounds. RC ≤ RT ≤ the ceiling (rpg_max_rate, or the line rate) while
//     rate-limited; RC ≥ rpg_min_rate. Averages round up, so RC reaches RT.
//     mlx5 releases the limiter when RC reaches the ceiling: the QP then
//     sends at line rate, and the next CNP is a first CNP again.
//
// Timers due at the same instant run α first, then the increase timer, then
// the windowed decrease: the order of the ns-3 model's events.
type DCQCN struct {
	// What every packet sent reads (Rate, OnSend, NextDeadline) comes
	// first, in the first line of a DCQCN that starts one: on a fabric of
	// thousands of hosts a QP's state has left the caches by its next
	// packet.
	rc, rt   int64     // current and target rate, bit/s
	decAt    unit.Time // the pending windowed decrease, or MaxTime
	incAt    unit.Time // the rate-increase timer, or MaxTime
	bytes    int64     // bytes counted toward the next byte-counter event
	counting bool      // the increase machinery runs: from a decrease until RC is back at its ceiling
	active   bool      // mlx5: a rate limiter is allocated; paper: a CNP has arrived
	phase    Phase     // of the last increase step
	tStage   int64     // T: timer events since the last decrease
	bStage   int64     // BC: byte-counter events since the last decrease

	alpha    uint64    // α in Q62; see alphaIdx and alphaAt
	t0       unit.Time // start of the episode: origin of the decrease windows and of mlx5's α grid
	alphaIdx int64     // mlx5: α is the value at α-grid point t0 + alphaIdx·dce_tcp_rtt
	alphaCNP bool      // mlx5: a CNP arrived in the α period after that point
	alphaAt  unit.Time // paper: α was set by the CNP at alphaAt and decays from there

	p     dcqcnParams
	stats DCQCNStats
}

// Phase is the kind of a rate-increase step.
type Phase uint8

// The increase phases.
const (
	NoPhase          Phase = iota // no increase step yet
	FastRecovery                  // RC ← (RT + RC)/2
	AdditiveIncrease              // RT += R_AI, then the average
	HyperIncrease                 // RT += R_HAI (mlx5) or i·R_HAI (paper), then the average
)

// String returns "fr", "ai", "hai" or "-".
func (p Phase) String() string {
	return [...]string{"-", "fr", "ai", "hai"}[min(p, HyperIncrease)]
}

// DCQCNStats counts what a DCQCN reaction point did.
type DCQCNStats struct {
	CNPs           int64 // CNPs handled (the NIC's rp_cnp_handled)
	Decreases      int64 // rate cuts
	TimerIncreases int64 // increase steps driven by the timer
	ByteIncreases  int64 // increase steps driven by the byte counter
	Releases       int64 // mlx5: rate limiters released at the ceiling
}

// dcqcnParams is a DCQCNConfig compiled for one line rate: rates in bit/s,
// periods in picoseconds, α factors in Q62.
type dcqcnParams struct {
	variant   Variant
	line      int64 // rate of an unlimited QP
	ceil      int64 // ceiling of RC and RT while limited
	minRate   int64
	firstRate int64 // 0: keep the current rate at the first CNP
	keep      uint64
	alpha0    uint64
	gdShift   uint
	minDecFac int64
	alphaPer  unit.Time
	monPer    unit.Time // 0: decrease at each CNP
	incPer    unit.Time
	byteReset int64
	f         int64
	ai, hai   int64
	clamp     bool
	clampTime bool
}

// New returns a reaction point for a QP on a port of the given line rate,
// sending at line rate until its first CNP. Out-of-range knobs are clamped
// into range; Validate reports them.
func (c *DCQCNConfig) New(line unit.BitRate) *DCQCN {
	q := new(DCQCN)
	c.Init(q, line)
	return q
}

// Init makes q a fresh reaction point, as New does, without allocating.
func (c *DCQCNConfig) Init(q *DCQCN, line unit.BitRate) {
	*q = DCQCN{p: c.compile(line)}
	q.reset()
}

func (c *DCQCNConfig) compile(line unit.BitRate) dcqcnParams {
	v := *c
	for i := range knobs {
		f := knobs[i].field(&v)
		*f = min(max(*f, knobs[i].Min), knobs[i].Max)
	}
	mbps := func(x int64) int64 { return x * int64(unit.Mbps) }
	us := func(x int64) unit.Time { return unit.Time(x) * unit.Microsecond }
	p := dcqcnParams{
		variant:   v.Variant,
		line:      max(int64(line), 1),
		keep:      q10(v.DceTcpG),
		alpha0:    q10(v.InitialAlphaValue),
		gdShift:   uint(v.RpgGd - 10),
		minDecFac: v.RpgMinDecFac,
		alphaPer:  us(v.DceTcpRtt),
		monPer:    us(v.RateReduceMonitorPeriod),
		incPer:    us(v.RpgTimeReset),
		byteReset: v.RpgByteReset,
		f:         v.RpgThreshold,
		ai:        mbps(v.RpgAiRate),
		hai:       mbps(v.RpgHaiRate),
		clamp:     v.ClampTgtRate == 1,
		clampTime: v.ClampTgtRateAfterTimeInc == 1,
	}
	p.ceil = p.line
	if v.RpgMaxRate > 0 {
		p.ceil = min(p.line, mbps(v.RpgMaxRate))
	}
	p.minRate = min(mbps(v.RpgMinRate), p.ceil)
	if v.RateToSetOnFirstCnp > 0 {
		p.firstRate = max(min(mbps(v.RateToSetOnFirstCnp), p.ceil), p.minRate)
	}
	return p
}

// reset returns q to the state of a QP without a rate limiter.
func (q *DCQCN) reset() {
	q.rc, q.rt = q.p.line, q.p.line
	q.alpha = q.p.alpha0
	q.active = false
	q.alphaIdx, q.alphaCNP = 0, false
	q.decAt, q.incAt = unit.MaxTime, unit.MaxTime
	q.stopCounting()
}

func (q *DCQCN) stopCounting() {
	q.counting = false
	q.tStage, q.bStage, q.bytes = 0, 0, 0
}

// Rate returns the current rate RC.
func (q *DCQCN) Rate() unit.BitRate { return unit.BitRate(q.rc) }

// Target returns the target rate RT.
func (q *DCQCN) Target() unit.BitRate { return unit.BitRate(q.rt) }

// Limited reports whether the QP is rate-limited: mlx5, between a first CNP
// and the release of its limiter; paper, after its first CNP.
func (q *DCQCN) Limited() bool { return q.active }

// Stages returns the stage counters T (timer) and BC (byte counter) since the
// last decrease.
func (q *DCQCN) Stages() (t, bc int64) { return q.tStage, q.bStage }

// LastPhase returns the phase of the last increase step.
func (q *DCQCN) LastPhase() Phase { return q.phase }

// Stats returns what the reaction point has done so far.
func (q *DCQCN) Stats() DCQCNStats { return q.stats }

// Alpha returns α as it stands at now (not before the last input), without
// changing the state: the value the next cut would use.
func (q *DCQCN) Alpha(now unit.Time) float64 {
	c := *q
	c.catchUpAlpha(now)
	return qFloat(c.alpha)
}

// NextDeadline returns the earliest armed timer: the rate-increase timer or
// a pending windowed decrease. α needs no timer: it is brought up to date
// whenever it is read.
func (q *DCQCN) NextDeadline() unit.Time { return min(q.decAt, q.incAt) }

// OnDeadline runs every timer due at or before now.
func (q *DCQCN) OnDeadline(now unit.Time) { q.advance(now) }

// OnAck ignores the acknowledgement: DCQCN reacts to CNPs only.
func (*DCQCN) OnAck(unit.Time, int, unit.Time) {}

// advance runs the timers due at or before now, in time order; at equal
// times the increase timer before the decrease (α is lazy and brought up to
// date by whatever reads it).
func (q *DCQCN) advance(now unit.Time) {
	for {
		if q.incAt <= now && q.incAt <= q.decAt {
			q.timerIncrease(now)
		} else if q.decAt <= now {
			t := q.decAt
			q.decAt = unit.MaxTime
			q.catchUpAlpha(t)
			q.decrease(t)
		} else {
			return
		}
	}
}

// OnCNP handles a CNP for this QP.
func (q *DCQCN) OnCNP(now unit.Time) {
	q.advance(now)
	q.stats.CNPs++
	if q.p.variant == VariantPaper {
		q.paperCNP(now)
		return
	}
	if !q.active {
		// The first CNP allocates a rate limiter. As in the ns-3 model it
		// sets α to initial_alpha_value and does not add its own increment;
		// its decrease comes at the end of the first window.
		q.startEpisode(now)
		q.alphaIdx, q.alphaCNP = 0, false
		q.requestDecrease(now)
		return
	}
	q.catchUpAlpha(now)
	q.alphaCNP = true
	q.requestDecrease(now)
}

// paperCNP is the paper's reaction: cut with the current α, then raise α.
func (q *DCQCN) paperCNP(now unit.Time) {
	if !q.active {
		q.startEpisode(now)
		q.alphaAt = now
	}
	q.catchUpAlpha(now)
	q.requestDecrease(now)
	q.alpha = mulQ(q.alpha, q.p.keep) + (qOne - q.p.keep)
	q.alphaAt = now
}

func (q *DCQCN) startEpisode(now unit.Time) {
	q.active = true
	q.t0 = now
	q.alpha = q.p.alpha0
	// The limiter starts at rate_to_set_on_first_cnp, or at the current rate
	// as far as the ceiling allows.
	r := min(q.rc, q.p.ceil)
	if q.p.firstRate > 0 {
		r = q.p.firstRate
	}
	q.rc, q.rt = r, r
}

// requestDecrease cuts now, or at the end of the current window when
// rate_reduce_monitor_period is set (one cut per window however many CNPs).
func (q *DCQCN) requestDecrease(now unit.Time) {
	if q.p.monPer == 0 {
		q.decrease(now)
		return
	}
	if q.decAt == unit.MaxTime {
		k := (now - q.t0) / q.p.monPer
		q.decAt = addTime(q.t0, (k+1)*q.p.monPer)
	}
}

// catchUpAlpha brings α up to date at t.
func (q *DCQCN) catchUpAlpha(t unit.Time) {
	if !q.active {
		return
	}
	per := q.p.alphaPer
	if q.p.variant == VariantPaper {
		if m := int64((t - q.alphaAt) / per); m > 0 {
			q.alpha = mulQ(q.alpha, powQ(q.p.keep, m))
			q.alphaAt += unit.Time(m) * per
		}
		return
	}
	k := int64((t - q.t0) / per)
	m := k - q.alphaIdx
	if m <= 0 {
		return
	}
	if q.alphaCNP {
		q.alpha = mulQ(q.alpha, q.p.keep) + (qOne - q.p.keep)
		q.alphaCNP = false
		m--
	}
	q.alpha = mulQ(q.alpha, powQ(q.p.keep, m))
	q.alphaIdx = k
}

// decrease cuts the rate at t with the current α.
func (q *DCQCN) decrease(t unit.Time) {
	if q.p.clamp || q.p.clampTime && q.tStage > 0 {
		q.rt = q.rc
	}
	cut := fracOf(q.rc, q.alpha) >> q.p.gdShift
	q.rc = max(q.rc-cut, q.rc/100*q.p.minDecFac+q.rc%100*q.p.minDecFac/100, q.p.minRate)
	q.stats.Decreases++
	q.tStage, q.bStage, q.bytes = 0, 0, 0
	q.counting = true
	q.incAt = addTime(t, q.p.incPer)
	q.atCeiling()
}

// timerIncrease runs the increase timer due at q.incAt (≤ now).
func (q *DCQCN) timerIncrease(now unit.Time) {
	if q.stuck(true) {
		// Nothing can move: count the timer events up to now, or up to a
		// pending decrease, at once.
		end := min(now, q.decAt)
		n := int64((end-q.incAt)/q.p.incPer) + 1
		q.tStage = addSat(q.tStage, n)
		q.stats.TimerIncreases += n
		q.incAt = addTime(q.incAt, unit.Time(n)*q.p.incPer)
		return
	}
	q.incAt = addTime(q.incAt, q.p.incPer)
	q.tStage++
	q.stats.TimerIncreases++
	q.increase()
}

// OnSend counts bytes toward the byte counter while the increase machinery
// runs.
func (q *DCQCN) OnSend(now unit.Time, bytes int) {
	q.advance(now)
	if !q.counting || q.p.byteReset == 0 || bytes <= 0 {
		return
	}
	q.bytes = addSat(q.bytes, int64(bytes))
	for q.counting && q.bytes >= q.p.byteReset {
		if q.stuck(false) {
			n := q.bytes / q.p.byteReset
			q.bStage = addSat(q.bStage, n)
			q.stats.ByteIncreases += n
			q.bytes -= n * q.p.byteReset
			return
		}
		q.bytes -= q.p.byteReset
		q.bStage++
		q.stats.ByteIncreases++
		q.increase()
	}
}

// stuck reports whether every further step driven by the timer (or by the
// byte counter, when timer is false) would change nothing but its own stage
// counter: RC has reached RT and no step that those events can reach adds to
// RT. Skipping such steps in bulk keeps a call's work bounded whatever the
// knobs (rpg_ai_rate 0, say, with a 1-byte counter).
func (q *DCQCN) stuck(timer bool) bool {
	switch {
	case q.rc != q.rt || q.p.ai != 0:
		return false
	case q.p.hai == 0:
		return true
	case q.p.byteReset == 0:
		return false // the timer alone reaches hyper increase
	}
	// Only hyper increase adds to RT, and it needs both stages past F: the
	// counter these events do not drive must already be there.
	other := q.bStage
	if !timer {
		other = q.tStage
	}
	return other <= q.p.f
}

// increase is one rate-increase step, after the stage counter that drove it
// has been counted.
func (q *DCQCN) increase() {
	f := q.p.f
	var step int64 // added to RT
	q.phase = FastRecovery
	if q.p.byteReset == 0 {
		// Timer only (the HPCC ns-3 model): FR while T ≤ F, AI at F+1,
		// HAI beyond.
		switch s := q.tStage; {
		case s <= f:
		case s == f+1:
			step, q.phase = q.p.ai, AdditiveIncrease
		default:
			step, q.phase = q.hyper(s-f-1), HyperIncrease
		}
	} else {
		hi, lo := max(q.tStage, q.bStage), min(q.tStage, q.bStage)
		switch {
		case hi <= f:
		case lo > f:
			step, q.phase = q.hyper(lo-f), HyperIncrease
		default:
			step, q.phase = q.p.ai, AdditiveIncrease
		}
	}
	q.rt = min(q.rt+min(step, q.p.ceil), q.p.ceil)
	q.rc = q.rc + (q.rt-q.rc+1)/2
	q.atCeiling()
}

// hyper returns the hyper-increase step at hyper stage i ≥ 1.
func (q *DCQCN) hyper(i int64) int64 {
	if q.p.variant != VariantPaper {
		return q.p.hai
	}
	if q.p.hai > 0 && i > q.p.ceil/q.p.hai {
		return q.p.ceil
	}
	return i * q.p.hai
}

// atCeiling ends the episode's increases once RC is at the ceiling: mlx5
// releases the rate limiter; the paper's QP stops its increase timer and
// keeps α.
func (q *DCQCN) atCeiling() {
	if q.rc < q.p.ceil {
		return
	}
	if q.p.variant == VariantPaper {
		q.incAt = unit.MaxTime
		q.stopCounting()
		return
	}
	if q.decAt != unit.MaxTime {
		// A CNP is pending in this window: keep the limiter for its cut.
		q.incAt = unit.MaxTime
		q.stopCounting()
		return
	}
	q.stats.Releases++
	q.reset()
}
