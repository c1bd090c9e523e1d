package cc

import (
	"math"
	"math/rand/v2"
	"testing"

	"rocelab/internal/unit"
)

// The code of a utilisation is log_b(⌈512·u⌉) rounded up with probability
// in proportion: its decoded value is ⌈512·u⌉/512 on average, and a power
// of b decodes exactly.
func TestPINTCode(t *testing.T) {
	c, _ := PINTPreset("ns3")
	code := c.Code()
	if b := code.Bytes(); b != 2 {
		t.Errorf("log base 1.01: %d bytes, want 2 (log_1.01(512²) = 1254 needs 11 bits)", b)
	}
	c.LogBase = 1050
	if b := c.Code().Bytes(); b != 1 {
		t.Errorf("log base 1.05: %d bytes, want 1 (256 codes)", b)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, u := range []float64{0.01, 0.37, 0.95, 1, 1.7, 40} {
		const n = 20000
		sum := 0.0
		for range n {
			sum += code.Decode(code.Encode(u, rng.Float64()))
		}
		want := math.Ceil(u*512) / 512
		if got := sum / n; math.Abs(got-want) > 0.002*want {
			t.Errorf("u %v: mean decoded %v, want %v", u, got, want)
		}
	}
	p := uint16(300)
	if got := code.Encode(code.Decode(p), 0.999); got != p && got != p+1 {
		t.Errorf("b^300/512 encodes as %d", got)
	}
}

// One full update with U above η: rate = Rc·η/U + W_AI; ACKs within the
// RTT set the rate from Rc without committing it; the first ACK only opens
// the first RTT.
func TestPINTUpdate(t *testing.T) {
	c, _ := PINTPreset("ns3")
	c.BaseRTT = 8000
	h := c.New(100 * unit.Gbps)
	code := c.Code()
	pw := code.Encode(1.9, 0.5)
	u := code.Decode(pw)
	h.OnFeedback(0, Feedback{Acked: 1, Next: 10, PINT: pw})
	if h.Rate() != 100*unit.Gbps {
		t.Fatalf("the first ACK moved the rate to %v", h.Rate())
	}
	h.OnFeedback(0, Feedback{Acked: 11, Next: 20, PINT: pw})
	want := 100e9*0.95/u + 40e6
	if got := float64(h.Rate()); math.Abs(got-want) > 1 {
		t.Fatalf("full update: rate %.0f, want %.0f", got, want)
	}
	half := code.Encode(0.5, 0.5)
	h.OnFeedback(0, Feedback{Acked: 12, Next: 21, PINT: half})
	// U < η with max_stage 0 is still multiplicative: Rc·η/U + W_AI, from
	// the committed rate.
	if got, w := float64(h.Rate()), want*0.95/code.Decode(half)+40e6; math.Abs(got-w) > 2 {
		t.Fatalf("fast react at U 0.5: rate %.0f, want %.0f", got, w)
	}
	h.OnFeedback(0, Feedback{Acked: 13, Next: 22, PINT: pw})
	if got := float64(h.Rate()); math.Abs(got-(want*0.95/u+40e6)) > 2 {
		t.Fatalf("fast react: rate %.0f, want %.0f from the committed rate", got, want*0.95/u+40e6)
	}
	if s := h.Stats(); s.Updates != 1 || s.FastReacts != 2 {
		t.Fatalf("stats %+v", s)
	}
	if w := h.Window(); w != int64(float64(100_000)*float64(h.Rate())/100e9) {
		t.Fatalf("window %d at rate %v", w, h.Rate())
	}
}

// The rate stays within [min_rate, line] and feedback allocates nothing.
func TestPINTBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	c, _ := PINTPreset("ns3")
	h := c.New(100 * unit.Gbps)
	var acked int64
	for range 20000 {
		acked += int64(rng.IntN(4))
		h.OnFeedback(0, Feedback{Acked: acked, Next: acked + int64(rng.IntN(20)), PINT: uint16(rng.IntN(1300))})
		if r := h.Rate(); r < 1000*unit.Mbps || r > 100*unit.Gbps {
			t.Fatalf("rate %v out of bounds", r)
		}
	}
	f := Feedback{Acked: 1, Next: 2, PINT: 600}
	if a := testing.AllocsPerRun(1000, func() {
		f.Acked++
		f.Next++
		h.OnFeedback(0, f)
	}); a != 0 {
		t.Errorf("%v allocations per acknowledgement", a)
	}
}

// An RTT ends past the sequence sent when the last one ended: the first
// ACK sets it to its Next, an ACK acknowledging exactly it only reacts
// (from the committed rate), the next commits and moves it to its own
// Next.
func TestPINTRTTEdges(t *testing.T) {
	c, _ := PINTPreset("ns3")
	c.BaseRTT = 8000
	h := c.New(100 * unit.Gbps)
	code := c.Code()
	pw := code.Encode(1.9, 0.5)
	steps := []struct {
		acked, next        int64
		updates, fastReact int64
	}{
		{1, 10, 0, 0},  // opens the first RTT, up to 10
		{10, 12, 0, 1}, // on its edge: reacts only
		{11, 20, 1, 1}, // past it: commits, the next RTT up to 20
		{15, 21, 1, 2},
		{20, 22, 1, 3},
		{21, 30, 2, 3},
	}
	for _, s := range steps {
		h.OnFeedback(0, Feedback{Acked: s.acked, Next: s.next, PINT: pw})
		if st := h.Stats(); st.Updates != s.updates || st.FastReacts != s.fastReact {
			t.Fatalf("acked %d: %d updates, %d fast reacts; want %d, %d", s.acked, st.Updates, st.FastReacts, s.updates, s.fastReact)
		}
	}
}
