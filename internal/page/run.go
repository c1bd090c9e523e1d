package page

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"

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

// writeNCCL writes the NCCL workload: its communicator, the nccl-tests
// table of every job and busbw against size, every job overlaid with the
// NIC-rate ceiling.
func writeNCCL(p *Page, jobs []Job) {
	var with []*Job
	for i := range jobs {
		if jobs[i].Obs.NCCL != nil {
			with = append(with, &jobs[i])
		}
	}
	if len(with) == 0 {
		return
	}
	p.Section(1, "NCCL workload")
	for _, j := range with {
		n := j.Obs.NCCL
		lead := ""
		if len(jobs) > 1 {
			lead = j.Variant + ": "
		}
		if c := strings.TrimSpace(n.Comm); c != "" {
			p.Pre(lead+"communicator", c, false)
		}
		if n.Err != "" {
			p.Note(lead + "the workload FAILED: " + n.Err)
		}
		if t := n.Training; t != nil {
			p.Pre(lead+"training iterations", t.Summary, false)
		}
		if n.Background != "" {
			p.Pre(lead+"background traffic", n.Background, true)
		}
	}
	rows := 0
	for _, j := range with {
		rows = max(rows, len(j.Obs.NCCL.Rows))
	}
	if rows == 0 {
		return
	}
	p.Section(2, "nccl-tests")
	head := []string{"size (bytes)"}
	for _, j := range with {
		l := j.label()
		head = append(head, l+" algorithm", l+" out-of-place time (µs)", l+" busbw out (GB/s)", l+" busbw in (GB/s)")
	}
	if len(with) > 1 {
		head = append(head, fmt.Sprintf("busbw %s / %s", with[len(with)-1].label(), with[0].label()))
	}
	t := &Table{Caption: "nccl-tests results per size (bus bandwidth in GB/s, 10^9 bytes per second, as nccl-tests prints it)", Head: head, Sortable: true}
	sizes := map[int64]bool{}
	var order []int64
	for _, j := range with {
		for _, r := range j.Obs.NCCL.Rows {
			if !sizes[r.Bytes] {
				sizes[r.Bytes] = true
				order = append(order, r.Bytes)
			}
		}
	}
	sort.Slice(order, func(a, b int) bool { return order[a] < order[b] })
	for _, size := range order {
		row := []Cell{{Text: fmt.Sprint(size), Class: "num", Sort: fmt.Sprint(size)}}
		var firstBW, lastBW float64
		for k, j := range with {
			r, ok := rowOf(j.Obs.NCCL.Rows, size)
			if !ok {
				row = append(row, text("-"), text("-"), text("-"), text("-"))
				continue
			}
			row = append(row, text(r.Algo), number("%.1f", r.OutTimeUS), number("%.2f", r.OutBusBW), number("%.2f", r.InBusBW))
			if k == 0 {
				firstBW = r.OutBusBW
			}
			lastBW = r.OutBusBW
		}
		if len(with) > 1 {
			if firstBW > 0 {
				row = append(row, number("×%.2f", lastBW/firstBW))
			} else {
				row = append(row, text("-"))
			}
		}
		t.Add(row...)
	}
	avg := []Cell{text("average")}
	for _, j := range with {
		avg = append(avg, text(""), text(""), number("%.2f", j.Obs.NCCL.AvgBusBW), text(""))
	}
	if len(with) > 1 {
		avg = append(avg, text(""))
	}
	t.Add(avg...)
	p.Table(t)
	writeBusBW(p, with, order)
	for _, j := range with {
		lead := ""
		if len(jobs) > 1 {
			lead = j.Variant + ": "
		}
		if n := j.Obs.NCCL; n.Tests != "" {
			p.Pre(lead+"nccl-tests output as printed", n.Tests, true)
		}
		if n := j.Obs.NCCL; n.Tuning != "" {
			p.Pre(lead+"NCCL's choice per size (NCCL_DEBUG_SUBSYS=TUNING)", n.Tuning, true)
		}
	}
}

func rowOf(rows []twin.TestsRow, size int64) (twin.TestsRow, bool) {
	for _, r := range rows {
		if r.Bytes == size {
			return r, true
		}
	}
	return twin.TestsRow{}, false
}

