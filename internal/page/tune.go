package page

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg/draw"

	"rocelab/internal/metrics"
	"rocelab/internal/tune"
)

// maxRanked caps the rows of the ranked table.
const maxRanked = 40

// A TuneInput is a search's result and the scenario it started from and
// chose, as YAML.
type TuneInput struct {
	Result *tune.Result
	// BaseYAML is candidate 0 (the scenario as written) and BestYAML the
	// best candidate, both as tune writes a candidate; BestYAML is nil
	// when no candidate ran.
	BaseYAML, BestYAML []byte
}

// objectiveAxis is what an objective's score measures.
func objectiveAxis(name string) Axis {
	switch name {
	case "targets":
		return Axis{Name: "total slack of the four targets", Unit: "decades"}
	case "utilization":
		return Axis{Name: "bandwidth utilization", Unit: "fraction"}
	case "p99":
		return Axis{Name: "minus the P99 latency", Unit: "µs"}
	case "pause":
		return Axis{Name: "minus the PFC pause ratio", Unit: "fraction"}
	case "loss":
		return Axis{Name: "minus the loss ratio", Unit: "fraction"}
	}
	return Axis{Name: "objective " + name, Unit: "score"}
}

// Tune writes the page of a tune search: the ranked candidates, the
// objective against each parameter, the Pareto set of the four health
// targets and the best configuration as a diff of the scenario.
func Tune(w io.Writer, in TuneInput, version string) error {
	r := in.Result
	if r == nil {
		return errors.New("page: no tune result")
	}
	p := newPage("rocelab tune: " + r.Scenario)
	p.Meta("scenario", r.Scenario)
	if r.Space != "" {
		p.Meta("space", r.Space)
	}
	search := r.Search
	if r.Search == "random" {
		search += fmt.Sprintf(" (%d samples, seed %d)", r.Samples, r.Seed)
	}
	p.Meta("search", fmt.Sprintf("%s over %s", search, strings.Join(r.Params, ", ")))
	p.Meta("objective", r.Objective)
	p.Meta("candidates", fmt.Sprintf("%d (candidate 0 is the scenario as written)", r.Candidates))
	p.Meta("cost", fmt.Sprintf("%d twin runs, %d events, %.1f ms simulated", r.Cost.Runs, r.Cost.Events, r.Cost.SimulatedUS/1000))
	if r.Shard.Count > 1 {
		p.Meta("shard", fmt.Sprintf("%d of %d: %d of %d candidates", r.Shard.Index, r.Shard.Count, len(r.Runs), r.Candidates))
	}
	p.Meta("version", version)
	ranked := rank(r)
	writeRanked(p, r, ranked)
	writeObjective(p, r)
	writePareto(p, r)
	writeBest(p, in)
	_, err := p.WriteTo(w)
	return err
}

// rank orders the runs as tune ranks them: runs that ran first, then by
// targets met and objective, then by index.
func rank(r *tune.Result) []*tune.RunResult {
	out := make([]*tune.RunResult, len(r.Runs))
	for i := range r.Runs {
		out[i] = &r.Runs[i]
	}
	byMet := r.Objective == "targets"
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if (a.Error == "") != (b.Error == "") {
			return a.Error == ""
		}
		if a.Score != b.Score {
			return a.Score.Better(b.Score, byMet)
		}
		return a.Index < b.Index
	})
	return out
}

// paramOf returns run x's value of parameter i ("(base)" for candidate 0).
func paramOf(x *tune.RunResult, i int) string {
	if i < len(x.Params) {
		return x.Params[i].Value
	}
	return "(base)"
}

// healthCells are a run's four targets as coloured cells.
func healthCells(h metrics.Health) []Cell {
	c := func(t metrics.Target, format string, scale float64) Cell {
		if t.NA {
			return Cell{Text: "n/a", Class: "info"}
		}
		cell := number(format, scale*t.Value)
		if t.Pass {
			cell.Class += " pass"
		} else {
			cell.Class += " fail"
		}
		return cell
	}
	return []Cell{c(h.P99LatencyUS, "%.2f", 1), c(h.BandwidthUtilization, "%.2f", 100), c(h.LossRate, "%.3f", 100), c(h.PFCPauseRatio, "%.3f", 100)}
}

