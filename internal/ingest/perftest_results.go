package ingest

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"rocelab/internal/unit"
)

// The result table of a perftest run: its header names the columns (BW
// tests: BW peak, BW average, MsgRate; latency tests: t_min ... 99.9%
// percentile), in MB/sec (2^20 bytes/s) or, with --report_gbits, Gb/sec.
// Noise lines inside the table are skipped, not taken as its end.

// ptCol is a result-table column.
type ptCol int

const (
	colPeak ptCol = iota
	colAvg
	colMsgRate
	colTMin
	colTMax
	colTTyp
	colTAvg
	colTStdev
	colP99
	colP999
	colTPS
	colSL
)

// perftestCols are the result-table column headers, in the order tried.
var perftestCols = []struct {
	name string
	col  ptCol
}{
	{"BW peak", colPeak}, {"BW average", colAvg}, {"MsgRate", colMsgRate},
	{"t_min", colTMin}, {"t_max", colTMax}, {"t_typical", colTTyp}, {"t_avg", colTAvg},
	{"t_stdev", colTStdev}, {"99.9%", colP999}, {"99%", colP99}, {"tps average", colTPS}, {"#sl", colSL},
}

// header recognises the result-table header and its columns.
func (p *perftestParser) header(t string, ev Evidence) bool {
	if !strings.Contains(t, "bytes") || !strings.Contains(t, "iterations") {
		return false
	}
	type pos struct {
		at  int
		col ptCol
	}
	var ps []pos
	rest := t
	for _, c := range perftestCols {
		if i := strings.Index(rest, c.name); i >= 0 {
			ps = append(ps, pos{i, c.col})
			// blank it so "99%" does not match inside "99.9%"
			rest = rest[:i] + strings.Repeat(" ", len(c.name)) + rest[i+len(c.name):]
		}
	}
	if len(ps) == 0 {
		return false
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].at < ps[j].at })
	p.cols = p.cols[:0]
	for _, x := range ps {
		p.cols = append(p.cols, x.col)
	}
	p.gbits = strings.Contains(t, "Gb/sec")
	p.latUnit = "usec"
	if strings.Contains(t, "[cycles]") {
		p.latUnit = "cycles"
	}
	p.inTable = true
	if p.cur() == nil {
		p.newRun(Evidence{})
		p.inTable = true
	}
	if r := p.cur(); r != nil && r.Table.Line == 0 {
		r.Table = ev
	}
	return true
}

// row parses one result line of the current table; t is l.Text trimmed.
// A line that has the row's shape (two integers, then as many cells as the
// header names) but a cell that is no non-negative number is recorded as
// garbled rather than passed over, so that no result row goes unread
// without a word.
func (p *perftestParser) row(l Line, t string, ev Evidence) bool {
	r := p.cur()
	if !p.inTable || r == nil {
		return false
	}
	f := strings.Fields(t)
	if len(f) < 3 {
		return false
	}
	size, err1 := strconv.ParseInt(f[0], 10, 64)
	iters, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil || size < 0 || iters < 0 {
		return false
	}
	row := PerftestRow{Bytes: size, Iterations: iters, Evidence: ev}
	nums := f[2:]
	cols := p.cols
	if len(cols) > 0 && cols[0] == colSL { // QoS tables: #bytes #sl #iterations
		row.Iterations = 0
		nums = f[3:]
		cols = cols[1:]
		if n, err := strconv.ParseInt(f[2], 10, 64); err == nil {
			row.Iterations = n
		}
	}
	for i, c := range cols {
		if i >= len(nums) {
			break
		}
		v, ok := perftestCell(nums[i])
		if !ok {
			if len(nums) != len(cols) {
				return false // another table's row, not a broken one of this
			}
			p.garbleCell(l, f, len(f)-len(nums)+i)
			return true
		}
		switch c {
		case colPeak:
			row.BWPeak = p.rate(v)
		case colAvg:
			row.BWAvg = p.rate(v)
		case colMsgRate:
			row.MsgRateMpps = v
		case colTMin:
			row.TMin = v
		case colTMax:
			row.TMax = v
		case colTTyp:
			row.TTypical = v
		case colTAvg:
			row.TAvg = v
		case colTStdev:
			row.TStdev = v
		case colP99:
			row.P99 = v
		case colP999:
			row.P999 = v
		}
	}
	if r.Latency || row.BWAvg == 0 && row.TAvg > 0 {
		row.LatUnit = p.latUnit
	}
	if len(r.Rows) >= maxPerftestRows {
		p.out.Omitted++
		return true
	}
	r.Rows = append(r.Rows, row)
	return true
}

