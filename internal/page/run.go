package page

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"rocelab/internal/metrics"
	"rocelab/internal/textout"
	"rocelab/internal/twin"
	"rocelab/internal/unit"
)

// A Job is one run of a scenario: one of its variants, or the scenario
// itself (Variant ""), and what the run showed.
type Job struct {
	Variant, Description string
	Obs                  *twin.Observation
}

// label names a job in a legend or a column: its variant, else its
// scenario.
func (j *Job) label() string {
	if j.Variant != "" {
		return j.Variant
	}
	return j.Obs.Scenario.Name
}

// Run writes the page of a twin run: one job, or a scenario's variants
// compared.
func Run(w io.Writer, name, version string, jobs []Job) error {
	if len(jobs) == 0 {
		return errors.New("page: a run with no jobs")
	}
	first := jobs[0].Obs
	s := first.Scenario
	p := newPage("rocelab run: " + name)
	p.Meta("scenario", fmt.Sprintf("%s (%s)", s.Name, s.File))
	p.Meta("seed", fmt.Sprint(s.Seed))
	for _, e := range engines(jobs) {
		p.Meta("engine", e)
	}
	p.Meta("version", version)
	p.Meta("topology", topology(s))
	if len(jobs) > 1 {
		names := make([]string, len(jobs))
		for i := range jobs {
			names[i] = jobs[i].Variant
		}
		p.Meta("variants", strings.Join(names, ", "))
	}
	for i := range jobs {
		o := jobs[i].Obs
		state := "every workload finished"
		if !o.Sim.Completed {
			state = "the time limit came first"
		}
		what := "simulated"
		if len(jobs) > 1 {
			what += " (" + jobs[i].Variant + ")"
		}
		p.Meta(what, fmt.Sprintf("%s, %d events; %s", fmtTime(o.Sim.End), o.Sim.Events, state))
	}
	writeHealth(p, jobs)
	writeNotModelled(p, jobs)
	writeNCCL(p, jobs)
	if len(jobs) > 1 {
		writeComparison(p, jobs)
	}
	writeFCT(p, jobs)
	for i := range jobs {
		writeFabric(p, &jobs[i], len(jobs) > 1)
	}
	_, err := p.WriteTo(w)
	return err
}

// engines names each engine that ran and why, once.
func engines(jobs []Job) []string {
	var out []string
	seen := map[string]bool{}
	for i := range jobs {
		e := jobs[i].Obs.Engine
		line := e.Name
		if e.Reason != "" {
			line += ": " + e.Reason
		}
		if !seen[line] {
			seen[line] = true
			out = append(out, line)
		}
	}
	return out
}

// topology describes the fabric in one line.
func topology(s twin.Setup) string {
	t := fmt.Sprintf("%s: %d hosts, %d switches, %d links", s.Topology, s.Hosts, s.Switches, s.Links)
	if s.Oversubscription > 0 {
		t += fmt.Sprintf(", oversubscription %g:1", s.Oversubscription)
	}
	if sv := s.Servers; sv != nil {
		t += fmt.Sprintf("; %d servers × %d GPUs, %d NICs each", sv.Count, sv.GPUs, sv.NICs)
		if sv.RailOptimized {
			t += ", rail-optimised"
		}
	}
	t += fmt.Sprintf("; MTU %d", s.MTU)
	if s.PFC {
		t += fmt.Sprintf("; PFC on priority %s", textout.Ints(s.LosslessPrios))
	} else {
		t += "; PFC off"
	}
	return t + fmt.Sprintf("; RoCE on priority %s; NIC congestion control %s", textout.Ints(s.RoCEPriorities), s.CC)
}

// fmtTime writes a simulated time in a readable unit.
func fmtTime(t unit.Time) string {
	switch {
	case t >= unit.Second:
		return fmt.Sprintf("%.3f s", float64(t)/float64(unit.Second))
	case t >= unit.Millisecond:
		return fmt.Sprintf("%.3f ms", float64(t)/float64(unit.Millisecond))
	}
	return fmt.Sprintf("%.3f µs", twin.US(t))
}

// target is one health target as the health table shows it.
type target struct {
	name, goal string
	get        func(h *metrics.Health) metrics.Target
	value      func(v float64) string
	// why says why a value fails the goal.
	why func(v float64) string
}

var targets = []target{
	{"P99 latency of RoCE packets", "< 10 µs", func(h *metrics.Health) metrics.Target { return h.P99LatencyUS },
		func(v float64) string { return fmt.Sprintf("%.2f µs", v) },
		func(v float64) string {
			return fmt.Sprintf("the 99th percentile one-way latency, %.2f µs, is above 10 µs", v)
		}},
	{"bandwidth utilization", "> 90 %", func(h *metrics.Health) metrics.Target { return h.BandwidthUtilization },
		pct, func(v float64) string {
			return fmt.Sprintf("receivers got %s of their line rate over their windows, below 90 %%", pct(v))
		}},
	{"loss of RoCE packets", "= 0", func(h *metrics.Health) metrics.Target { return h.LossRate },
		pct, func(v float64) string {
			return fmt.Sprintf("%s of RoCE data packets were dropped; the lossless class must lose none", pct(v))
		}},
	{"PFC pause time (worst port)", "< 0.1 %", func(h *metrics.Health) metrics.Target { return h.PFCPauseRatio },
		pct, func(v float64) string {
			return fmt.Sprintf("the worst port was held by pause %s of the run, above 0.1 %%", pct(v))
		}},
}

