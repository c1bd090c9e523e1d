package fabric

import (
	"testing"

	"rocelab/internal/unit"
)

// TestPauseSamplerVisitsPausedPriorities checks that the pause sampler
// asks, at each sample, only the ports and priorities that ever received
// pause (three here, where it asked all eight priorities of each paused
// port), and that their series are what asking every priority of every
// port gives: the same priorities, in port and priority order, with the
// same held times at every sample.
func TestPauseSamplerVisitsPausedPriorities(t *testing.T) {
	net := NewNetwork(1, 1)
	dom := net.Domains[0]
	cfg := SwitchConfig{Buffer: unit.MiB, PFC: PFCConfig{Quanta: 200, XON: true}}
	a := net.NewSwitch(dom, "a", 3, cfg)
	b := net.NewSwitch(dom, "b", 3, cfg)
	for i := range 3 {
		net.Link(a.Port(i), b.Port(i), 100*unit.Gbps, 3*unit.Metre)
	}
	for _, s := range []*Switch{a, b} {
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
	}
	const every = unit.Microsecond
	ps := NewPauseSampler(a.Ports(), every)
	ref := &allPriorities{ports: a.Ports()}
	dom.AddSampler(ps)
	dom.AddSampler(ref)
	net.SampleQueues(every)
	// Port 1 is paused on priority 3 from the start, port 2 on 3 and
	// then 5, and port 0 never; port 2's priority 3 is released.
	b.Port(1).SendXOFF(3)
	b.Port(2).SendXOFF(3)
	dom.Sched.RunUntil(3500 * unit.Nanosecond)
	b.Port(2).SendXOFF(5)
	dom.Sched.RunUntil(6500 * unit.Nanosecond)
	b.Port(2).SendXON(3)
	dom.Sched.RunUntil(12 * unit.Microsecond)

	if len(ps.visit) != 3 {
		t.Errorf("the sampler visits %d series a sample, want 3 (port 1 priority 3, port 2 priorities 3 and 5)", len(ps.visit))
	}
	got := ps.Series()
	if len(got) != len(ref.series) {
		t.Fatalf("%d series, want %d (every priority of every port that ever received pause)", len(got), len(ref.series))
	}
	for i, s := range got {
		want := ref.series[i]
		if s.Port != want.pt || s.Prio != want.prio {
			t.Fatalf("series %d is %s priority %d, want %s priority %d", i, s.Port.Name(), s.Prio, want.pt.Name(), want.prio)
		}
		if len(s.Held.Values) != len(want.held) {
			t.Fatalf("%s priority %d: %d samples %v, want %v", s.Port.Name(), s.Prio, len(s.Held.Values), s.Held.Values, want.held)
		}
		for k, v := range s.Held.Values {
			if v != want.held[k] {
				t.Fatalf("%s priority %d: held %v, want %v", s.Port.Name(), s.Prio, s.Held.Values, want.held)
			}
		}
	}
}

// allPriorities samples every priority of every port, from its first
// sample after the priority's first pause: what the pause sampler's
// series must hold.
type allPriorities struct {
	ports  []*Port
	series []*heldSeries
}

type heldSeries struct {
	pt   *Port
	prio int
	held []float64
}

func (r *allPriorities) Sample(now unit.Time) bool {
	k := 0
	for _, pt := range r.ports {
		for p := range 8 {
			if pt.ctr.RxPauseTransition[p] == 0 {
				continue
			}
			held := pt.PauseHeld(p, now)
			if k == len(r.series) || r.series[k].pt != pt || r.series[k].prio != p {
				r.series = append(r.series[:k], append([]*heldSeries{{pt: pt, prio: p}}, r.series[k:]...)...)
			}
			r.series[k].held = append(r.series[k].held, float64(held))
			k++
		}
	}
	return true
}
