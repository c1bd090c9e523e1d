package cc

import (
	"math/rand/v2"
	"testing"

	"rocelab/internal/unit"
)

// TIMELY and HPCC under random feedback: the rate stays within [min_rate,
// line], HPCC's window stays positive and at most W, and neither allocates
// per acknowledgement.
func TestRTTControllersBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	line := 100 * unit.Gbps
	for _, preset := range []string{"paper", "ns3"} {
		tc, _ := TimelyPreset(preset)
		hc, _ := HPCCPreset(preset)
		hc.BaseRTT = 5000
		for k := 0; k < 50; k++ {
			tm, hp := tc.New(line), hc.New(line)
			var now unit.Time
			var acked, tx int64
			hops := make([]Hop, 3)
			for i := 0; i < 2000; i++ {
				now += unit.Time(rng.IntN(20_000_000))
				acked += int64(rng.IntN(8))
				rtt := unit.Time(rng.IntN(2_000_000_000))
				tm.OnFeedback(now, Feedback{Acked: acked, Next: acked + 10, Bytes: rng.IntN(70000), RTT: rtt})
				for h := range hops {
					tx += int64(rng.IntN(300000))
					hops[h] = Hop{Port: int32(rng.IntN(2)), Time: now, TxBytes: tx, QLen: int64(rng.IntN(20 << 20)), Rate: line}
				}
				hp.OnFeedback(now, Feedback{Acked: acked, Next: acked + 10, Hops: hops[:rng.IntN(4)]})
				if r := tm.Rate(); r < unit.BitRate(tc.MinRate)*unit.Mbps || r > line {
					t.Fatalf("TIMELY %s: rate %v out of bounds", preset, r)
				}
				if r, w := hp.Rate(), hp.Window(); r < unit.BitRate(hc.MinRate)*unit.Mbps || r > line || w < 1 || w > hp.w {
					t.Fatalf("HPCC %s: rate %v, window %d out of bounds", preset, r, w)
				}
			}
		}
	}
	tm, hp := tc(line), hpc(line)
	f := Feedback{Acked: 1, Next: 2, Bytes: 4096, RTT: 60 * us, Hops: []Hop{{Port: 1, Time: 1, Rate: line}}}
	if a := testing.AllocsPerRun(1000, func() {
		f.Acked++
		f.Next++
		f.Hops[0].Time += us
		f.Hops[0].TxBytes += 10000
		tm.OnFeedback(f.Hops[0].Time, f)
		hp.OnFeedback(f.Hops[0].Time, f)
	}); a != 0 {
		t.Errorf("%v allocations per acknowledgement", a)
	}
}

func tc(line unit.BitRate) *Timely {
	c, _ := TimelyPreset("paper")
	return c.New(line)
}

func hpc(line unit.BitRate) *HPCC {
	c, _ := HPCCPreset("ns3")
	return c.New(line)
}
