package fault

import (
	"math"
	"testing"

	"rocelab/internal/packet"
	"rocelab/internal/sim"
)

// Bernoulli loss at rate p loses p of a million frames, within 5σ; a
// Gilbert-Elliott model with long-run rate p and mean burst b loses p of
// them too, in runs whose mean length is b.
func TestLossRates(t *testing.T) {
	const n = 1_000_000
	p := &packet.Packet{Kind: packet.Data}
	for _, c := range []struct {
		name  string
		l     Loss
		burst float64
	}{
		{"bernoulli 0.1%", Bernoulli(0.001), 1},
		{"gilbert-elliott 1% in bursts of 20", GilbertElliott(0.01, 20), 20},
	} {
		m := NewLoss(c.l, sim.NewStreams(1).Stream("test"))
		var lost, runs int64
		prev := false
		for i := 0; i < n; i++ {
			x := m.Lose(0, p)
			if x {
				lost++
				if !prev {
					runs++
				}
			}
			prev = x
		}
		rate := c.l.Good
		if c.burst > 1 {
			rate = 0.01
		}
		// Bursts make the count overdispersed: widen σ by the burst length.
		sd := math.Sqrt(n*rate*(1-rate)) * math.Sqrt(2*c.burst-1)
		if math.Abs(float64(lost)-n*rate) > 5*sd {
			t.Errorf("%s: %d lost of %d, want %.0f ± %.0f", c.name, lost, n, n*rate, 5*sd)
		}
		if mean := float64(lost) / float64(runs); math.Abs(mean-c.burst) > 0.15*c.burst {
			t.Errorf("%s: mean burst %.2f frames, want %.0f", c.name, mean, c.burst)
		}
		if m.Lost != lost {
			t.Errorf("%s: Lost counts %d, saw %d", c.name, m.Lost, lost)
		}
		t.Logf("%s: %d lost (%.4f%%), mean burst %.2f", c.name, lost, 100*float64(lost)/n, float64(lost)/float64(runs))
	}
}

// Loss only inside [Start, End), and only of the kinds asked for.
func TestLossWindowAndKinds(t *testing.T) {
	l := Bernoulli(1)
	l.Start, l.End, l.Kinds = 10, 20, 1<<packet.Data
	m := NewLoss(l, sim.NewStreams(1).Stream("test"))
	data, ack := &packet.Packet{Kind: packet.Data}, &packet.Packet{Kind: packet.Ack}
	if m.Lose(5, data) || !m.Lose(10, data) || m.Lose(15, ack) || m.Lose(20, data) {
		t.Error("loss outside its window or kinds")
	}
}
