package cc

import (
	"math/rand/v2"
	"testing"

	"rocelab/internal/unit"
)

// naive is a deliberately plain reaction point: every α period and every
// decrease window is an event of its own, α steps one period at a time, and
// nothing is skipped or computed lazily. It shares only the knob values and
// the fixed-point primitives (so that the two agree to the bit/s) with
// DCQCN, against which TestNaiveAgrees runs it.
type naive struct {
	c            DCQCNConfig
	line, ceil   int64
	rc, rt       int64
	alpha        uint64
	active       bool
	aFlag, dFlag bool
	counting     bool
	T, BC, bytes int64
	nextA, nextD unit.Time
	nextI        unit.Time
}

const never = unit.MaxTime

func newNaive(c DCQCNConfig, line unit.BitRate) *naive {
	n := &naive{c: c, line: int64(line), ceil: int64(line), nextA: never, nextD: never, nextI: never}
	if c.RpgMaxRate > 0 {
		n.ceil = min(n.ceil, c.RpgMaxRate*1e6)
	}
	n.rc, n.rt = n.line, n.line
	n.alpha = q10(c.InitialAlphaValue)
	return n
}

func (n *naive) mlx5() bool             { return n.c.Variant == VariantMLX5 }
func (n *naive) per(us int64) unit.Time { return unit.Time(us) * unit.Microsecond }
func (n *naive) keep() uint64           { return q10(n.c.DceTcpG) }

// run processes the naive events due at or before now, one at a time.
func (n *naive) run(now unit.Time) {
	for {
		t := min(n.nextA, n.nextI, n.nextD)
		if t > now {
			return
		}
		switch t {
		case n.nextA: // α period
			if n.mlx5() {
				n.alpha = mulQ(n.alpha, n.keep())
				if n.aFlag {
					n.alpha += qOne - n.keep()
				}
				n.aFlag = false
			} else {
				n.alpha = mulQ(n.alpha, n.keep())
			}
			n.nextA += n.per(n.c.DceTcpRtt)
		case n.nextI: // increase timer
			n.nextI += n.per(n.c.RpgTimeReset)
			n.T++
			n.increase()
		default: // decrease window
			n.nextD += n.per(n.c.RateReduceMonitorPeriod)
			if n.dFlag {
				n.dFlag = false
				n.cut(t)
			}
		}
	}
}

func (n *naive) cnp(now unit.Time) {
	n.run(now)
	if !n.mlx5() {
		if !n.active {
			n.active = true
			n.firstRate()
			if n.c.RateReduceMonitorPeriod > 0 {
				n.nextD = now + n.per(n.c.RateReduceMonitorPeriod)
			}
		}
		if n.c.RateReduceMonitorPeriod == 0 {
			n.cut(now)
		} else {
			n.dFlag = true
		}
		n.alpha = mulQ(n.alpha, n.keep()) + qOne - n.keep()
		n.nextA = now + n.per(n.c.DceTcpRtt) // the decay restarts at each CNP
		return
	}
	if !n.active {
		n.active = true
		n.firstRate()
		n.alpha = q10(n.c.InitialAlphaValue)
		n.nextA = now + n.per(n.c.DceTcpRtt)
		if n.c.RateReduceMonitorPeriod == 0 {
			n.cut(now)
			return
		}
		n.nextD = now + n.per(n.c.RateReduceMonitorPeriod)
		n.dFlag = true
		return
	}
	n.aFlag = true
	if n.c.RateReduceMonitorPeriod == 0 {
		n.cut(now)
	} else {
		n.dFlag = true
	}
}

func (n *naive) firstRate() {
	n.rc = min(n.rc, n.ceil)
	if r := n.c.RateToSetOnFirstCnp * 1e6; r > 0 {
		n.rc = min(r, n.ceil)
	}
	n.rt = n.rc
}

func (n *naive) cut(t unit.Time) {
	if n.c.ClampTgtRate == 1 || n.c.ClampTgtRateAfterTimeInc == 1 && n.T > 0 {
		n.rt = n.rc
	}
	keep := n.rc - fracOf(n.rc, n.alpha)>>(n.c.RpgGd-10)
	n.rc = max(keep, n.rc*n.c.RpgMinDecFac/100, min(n.c.RpgMinRate*1e6, n.ceil))
	n.T, n.BC, n.bytes = 0, 0, 0
	n.counting = true
	n.nextI = t + n.per(n.c.RpgTimeReset)
	n.ceiling()
}