// perftestCell reads a result cell: a finite non-negative number, which
// a poster may have emphasised in Markdown ("**5544.28**").
func perftestCell(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.Trim(s, "*"), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, false
	}
	return v, true
}

// garbleCell records row l as garbled at its field f[i].
func (p *perftestParser) garbleCell(l Line, f []string, i int) {
	p.garble(l, fieldOffset(l.Text, f, i), "a non-negative number in a perftest result row")
}

// garble records line l as garbled at byte i, up to maxGarbled lines.
func (p *perftestParser) garble(l Line, i int, expected string) {
	if len(p.out.Garbled) < maxGarbled {
		p.out.Garbled = append(p.out.Garbled, garbleAt(l, max(i, 0), expected))
	}
}

// fieldOffset is the byte offset of field f[i] in text, f being its
// fields: each field is sought after the one before it, so a value the
// row repeats is placed where it stands.
func fieldOffset(text string, f []string, i int) int {
	at := 0
	for j, x := range f[:i+1] {
		at += strings.Index(text[at:], x)
		if j < i {
			at += len(x)
		}
	}
	return at
}

// rate converts a table value to a bit rate.
func (p *perftestParser) rate(v float64) unit.BitRate {
	if p.gbits {
		return unit.BitRate(math.Round(v * 1e9))
	}
	return mibPerSec(v)
}

// mibPerSec converts perftest MB/sec (2^20 bytes per second) to a bit rate.
func mibPerSec(v float64) unit.BitRate {
	const max = float64(math.MaxInt64 / 2)
	b := v * 8 * 1048576
	if b > max {
		b = max
	}
	return unit.BitRate(math.Round(b))
}

// PerftestMinJudgedSize is the smallest message size whose bandwidth says
// anything about the link: below it a single QP is bound by message rate.
const PerftestMinJudgedSize = 64 << 10

// Name describes the run: "gpu02: ib_write_bw on mlx5_0".
func (r *PerftestRun) Name() string {
	n := r.Test
	if n == "" {
		n = "perftest"
	}
	if r.Device != "" {
		n += " on " + r.Device
	}
	if r.Host != "" {
		n = r.Host + ": " + n
	}
	return n
}

// BestBW returns the row with the highest average bandwidth among messages
// of PerftestMinJudgedSize or more (or of unknown size, in summary tables).
// ok is false for latency runs and runs without such a row.
func (r *PerftestRun) BestBW() (best PerftestRow, ok bool) {
	if r.Latency {
		return best, false
	}
	for _, row := range r.Rows {
		if (row.Bytes == 0 || row.Bytes >= PerftestMinJudgedSize) && row.BWAvg > best.BWAvg {
			best = row
		}
	}
	return best, best.BWAvg > 0
}

// PerDirection returns a bandwidth figure of the run per direction:
// bidirectional runs count both directions, so half of it.
func (r *PerftestRun) PerDirection(bw unit.BitRate) unit.BitRate {
	if r.Bidirectional {
		return bw / 2
	}
	return bw
}

// Bottlenecks reports the bandwidth every run reached, per direction, as a
// measured cap: a single RC QP at large messages reaches 90–97% of a healthy
// link, so a best far below line rate points below the application (PCIe,
// NUMA, MTU, a lossy fabric). Whether it is far below is for the reader of
// the line rate to judge.
func (p *Perftest) Bottlenecks() []Bottleneck {
	var out []Bottleneck
	for i := range p.Runs {
		r := &p.Runs[i]
		best, ok := r.BestBW()
		if !ok || len(r.Failures) > 0 {
			continue
		}
		c := r.PerDirection(best.BWAvg)
		what := fmt.Sprintf("%s reached %.1f Gb/s", r.Name(), c.Gbps())
		if r.Bidirectional {
			what += " per direction"
		}
		out = append(out, Bottleneck{What: what, Cap: c, Measured: true, Device: r.Device, Evidence: []Evidence{best.Evidence}})
	}
	return out
}
