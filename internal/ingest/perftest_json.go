package ingest

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/unit"
)

// perftest's JSON report (--out_json, --out_json_file=FILE; perftest 4.5-0.20
// on): a "test_info" object with the banner's fields and a "results" object
// with the one row perftest measured last (a -a sweep rewrites the file at
// each size). perftest writes one key a line, as jq does; the releases of
// 2023 wrote the keys and most values without quotes and with trailing
// commas (linux-rdma/perftest#216), so the lines are read as "key: value"
// pairs, not decoded as JSON. jq -c's one line is split into the same
// pairs.
//
// The report does not say whether its bandwidth is in MB/sec or, with
// --report_gbits, Gb/sec; MsgRate (Mpps) and MsgSize do: BW_average is
// MsgRate×MsgSize in the unit perftest printed it in.

// perftestJSONKeys maps test_info's keys to the banner field they print.
var perftestJSONKeys = map[string]string{
	"Dual_port": "Dual-port", "Device": "Device", "Number_of_qps": "Number of qps", "Transport_type": "Transport type",
	"Connection_type": "Connection type", "Using_SRQ": "Using SRQ", "TX_depth": "TX depth", "RX_depth": "RX depth",
	"CQ_Moderation": "CQ Moderation", "Mtu": "Mtu", "Link_type": "Link type", "GID_index": "GID index",
	"Max_inline_data": "Max inline data", "Outstand_reads": "Outstand reads", "rdma_cm_QPs": "rdma_cm QPs",
	"Data_ex_method": "Data ex. method", "TOS": "TOS", "Post_List": "Post List",
}

// ptJSON is the state of a JSON report being read.
type ptJSON struct {
	depth   int
	section string // "test_info", "results", or "" between them
	// secDepth is the depth inside the section's own braces: a "}" at
	// it closes the section, one deeper closes an object nested in it.
	secDepth int
	// info is set once the document's test_info opened; late, when its
	// results closed before that (jq -S sorts "results" first) and wait
	// for test_info's run.
	info, late bool
	// bad is set when a number of the results was garbled: no row.
	bad bool
	// vals are the results' numbers by key, with the line each is on.
	vals map[string]float64
	at   map[string]Line
	open Line // the line that opened the results object
	// gbits is set when the report's command line asked for Gb/sec.
	gbits bool
}

// jsonLine reads a line of a JSON report: it starts one at a "test_info"
// object and reads on until the document closes.
func (p *perftestParser) jsonLine(l Line, t string) bool {
	// A UTF-8 byte order mark (an editor's save) precedes the report.
	t = strings.TrimPrefix(t, "\ufeff")
	if p.js == nil {
		k, v, _ := jsonPair(strings.TrimLeft(t, "{ \t"))
		if k != "test_info" && k != "results" || !strings.HasPrefix(v, "{") {
			return false
		}
		// The document's own brace opens this line (jq -c) or was on
		// the line before.
		p.js = &ptJSON{depth: 1}
		if strings.HasPrefix(t, "{") {
			p.js.depth = 0
		}
	} else if !jsonShaped(t) {
		// The report was cut: the line is another reader's.
		p.jsonUnclosed()
		return false
	}
	for _, seg := range jsonSegments(t) {
		p.jsonSegment(l, seg)
		if p.js == nil {
			break
		}
	}
	return true
}

// jsonShaped reports whether every segment of line t is a brace or a
// "key: value" pair whose key is a JSON report's (letters, digits, "_",
// "."): a perftest banner, title or shell prompt is not.
func jsonShaped(t string) bool {
	for _, seg := range jsonSegments(t) {
		seg = strings.TrimSpace(seg)
		if seg == "" || seg == "{" || seg == "}" {
			continue
		}
		k, _, ok := jsonPair(seg)
		if !ok || k == "" || strings.TrimFunc(k, func(r rune) bool {
			return r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		}) != "" {
			return false
		}
	}
	return true
}