func (n *naive) send(now unit.Time, b int64) {
	n.run(now)
	if !n.counting || n.c.RpgByteReset == 0 {
		return
	}
	n.bytes += b
	for n.counting && n.bytes >= n.c.RpgByteReset {
		n.bytes -= n.c.RpgByteReset
		n.BC++
		n.increase()
	}
}

func (n *naive) increase() {
	F, ai, hai := n.c.RpgThreshold, n.c.RpgAiRate*1e6, n.c.RpgHaiRate*1e6
	var add int64
	if n.c.RpgByteReset == 0 {
		if n.T == F+1 {
			add = ai
		} else if n.T > F+1 {
			add = hai
			if !n.mlx5() {
				add = (n.T - F - 1) * hai
			}
		}
	} else if lo, hi := min(n.T, n.BC), max(n.T, n.BC); lo > F {
		add = hai
		if !n.mlx5() {
			add = (lo - F) * hai
		}
	} else if hi > F {
		add = ai
	}
	n.rt = min(n.rt+add, n.ceil)
	n.rc += (n.rt - n.rc + 1) / 2
	n.ceiling()
}

func (n *naive) ceiling() {
	if n.rc < n.ceil {
		return
	}
	n.counting, n.T, n.BC, n.bytes = false, 0, 0, 0
	n.nextI = never
	if n.mlx5() && !n.dFlag {
		// Release: the limiter and all its timers go.
		*n = *newNaive(n.c, unit.BitRate(n.line))
	}
}

// TestNaiveAgrees feeds random CNP and send sequences to DCQCN and to the
// naive model and requires the same rates at every input and at every naive
// event, for both presets and some knob variations.
func TestNaiveAgrees(t *testing.T) {
	variations := []map[string]int64{
		nil,
		{"rpg_byte_reset": 0},
		{"rate_reduce_monitor_period": 0},
		{"rate_reduce_monitor_period": 7, "dce_tcp_rtt": 3, "rpg_threshold": 2, "clamp_tgt_rate": 1},
		{"rpg_gd": 10, "rpg_min_dec_fac": 30, "rpg_max_rate": 60000, "rate_to_set_on_first_cnp": 40000},
		{"rpg_ai_rate": 0, "rpg_hai_rate": 0},
		{"rpg_ai_rate": 0, "rpg_byte_reset": 3000},
	}
	var sum DCQCNStats
	for _, name := range Presets() {
		for vi, set := range variations {
			for seed := uint64(1); seed <= 20; seed++ {
				c := *preset(t, name, set)
				s := compareNaive(t, c, seed, name, vi)
				sum.CNPs += s.CNPs
				sum.Decreases += s.Decreases
				sum.TimerIncreases += s.TimerIncreases
				sum.ByteIncreases += s.ByteIncreases
				sum.Releases += s.Releases
			}
		}
	}
	t.Logf("compared over %+v", sum)
	if sum.Decreases == 0 || sum.TimerIncreases == 0 || sum.ByteIncreases == 0 || sum.Releases == 0 {
		t.Fatal("the random runs missed a kind of event")
	}
}

func compareNaive(t *testing.T, c DCQCNConfig, seed uint64, name string, vi int) DCQCNStats {
	rng := rand.New(rand.NewPCG(seed, 7))
	line := 100 * unit.Gbps
	q, n := c.New(line), newNaive(c, line)
	now := unit.Time(0)
	meanCNP := unit.Time(1+rng.IntN(200)) * unit.Microsecond
	nextCNP := unit.Time(rng.ExpFloat64() * float64(meanCNP))
	for i := 0; i < 20000; i++ {
		// The next thing: a naive event, a CNP, or a packet at the QP's rate.
		pkt := int64(1000 + rng.IntN(3200))
		gap := unit.BitRate(n.rc).TxTime(unit.Bytes(pkt))
		nt := min(now+gap, nextCNP, n.nextA, n.nextD, n.nextI)
		now = max(nt, now)
		switch {
		case now == nextCNP:
			q.OnCNP(now)
			n.cnp(now)
			nextCNP = now + 1 + unit.Time(rng.ExpFloat64()*float64(meanCNP))
		case now == nt && nt < min(n.nextA, n.nextD, n.nextI):
			q.OnSend(now, int(pkt))
			n.send(now, pkt)
		default:
			q.OnDeadline(now)
			n.run(now)
		}
		if int64(q.Rate()) != n.rc || int64(q.Target()) != n.rt {
			t.Fatalf("%s variation %d seed %d step %d at %v: rate %d target %d, naive %d %d (active %v)",
				name, vi, seed, i, now, q.Rate(), q.Target(), n.rc, n.rt, n.active)
		}
	}
	return q.Stats()
}
