package cc

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"rocelab/internal/unit"
)

// checker drives one reaction point with timed events and checks, after
// each, the invariants every Controller and DCQCN owe the NIC:
//
//   - the rate is within [floor, line]: while limited within
//     [rpg_min_rate, ceiling] and RC ≤ RT ≤ ceiling; unlimited, at line rate
//     (mlx5) or within [floor, line] (paper);
//   - α is within [0, 1];
//   - NextDeadline is never in the past: after OnDeadline(t) it is later
//     than t, and after any input at t it is at least t;
//   - the deadlines OnDeadline is called at never decrease (monotone), and
//     each call makes progress (no zero-length timer loop).
type checker struct {
	q        *DCQCN
	line     int64
	now      unit.Time
	lastDead unit.Time
}

func (k *checker) invariants(what string) error {
	p := &k.q.p
	rc, rt := int64(k.q.Rate()), int64(k.q.Target())
	if rc < p.minRate || rc > k.line {
		return fmt.Errorf("%s: rate %d outside [%d, %d]", what, rc, p.minRate, k.line)
	}
	if k.q.Limited() && (rc > rt || rt > p.ceil) {
		return fmt.Errorf("%s: limited with RC %d, RT %d, ceiling %d", what, rc, rt, p.ceil)
	}
	if !k.q.Limited() && p.variant == VariantMLX5 && rc != k.line {
		return fmt.Errorf("%s: unlimited mlx5 QP at %d, not line rate %d", what, rc, k.line)
	}
	if a := k.q.Alpha(k.now); a < 0 || a > 1 {
		return fmt.Errorf("%s: α %v", what, a)
	}
	if d := k.q.NextDeadline(); d < k.now {
		return fmt.Errorf("%s: next deadline %v before now %v", what, d, k.now)
	}
	return nil
}

// deadline runs the next deadline if it is due by until, and reports
// whether it did.
func (k *checker) deadline(until unit.Time) (bool, error) {
	d := k.q.NextDeadline()
	if d > until {
		return false, nil
	}
	if d < k.lastDead {
		return false, fmt.Errorf("deadline %v after one at %v", d, k.lastDead)
	}
	k.now, k.lastDead = max(k.now, d), d
	k.q.OnDeadline(d)
	if n := k.q.NextDeadline(); n <= d {
		return false, fmt.Errorf("OnDeadline(%v) left the next deadline at %v: no progress", d, n)
	}
	return true, k.invariants("deadline")
}

// op applies one event: 0 CNP, 1 a send of size bytes, 2 an ACK, otherwise
// run the deadlines up to now.
func (k *checker) op(kind int, now unit.Time, size int) error {
	if now < k.now {
		now = k.now
	}
	if kind == 3 {
		for {
			ran, err := k.deadline(now)
			if err != nil || !ran {
				k.now = now
				return err
			}
		}
	}
	// Inputs run due timers first: account for them as deadlines.
	for {
		ran, err := k.deadline(now)
		if err != nil {
			return err
		}
		if !ran {
			break
		}
	}
	k.now = now
	switch kind {
	case 0:
		k.q.OnCNP(now)
	case 1:
		k.q.OnSend(now, size)
	case 2:
		k.q.OnAck(now, size, 10*unit.Microsecond)
	}
	return k.invariants(fmt.Sprintf("op %d at %v", kind, now))
}

// randomConfig returns a preset with a few knobs set to random in-range
// values.
func randomConfig(rng *rand.Rand) DCQCNConfig {
	c, _ := Preset(Presets()[rng.IntN(2)])
	for i := rng.IntN(6); i > 0; i-- {
		k := knobs[rng.IntN(len(knobs))]
		v := k.Min + rng.Int64N(min(k.Max-k.Min, 1<<20)+1)
		_ = c.Set(k.Name, v)
	}
	return c
}

