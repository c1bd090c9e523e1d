package fabric_test

import (
	"testing"

	"rocelab/internal/fabric"
	"rocelab/internal/unit"
)

// countingSampler counts its samples and has something to sample only
// while on is set.
type countingSampler struct {
	on    bool
	times []unit.Time
}

func (c *countingSampler) Sample(now unit.Time) bool {
	c.times = append(c.times, now)
	return c.on
}

// TestSamplerLeavesList checks that a sampler with nothing to sample is
// called once and then no more, until it is added again, and that the
// others are sampled at every interval throughout.
func TestSamplerLeavesList(t *testing.T) {
	net := fabric.NewNetwork(1, 1)
	dom := net.Domains[0]
	busy, idle := &countingSampler{on: true}, &countingSampler{}
	dom.AddSampler(idle)
	dom.AddSampler(busy)
	net.SampleQueues(10 * unit.Microsecond)
	dom.Sched.RunUntil(35 * unit.Microsecond)
	if len(busy.times) != 4 || len(idle.times) != 1 || idle.times[0] != 0 {
		t.Fatalf("to 35 us: the busy sampler sampled at %v (want 0, 10, 20, 30 us), the idle one at %v (want 0 only)", busy.times, idle.times)
	}
	idle.on = true
	dom.AddSampler(idle)
	dom.Sched.RunUntil(55 * unit.Microsecond)
	if want := []unit.Time{0, 40 * unit.Microsecond, 50 * unit.Microsecond}; len(idle.times) != len(want) || idle.times[1] != want[1] || idle.times[2] != want[2] {
		t.Fatalf("added again at 35 us, the sampler sampled at %v, want %v", idle.times, want)
	}
	if len(busy.times) != 6 {
		t.Fatalf("the busy sampler sampled %d times to 55 us, want 6", len(busy.times))
	}
}