// writeRanked writes the candidates, best first.
func writeRanked(p *Page, r *tune.Result, ranked []*tune.RunResult) {
	p.Section(1, "Ranked candidates")
	head := append([]string{"rank", "candidate"}, r.Params...)
	head = append(head, "P99 (µs)", "utilization (%)", "loss (%)", "pause (%)", "targets met", "objective")
	t := &Table{Caption: "Candidates by targets met, then by the objective (targets in green pass, red fail)", Head: head, Sortable: true}
	shown := 0
	for k, x := range ranked {
		if k >= maxRanked && x.Index != 0 {
			continue
		}
		shown++
		row := []Cell{count(int64(k + 1)), count(int64(x.Index))}
		for i := range r.Params {
			row = append(row, text(paramOf(x, i)))
		}
		if x.Error != "" {
			row = append(row, Cell{Text: "did not run: " + x.Error, Class: "warn"})
			t.Add(row...)
			continue
		}
		row = append(row, healthCells(x.Health)...)
		row = append(row, text(fmt.Sprintf("%d of 4", x.Met)), number("%.4g", x.Score.Value))
		t.Add(row...)
	}
	if shown < len(ranked) {
		t.More = fmt.Sprintf("Summarised: the best %d of %d candidates and the base; every one is in tune --json.", maxRanked, len(ranked))
	}
	p.Table(t)
}

