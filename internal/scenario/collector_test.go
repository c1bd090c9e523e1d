package scenario

import (
	"runtime/debug"
	"testing"

	"rocelab/internal/unit"
)

// gcSampler records the collector's percentage at every sample of a run.
type gcSampler struct{ pct []int }

func (g *gcSampler) Sample(unit.Time) bool {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	g.pct = append(g.pct, p)
	return true
}

// TestRunPausesCollector checks that a twin's events run with the
// collector's pace off, so that the runtime forces no collection of the
// fabric's heap every two minutes, under a memory limit no higher than
// the one set before, and that the run puts both back when it returns.
func TestRunPausesCollector(t *testing.T) {
	s, err := Load("gc.yaml", []byte(`
name: gc-pause
duration: 200us
topology: {kind: single-switch, hosts: 4, host_link: {rate: 100G, cable: 3m}}
traffic: {generators: [{kind: permutation, bytes: 64KB}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	tw, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	const pct, limit = 150, int64(1) << 40
	defer debug.SetGCPercent(debug.SetGCPercent(pct))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	g := &gcSampler{}
	tw.Net.Domains[0].AddSampler(g)
	var during int64
	tw.Net.Domains[0].AddSampler(samplerFunc(func() { during = debug.SetMemoryLimit(-1) }))
	tw.Run()
	if len(g.pct) == 0 {
		t.Fatal("the run took no sample")
	}
	for i, p := range g.pct {
		if p >= 0 {
			t.Fatalf("sample %d: the collector's percentage was %d during the run, want off (-1)", i, p)
		}
	}
	if during <= 0 || during > limit {
		t.Errorf("memory limit during the run %d, want a positive backstop no higher than %d", during, limit)
	}
	if p := debug.SetGCPercent(pct); p != pct {
		t.Errorf("percentage after the run %d, want %d back", p, pct)
	}
	if l := debug.SetMemoryLimit(-1); l != limit {
		t.Errorf("memory limit after the run %d, want %d back", l, limit)
	}
}

// samplerFunc is a sampler that calls f at every sample.
type samplerFunc func()

func (f samplerFunc) Sample(unit.Time) bool { f(); return true }
