package nvue

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"rocelab/internal/pos"
	"rocelab/internal/swcfg"
)

// IsSetList reports whether text holds `nv set` commands of QoS: a paste
// of the commands (with or without the prompt) or a script of them.
func IsSetList(data []byte) bool {
	for _, l := range strings.Split(string(data), "\n") {
		if w, _, ok := setWords(l); ok && len(w) > 0 && (w[0].Text == "qos" || w[0].Text == "interface" && len(w) > 2 && w[2].Text == "qos") {
			return true
		}
	}
	return false
}

// setWords returns the words after `nv set` (or `nv unset`, unset true)
// on a line, with their columns; a prompt before `nv` is skipped.
func setWords(line string) (words path, unset, ok bool) {
	i := strings.Index(line, "nv set ")
	j := strings.Index(line, "nv unset ")
	switch {
	case i >= 0 && (j < 0 || i < j):
		unset, i = false, i+len("nv set ")
	case j >= 0:
		unset, i = true, j+len("nv unset ")
	default:
		return nil, false, false
	}
	if k := strings.Index(line, "nv "); k > 0 {
		// Text before nv that is no prompt is prose about the command;
		// white space alone is a script's or a document's indent.
		before := strings.TrimRight(line[:k], " \t")
		if before != "" && !strings.HasSuffix(before, "$") && !strings.HasSuffix(before, "#") {
			return nil, false, false
		}
	}
	rest := line[i:]
	if c := strings.Index(rest, " #"); c >= 0 {
		rest = rest[:c]
	}
	col := i + 1
	for _, f := range strings.Fields(rest) {
		at := strings.Index(line[col-1:], f) + col
		words = append(words, Value{Text: f, Col: at})
		col = at + len(f)
	}
	return words, unset, true
}

