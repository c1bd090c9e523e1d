package cc

import (
	"math"
	"testing"

	"rocelab/internal/unit"
)

// The tests in this file check the reaction point against the closed forms
// of the DCQCN paper (Zhu et al., SIGCOMM 2015), the mlx5 knobs and the HPCC
// ns-3 model (rdma-hw.cc), computed here in float64 from the knob values
// alone.
// The implementation works in integers (bit/s, α in Q62) and rounds averages
// up, so a rate may differ from the float by a few bit/s; α agrees to 1e-12.

const us = unit.Microsecond

func preset(t testing.TB, name string, set map[string]int64) *DCQCNConfig {
	t.Helper()
	c, err := Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range set {
		if err := c.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	return &c
}

func nearRate(t *testing.T, what string, got unit.BitRate, want, tolBps float64) {
	t.Helper()
	if d := math.Abs(float64(got) - want); d > tolBps {
		t.Fatalf("%s: rate %d bit/s, closed form %.1f (off by %.1f > %.1f)", what, got, want, d, tolBps)
	}
}

func nearAlpha(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-12 {
		t.Fatalf("%s: α %.15f, closed form %.15f", what, got, want)
	}
}

// step runs the next timer and checks it fires at want.
func step(t *testing.T, q *DCQCN, want unit.Time) {
	t.Helper()
	d := q.NextDeadline()
	if d != want {
		t.Fatalf("next deadline %v, want %v", d, want)
	}
	q.OnDeadline(d)
}

// mlx5 after one CNP: the cut waits for the end of the 4 us window, uses α =
// initial·d^4 (four α periods without a CNP), and leaves RT alone; α decays
// geometrically; then every timer step halves the gap to RT (fast recovery,
// then additive increase against the ceiling) until the limiter is
// released at line rate.
func TestClosedFormMLX5OneCNP(t *testing.T) {
	const L = 100e9
	q := preset(t, "mlx5", map[string]int64{"rpg_byte_reset": 32767}).New(100 * unit.Gbps)
	t0 := 10 * us
	q.OnCNP(t0)
	if q.Rate() != 100*unit.Gbps {
		t.Fatalf("rate moved before the window ended: %v", q.Rate())
	}
	step(t, q, t0+4*us)
	d := 1019.0 / 1024
	a := 1023.0 / 1024 * math.Pow(d, 4)
	nearAlpha(t, "at the cut", q.Alpha(t0+4*us), a)
	rc := L * (1 - a/2)
	nearRate(t, "cut", q.Rate(), rc, 1)
	if q.Target() != 100*unit.Gbps {
		t.Fatalf("RT %v after the first cut, want 100G (no clamp before a timer increase)", q.Target())
	}
	for _, k := range []int{1, 2, 10, 100, 299} {
		nearAlpha(t, "decay", q.Alpha(t0+4*us+unit.Time(k)*us), a*math.Pow(d, float64(k)))
	}
	for n := 1; ; n++ {
		step(t, q, t0+4*us+unit.Time(n)*300*us)
		if !q.Limited() {
			if q.Rate() != 100*unit.Gbps || n > 40 {
				t.Fatalf("released after %d steps at %v", n, q.Rate())
			}
			t.Logf("released at line rate after %d timer steps", n)
			return
		}
		rc = (L + rc) / 2
		nearRate(t, "recovery", q.Rate(), rc, 2)
		if want := FastRecovery; n > 1 {
			if q.LastPhase() != AdditiveIncrease {
				t.Fatalf("step %d: phase %v, want ai", n, q.LastPhase())
			}
		} else if q.LastPhase() != want {
			t.Fatalf("step 1: phase %v, want fr", q.LastPhase())
		}
	}
}

// mlx5 with the byte counter off is the HPCC ns-3 model: the timer's stage
// alone decides: F = 1 fast-recovery step, one additive step (RT += R_AI),
// then hyper steps adding a constant R_HAI.
func TestClosedFormMLX5TimerOnly(t *testing.T) {
	c := preset(t, "mlx5", map[string]int64{"rpg_byte_reset": 0, "rate_to_set_on_first_cnp": 40000})
	q := c.New(100 * unit.Gbps)
	q.OnCNP(0)
	step(t, q, 4*us)
	a := 1023.0 / 1024 * math.Pow(1019.0/1024, 4)
	rc, rt := 40e9*(1-a/2), 40e9
	nearRate(t, "cut", q.Rate(), rc, 1)
	for n := 1; n <= 40; n++ {
		step(t, q, 4*us+unit.Time(n)*300*us)
		phase := HyperIncrease
		switch n {
		case 1:
			phase = FastRecovery
		case 2:
			phase, rt = AdditiveIncrease, rt+5e6
		default:
			rt += 50e6
		}
		rc = (rt + rc) / 2
		if q.LastPhase() != phase || float64(q.Target()) != rt {
			t.Fatalf("step %d: %v RT %v, want %v RT %.0f", n, q.LastPhase(), q.Target(), phase, rt)
		}
		nearRate(t, "step", q.Rate(), rc, 2)
	}
}

// mlx5 with its byte counter: 32767 B per stage. With T = 0, the first byte
// stage is fast recovery and the others additive (RT += 5 Mb/s each); after
// the timer's second step both stages are past F = 1 and each step is a
// hyper increase of a constant 50 Mb/s.
func TestClosedFormMLX5ByteCounter(t *testing.T) {
	c := preset(t, "mlx5", map[string]int64{"rate_to_set_on_first_cnp": 40000, "rpg_byte_reset": 32767})
	q := c.New(100 * unit.Gbps)
	q.OnCNP(0)
	step(t, q, 4*us)
	a := 1023.0 / 1024 * math.Pow(1019.0/1024, 4)
	rc, rt := 40e9*(1-a/2), 40e9
	check := func(what string, phase Phase) {
		t.Helper()
		rc = (rt + rc) / 2
		if q.LastPhase() != phase || float64(q.Target()) != rt {
			t.Fatalf("%s: %v RT %v, want %v RT %.0f", what, q.LastPhase(), q.Target(), phase, rt)
		}
		nearRate(t, what, q.Rate(), rc, 2)
	}
	now := 5 * us
	send := func() {
		// 32767 B in two packets: the stage counts at the second.
		q.OnSend(now, 30000)
		q.OnSend(now, 2767)
		now += us
	}
	send()
	check("byte stage 1", FastRecovery)
	for n := 2; n <= 50; n++ {
		send()
		rt += 5e6
		check("byte stage", AdditiveIncrease)
	}
	// The timer at 304 us: T = 1, BC = 50: one stage past F, additive.
	step(t, q, 304*us)
	rt += 5e6
	check("timer stage 1", AdditiveIncrease)
	// At 604 us T = 2: both past F, hyper, and so is every byte stage after.
	step(t, q, 604*us)
	rt += 50e6
	check("timer stage 2", HyperIncrease)
	now = 605 * us
	for n := 0; n < 50; n++ {
		send()
		rt += 50e6
		check("byte stage after T=2", HyperIncrease)
	}
}

// The 4 us rate_reduce_monitor_period merges CNPs: with a CNP every
// microsecond there is one cut per window, at its end; α rises each
// microsecond as α ← dα + (1−d), so α_k = 1 − (1 − α_1)·d^(k−1).
func TestClosedFormMLX5MonitorPeriod(t *testing.T) {
	q := preset(t, "mlx5", nil).New(100 * unit.Gbps)
	d := 1019.0 / 1024
	a1 := 1023.0 / 1024 * d // the first α period had no CNP of its own
	alpha := func(k int) float64 { return 1 - (1-a1)*math.Pow(d, float64(k-1)) }
	rc := 100e9
	for s := 0; s < 40; s++ {
		q.OnCNP(unit.Time(s) * us)
		if s%4 == 3 {
			end := unit.Time(s+1) * us
			if q.NextDeadline() != end {
				t.Fatalf("after the CNP at %dus the cut is due at %v, want %v", s, q.NextDeadline(), end)
			}
			q.OnDeadline(end)
			rc *= 1 - alpha(s+1)/2
			nearAlpha(t, "α at the cut", q.Alpha(end), alpha(s+1))
			nearRate(t, "cut", q.Rate(), rc, 4)
		}
	}
	if st := q.Stats(); st.CNPs != 40 || st.Decreases != 10 {
		t.Fatalf("40 CNPs in 10 windows gave %d cuts", st.Decreases)
	}
	if q.Target() != 100*unit.Gbps {
		t.Fatalf("RT %v: no timer increase happened, so no cut may clamp it", q.Target())
	}
}

// After a timer increase, clamp_tgt_rate_after_time_inc makes the next cut
// set RT to the rate before the cut; clamp_tgt_rate = 1 does so always.
func TestClosedFormMLX5Clamp(t *testing.T) {
	for _, clamp := range []int64{0, 1} {
		q := preset(t, "mlx5", map[string]int64{"clamp_tgt_rate": clamp}).New(100 * unit.Gbps)
		q.OnCNP(0)
		step(t, q, 4*us)
		cut1 := q.Rate()
		if want := unit.BitRate(100e9); clamp == 1 {
			if q.Target() != want {
				t.Fatalf("clamp_tgt_rate=1: RT %v after the first cut, want the pre-cut 100G", q.Target())
			}
		}
		q.OnCNP(100 * us)
		step(t, q, 104*us)
		if clamp == 0 && q.Target() != 100*unit.Gbps || clamp == 1 && q.Target() != cut1 {
			t.Fatalf("clamp_tgt_rate=%d: RT %v after a second cut without timer increase", clamp, q.Target())
		}
		step(t, q, 404*us) // timer fast recovery
		before := q.Rate()
		q.OnCNP(500 * us)
		step(t, q, 504*us)
		if q.Target() != before {
			t.Fatalf("clamp_tgt_rate=%d: RT %v after a timer increase, want the pre-cut %v", clamp, q.Target(), before)
		}
	}
}

// The paper: every CNP cuts at once with the α of that moment, then α ←
// (1−g)α + g; without CNPs α decays by (1−g) per K = 55 us counted from the
// last CNP. (The increase timer is set long enough not to fire.)
func TestClosedFormPaperDecrease(t *testing.T) {
	const g = 1.0 / 256
	q := preset(t, "paper", map[string]int64{"rpg_time_reset": 131071}).New(40 * unit.Gbps)
	rc, a := 40e9, 1.0
	cnp := func(at unit.Time, decays int) {
		t.Helper()
		a *= math.Pow(1-g, float64(decays))
		nearAlpha(t, "α before the CNP", q.Alpha(at), a)
		q.OnCNP(at)
		rc *= 1 - a/2
		a = (1-g)*a + g
		nearRate(t, "cut", q.Rate(), rc, 2)
		nearAlpha(t, "α after the CNP", q.Alpha(at), a)
	}
	cnp(0, 0)
	cnp(200*us, 3) // floor(200/55) = 3 decays
	cnp(201*us, 0) // 1 us later: a second cut, no merging
	cnp(300*us, 1)
	if q.Stats().Decreases != 4 {
		t.Fatalf("%d cuts for 4 CNPs", q.Stats().Decreases)
	}
}

// The paper's increase: F = 5 stages of fast recovery; one stage counter
// past F gives additive increase (RT += 40 Mb/s); both past F give hyper
// increase RT += i·R_HAI with i = min(T, BC) − F. Timer and byte counter
// alternate, so (T, BC) runs (1,0), (1,1), (2,1), ... and i grows by one
// every two steps.
func TestClosedFormPaperIncrease(t *testing.T) {
	const (
		F   = 5
		ai  = 40e6
		hai = 400e6
	)
	c := preset(t, "paper", map[string]int64{"rate_to_set_on_first_cnp": 20000})
	q := c.New(100 * unit.Gbps)
	q.OnCNP(0)
	rc, rt := 10e9, 20e9
	nearRate(t, "cut", q.Rate(), rc, 0)
	T, BC := 0, 0
	check := func(what string) {
		t.Helper()
		phase := AdditiveIncrease
		switch lo, hi := min(T, BC), max(T, BC); {
		case hi <= F:
			phase = FastRecovery
		case lo > F:
			phase, rt = HyperIncrease, rt+float64(lo-F)*hai
		default:
			rt += ai
		}
		rc = (rt + rc) / 2
		if q.LastPhase() != phase || float64(q.Target()) != rt {
			t.Fatalf("%s (T=%d BC=%d): %v RT %v, want %v RT %.0f", what, T, BC, q.LastPhase(), q.Target(), phase, rt)
		}
		nearRate(t, what, q.Rate(), rc, 2)
	}
	for k := 1; k <= 12; k++ {
		at := unit.Time(k) * 55 * us
		step(t, q, at)
		T++
		check("timer")
		q.OnSend(at+us, 10_000_000)
		BC++
		check("bytes")
	}
	if q.LastPhase() != HyperIncrease {
		t.Fatal("never reached hyper increase")
	}
}

// Bounds: rpg_gd = 10 cuts by α (not α/2), rpg_min_dec_fac floors one cut,
// rpg_min_rate floors the rate.
func TestClosedFormCutFloors(t *testing.T) {
	a := 1023.0 / 1024 * math.Pow(1019.0/1024, 4)
	for _, tc := range []struct {
		set  map[string]int64
		want float64
	}{
		{map[string]int64{"rpg_gd": 11}, 100e9 * (1 - a/2)},
		{map[string]int64{"rpg_gd": 10, "rpg_min_dec_fac": 0}, 100e9 * (1 - a)},
		{map[string]int64{"rpg_gd": 10}, 50e9},
		{map[string]int64{"rpg_gd": 10, "rpg_min_dec_fac": 0, "rpg_min_rate": 20000}, 20e9},
		{map[string]int64{"rpg_min_dec_fac": 70}, 70e9},
	} {
		q := preset(t, "mlx5", tc.set).New(100 * unit.Gbps)
		q.OnCNP(0)
		step(t, q, 4*us)
		nearRate(t, "cut", q.Rate(), tc.want, 1)
	}
}