// TestInvariantsRandom runs random configurations under random CNP, send
// and deadline sequences.
func TestInvariantsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	for run := 0; run < 300; run++ {
		c := randomConfig(rng)
		line := unit.BitRate(1+rng.IntN(800)) * unit.Gbps
		k := &checker{q: c.New(line), line: int64(line)}
		now := unit.Time(0)
		for i := 0; i < 2000; i++ {
			now += unit.Time(rng.ExpFloat64() * float64(unit.Time(1+rng.IntN(50))*unit.Microsecond))
			if err := k.op(rng.IntN(4), now, rng.IntN(9000)); err != nil {
				t.Fatalf("run %d (%+v, line %v): %v", run, c, line, err)
			}
		}
	}
}

// FuzzDCQCN feeds arbitrary knob settings and event sequences and checks the
// invariants; it must never panic. Seeds are in testdata/fuzz/FuzzDCQCN.
func FuzzDCQCN(f *testing.F) {
	f.Add([]byte{0, 100, 0, 0, 1, 10, 3, 40, 1, 20, 3, 200, 0, 1})
	f.Add([]byte{1, 40, 2, 3, 0, 0, 1, 1, 3, 255, 3, 255, 3, 255})
	f.Add([]byte{0, 1, 5, 13, 0, 9, 0, 0, 0, 1, 0, 2, 3, 250, 1, 255})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		c, _ := Preset(Presets()[data[0]&1])
		line := unit.BitRate(1+int(data[1])*4) * unit.Gbps
		// data[2] knob settings of three bytes each: knob, value high, value low.
		n, data := int(data[2]%8), data[3:]
		for ; n > 0 && len(data) >= 3; n, data = n-1, data[3:] {
			k := knobs[int(data[0])%len(knobs)]
			span := k.Max - k.Min + 1
			_ = c.Set(k.Name, k.Min+(int64(data[1])<<8|int64(data[2]))%span)
		}
		k := &checker{q: c.New(line), line: int64(line)}
		now := unit.Time(0)
		for ; len(data) >= 2; data = data[2:] {
			// Two bytes an event: kind and a time step (quadratic, so that
			// both nanoseconds and milliseconds occur), or a size.
			step := unit.Time(data[1]) * unit.Time(data[1]) * 50 * unit.Nanosecond
			now += step
			if err := k.op(int(data[0]%4), now, int(data[1])*64); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestAllocs checks that no event allocates.
func TestAllocs(t *testing.T) {
	for _, name := range Presets() {
		c := preset(t, name, nil)
		var q DCQCN
		c.Init(&q, 100*unit.Gbps)
		np := c.NewNP()
		var ctl Controller = &q
		now := unit.Time(0)
		allocs := testing.AllocsPerRun(1000, func() {
			for i := 0; i < 50; i++ {
				now += 300 * unit.Nanosecond
				ctl.OnSend(now, 4154)
				if i%10 == 0 {
					ctl.OnCNP(now)
				}
				if np.OnCE(now) {
					np.OnDeadline(now)
				}
				if d := ctl.NextDeadline(); d <= now {
					ctl.OnDeadline(d)
				}
				_ = ctl.Rate()
				_ = q.Alpha(now)
			}
		})
		if allocs != 0 {
			t.Fatalf("%s: %v allocations per 50 events", name, allocs)
		}
	}
}

// BenchmarkDCQCN measures events per second for a QP sending 4 KiB frames at
// its rate with a CNP every 20 frames: each iteration is one send, and the
// timers and CNPs that fall due.
func BenchmarkDCQCN(b *testing.B) {
	for _, name := range Presets() {
		b.Run(name, func(b *testing.B) {
			c := preset(b, name, nil)
			q := c.New(100 * unit.Gbps)
			now, events := unit.Time(0), 0
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				now += q.Rate().TxTime(4154)
				for d := q.NextDeadline(); d <= now; d = q.NextDeadline() {
					q.OnDeadline(d)
					events++
				}
				if i%20 == 0 {
					q.OnCNP(now)
					events++
				}
				q.OnSend(now, 4154)
				events++
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkNP measures the notification point's decision per CE mark.
func BenchmarkNP(b *testing.B) {
	c := preset(b, "mlx5", nil)
	np := c.NewNP()
	now, sent := unit.Time(0), 0
	for b.Loop() {
		now += 300 * unit.Nanosecond
		if np.OnCE(now) {
			sent++
		}
	}
	if sent == 0 {
		b.Fatal("no CNP")
	}
}
