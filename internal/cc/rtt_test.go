package cc

import (
	"math"
	"testing"

	"rocelab/internal/unit"
)

// The tests in this file check TIMELY and HPCC against closed forms of
// their update rules (TIMELY, SIGCOMM 2015, Algorithm 1; HPCC, SIGCOMM
// 2019, §3.3 and the HPCC ns-3 model's UpdateRateHp), computed here in
// float64 from the knob values alone.

func timely(t *testing.T, preset string, set map[string]int64, line unit.BitRate) *Timely {
	t.Helper()
	c, err := TimelyPreset(preset)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range set {
		if err := c.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	return c.New(line)
}

// sample feeds one segment's RTT to a segment-mode TIMELY.
func sample(q *Timely, rtt unit.Time) { q.OnFeedback(0, Feedback{Bytes: 16384, RTT: rtt}) }

// Above T_high the rate falls by β·(1 − T_high/rtt); below T_low it rises
// by δ, by the HAI step once hai_thresh increases came in a row, up to the
// line rate. The first sample only sets the previous RTT.
func TestTimelyThresholds(t *testing.T) {
	q := timely(t, "paper", nil, 10*unit.Gbps)
	sample(q, 600*us)
	if q.Rate() != 10*unit.Gbps {
		t.Fatalf("the first sample moved the rate to %v", q.Rate())
	}
	sample(q, 1000*us)
	want := 10e9 * (1 - 0.8*(1-500.0/1000))
	nearRate(t, "above T_high", q.Rate(), want, 1)
	for k := 1; k <= 7; k++ {
		sample(q, 10*us)
		step := 10e6
		if k > 5 {
			step = 50e6
		}
		want += step
		nearRate(t, "below T_low", q.Rate(), want, 1)
	}
	for k := 0; k < 200; k++ {
		sample(q, 10*us)
	}
	if q.Rate() != 10*unit.Gbps {
		t.Errorf("rate %v after 200 increases, want the line rate", q.Rate())
	}
}

// Between the thresholds, RTTs rising by Δ per sample give rtt_diff_k =
// Δ·(1 − (1−α)^k) and a cut by β·rtt_diff_k/min_rtt at each sample; a
// falling RTT gives a negative gradient and δ back.
func TestTimelyGradient(t *testing.T) {
	q := timely(t, "paper", nil, 100*unit.Gbps)
	const delta = 2.0 // us
	rtt := 100.0
	sample(q, unit.Time(rtt)*us)
	want := 100e9
	for k := 1; k <= 6; k++ {
		rtt += delta
		sample(q, unit.Time(rtt)*us)
		diff := delta * (1 - math.Pow(1-0.875, float64(k)))
		want *= 1 - 0.8*diff/20
		nearRate(t, "rising RTT", q.Rate(), want, float64(k))
	}
	// One falling sample: rtt_diff = (1−α)·rtt_diff + α·(−Δ) < 0.
	sample(q, unit.Time(rtt-delta)*us)
	nearRate(t, "falling RTT", q.Rate(), want+10e6, 8)
	if s := q.Stats(); s.Decreases != 6 || s.Increases != 1 {
		t.Errorf("stats %+v", s)
	}
}

// With segment 0 (HPCC ns-3), TIMELY updates once per RTT: an ACK counts
// only when it acknowledges beyond the sequence sent at the last update.
func TestTimelyPerRTT(t *testing.T) {
	q := timely(t, "ns3", nil, 100*unit.Gbps)
	q.OnFeedback(0, Feedback{Acked: 1, Next: 10, RTT: 600 * us})
	q.OnFeedback(0, Feedback{Acked: 5, Next: 12, RTT: 1000 * us})
	if q.Rate() != 100*unit.Gbps {
		t.Fatalf("an ACK within the RTT moved the rate to %v", q.Rate())
	}
	q.OnFeedback(0, Feedback{Acked: 11, Next: 20, RTT: 1000 * us})
	nearRate(t, "the next RTT", q.Rate(), 100e9*(1-0.8*0.5), 1)
}

func hpcc(t *testing.T, preset string, set map[string]int64) *HPCC {
	t.Helper()
	c, err := HPCCPreset(preset)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range set {
		if err := c.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	return c.New(100 * unit.Gbps)
}

// link is a 100G hop whose INT the tests write: it sent at full rate up to
// t with q bytes queued.
func link(t unit.Time, q int64) Hop {
	return Hop{Port: 7, Time: t, TxBytes: int64(float64(t) / float64(unit.Second) * 100e9 / 8), QLen: q, Rate: 100 * unit.Gbps}
}

// One full update from a saturated hop with a standing queue: U = 1 +
// qlen·8/(B·T), and since the hop's records are a base RTT or more apart
// the estimate takes U whole; the rate becomes Rc·η/U + W_AI (HPCC's
// multiplicative update, max_stage 0), and the window W·rate/line.
func TestHPCCMultiplicative(t *testing.T) {
	const T = 10_000 // ns
	q := hpcc(t, "ns3", map[string]int64{"base_rtt": T})
	const qlen = 125_000 // 10 us at 100G: U = 2
	q.OnFeedback(0, Feedback{Acked: 1, Next: 100, Hops: []Hop{link(0, qlen)}})
	q.OnFeedback(0, Feedback{Acked: 101, Next: 200, Hops: []Hop{link(20*us, qlen)}})
	U := 1 + qlen*8/(100e9*T*1e-9)
	want := 100e9*0.95/U + 40e6
	nearRate(t, "after one update", q.Rate(), want, 1)
	if w, wantW := q.Window(), int64(float64(100e9*T*1e-9/8)*(want/100e9)); math.Abs(float64(w-wantW)) > 1 {
		t.Errorf("window %d B, want W·rate/line = %d", w, wantW)
	}
	// N flows each at line rate on one link see U = N: one update brings
	// their sum to η·B + N·W_AI (the paper's one-RTT convergence).
	const N = 4
	sum := 0.0
	for f := 0; f < N; f++ {
		q := hpcc(t, "ns3", map[string]int64{"base_rtt": T})
		q.OnFeedback(0, Feedback{Acked: 1, Next: 100, Hops: []Hop{{Port: 1, Time: 0, Rate: 100 * unit.Gbps}}})
		q.OnFeedback(0, Feedback{Acked: 101, Next: 200, Hops: []Hop{{Port: 1, Time: 20 * us, TxBytes: int64(N * 100e9 / 8 * 20e-6), Rate: 100 * unit.Gbps}}})
		sum += float64(q.Rate())
	}
	nearRate(t, "sum of 4 flows", unit.BitRate(sum), 0.95*100e9+N*40e6, N)
}

// With the paper's max_stage 5, an under-used link (U < η) grows the rate
// by W_AI per RTT for five updates, then one multiplicative update; ACKs
// between the per-RTT updates (fast react) move the rate without
// committing it.
func TestHPCCAdditiveStages(t *testing.T) {
	const T = 10_000
	q := hpcc(t, "paper", map[string]int64{"base_rtt": T, "min_rate": 1000})
	// First bring the rate down: a hop at 4× its capacity.
	q.OnFeedback(0, Feedback{Acked: 1, Next: 10, Hops: []Hop{{Port: 1, Rate: 100 * unit.Gbps}}})
	at := 20 * us
	tx := int64(4 * 100e9 / 8 * 20e-6)
	q.OnFeedback(0, Feedback{Acked: 11, Next: 20, Hops: []Hop{{Port: 1, Time: at, TxBytes: tx, Rate: 100 * unit.Gbps}}})
	want := 100e9*0.95/4 + 40e6
	nearRate(t, "overload", q.Rate(), want, 1)
	// Then the hop runs at half rate: U = 0.5 < η.
	seq := int64(20)
	for k := 1; k <= 6; k++ {
		at += 20 * us
		tx += int64(0.5 * 100e9 / 8 * 20e-6)
		// A fast-react ACK first: it moves the rate, not Rc.
		q.OnFeedback(0, Feedback{Acked: seq - 5, Next: seq, Hops: []Hop{{Port: 1, Time: at - 10*us, TxBytes: tx - int64(0.5*100e9/8*10e-6), Rate: 100 * unit.Gbps}}})
		q.OnFeedback(0, Feedback{Acked: seq + 1, Next: seq + 10, Hops: []Hop{{Port: 1, Time: at, TxBytes: tx, Rate: 100 * unit.Gbps}}})
		seq += 10
		if k <= 5 {
			want += 40e6
		} else {
			want = want*0.95/0.5 + 40e6
		}
		nearRate(t, "stage", q.Rate(), want, 2)
	}
}
