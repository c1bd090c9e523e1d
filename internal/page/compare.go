package page

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"rocelab/internal/textout"
	"rocelab/internal/twin"
)

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