// jsonUnclosed ends a report cut before its closing brace, recording an
// unclosed results object as garbled at the line that opened it.
func (p *perftestParser) jsonUnclosed() {
	if p.js.section == "results" {
		p.garble(p.js.open, 0, `a "results" object closed by "}" (perftest's JSON report was cut)`)
	} else if p.js.late {
		p.garble(p.js.open, 0, `a "test_info" object after the "results" one (perftest's JSON report was cut)`)
	}
	p.js = nil
}

// jsonSegments splits a line of the report at commas and braces: "{",
// "}", "key: {" and "key: value" segments.
func jsonSegments(t string) []string {
	var out []string
	start := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case ',':
			out = append(out, t[start:i])
			start = i + 1
		case '{':
			out = append(out, t[start:i+1])
			start = i + 1
		case '}':
			out = append(out, t[start:i], "}")
			start = i + 1
		}
	}
	out = append(out, t[start:])
	return out
}

// jsonPair splits `"key": value` (quotes optional) into key and value.
func jsonPair(s string) (key, val string, ok bool) {
	k, v, ok := strings.Cut(s, ":")
	if !ok {
		return "", "", false
	}
	return strings.Trim(strings.TrimSpace(k), `"`), strings.TrimSpace(v), true
}

// jsonSegment reads one segment of the report.
func (p *perftestParser) jsonSegment(l Line, seg string) {
	js := p.js
	seg = strings.TrimSpace(seg)
	switch {
	case seg == "":
		return
	case seg == "{":
		js.depth++
		return
	case seg == "}":
		if js.section != "" && js.depth == js.secDepth {
			switch {
			case js.section == "results" && !js.info:
				js.late = true
			case js.section == "results", js.section == "test_info" && js.late:
				p.jsonRow()
				js.late = false
			}
			js.section = ""
		}
		js.depth--
		if js.depth <= 0 {
			p.js = nil
		}
		return
	}
	k, v, ok := jsonPair(seg)
	if !ok {
		return
	}
	ev := At(p.out.src, l)
	if v == "{" {
		js.depth++
		if js.section != "" {
			// An object nested in the section's: its keys are not the
			// section's.
			return
		}
		js.section, js.secDepth = k, js.depth
		switch k {
		case "test_info":
			js.info = true
			p.newRun(ev)
		case "results":
			js.vals, js.at, js.open, js.bad = map[string]float64{}, map[string]Line{}, l, false
		}
		return
	}
	if js.depth != js.secDepth {
		return
	}
	v = strings.Trim(v, `"`)
	r := p.cur()
	switch js.section {
	case "test_info":
		if r == nil {
			return
		}
		if k == "test" {
			if strings.TrimSpace(v) == "" {
				p.garble(l, strings.Index(l.Text, seg), "a perftest test name")
				return
			}
			r.Title = perftestJSONTitle(v)
			r.Test = perftestTestName(r.Title)
			r.Latency = strings.Contains(r.Title, "Latency")
			r.Bidirectional = strings.Contains(r.Title, "Bidirectional")
			r.Start = ev
			js.gbits = p.pending != nil && slices.Contains(p.pending.cmd.Args, "--report_gbits")
			p.applyCommand(r)
			return
		}
		if f, ok := perftestJSONKeys[k]; ok && v != "" {
			p.bannerField(r, f, v, ev)
		}
	case "results":
		n, err := strconv.ParseFloat(v, 64)
		switch {
		case err == nil && !math.IsNaN(n) && !math.IsInf(n, 0):
			js.vals[k], js.at[k] = n, l
		case err == nil || errors.Is(err, strconv.ErrRange):
			js.bad = true
			p.garble(l, strings.Index(l.Text, seg), "a finite number for "+k+" within float64's range")
		}
	}
}

// perftestJSONTitle turns the report's test name into perftest's title:
// "RDMA_Write_Bidirectional_BW_Test" is "RDMA_Write Bidirectional BW Test".
func perftestJSONTitle(s string) string {
	for _, verb := range []string{"RDMA_Write_imm", "RDMA_Write", "RDMA_Read", "Send_imm", "Send", "Atomic"} {
		if rest, ok := strings.CutPrefix(s, verb+"_"); ok {
			return verb + " " + strings.ReplaceAll(rest, "_", " ")
		}
	}
	return strings.ReplaceAll(s, "_", " ")
}

