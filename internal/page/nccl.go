package page

import (
	"fmt"
	"sort"
	"strings"

	"gonum.org/v1/plot"

	"rocelab/internal/twin"
)

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
	sameComm := true
	for _, j := range with {
		sameComm = sameComm && j.Obs.NCCL.Comm == with[0].Obs.NCCL.Comm
	}
	for k, j := range with {
		n := j.Obs.NCCL
		lead := ""
		if len(jobs) > 1 {
			lead = j.Variant + ": "
		}
		switch c := strings.TrimSpace(n.Comm); {
		case c == "":
		case !sameComm:
			p.Pre(lead+"communicator", c, false)
		case k == 0:
			p.Pre("communicator (every variant)", c, false)
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
