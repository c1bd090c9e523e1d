package cc

import (
	"math"
	"math/rand/v2"
	"testing"

	"rocelab/internal/unit"
)

// The tests in this file hold DCTCP to closed forms of the HPCC ns-3
// model's HandleAckDctcp (rdma-hw.cc, CC_MODE 8).

func dctcp(t *testing.T, set map[string]int64) *DCTCP {
	t.Helper()
	c, err := DCTCPPreset("ns3")
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range set {
		if err := c.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	c.BaseRTT = 8000
	return c.New(100 * unit.Gbps)
}

// The first echo cuts by α/2 with α at initial_alpha (1: the rate
// halves); echoes before an ACK passes the sequence sent at the cut do
// not cut again, and no increase comes in between; the first echo after
// it cuts again.
func TestDCTCPCutOncePerWindow(t *testing.T) {
	d := dctcp(t, nil)
	d.OnFeedback(0, Feedback{Acked: 1, Next: 10, CE: true})
	if d.Rate() != 50*unit.Gbps || d.Stats().Cuts != 1 {
		t.Fatalf("first echo: rate %v, %d cuts; want 50 Gb/s, 1", d.Rate(), d.Stats().Cuts)
	}
	for acked := int64(2); acked <= 10; acked++ {
		d.OnFeedback(0, Feedback{Acked: acked, Next: 12, CE: acked <= 5})
	}
	if d.Rate() != 50*unit.Gbps || d.Stats().Cuts != 1 {
		t.Fatalf("echoes within the cut's window: rate %v, %d cuts", d.Rate(), d.Stats().Cuts)
	}
	// Acked 11 passes both the cut's sequence and the update's: α takes
	// the window's 6 echoes (the first ACK's and its own counted) over
	// the 10 packets then in flight plus one, and the cut that follows
	// uses it.
	d.OnFeedback(0, Feedback{Acked: 11, Next: 20, CE: true})
	a := (1-64.0/1024)*1 + 64.0/1024*(6.0/11)
	if math.Abs(d.Alpha()-a) > 1e-12 {
		t.Fatalf("α %v, want %v", d.Alpha(), a)
	}
	want := 50e9 * (1 - a/2)
	if got := float64(d.Rate()); math.Abs(got-want) > 1 {
		t.Fatalf("second cut: rate %v, want %.0f", got, want)
	}
}

// Without echoes the rate rises by ai_rate once per window (an ACK beyond
// the sequence sent at the last update), α decays by (1−g) per clean window,
// and ACKs within a window change nothing.
func TestDCTCPIncreasePerWindow(t *testing.T) {
	d := dctcp(t, map[string]int64{"ai_rate": 1000})
	d.OnFeedback(0, Feedback{Acked: 1, Next: 4, CE: true}) // 50 Gb/s, α 1
	next := int64(4)
	for w := 1; w <= 5; w++ {
		for acked := next - 2; acked <= next+1; acked++ {
			d.OnFeedback(0, Feedback{Acked: acked, Next: next + 3})
		}
		next += 3
	}
	// Windows end at Acked 5, 8, 11, 14, 17 (beyond 4, 7, 10, 13, 16):
	// the first also leaves the cut's state, so each of the five adds
	// 1 Gb/s.
	if d.Rate() != 55*unit.Gbps {
		t.Fatalf("rate %v after five windows, want 55 Gb/s", d.Rate())
	}
	// The first window counts the first ACK's echo over 4 + 1 packets.
	if a := ((1 - 64.0/1024) + 64.0/1024/5) * math.Pow(1-64.0/1024, 4); math.Abs(d.Alpha()-a) > 1e-12 {
		t.Fatalf("α %v after five clean windows, want %v", d.Alpha(), a)
	}
}

// The rate never goes below min_rate nor above line, α stays in [0, 1],
// the window at most W and at least 1, and feedback allocates nothing.
func TestDCTCPBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	line := 100 * unit.Gbps
	for _, preset := range []string{"paper", "ns3"} {
		c, _ := DCTCPPreset(preset)
		c.BaseRTT = 5000
		for k := 0; k < 50; k++ {
			d := c.New(line)
			var acked int64
			for i := 0; i < 2000; i++ {
				acked += int64(rng.IntN(8))
				d.OnFeedback(0, Feedback{Acked: acked, Next: acked + int64(rng.IntN(20)), CE: rng.IntN(3) == 0})
				if r, w := d.Rate(), d.Window(); r < unit.BitRate(c.MinRate)*unit.Mbps || r > line || w < 1 || w > d.w {
					t.Fatalf("%s: rate %v, window %d out of bounds", preset, r, w)
				}
				if a := d.Alpha(); a < 0 || a > 1 {
					t.Fatalf("%s: α %v", preset, a)
				}
			}
		}
	}
	c, _ := DCTCPPreset("ns3")
	c.UseWindow = 0
	d := c.New(line)
	if d.Window() != 0 {
		t.Fatalf("use_window 0: window %d", d.Window())
	}
	f := Feedback{Acked: 1, Next: 2}
	if a := testing.AllocsPerRun(1000, func() {
		f.Acked++
		f.Next++
		f.CE = !f.CE
		d.OnFeedback(0, f)
	}); a != 0 {
		t.Errorf("%v allocations per acknowledgement", a)
	}
}