func pct(v float64) string { return fmt.Sprintf("%.3f %%", 100*v) }

// writeHealth writes the four targets for every job, coloured, with why
// each failure fails.
func writeHealth(p *Page, jobs []Job) {
	p.Section(1, "Health targets")
	head := []string{"target", "goal"}
	for i := range jobs {
		head = append(head, jobs[i].label())
	}
	t := &Table{Caption: "The four health targets (PASS or FAIL, and why a FAIL fails; n/a when there was nothing to measure)", Head: head}
	for _, tg := range targets {
		row := []Cell{text(tg.name), text(tg.goal)}
		for i := range jobs {
			h := &jobs[i].Obs.Health
			v := tg.get(h)
			if v.NA {
				row = append(row, Cell{Text: "n/a: " + v.Note, Class: "info"})
				continue
			}
			if v.Pass {
				row = append(row, Cell{Text: "PASS " + tg.value(v.Value), Class: "pass"})
				continue
			}
			why := v.Note
			if why == "" {
				why = tg.why(v.Value)
			}
			row = append(row, Cell{Text: "FAIL " + tg.value(v.Value) + ": " + why, Class: "fail"})
		}
		t.Add(row...)
	}
	p.Table(t)
}

// writeNotModelled lists what each engine leaves out.
func writeNotModelled(p *Page, jobs []Job) {
	seen := map[string]bool{}
	for i := range jobs {
		e := jobs[i].Obs.Engine
		if len(e.NotModelled) == 0 || seen[e.Name] {
			continue
		}
		if len(seen) == 0 {
			p.Section(1, "What the engine does not model")
		}
		seen[e.Name] = true
		p.Para(fmt.Sprintf("The %s engine leaves out the following; plots that would need it say so where they would be.", e.Name))
		p.List(e.NotModelled)
	}
}

// maxCDFPoints bounds the points of a completion-time CDF.
const maxCDFPoints = 400

// writeFCT plots the distribution of flow completion times, one series
// per job.
func writeFCT(p *Page, jobs []Job) {
	any := false
	for i := range jobs {
		any = any || len(jobs[i].Obs.Flows) > 0
	}
	if !any {
		return
	}
	p.Section(1, "Flow completion times")
	f := newFigure("Flow completion time distribution (CDF)", Axis{Name: "flow completion time", Unit: "µs", Log: true}, Axis{Name: "share of completed flows", Unit: "fraction"})
	f.p.Legend.Top = false
	var notes []string
	t := &Table{Caption: "Flow completion", Head: []string{"run", "flows", "completed", "p50 FCT (µs)", "p99 FCT (µs)", "max FCT (µs)"}}
	for i := range jobs {
		var fct []float64
		for _, fl := range jobs[i].Obs.Flows {
			if fl.FCTUS != nil {
				fct = append(fct, *fl.FCTUS)
			}
		}
		n := len(jobs[i].Obs.Flows)
		if len(fct) == 0 {
			t.Add(text(jobs[i].label()), count(int64(n)), count(0), text("-"), text("-"), text("-"))
			continue
		}
		sort.Float64s(fct)
		t.Add(text(jobs[i].label()), count(int64(n)), count(int64(len(fct))), number("%.2f", quantile(fct, 0.5)), number("%.2f", quantile(fct, 0.99)), number("%.2f", fct[len(fct)-1]))
		xs, ys, step := cdf(fct, maxCDFPoints)
		f.line(jobs[i].label(), xs, ys)
		if step > 1 {
			notes = append(notes, fmt.Sprintf("%s: every %d-th of %d completion times drawn", jobs[i].label(), step, len(fct)))
		}
		if len(fct) < n {
			notes = append(notes, fmt.Sprintf("%s: %d of %d flows did not complete and are not in the CDF", jobs[i].label(), n-len(fct), n))
		}
	}
	p.Table(t)
	f.p.Y.Min, f.p.Y.Max = 0, 1
	f.Summary = "The share of completed flows that finished within each time (log scale), one series per run."
	if len(notes) > 0 {
		f.Note = "Summarised: " + strings.Join(notes, "; ") + "."
	}
	p.Figure(f)
}

// cdf is the step line of the empirical distribution of sorted values:
// at each value the share rises from below it to at it. Of many values,
// every step-th is kept (the last always).
func cdf(sorted []float64, most int) (xs, ys []float64, step int) {
	n := len(sorted)
	step = max(1, n/most)
	prev := 0.0
	for k := 0; k < n; k += step {
		last := min(k+step, n) - 1
		cur := float64(last+1) / float64(n)
		xs, ys = append(xs, sorted[last], sorted[last]), append(ys, prev, cur)
		prev = cur
	}
	return xs, ys, step
}