// writeObjective plots the objective against each parameter.
func writeObjective(p *Page, r *tune.Result) {
	p.Section(1, "Objective against each parameter")
	y := objectiveAxis(r.Objective)
	var base *tune.RunResult
	if b, ok := r.Run(0); ok && b.Error == "" {
		base = b
	}
	for i, name := range r.Params {
		var vals []string
		seen := map[string]bool{}
		numeric := true
		for k := range r.Runs {
			x := &r.Runs[k]
			if x.Error != "" || x.Index == 0 {
				continue
			}
			v := paramOf(x, i)
			if !seen[v] {
				seen[v] = true
				vals = append(vals, v)
				if _, err := strconv.ParseFloat(v, 64); err != nil {
					numeric = false
				}
			}
		}
		if len(vals) == 0 {
			continue
		}
		pos := map[string]float64{}
		x := Axis{Name: name, Unit: "value"}
		if numeric {
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, v := range vals {
				f, _ := strconv.ParseFloat(v, 64)
				pos[v] = f
				lo, hi = math.Min(lo, f), math.Max(hi, f)
			}
			x.Log = lo > 0 && hi/lo >= 20
		} else {
			for k, v := range vals {
				pos[v] = float64(k)
			}
			x.Unit = "candidate value"
		}
		f := newFigure("Objective against "+name, x, y)
		f.p.Legend.Top = false
		for met := 4; met >= 0; met-- {
			var xs, ys []float64
			for k := range r.Runs {
				run := &r.Runs[k]
				if run.Error != "" || run.Index == 0 || run.Met != met {
					continue
				}
				xs, ys = append(xs, pos[paramOf(run, i)]), append(ys, run.Score.Value)
			}
			if len(xs) > 0 {
				f.points(fmt.Sprintf("meets %d of 4 targets", met), xs, ys, metColour(met), draw.CircleGlyph{}, 3)
			}
		}
		if best, ok := r.Run(r.Best); ok && r.Best > 0 {
			f.points(fmt.Sprintf("best, candidate %d", best.Index), []float64{pos[paramOf(best, i)]}, []float64{best.Score.Value}, refColour, draw.RingGlyph{}, 6)
		}
		if base != nil {
			lo, hi := 0.0, float64(len(vals)-1)
			if numeric {
				lo, hi = math.Inf(1), math.Inf(-1)
				for _, v := range pos {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
			f.ref(fmt.Sprintf("base (candidate 0) %.4g", base.Score.Value), lo, hi, base.Score.Value, palette[6], 4, 2)
		}
		if !numeric {
			f.p.NominalX(vals...)
			f.nominal = true
		}
		f.Summary = fmt.Sprintf("The %s objective of each candidate against its %s (%d values), coloured by how many health targets it meets; the ring is the best, the dashed line the scenario as written.", r.Objective, name, len(vals))
		p.Figure(f)
	}
}

// metColour colours a candidate by the targets it meets: red for none
// to green for all four.
func metColour(met int) color.RGBA {
	return [...]color.RGBA{{0x8a, 0x11, 0x11, 0xff}, {0xD5, 0x5E, 0x00, 0xff}, {0xE6, 0x9F, 0x00, 0xff}, {0x56, 0xB4, 0xE9, 0xff}, {0x00, 0x9E, 0x73, 0xff}}[max(0, min(met, 4))]
}

// dominates reports whether a is at least as good as b on every health
// target and better on one: lower P99, higher utilization, lower loss,
// lower pause.
func dominates(a, b metrics.Health) bool {
	ge := []bool{a.P99LatencyUS.Value <= b.P99LatencyUS.Value, a.BandwidthUtilization.Value >= b.BandwidthUtilization.Value,
		a.LossRate.Value <= b.LossRate.Value, a.PFCPauseRatio.Value <= b.PFCPauseRatio.Value}
	gt := []bool{a.P99LatencyUS.Value < b.P99LatencyUS.Value, a.BandwidthUtilization.Value > b.BandwidthUtilization.Value,
		a.LossRate.Value < b.LossRate.Value, a.PFCPauseRatio.Value < b.PFCPauseRatio.Value}
	better := false
	for i := range ge {
		if !ge[i] {
			return false
		}
		better = better || gt[i]
	}
	return better
}

// pareto returns the runs no other run dominates, by index.
func pareto(r *tune.Result) []*tune.RunResult {
	var out []*tune.RunResult
	for i := range r.Runs {
		a := &r.Runs[i]
		if a.Error != "" {
			continue
		}
		dominated := false
		for j := range r.Runs {
			if b := &r.Runs[j]; b.Error == "" && dominates(b.Health, a.Health) {
				dominated = true
				break
			}
		}
		if !dominated {
			out = append(out, a)
		}
	}
	return out
}

// writePareto writes the candidates that no other beats on all four
// targets at once, and plots latency against utilization.
func writePareto(p *Page, r *tune.Result) {
	p.Section(1, "Pareto set of the four health targets")
	set := pareto(r)
	if len(set) == 0 {
		p.Para("No candidate ran.")
		return
	}
	p.Para(fmt.Sprintf("%d of %d candidates are not beaten by another on all four targets at once (lower P99 latency, higher utilization, lower loss, lower pause); the choice between them is a trade-off.", len(set), len(r.Runs)))
	head := append([]string{"candidate"}, r.Params...)
	head = append(head, "P99 (µs)", "utilization (%)", "loss (%)", "pause (%)", "targets met")
	t := &Table{Caption: "The Pareto set", Head: head, Sortable: true}
	for _, x := range set {
		row := []Cell{count(int64(x.Index))}
		for i := range r.Params {
			row = append(row, text(paramOf(x, i)))
		}
		row = append(row, healthCells(x.Health)...)
		t.Add(append(row, text(fmt.Sprintf("%d of 4", x.Met)))...)
	}
	p.Table(t)
	in := map[int]bool{}
	for _, x := range set {
		in[x.Index] = true
	}
	f := newFigure("P99 latency against bandwidth utilization", Axis{Name: "bandwidth utilization", Unit: "%"}, Axis{Name: "P99 latency of RoCE packets", Unit: "µs"})
	var ox, oy, px, py []float64
	for i := range r.Runs {
		x := &r.Runs[i]
		if x.Error != "" {
			continue
		}
		u, l := 100*x.Health.BandwidthUtilization.Value, x.Health.P99LatencyUS.Value
		if in[x.Index] {
			px, py = append(px, u), append(py, l)
		} else {
			ox, oy = append(ox, u), append(oy, l)
		}
	}
	f.points("dominated candidates", ox, oy, palette[6], draw.CircleGlyph{}, 2.5)
	f.points("Pareto set", px, py, palette[1], draw.CircleGlyph{}, 4)
	all := append(append([]float64{}, ox...), px...)
	lo, hi := minMax(all)
	f.ref("P99 goal 10 µs", lo, hi, metrics.TargetP99LatencyUS, refColour, 6, 3)
	f.p.Legend.Top = true
	f.Summary = "Each candidate's P99 latency against its bandwidth utilization; the Pareto set (not beaten on all four targets by another) is highlighted. Good is bottom right."
	p.Figure(f)
}

func minMax(xs []float64) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

// writeBest writes the best candidate and its scenario as a diff of the
// one as written.
func writeBest(p *Page, in TuneInput) {
	r := in.Result
	p.Section(1, "Best configuration")
	best, ok := r.Run(r.Best)
	if !ok {
		p.Para("No candidate ran, so there is no best.")
		return
	}
	base, _ := r.Run(0)
	line := fmt.Sprintf("The best is candidate %d: it meets %d of 4 targets", best.Index, best.Met)
	if base != nil && base.Error == "" {
		line += fmt.Sprintf(" (the scenario as written meets %d)", base.Met)
	}
	for _, pv := range best.Params {
		line += fmt.Sprintf("; %s = %s", pv.Path, pv.Value)
	}
	p.Para(line + ".")
	if best.Index == 0 {
		p.Para("The scenario as written is the best candidate: nothing to change.")
		return
	}
	if in.BestYAML == nil || in.BaseYAML == nil {
		p.Note("The scenarios are not at hand, so the change is the parameter list above.")
		return
	}
	p.Para("The change to the scenario (candidate 0, as tune writes it, against the best; tune --out writes it whole as best.yaml):")
	p.raw(diffHTML(string(in.BaseYAML), string(in.BestYAML), "candidate 0 (as written)", fmt.Sprintf("candidate %d (best)", best.Index)))
}
