// Package agree runs rocelab's side of the comparisons with other
// simulators (tools/htsimconv against csg-htsim, tools/ns3conv against
// the HPCC ns-3 model) and summarises flow completion times the same way
// for both sides.
package agree

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rocelab/internal/scenario"
	"rocelab/internal/twin"
)

// Run runs the scenario file with the seed; it fails when a flow did not
// complete, since a comparison of completion times needs them all.
func Run(file string, seed uint64) (twin.Observation, error) {
	s, err := scenario.LoadFile(file)
	if err != nil {
		return twin.Observation{}, err
	}
	s.Seed = seed
	return RunScenario(s)
}

// RunScenario is Run on a loaded scenario, with its own seed.
func RunScenario(s *scenario.Scenario) (twin.Observation, error) {
	o, err := RunToEnd(s)
	if err != nil {
		return o, err
	}
	for _, f := range o.Flows {
		if f.FCTUS == nil {
			return twin.Observation{}, fmt.Errorf("%s seed %d: flow %s did not complete (%s)", s.File, s.Seed, f.Name, f.Status)
		}
	}
	return o, nil
}

// RunToEnd runs a loaded scenario to its end and observes it, its flows
// complete or not.
func RunToEnd(s *scenario.Scenario) (twin.Observation, error) {
	tw, err := scenario.Build(s)
	if err != nil {
		return twin.Observation{}, err
	}
	tw.Run()
	return tw.Observe(), nil
}

// Finishes returns when each flow of a run whose flows all completed did
// so, in microseconds from the start of the run.
func Finishes(o twin.Observation) []float64 {
	x := make([]float64, len(o.Flows))
	for i, f := range o.Flows {
		x[i] = f.StartUS + *f.FCTUS
	}
	return x
}

// Summary is a sample's mean, median (the lower middle value), 99th
// percentile (nearest rank) and largest value.
type Summary struct{ Mean, P50, P99, Max float64 }

// Summarise summarises a non-empty sample; it sorts x.
func Summarise(x []float64) Summary {
	slices.Sort(x)
	sum := 0.0
	for _, v := range x {
		sum += v
	}
	return Summary{
		Mean: sum / float64(len(x)),
		P50:  x[(len(x)-1)/2],
		P99:  x[int(math.Ceil(0.99*float64(len(x))))-1],
		Max:  x[len(x)-1],
	}
}

// Seeds averages summaries over runs with different seeds: single flows
// differ between simulators that hash ECMP differently, their statistics
// over seeds much less.
type Seeds struct {
	n   int
	sum Summary
}

// Add summarises one run's sample (sorting it) and adds it.
func (s *Seeds) Add(x []float64) {
	m := Summarise(x)
	s.n++
	s.sum.Mean += m.Mean
	s.sum.P50 += m.P50
	s.sum.P99 += m.P99
	s.sum.Max += m.Max
}

// Mean returns each statistic averaged over the runs added.
func (s *Seeds) Mean() Summary {
	n := float64(s.n)
	return Summary{s.sum.Mean / n, s.sum.P50 / n, s.sum.P99 / n, s.sum.Max / n}
}

// Metric is one statistic of both simulators and the largest relative
// difference allowed between them.
type Metric struct {
	Name           string
	Other, Rocelab float64
	Bound          float64
}

// Diff is rocelab's relative difference from the other simulator.
func (m Metric) Diff() float64 { return m.Rocelab/m.Other - 1 }

// Within reports whether the difference is inside the bound.
func (m Metric) Within() bool { return math.Abs(m.Diff()) <= m.Bound }

// Hold logs each metric of label and fails t for each outside its bound;
// a bound of 0 is logged only. other names the other simulator.
func Hold(t testing.TB, label, other string, ms []Metric) {
	t.Helper()
	for _, m := range ms {
		t.Logf("%s %s: %s %.1f, rocelab %.1f (%+.1f%%)", label, m.Name, other, m.Other, m.Rocelab, 100*m.Diff())
		if m.Bound > 0 && !m.Within() {
			t.Errorf("%s %s: rocelab %.1f against %s's %.1f, %+.1f%% (bound ±%.0f%%)", label, m.Name, m.Rocelab, other, m.Other, 100*m.Diff(), 100*m.Bound)
		}
	}
}

// Sweep is what the environment asks of a random sweep against another
// simulator: cases From to To (SWEEP=FROM-TO), each run with the seeds
// FirstSeed on (SWEEP_SEED_FROM) and averaged over Seeds of them
// (SWEEP_SEEDS), each run's files kept under Keep (SWEEP_KEEP) when set.
type Sweep struct {
	From, To, Seeds, FirstSeed int
	Keep                       string
}

// SweepEnv reads the sweep's settings from the environment, the given
// defaults (first seed 1) where unset or not positive.
func SweepEnv(from, to, seeds int) Sweep {
	s := Sweep{From: from, To: to, Seeds: seeds, FirstSeed: 1, Keep: os.Getenv("SWEEP_KEEP")}
	if r := os.Getenv("SWEEP"); r != "" {
		a, b, _ := strings.Cut(r, "-")
		s.From, _ = strconv.Atoi(a)
		s.To, _ = strconv.Atoi(b)
	}
	if n, err := strconv.Atoi(os.Getenv("SWEEP_SEEDS")); err == nil && n > 0 {
		s.Seeds = n
	}
	if n, err := strconv.Atoi(os.Getenv("SWEEP_SEED_FROM")); err == nil && n > 0 {
		s.FirstSeed = n
	}
	return s
}