// The default window is line rate × base_rtt.
func TestDCTCPWindow(t *testing.T) {
	d := dctcp(t, nil)
	if got := d.Window(); got != 100_000 {
		t.Fatalf("window %d, want 100000 (100 Gb/s × 8 µs)", got)
	}
	d.OnFeedback(0, Feedback{Acked: 1, Next: 2, CE: true})
	if got := d.Window(); got != 50_000 {
		t.Fatalf("window %d at half rate, want 50000", got)
	}
}

// The windows' edges: an ACK acknowledging exactly the sequence sent at
// the last update, or at the cut, is still inside that window; the next
// one is past it. F at an update is the echoes counted since the last one
// over the packets then in flight plus one: Next+1 at the first update,
// Next−Acked+1 at each later one.
func TestDCTCPWindowEdges(t *testing.T) {
	d := dctcp(t, nil) // g 1/16, α 1, ai_rate 615 Mb/s
	const g = 64.0 / 1024
	check := func(step string, alpha, rate float64, updates, cuts int64) {
		t.Helper()
		s := d.Stats()
		if math.Abs(d.Alpha()-alpha) > 1e-12 || math.Abs(float64(d.Rate())-rate) > 1 || s.Updates != updates || s.Cuts != cuts {
			t.Fatalf("%s: α %v, rate %v, %d updates, %d cuts; want α %v, rate %.0f, %d, %d",
				step, d.Alpha(), d.Rate(), s.Updates, s.Cuts, alpha, rate, updates, cuts)
		}
	}
	// The first ACK opens a window over 9+1 packets and its echo cuts to
	// half (α 1); the window and the cut both end past sequence 9.
	d.OnFeedback(0, Feedback{Acked: 1, Next: 9, CE: true})
	check("first echo", 1, 50e9, 0, 1)
	// Acked 9 is on both edges: its echo is counted, nothing else moves.
	d.OnFeedback(0, Feedback{Acked: 9, Next: 15, CE: true})
	check("acked 9", 1, 50e9, 0, 1)
	// Acked 10 passes both: F = 3 echoes / 10, then its echo cuts with
	// the new α; the next window is over 15−10+1 packets and the cut's
	// state lasts past 15.
	d.OnFeedback(0, Feedback{Acked: 10, Next: 15, CE: true})
	a1 := (1 - g) + g*3/10
	r1 := 50e9 * (1 - a1/2)
	check("acked 10", a1, r1, 1, 2)
	d.OnFeedback(0, Feedback{Acked: 15, Next: 22, CE: true})
	check("acked 15", a1, r1, 1, 2)
	// Acked 16 ends the window with F = 1/6 and the cut's state, so the
	// rate rises by ai_rate.
	d.OnFeedback(0, Feedback{Acked: 16, Next: 22})
	check("acked 16", (1-g)*a1+g/6, r1+615e6, 2, 2)
}
