package page

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"rocelab/internal/twin"
	"rocelab/internal/unit"
)

// writeFabric writes what one job's fabric did over time: queue depths,
// pauses, DCQCN, ECMP load, latency and counters.
func writeFabric(p *Page, j *Job, variants bool) {
	title := "Fabric"
	if variants {
		title = "Fabric of variant " + j.Variant
	}
	p.Section(1, title)
	o := j.Obs
	ts := scaleFor(o.Sim.End)
	writeQueues(p, o, ts)
	writePauses(p, o, ts)
	writeDCQCN(p, o, ts)
	writeECMP(p, o)
	writeLatency(p, o)
	writeCounters(p, o)
}

// present opens a subsection and says so when the engine does not model
// what it shows (absent: labelled, not zero) or there is none of it
// (empty); it reports whether there is something to show.
func present(p *Page, title string, absent, empty bool, notModelled, none string) bool {
	p.Section(2, title)
	switch {
	case absent:
		p.Note(notModelled)
	case empty:
		p.Para(none)
	default:
		return true
	}
	return false
}

// notSampled says an engine does not give a series over time.
func notSampled(o *twin.Observation, what string) string {
	return fmt.Sprintf("The %s engine does not sample %s over time (not modelled, not zero).", o.Engine.Name, what)
}

// writeQueues plots the deepest queues' depth over time, the rest as a
// band, with the ECN and XOFF levels.
func writeQueues(p *Page, o *twin.Observation, ts timeScale) {
	if !present(p, "Queue depth", o.Queues == nil, len(o.Queues) == 0, notSampled(o, "queue depths"), "No switch egress queue ever held data.") {
		return
	}
	sampled := 0
	for _, q := range o.Queues {
		if len(q.Depth.Values) > 0 {
			sampled++
		}
	}
	if sampled == 0 {
		p.Note(notSampled(o, "queue depths") + " Its peak standing queues follow.")
		t := &Table{Caption: "Peak queue per port", Head: []string{"port", "priority", "peak (bytes)"}, Sortable: true}
		scores := make([]float64, len(o.Queues))
		for i, q := range o.Queues {
			scores[i] = float64(q.MaxBytes)
		}
		top, _ := topN(scores, 48)
		for _, i := range top {
			q := o.Queues[i]
			t.Add(text(q.Port), count(int64(q.Priority)), count(q.MaxBytes))
		}
		if len(o.Queues) > len(top) {
			t.More = fmt.Sprintf("Summarised: the %d deepest of %d queues.", len(top), len(o.Queues))
		}
		p.Table(t)
		return
	}
	f := newFigure("Queue depth over time, deepest queues", ts.axis(), Axis{Name: "queue depth", Unit: "bytes"})
	scores := make([]float64, len(o.Queues))
	for i, q := range o.Queues {
		scores[i] = float64(q.MaxBytes)
	}
	top, rest := topN(scores, topSeries)
	if len(rest) > 0 {
		xs, rows := gridRows(o.Sim.End, ts, len(rest), func(k int, t unit.Time) float64 { return at(o.Queues[rest[k]].Depth, t, 0) })
		b := quantileBand(xs, rows)
		f.band(fmt.Sprintf("other %d queues (p10–p90, median)", len(rest)), b.xs, b.lo, b.mid, b.hi)
	}
	var peak int64
	for _, i := range top {
		q := o.Queues[i]
		peak = max(peak, q.MaxBytes)
		f.line(fmt.Sprintf("%s prio %d (peak %s)", q.Port, q.Priority, bytesText(q.MaxBytes)), ts.times(q.Depth), q.Depth.Values)
	}
	x1 := ts.of(o.Sim.End)
	if lv := o.Queues[top[0]].Levels; lv != nil {
		if e := lv.ECN; e != nil {
			f.ref(fmt.Sprintf("ECN Kmin %s", bytesText(e.KminBytes)), 0, x1, float64(e.KminBytes), color.RGBA{0x00, 0x80, 0x00, 0xff}, 2, 2)
			f.ref(fmt.Sprintf("ECN Kmax %s (Pmax %g)", bytesText(e.KmaxBytes), e.Pmax), 0, x1, float64(e.KmaxBytes), color.RGBA{0xa0, 0x60, 0x00, 0xff}, 6, 2)
		}
		if x := lv.XoffBytes; x != nil && float64(*x) < 4*float64(peak)+1 {
			f.ref(fmt.Sprintf("PFC XOFF %s (one congested PG)", bytesText(*x)), 0, x1, float64(*x), refColour, 6, 3)
		} else if x != nil {
			f.Note = fmt.Sprintf("PFC XOFF of one congested PG at %s is far above these queues and not drawn. ", bytesText(*x))
		}
	}
	f.p.Y.Min = 0
	f.p.X.Min, f.p.X.Max = 0, x1
	f.Height = 260
	f.Summary = fmt.Sprintf("Egress queue depth over the run for the %d deepest of %d queues that held data (deepest peak %s), with the marking and pause levels of the deepest queue's priority.",
		len(top), len(o.Queues), bytesText(peak))
	f.Note += summarised(len(top), len(o.Queues), "queues", "peak depth")
	p.Figure(f)
}