// writeBusBW plots out-of-place busbw against size, one series per job,
// and the ceiling the NICs set.
func writeBusBW(p *Page, with []*Job, sizes []int64) {
	f := newFigure("busbw against message size", Axis{Name: "message size", Unit: "bytes", Log: true}, Axis{Name: "bus bandwidth", Unit: "GB/s"})
	f.p.X.Tick.Marker = plot.TickerFunc(sizeTicks)
	f.p.Legend.Top = false
	var best float64
	for _, j := range with {
		var xs, ys []float64
		for _, r := range j.Obs.NCCL.Rows {
			xs, ys = append(xs, float64(r.Bytes)), append(ys, r.OutBusBW)
			best = max(best, r.OutBusBW)
		}
		f.line(j.label(), xs, ys)
	}
	lo, hi := float64(sizes[0]), float64(sizes[len(sizes)-1])
	if lo == hi {
		lo, hi = lo/2, hi*2
	}
	seen := map[float64]bool{}
	var ceilings []string
	for _, j := range with {
		gbs, what := ceiling(j.Obs)
		if gbs <= 0 || seen[gbs] {
			continue
		}
		seen[gbs] = true
		name := fmt.Sprintf("NIC-rate ceiling %.1f GB/s (%s)", gbs, what)
		f.ref(name, lo, hi, gbs, refColour, 6, 3)
		ceilings = append(ceilings, name)
	}
	f.p.Y.Min = 0
	f.Summary = fmt.Sprintf("Out-of-place bus bandwidth of each size, %d series (one per run), log-scale size; the best is %.2f GB/s.", len(with), best)
	if len(ceilings) > 0 {
		f.Summary += " The dashed line is what the NICs allow a ring collective: " + strings.Join(ceilings, "; ") + "."
	}
	p.Figure(f)
}

// ceiling is the busbw the NICs allow a ring or tree collective across
// servers: each ring crosses every server boundary once and NCCL spreads
// the rings over the server's NICs, so busbw is at most the NICs per
// server times one NIC's line rate.
func ceiling(o *twin.Observation) (float64, string) {
	if len(o.NICs) == 0 || o.NICs[0].Rate <= 0 {
		return 0, ""
	}
	k := 1
	if sv := o.Scenario.Servers; sv != nil && sv.NICs > 0 {
		k = sv.NICs
		if sv.GPUs > 0 && sv.GPUs < k {
			k = sv.GPUs
		}
	}
	rate := o.NICs[0].Rate
	return float64(k) * float64(rate) / 8e9, fmt.Sprintf("%d × %.4g Gb/s per server", k, rate.Gbps())
}

// writeComparison writes what changed between the variants and which
// counters moved.
func writeComparison(p *Page, jobs []Job) {
	p.Section(1, "Variants compared")
	p.Section(2, "What changed")
	t := &Table{Caption: "Each variant as the scenario describes it", Head: []string{"variant", "description"}}
	for i := range jobs {
		t.Add(text(jobs[i].Variant), text(strings.TrimSpace(jobs[i].Description)))
	}
	p.Table(t)
	if diff := setupDiff(jobs); len(diff.Rows) > 0 {
		p.Table(diff)
	}
	p.Section(2, "Counters that moved")
	moved := countersMoved(jobs)
	if len(moved.Rows) == 0 {
		p.Para("No counter differs between the variants.")
		return
	}
	p.Table(moved)
}

// setupDiff lists the configuration that differs between the jobs.
func setupDiff(jobs []Job) *Table {
	head := []string{"setting"}
	for i := range jobs {
		head = append(head, jobs[i].Variant)
	}
	t := &Table{Caption: "Configuration that differs", Head: head}
	fields := []struct {
		name string
		get  func(o *twin.Observation) string
	}{
		{"engine", func(o *twin.Observation) string { return o.Engine.Name }},
		{"topology", func(o *twin.Observation) string { return topology(o.Scenario) }},
		{"NIC congestion control", func(o *twin.Observation) string { return o.Scenario.CC }},
		{"congestion control on priorities (ROCE_CC_PRIO_MASK)", func(o *twin.Observation) string {
			return fmt.Sprintf("%s (0x%02X)", textout.Ints(twin.Priorities(o.Scenario.CCPrioMask)), o.Scenario.CCPrioMask)
		}},
		{"RoCE priorities", func(o *twin.Observation) string { return textout.Ints(o.Scenario.RoCEPriorities) }},
		{"lossless priorities", func(o *twin.Observation) string { return textout.Ints(o.Scenario.LosslessPrios) }},
		{"PFC headroom (bytes)", func(o *twin.Observation) string { return fmt.Sprint(o.Scenario.HeadroomBytes) }},
		{"ECN marking (Kmin, Kmax, Pmax) of the deepest queue", func(o *twin.Observation) string { return ecnOf(o) }},
		{"NCCL communicator", func(o *twin.Observation) string {
			if o.NCCL == nil {
				return "none"
			}
			return strings.TrimSpace(o.NCCL.Comm)
		}},
	}
	for _, f := range fields {
		vals := make([]string, len(jobs))
		same := true
		for i := range jobs {
			vals[i] = f.get(jobs[i].Obs)
			same = same && vals[i] == vals[0]
		}
		if same {
			continue
		}
		row := []Cell{text(f.name)}
		for _, v := range vals {
			row = append(row, text(v))
		}
		t.Add(row...)
	}
	return t
}