// jsonRow adds the results object as the run's row. A bandwidth whose unit
// MsgRate and MsgSize do not settle is recorded as garbled.
func (p *perftestParser) jsonRow() {
	js, r := p.js, p.cur()
	if r == nil || len(js.vals) == 0 || js.bad {
		return
	}
	v := js.vals
	for _, c := range []struct {
		key      string
		min, max float64
		expected string
	}{
		{"MsgSize", 1, 1 << 40, "a MsgSize in bytes, a whole number from 1 to 2^40"},
		{"n_iterations", 0, 1 << 62, "an n_iterations, a whole number from 0 to 2^62"},
	} {
		if l, ok := js.at[c.key]; ok {
			if n := v[c.key]; n != math.Trunc(n) || n < c.min || n > c.max {
				p.garble(l, strings.Index(l.Text, c.key), c.expected)
				return
			}
		}
	}
	row := PerftestRow{Bytes: int64(v["MsgSize"]), Iterations: int64(v["n_iterations"])}
	lineOf := func(keys ...string) (Line, bool) {
		for _, k := range keys {
			if l, ok := js.at[k]; ok {
				return l, true
			}
		}
		return Line{}, false
	}
	if l, ok := lineOf("BW_average"); ok {
		toRate, unitOK := jsonBWUnit(v["BW_average"], v["MsgRate"], v["MsgSize"])
		if v["MsgRate"] < 1e-4 && v["BW_average"] > 0 {
			// Messages of a GiB and more: %.6lf rounds MsgRate to
			// nothing, so the command line tells the unit.
			unitOK = true
			if js.gbits {
				toRate = func(x float64) unit.BitRate { return unit.BitRate(math.Round(x * 1e9)) }
			} else {
				toRate = mibPerSec
			}
		}
		if !unitOK {
			p.garble(l, strings.Index(l.Text, "BW_average"),
				"a BW_average that MsgRate × MsgSize gives in MB/sec or Gb/sec (perftest's JSON does not name its unit)")
			return
		}
		row.BWAvg, row.BWPeak, row.MsgRateMpps = toRate(v["BW_average"]), toRate(v["BW_peak"]), v["MsgRate"]
		row.Evidence = At(p.out.src, l)
	} else if l, ok := lineOf("t_avg", "t_typical"); ok {
		row.TMin, row.TMax, row.TTypical, row.TAvg, row.TStdev = v["t_min"], v["t_max"], v["t_typical"], v["t_avg"], v["t_stdev"]
		row.P99, row.P999, row.LatUnit = v["percentile_99"], v["percentile_99.9"], "usec"
		row.Evidence = At(p.out.src, l)
	} else {
		// --output=bandwidth's lone bw_avg names no unit and no size.
		l, ok := lineOf("bw_avg")
		if !ok {
			l = js.open
		}
		p.garble(l, 0, "a results object with BW_average, MsgRate and MsgSize, or t_avg (perftest's JSON rows)")
		return
	}
	if len(r.Rows) >= maxPerftestRows {
		p.out.Omitted++
		return
	}
	r.Rows = append(r.Rows, row)
}

// jsonBWUnit tells perftest's MB/sec (2^20 bytes/s) from Gb/sec by the
// message rate: MsgRate × 10^6 × MsgSize bytes per second is the bandwidth
// in either, within 10%.
func jsonBWUnit(bw, mpps, size float64) (func(float64) unit.BitRate, bool) {
	bytes := mpps * 1e6 * size
	if bw <= 0 || bytes <= 0 {
		return nil, false
	}
	near := func(x float64) bool { return math.Abs(x-bytes) <= 0.1*bytes }
	switch {
	case near(bw * 1048576):
		return func(x float64) unit.BitRate { return mibPerSec(x) }, true
	case near(bw * 1e9 / 8):
		return func(x float64) unit.BitRate { return unit.BitRate(math.Round(x * 1e9)) }, true
	}
	return nil, false
}