// ParseSet reads `nv set` commands in order, as NVUE applies them; an
// `nv unset` is named as not judged (what it removes depends on the
// configuration before it).
func ParseSet(name string, data []byte) (*Config, error) {
	c := newConfig(name, FormatSet, data)
	for n, l := range c.Lines {
		words, unset, ok := setWords(l)
		if !ok {
			continue
		}
		for i := range words {
			words[i].Line = n + 1
		}
		if unset {
			if len(words) > 0 && (words[0].Text == "qos" || words[0].Text == "interface") {
				c.notJudged("nv unset "+words.words(min(len(words), 3)), words[0])
			}
			continue
		}
		if err := c.apply(words); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// IsShowRoCE reports whether text holds `nv show qos roce`.
func IsShowRoCE(data []byte) bool {
	s := string(data)
	return strings.Contains(s, "RoCE PCP/DSCP->SP mapping configurations") ||
		strings.Contains(s, "congestion-control") && strings.Contains(s, "pfc-priority") && strings.Contains(s, "operational")
}

// ParseShowRoCE reads `nv show qos roce` (and `nv show interface <swp> qos
// roce status`, whose rows are the same): the RoCE mode, PFC, ECN and
// trust rows of its first table and its two maps. A row gives its
// operational value, else the applied one. Sizes print in binary units
// ("146.48 KB" is 150000 bytes: NVIDIA's RoCE page says so of this very
// figure).
func ParseShowRoCE(name string, data []byte) (*Config, error) {
	c := newConfig(name, FormatShowRoCE, data)
	opCol, apCol := -1, -1
	section, table := "", ""
	f := c.pfc("default-global")
	m := c.mapping("default-global")
	var ecnAt Value
	var ecnTCs []int
	var minV, maxV, probV Value
	for n, raw := range c.Lines {
		line := strings.TrimRight(raw, " \r")
		t := strings.TrimSpace(line)
		fields := strings.Fields(t)
		switch {
		case t == "":
			continue
		case strings.HasPrefix(t, "RoCE PCP/DSCP->SP mapping"):
			table = "dscp"
			continue
		case strings.HasPrefix(t, "RoCE SP->TC mapping"):
			table = "sptc"
			continue
		case strings.HasPrefix(t, "RoCE pool") || strings.HasPrefix(t, "RoCE Pool"):
			// The buffer pools, named as `qos traffic-pool` is in the
			// other forms.
			table = "other"
			c.notJudged("qos traffic-pool", Value{Line: n + 1, Col: strings.Index(line, t) + 1})
			continue
		case strings.HasPrefix(t, "Exception List") || strings.HasPrefix(t, "Extended Features"):
			table = "other"
			continue
		case fields[0] == "operational" || len(fields) > 1 && fields[1] == "operational":
			opCol, apCol = strings.Index(line, "operational"), strings.Index(line, "applied")
			continue
		case strings.Trim(t, "-= ") == "":
			continue
		}
		if table != "" {
			if table != "other" && !slices.Contains(fields, "switch-prio") {
				if err := c.showRow(table, fields, line, n+1, m); err != nil {
					return nil, err
				}
			}
			continue
		}
		indented := line[0] == ' '
		if !indented {
			section = fields[0]
		}
		key := fields[0]
		v, ok := cell(line, n+1, opCol, apCol)
		if !ok {
			continue
		}
		switch section + "/" + key {
		case "enable/enable":
			c.RoCEEnable = v
			c.RoCEEnable.Text = onOff(v.Text)
		case "mode/mode":
			c.RoCEMode = v
		case "pfc/pfc-priority":
			f.PriosAt = v
			if v.Text != "-" {
				if f.Prios, ok = swcfg.IDs(v.Text, 7); !ok {
					return nil, c.errAt(v, "pfc-priority %q: expected priorities from 0 to 7", v.Text)
				}
			}
		case "pfc/rx-enabled", "pfc/tx-enabled":
			v.Text = enableDisable(strings.ReplaceAll(v.Text, "yes", "on"))
			if key == "rx-enabled" {
				f.Rx = v
			} else {
				f.Tx = v
			}
		case "pfc/cable-length":
			f.Cable = v
			c.notJudged("qos pfc default-global cable-length", v)
		case "congestion-control/enabled-tc":
			ecnAt = v
			if v.Text != "-" {
				if ecnTCs, ok = swcfg.IDs(v.Text, 7); !ok {
					return nil, c.errAt(v, "enabled-tc %q: expected traffic classes from 0 to 7", v.Text)
				}
			}
		case "congestion-control/min-threshold", "congestion-control/max-threshold":
			b, ok := Size(v.Text)
			if !ok {
				return nil, c.errAt(v, "%s %q: expected a size (\"146.48 KB\", \"1.43 MB\", \"40000 B\")", key, v.Text)
			}
			v.Text = strconv.FormatInt(b, 10)
			if key == "min-threshold" {
				minV = v
			} else {
				maxV = v
			}
		case "congestion-control/probability":
			probV = v
		case "trust/trust-mode":
			m.Trust = v
			switch v.Text {
			case "pcp,dscp", "dscp,pcp":
				m.Trust.Text = "both"
			case "dscp":
				m.Trust.Text = "l3"
			case "pcp":
				m.Trust.Text = "l2"
			}
		}
	}
	if ecnAt.Given() {
		// A class left out of enabled-tc has no congestion control, as
		// a SONiC queue without a WRED profile.
		c.ecnStated = true
		for _, tc := range ecnTCs {
			e := c.ecn(DefaultProfile, tc)
			e.ECN, e.RED = ecnAt, ecnAt
			e.ECN.Text, e.RED.Text = "enable", "disable"
			e.Min, e.Max, e.Prob = minV, maxV, probV
		}
	}
	if !c.RoCEEnable.Given() && !c.RoCEMode.Given() {
		return nil, &pos.Error{File: name, Line: 1, Col: 1, Msg: "no enable or mode row: expected `nv show qos roce` output"}
	}
	return c, nil
}

// cell returns a row's value: the operational column, else the applied
// one (the first table of `nv show`).
func cell(line string, n, opCol, apCol int) (Value, bool) {
	if opCol < 0 {
		return Value{}, false
	}
	// get reads the first word of line[from:to] (to < 0: to the end),
	// with its unit if it has one.
	get := func(from, to int) (Value, bool) {
		if from >= len(line) {
			return Value{}, false
		}
		if to < 0 || to > len(line) {
			to = len(line)
		}
		s := strings.TrimSpace(line[from:to])
		if s == "" {
			return Value{}, false
		}
		return Value{Text: strings.Fields(s)[0] + unitOf(s), Line: n, Col: from + strings.Index(line[from:to], s) + 1}, true
	}
	end := apCol
	if end < opCol {
		end = -1
	}
	if v, ok := get(opCol, end); ok {
		return v, true
	}
	if apCol > opCol {
		return get(apCol, -1)
	}
	return Value{}, false
}

// unitOf keeps the word after a number (" KB") with it, so that a size's
// reader sees its unit and refuses one it does not know rather than
// taking the number as bytes.
func unitOf(s string) string {
	f := strings.Fields(s)
	if len(f) < 2 {
		return ""
	}
	if _, err := strconv.ParseFloat(f[0], 64); err != nil {
		return ""
	}
	for _, r := range f[1] {
		if !unicode.IsLetter(r) {
			return ""
		}
	}
	return " " + f[1]
}

// showRow reads a row of the DSCP/PCP → switch priority table or of the
// switch priority → traffic class table.
func (c *Config) showRow(table string, f []string, line string, n int, m *Mapping) error {
	cols := fieldCols(line)
	at := func(i int) Value { return Value{Text: f[i], Line: n, Col: cols[i]} }
	switch table {
	case "dscp":
		// [index] pcp dscp switch-prio
		if len(f) < 3 {
			return nil
		}
		sp := at(len(f) - 1)
		if _, err := c.prio(sp); err != nil {
			return err
		}
		if d := f[len(f)-2]; d != "-" {
			ds, ok := swcfg.IDs(d, 63)
			if !ok {
				return c.errAt(at(len(f)-2), "dscp %q: expected DSCP values from 0 to 63", d)
			}
			for _, x := range ds {
				m.DSCP[x] = sp
			}
		}
		if p := f[len(f)-3]; p != "-" {
			if ps, ok := swcfg.IDs(p, 7); ok {
				for _, x := range ps {
					m.PCP[x] = sp
				}
			}
		}
	case "sptc":
		// [index] switch-prio traffic-class scheduler-weight
		if len(f) < 4 {
			return nil
		}
		// The first column is an index, or "cnp"/"roce" per interface.
		w := strings.ToLower(strings.Join(f[3:], " "))
		spV, tcV := at(1), at(2)
		if _, err := c.prio(spV); err != nil {
			return err
		}
		if _, err := c.prio(tcV); err != nil {
			return err
		}
		sp, _ := strconv.Atoi(spV.Text)
		tc, _ := strconv.Atoi(tcV.Text)
		c.EgressMap[sp] = tcV
		s := c.sched("default-global", tc)
		wv := at(3)
		switch {
		case strings.Contains(w, "strict"):
			wv.Text = "strict"
			s.Mode = wv
		case strings.HasPrefix(w, "dwrr"):
			wv.Text = "dwrr"
			s.Mode = wv
			bw := wv
			bw.Text = strings.TrimSuffix(strings.TrimPrefix(w, "dwrr-"), "%")
			s.BW = bw
		}
	}
	return nil
}

// Size reads "146.48 KB", "1.43 MB", "40000 B" or "0 Bytes" into bytes;
// NVUE's KB and MB are 1024 and 1024² bytes.
func Size(s string) (int64, bool) {
	f := strings.Fields(s)
	if len(f) == 0 || len(f) > 2 {
		return 0, false
	}
	x, err := strconv.ParseFloat(f[0], 64)
	if err != nil || x < 0 || x > 1e12 || math.IsNaN(x) {
		return 0, false
	}
	mult := 1.0
	if len(f) == 2 {
		switch f[1] {
		case "B", "Bytes":
		case "KB":
			mult = 1 << 10
		case "MB":
			mult = 1 << 20
		case "GB":
			mult = 1 << 30
		default:
			return 0, false
		}
	}
	return int64(math.Round(x * mult)), true
}

// fieldCols returns the column (1-based byte offset) of each field of a
// line as strings.Fields splits it: the same white space, \v, \f and
// U+00A0 too, so that a field and its column keep one index.
func fieldCols(line string) []int {
	var cols []int
	in := false
	for i, r := range line {
		sp := unicode.IsSpace(r)
		if !sp && !in {
			cols = append(cols, i+1)
		}
		in = !sp
	}
	return cols
}