// gridRows evaluates n series over the time grid of a run: xs in the
// scale, rows[k][i] = value(k, grid[i]).
func gridRows(end unit.Time, ts timeScale, n int, value func(k int, t unit.Time) float64) ([]float64, [][]float64) {
	g := grid(end, gridPoints)
	xs := make([]float64, len(g))
	for i, t := range g {
		xs[i] = ts.of(t)
	}
	rows := make([][]float64, n)
	for k := range rows {
		rows[k] = make([]float64, len(g))
		for i, t := range g {
			rows[k][i] = value(k, t)
		}
	}
	return xs, rows
}

// bytesText writes a byte count briefly: 13.4 KB, 2.1 MB (10^3 units).
func bytesText(n int64) string {
	f := float64(n)
	switch {
	case f >= 1e9:
		return fmt.Sprintf("%.3g GB", f/1e9)
	case f >= 1e6:
		return fmt.Sprintf("%.3g MB", f/1e6)
	case f >= 1e3:
		return fmt.Sprintf("%.3g KB", f/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// maxStrips bounds the ports drawn one by one in the pause timeline.
const maxStrips = 24

// writePauses draws the pause timeline: one strip per port and priority,
// darker where pause held it for more of the time.
func writePauses(p *Page, o *twin.Observation, ts timeScale) {
	if !present(p, "PFC pause timeline", o.Pauses == nil, len(o.Pauses) == 0,
		notSampled(o, "PFC pause per port")+" The ports' total pause durations are in the counters below.", "No port received PFC pause.") {
		return
	}
	g := grid(o.Sim.End, gridPoints/2+1)
	share := func(pp *twin.PortPause) []float64 {
		out := make([]float64, len(g)-1)
		for i := 1; i < len(g); i++ {
			d := float64(g[i] - g[i-1])
			out[i-1] = math.Min(1, math.Max(0, (interp(pp.Held, g[i])-interp(pp.Held, g[i-1]))/d))
		}
		return out
	}
	scores := make([]float64, len(o.Pauses))
	for i := range o.Pauses {
		v := o.Pauses[i].Held.Values
		if len(v) > 0 {
			scores[i] = v[len(v)-1]
		}
	}
	top, rest := topN(scores, maxStrips)
	s := &strips{x0: 0, step: ts.of(g[1] - g[0])}
	var names []string
	for _, i := range top {
		pp := &o.Pauses[i]
		names = append(names, fmt.Sprintf("%s prio %d", pp.Port, pp.Priority))
		s.rows = append(s.rows, share(pp))
	}
	if len(rest) > 0 {
		mean := make([]float64, len(g)-1)
		for _, i := range rest {
			for k, v := range share(&o.Pauses[i]) {
				mean[k] += v / float64(len(rest))
			}
		}
		names = append(names, fmt.Sprintf("other %d (mean)", len(rest)))
		s.rows = append(s.rows, mean)
	}
	// The busiest strip on top.
	for a, b := 0, len(names)-1; a < b; a, b = a+1, b-1 {
		names[a], names[b] = names[b], names[a]
		s.rows[a], s.rows[b] = s.rows[b], s.rows[a]
	}
	f := newFigure("PFC pause timeline per port", ts.axis(), Axis{Name: "port held by received pause", Unit: "port, priority"})
	f.p.Add(s)
	f.drawn += len(s.rows)
	f.p.NominalY(names...)
	f.p.X.Min, f.p.X.Max = 0, ts.of(o.Sim.End)
	f.p.Y.Min, f.p.Y.Max = -0.5, float64(len(names))-0.5
	f.nominal = true
	for k := len(names) - 1; k >= 0; k-- {
		f.Series = append(f.Series, names[k])
	}
	f.Height = math.Max(140, 40+14*float64(len(names)))
	worst := scores[top[0]]
	f.Summary = fmt.Sprintf("For each of the %d port priorities most held by received PFC pause, the share of each %s of the run it was held (darker: more; black: all of it); the most held, %s, was held %s in all.",
		len(top), fmtTime(g[1]-g[0]), names[len(names)-1-boolInt(len(rest) > 0)], fmtTime(unit.Time(worst)))
	if len(rest) > 0 {
		f.Note = fmt.Sprintf("Summarised: the %d port priorities held longest are drawn one by one; the other %d as one strip of their mean share.", len(top), len(rest))
	}
	p.Figure(f)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// strips draws rows of shares in [0, 1] as shaded cells: row k at y = k,
// cell i over [x0 + i·step, x0 + (i+1)·step]. Adjacent cells of one shade
// are drawn as one rectangle.
type strips struct {
	x0, step float64
	rows     [][]float64
}

// shades quantises a share to one of ten shades (0: not drawn).
func shade(v float64) int {
	if v <= 0.001 {
		return 0
	}
	return min(10, 1+int(v*10))
}

// Plot implements plot.Plotter.
func (s *strips) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	for k, row := range s.rows {
		for i := 0; i < len(row); {
			sh := shade(row[i])
			j := i + 1
			for j < len(row) && shade(row[j]) == sh {
				j++
			}
			if sh > 0 {
				a := uint8(40 + 215*(sh-1)/9)
				x0, x1 := tx(s.x0+float64(i)*s.step), tx(s.x0+float64(j)*s.step)
				y0, y1 := ty(float64(k)-0.4), ty(float64(k)+0.4)
				c.SetColor(color.NRGBA{0x8a, 0x11, 0x11, a})
				var path vg.Path
				path.Move(vg.Point{X: x0, Y: y0})
				path.Line(vg.Point{X: x1, Y: y0})
				path.Line(vg.Point{X: x1, Y: y1})
				path.Line(vg.Point{X: x0, Y: y1})
				path.Close()
				c.Fill(path)
			}
			i = j
		}
	}
}

// writeDCQCN plots the rate and α of the busiest rate-limited QPs, the
// rest as a band.
func writeDCQCN(p *Page, o *twin.Observation, ts timeScale) {
	if !present(p, "DCQCN rate and α per QP", o.QPs == nil, len(o.QPs) == 0, notSampled(o, "DCQCN rates"),
		"No queue pair was rate-limited: no CNP reached a requester under DCQCN (or the NICs run no DCQCN).") {
		return
	}
	// Busiest: the most data delivered; without that count, the most cut
	// (the lowest mean rate).
	scores := make([]float64, len(o.QPs))
	rank := "data delivered"
	for i, q := range o.QPs {
		scores[i] = float64(q.Delivered)
		if q.Delivered == 0 {
			rank = "cut in rate (lowest mean rate)"
		}
	}
	if rank != "data delivered" {
		for i, q := range o.QPs {
			var sum float64
			for _, v := range q.RateGbps.Values {
				sum += v
			}
			scores[i] = -sum / float64(max(1, len(q.RateGbps.Values)))
		}
	}
	top, rest := topN(scores, topSeries)
	for _, alpha := range []bool{false, true} {
		title, what, y := "DCQCN rate per QP", "sending rate", Axis{Name: "DCQCN current rate", Unit: "Gb/s"}
		if alpha {
			title, what, y = "DCQCN α per QP", "congestion estimate α", Axis{Name: "DCQCN α", Unit: "fraction"}
		}
		f := newFigure(title, ts.axis(), y)
		if len(rest) > 0 {
			xs, rows := gridRows(o.Sim.End, ts, len(rest), func(k int, t unit.Time) float64 {
				q := &o.QPs[rest[k]]
				if alpha {
					return at(q.Alpha, t, math.NaN())
				}
				return at(q.RateGbps, t, math.NaN())
			})
			b := quantileBand(xs, rows)
			f.band(fmt.Sprintf("other %d QPs (p10–p90, median)", len(rest)), b.xs, b.lo, b.mid, b.hi)
		}
		for _, i := range top {
			q := &o.QPs[i]
			pts := q.RateGbps
			if alpha {
				pts = q.Alpha
			}
			f.line(q.Host+" "+q.Flow, ts.times(pts), pts.Values)
		}
		f.p.Y.Min = 0
		f.p.X.Min, f.p.X.Max = 0, ts.of(o.Sim.End)
		if alpha {
			f.p.Y.Max = math.Max(f.p.Y.Max, 1)
		}
		f.Height = 250
		f.Summary = fmt.Sprintf("The %s of the %d busiest of %d rate-limited queue pairs over the run (busiest: most %s); a series starts when DCQCN first limits its QP.",
			what, len(top), len(o.QPs), rank)
		f.Note = summarised(len(top), len(o.QPs), "QPs", rank)
		p.Figure(f)
	}
}

// maxBars bounds the uplinks drawn as one bar each.
const maxBars = 64

// writeECMP draws the bytes routed over each uplink, per tier.
func writeECMP(p *Page, o *twin.Observation) {
	if !present(p, "ECMP load per uplink", o.Uplinks == nil, len(o.Uplinks) == 0,
		fmt.Sprintf("The %s engine does not report the load of each uplink.", o.Engine.Name), "The topology has no uplinks: every host hangs off one switch.") {
		return
	}
	for i := 0; i < len(o.Uplinks); {
		j := i
		for j < len(o.Uplinks) && o.Uplinks[j].Level == o.Uplinks[i].Level {
			j++
		}
		writeTier(p, o.Uplinks[i:j])
		i = j
	}
}

// writeTier draws one tier's uplinks: a bar each, or the distribution of
// their loads when there are too many.
func writeTier(p *Page, ups []twin.Uplink) {
	tier := ups[0].Tier
	var sum, most float64
	unused := 0
	vals := make(plotter.Values, len(ups))
	for i, u := range ups {
		vals[i] = float64(u.Bytes)
		sum += float64(u.Bytes)
		most = math.Max(most, float64(u.Bytes))
		if u.Bytes == 0 {
			unused++
		}
	}
	mean := sum / float64(len(ups))
	imb := "-"
	if mean > 0 {
		imb = fmt.Sprintf("%.2f", most/mean)
	}
	p.Para(fmt.Sprintf("%s: %d uplinks, %d unused, mean %s, max %s, max/mean %s (1 is perfectly even).", tier, len(ups), unused, bytesText(int64(mean)), bytesText(int64(most)), imb))
	if most == 0 {
		p.Para("No traffic crossed this tier, so there is no load to draw.")
		return
	}
	if len(ups) <= maxBars {
		f := newFigure("ECMP load per uplink, "+tier, Axis{Name: "uplink", Unit: "port"}, Axis{Name: "bytes routed", Unit: "bytes"})
		names := make([]string, len(ups))
		for i, u := range ups {
			names[i] = u.Port
		}
		bars, err := plotter.NewBarChart(vals, vg.Length(math.Max(2, math.Min(24, 400/float64(len(ups))))))
		if err != nil {
			return
		}
		bars.Color = palette[0]
		bars.LineStyle.Width = 0
		f.p.Add(bars)
		f.drawn += len(vals)
		f.Series = append(f.Series, "bytes per uplink")
		f.hideLegnd = true
		if len(ups) > 16 {
			every := (len(ups) + 15) / 16
			for i := range names {
				if i%every != 0 {
					names[i] = ""
				}
			}
		}
		f.p.NominalX(names...)
		f.p.X.Tick.Label.Rotation = math.Pi / 4
		f.p.X.Tick.Label.XAlign = draw.XRight
		f.p.X.Tick.Label.YAlign = draw.YTop
		f.p.Y.Min = 0
		if mean > 0 {
			f.ref(fmt.Sprintf("mean %s", bytesText(int64(mean))), -0.5, float64(len(ups))-0.5, mean, refColour, 4, 2)
		}
		f.nominal = true
		f.Summary = fmt.Sprintf("Bytes routed over each of the %d %s uplinks in port order; an idle bar beside one at twice the mean is a hash collision.", len(ups), tier)
		p.Figure(f)
		return
	}
	// Too many for bars: how many uplinks carry each load.
	f := newFigure("ECMP load distribution, "+tier, Axis{Name: "bytes routed over the uplink", Unit: "bytes"}, Axis{Name: "uplinks", Unit: "count"})
	h, err := plotter.NewHist(vals, 32)
	if err != nil {
		return
	}
	h.FillColor = palette[0]
	h.LineStyle.Width = 0
	f.p.Add(h)
	f.drawn += len(vals)
	f.Series = append(f.Series, "uplinks per load")
	f.hideLegnd = true
	f.p.Y.Min = 0
	f.Summary = fmt.Sprintf("How many of the %d %s uplinks carried each load (32 bins): a wide spread or a bar at zero is imbalance.", len(ups), tier)
	f.Note = fmt.Sprintf("Summarised: %d uplinks are too many for a bar each (more than %d), so their loads are shown as a histogram.", len(ups), maxBars)
	p.Figure(f)
}

// writeLatency writes the one-way latency per priority.
func writeLatency(p *Page, o *twin.Observation) {
	if len(o.Latency) == 0 {
		return
	}
	p.Section(2, "One-way latency")
	t := &Table{Caption: "One-way latency of delivered data packets per priority", Head: []string{"priority", "packets", "p50 (µs)", "p99 (µs)", "p99.9 (µs)", "max (µs)"}}
	for _, l := range o.Latency {
		h := &l.Hist
		t.Add(count(int64(l.Priority)), count(h.Count()), number("%.2f", twin.US(h.Quantile(50))), number("%.2f", twin.US(h.Quantile(99))),
			number("%.2f", twin.US(h.Quantile(99.9))), number("%.2f", twin.US(h.Max())))
	}
	p.Table(t)
}

// maxCounterRows bounds the rows of a counters table.
const maxCounterRows = 48

// writeCounters writes the totals, the NICs' RDMA counters and the ports'
// counters under mlx5 names.
func writeCounters(p *Page, o *twin.Observation) {
	p.Section(2, "Counters (mlx5 names)")
	if t := o.Totals; t != nil {
		tb := &Table{Caption: "Network totals (RDMA payload bytes and data packets)", Head: []string{"", "packets", "bytes"}}
		for _, r := range []struct {
			name string
			d    twin.Data
		}{{"sent", t.Sent}, {"retransmitted", t.Retransmitted}, {"delivered", t.Delivered}, {"dropped", t.Dropped}, {"discarded", t.Discarded}, {"in flight at the end", t.InFlight}} {
			tb.Add(text(r.name), count(r.d.Packets), count(r.d.Bytes))
		}
		tb.Add(text("ECN-marked packets"), count(t.ECNMarked), text(""))
		tb.Add(text("PFC pause frames"), count(t.PauseFrames), text(""))
		p.Table(tb)
	}
	nics := make([]counterRow, 0, len(o.NICs))
	for _, n := range o.NICs {
		nics = append(nics, counterRow{name: n.Name, cs: n.HW})
	}
	writeCounterTable(p, o, "NIC RDMA counters (hw_counters)", "host", nics, func(string) bool { return true },
		"every host's counters are in the --out hw_counters/ files")
	var ports []counterRow
	for _, pt := range o.Ports {
		ports = append(ports, counterRow{name: pt.Name, peer: pt.Peer, cs: pt.Counters})
	}
	writeCounterTable(p, o, "Port counters with pause, ECN or discards (ethtool -S names, durations in µs)", "port", ports, func(k string) bool {
		return strings.HasSuffix(k, "_pause") || strings.HasSuffix(k, "_pause_duration") || strings.Contains(k, "discards") ||
			strings.HasPrefix(k, "drop_") || strings.HasPrefix(k, "ecn_marked") || strings.HasPrefix(k, "pfcwd_")
	}, "every port's counters are in the --out ethtool/ files")
}

type counterRow struct {
	name, peer string
	cs         []twin.Counter
}

// writeCounterTable writes rows that have a counter keep selects moved,
// a column per such counter, busiest rows first, at most maxCounterRows.
func writeCounterTable(p *Page, o *twin.Observation, caption, what string, rows []counterRow, keep func(string) bool, where string) {
	modelled := false
	for _, r := range rows {
		modelled = modelled || r.cs != nil
	}
	if !modelled {
		if len(rows) > 0 {
			p.Note(fmt.Sprintf("%s: the %s engine does not model these counters.", caption, o.Engine.Name))
		}
		return
	}
	var cols []string
	colAt := map[string]int{}
	var busy []int
	var scores []float64
	for i, r := range rows {
		var score float64
		for _, c := range r.cs {
			if c.Value == 0 || !keep(c.Name) {
				continue
			}
			if _, ok := colAt[c.Name]; !ok {
				colAt[c.Name] = len(cols)
				cols = append(cols, c.Name)
			}
			score += float64(c.Value)
		}
		if score > 0 {
			busy = append(busy, i)
			scores = append(scores, score)
		}
	}
	if len(busy) == 0 {
		p.Para(caption + ": none moved.")
		return
	}
	top, _ := topN(scores, maxCounterRows)
	head := []string{what}
	hasPeer := rows[0].peer != ""
	if hasPeer {
		head = append(head, "peer")
	}
	t := &Table{Caption: caption, Head: append(head, cols...), Sortable: true}
	for _, k := range top {
		r := rows[busy[k]]
		cells := []Cell{text(r.name)}
		if hasPeer {
			cells = append(cells, text(r.peer))
		}
		vals := make([]Cell, len(cols))
		for i := range vals {
			vals[i] = count(0)
		}
		for _, c := range r.cs {
			if i, ok := colAt[c.Name]; ok {
				vals[i] = count(c.Value)
			}
		}
		t.Add(append(cells, vals...)...)
	}
	if len(busy) > len(top) {
		t.More = fmt.Sprintf("Summarised: the %d busiest of %d %ss whose counters moved; %s.", len(top), len(busy), what, where)
	}
	p.Table(t)
}
