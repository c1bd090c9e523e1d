package ingest

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"rocelab/internal/unit"
)

// Markdown summary tables that engineers make from perftest sweeps:
//
//	| Data Size (B) | ib_send_bw (MB/s) | ib_write_bw (MB/s) | ... | Peak (Gbps)|
//	|--------------|------------------|-------------------|-----|------|
//	| 65536        | 23244.12         | 40930.65          | ... | 400  |
//
// Each tool column becomes a run marked Summary; MB/s columns are preferred
// over Gb/s ones and read as perftest's MB/sec (2^20 bytes/s). A "-b" in
// the perftest command lines just above the table marks its runs
// bidirectional; a table without such commands is taken as unidirectional.

// mdTable is the state of a summary table being read.
type mdTable struct {
	sizeCol int
	peakCol int
	runs    map[int]int // column → run index; MB/s preferred over Gbps
	gbps    map[int]bool
}

// summaryLine reads a Markdown summary table of perftest results.
func (p *perftestParser) summaryLine(t string, ev Evidence) bool {
	if !strings.HasPrefix(t, "|") {
		return false
	}
	cells := strings.Split(strings.Trim(t, "|"), "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	if p.md == nil {
		return p.summaryHeader(cells, ev)
	}
	if strings.Trim(strings.Join(cells, ""), "-: ") == "" {
		return true
	}
	vals := make([]float64, len(cells))
	for i, c := range cells {
		v, err := strconv.ParseFloat(c, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return false
		}
		vals[i] = v
	}
	var size int64
	if p.md.sizeCol >= 0 && p.md.sizeCol < len(vals) {
		size = int64(math.Min(vals[p.md.sizeCol], 1<<50))
	}
	var peak unit.BitRate
	if p.md.peakCol >= 0 && p.md.peakCol < len(vals) {
		peak = unit.BitRate(math.Round(math.Min(vals[p.md.peakCol], 1e6) * 1e9))
	}
	cols := make([]int, 0, len(p.md.runs))
	for c := range p.md.runs {
		cols = append(cols, c)
	}
	sort.Ints(cols)
	for _, c := range cols {
		if c >= len(vals) {
			continue
		}
		r := &p.out.Runs[p.md.runs[c]]
		bw := mibPerSec(vals[c])
		if p.md.gbps[c] {
			bw = unit.BitRate(math.Round(math.Min(vals[c], 1e6) * 1e9))
		}
		if len(r.Rows) < maxPerftestRows {
			r.Rows = append(r.Rows, PerftestRow{Bytes: size, BWAvg: bw, Evidence: ev})
		}
		if peak > 0 && r.PeakRate == 0 {
			r.PeakRate, r.PeakRateEvidence = peak, ev
		}
	}
	return true
}

// summaryHeader recognises "| Data Size (B) | ib_send_bw (MB/s) | ... |".
func (p *perftestParser) summaryHeader(cells []string, ev Evidence) bool {
	md := &mdTable{sizeCol: -1, peakCol: -1, runs: map[int]int{}, gbps: map[int]bool{}}
	byTool := map[string]int{}
	var order []string
	for i, c := range cells {
		lc := strings.ToLower(c)
		switch {
		case strings.Contains(lc, "size"):
			md.sizeCol = i
			continue
		case strings.HasPrefix(lc, "peak"):
			md.peakCol = i
			continue
		}
		tool, unitPart, ok := strings.Cut(lc, "(")
		tool = strings.TrimSpace(tool)
		if !ok || !strings.HasPrefix(tool, "ib_") || !(strings.HasSuffix(tool, "_bw") || strings.HasSuffix(tool, "_lat")) {
			continue
		}
		unitPart = strings.TrimSuffix(strings.TrimSpace(unitPart), ")")
		gb := strings.HasPrefix(unitPart, "gb")
		if !gb && !strings.HasPrefix(unitPart, "mb") {
			continue
		}
		if prev, seen := byTool[tool]; seen {
			if md.gbps[prev] && !gb { // prefer MB/s, the more precise column
				delete(md.gbps, prev)
				byTool[tool] = i
				md.gbps[i] = gb
			}
			continue
		}
		byTool[tool] = i
		md.gbps[i] = gb
		order = append(order, tool)
	}
	if len(byTool) == 0 {
		return false
	}
	for _, tool := range order {
		r := p.newRun(ev)
		if r == nil {
			break
		}
		r.Test, r.Summary = tool, true
		r.Latency = strings.HasSuffix(tool, "_lat")
		if pc := p.byTool[tool]; pc != nil {
			commandFacts(r, pc)
			delete(p.byTool, tool)
		}
		md.runs[byTool[tool]] = p.run
	}
	for c := range md.gbps {
		if _, ok := md.runs[c]; !ok {
			delete(md.gbps, c)
		}
	}
	p.pending = nil
	p.md = md
	return true
}