// ecnOf describes the marking of a run's deepest queue.
func ecnOf(o *twin.Observation) string {
	q := deepest(o.Queues)
	if q == nil || q.Levels == nil {
		return "not reported"
	}
	if q.Levels.ECN == nil {
		return "off"
	}
	e := q.Levels.ECN
	return fmt.Sprintf("%d B, %d B, %g", e.KminBytes, e.KmaxBytes, e.Pmax)
}

func deepest(qs []twin.Queue) *twin.Queue {
	var d *twin.Queue
	for i := range qs {
		if d == nil || qs[i].MaxBytes > d.MaxBytes {
			d = &qs[i]
		}
	}
	return d
}

// maxMovedRows bounds the table of counters that moved.
const maxMovedRows = 40

// countersMoved sums every counter over the NICs (hw_counters) and over
// the switch and host ports (ethtool -S) and lists those that differ
// between the jobs, the largest relative change first.
func countersMoved(jobs []Job) *Table {
	type key struct{ where, name string }
	sums := make([]map[key]int64, len(jobs))
	var keys []key
	seen := map[key]bool{}
	add := func(i int, k key, v int64) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
		sums[i][k] += v
	}
	for i := range jobs {
		sums[i] = map[key]int64{}
		o := jobs[i].Obs
		if t := o.Totals; t != nil {
			add(i, key{"network", "ECN-marked packets"}, t.ECNMarked)
			add(i, key{"network", "PFC pause frames"}, t.PauseFrames)
			add(i, key{"network", "retransmitted data packets"}, t.Retransmitted.Packets)
			add(i, key{"network", "dropped data packets"}, t.Dropped.Packets)
		}
		for _, n := range o.NICs {
			for _, c := range n.HW {
				add(i, key{"NIC hw_counters", c.Name}, c.Value)
			}
		}
		for _, pt := range o.Ports {
			where := "host ports (ethtool -S)"
			if pt.Switch {
				where = "switch ports (ethtool -S names)"
			}
			for _, c := range pt.Counters {
				add(i, key{where, c.Name}, c.Value)
			}
		}
	}
	type moved struct {
		k      key
		change float64
	}
	var ms []moved
	for _, k := range keys {
		lo, hi := sums[0][k], sums[0][k]
		for i := range sums {
			lo, hi = min(lo, sums[i][k]), max(hi, sums[i][k])
		}
		if lo == hi {
			continue
		}
		ms = append(ms, moved{k, float64(hi-lo) / math.Max(1, float64(max(abs(lo), abs(hi))))})
	}
	sort.SliceStable(ms, func(a, b int) bool { return ms[a].change > ms[b].change })
	head := []string{"counter (sum)", "where"}
	for i := range jobs {
		head = append(head, jobs[i].Variant)
	}
	head = append(head, fmt.Sprintf("%s − %s", jobs[len(jobs)-1].Variant, jobs[0].Variant))
	t := &Table{Caption: "Counters whose sums differ between the variants, largest relative change first (mlx5 names)", Head: head, Sortable: true}
	for n, m := range ms {
		if n == maxMovedRows {
			t.More = fmt.Sprintf("Summarised: %d more counters moved less; every counter is in each variant's --out files.", len(ms)-n)
			break
		}
		row := []Cell{{Text: m.k.name, Class: "code"}, text(m.k.where)}
		for i := range sums {
			row = append(row, count(sums[i][m.k]))
		}
		row = append(row, count(sums[len(sums)-1][m.k]-sums[0][m.k]))
		t.Add(row...)
	}
	return t
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
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
