package ingest

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Arista EOS and Cisco IOS (IOS-XE) print their ports' module
// diagnostics as tables. The summary, `show interfaces transceiver`, one
// row per port, or on EOS per lane ("Et3/17/1" is lane 1 of the module
// in Et3/17):
//
//	                               Bias      Optical   Optical
//	          Temp       Voltage   Current   Tx Power  Rx Power
//	Port      (Celsius)  (Volts)   (mA)      (dBm)     (dBm)     Last Update
//	-----     ---------  --------  --------  --------  --------  -----------
//	Et3/17/1   35.61      3.21      36.64    1.51      -0.10     0:00:03 ago
//
// (IOS prints no Last Update, and some platforms no Current). The detail,
// `show interfaces transceiver detail`, a table per monitor with the
// module's thresholds, in the order the header names them (EOS: low
// alarm before low warning; IOS: low warning first):
//
//	                         High Alarm  High Warn   Low Alarm   Low Warn
//	           Rx Power      Threshold   Threshold   Threshold   Threshold
//	Port       (dBm)         (dBm)       (dBm)       (dBm)       (dBm)
//	-------    ------------  ----------  ----------  ----------  ----------
//	Et6/1      -0.90         4.40        3.40        -11.50      -10.50
//
// A value may carry a mark after it (++ high alarm, + high warning, - low
// warning, -- low alarm) and its A2D readout in parentheses; one the
// module has no reading for is "N/A".

// domTable is the table being read: the monitor of each value column
// after the port's, nil outside a table.
type domTable struct {
	cols   []string // "temp", "volt", "bias", "tx", "rx"
	limits []string // a detail table's thresholds: "high alarm", ..., in order
	ruled  bool     // the rule of dashes under the header was read
	above  [2]string
	mods   map[string]*Module
	order  []string
}

// domPortRow matches the port column of a row: Et3/17/1, Ethernet6/1,
// Gi1/0/49, Te0/0/8, Hu1/0/1.
var domPortRow = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Z][A-Za-z-]{1,24}[0-9]{1,3}(?:/[0-9]{1,3}){0,3}$`)
})

// domUnits are the header's units, by the monitor they head.
var domUnits = map[string]string{"(Celsius)": "temp", "(Volts)": "volt", "(mA)": "bias", "(milliamperes)": "bias", "(dBm)": "power"}

// domLimitNames are a detail table's threshold columns.
var domLimitNames = []string{"high alarm", "high warn", "low alarm", "low warn"}

// domHeader reads the header line of a table ("Port (Celsius) ..."),
// naming each column from its unit and, for the powers, from the title
// line above it; a detail table's thresholds are named two lines above.
// ok is false for any other line.
func domHeader(t string, above [2]string) (cols, limits []string, ok bool) {
	f := strings.Fields(t)
	if len(f) < 3 || f[0] != "Port" {
		return nil, nil, false
	}
	var units []string
	for _, u := range f[1:] {
		q, known := domUnits[u]
		if !known {
			break
		}
		units = append(units, q)
	}
	rest := strings.Join(f[1+len(units):], " ")
	title := strings.ToLower(above[1])
	if len(units) == 5 && rest == "" && allSame(units) {
		// A detail table: the value and four thresholds of one monitor.
		q := units[0]
		if q == "power" {
			tt := strings.TrimSpace(title)
			switch {
			case strings.HasPrefix(tt, "tx power "), strings.HasPrefix(tt, "transmit power "):
				q = "tx"
			case strings.HasPrefix(tt, "rx power "), strings.HasPrefix(tt, "receive power "):
				q = "rx"
			default:
				return nil, nil, false
			}
		}
		limits = thresholdOrder(strings.ToLower(above[0]))
		if limits == nil {
			return nil, nil, false
		}
		return []string{q}, limits, true
	}
	if len(units) < 4 || units[0] != "temp" || (rest != "" && rest != "Last Update") {
		return nil, nil, false
	}
	// A summary: temperature, voltage, perhaps the bias current, and the
	// two powers in the order the title names them.
	tx := max(strings.Index(title, "tx power"), strings.Index(title, "transmit power"))
	rx := max(strings.Index(title, "rx power"), strings.Index(title, "receive power"))
	if tx < 0 || rx < 0 {
		return nil, nil, false
	}
	powers := []string{"tx", "rx"}
	if rx < tx {
		powers = []string{"rx", "tx"}
	}
	for _, u := range units {
		switch {
		case u != "power":
			cols = append(cols, u)
		case len(powers) > 0:
			cols, powers = append(cols, powers[0]), powers[1:]
		default:
			return nil, nil, false
		}
	}
	seen := map[string]bool{}
	for _, c := range cols {
		if seen[c] {
			return nil, nil, false
		}
		seen[c] = true
	}
	if len(powers) > 0 {
		return nil, nil, false
	}
	return cols, nil, true
}

// thresholdOrder reads the names of a detail table's four thresholds in
// the order the line prints them; nil when it does not name all four.
func thresholdOrder(s string) []string {
	type at struct {
		name string
		i    int
	}
	var found []at
	for _, n := range domLimitNames {
		i := strings.Index(s, n)
		if i < 0 {
			return nil
		}
		found = append(found, at{n, i})
	}
	slices.SortFunc(found, func(a, b at) int { return a.i - b.i })
	out := make([]string, len(found))
	for i, a := range found {
		out[i] = a.name
	}
	return out
}

func allSame(s []string) bool {
	for _, v := range s {
		if v != s[0] {
			return false
		}
	}
	return true
}

// table reads one line of a switch's transceiver table and reports
// whether it was one.
func (p *transceiverParser) table(l Line, t string) bool {
	e := &p.dom
	above := e.above
	e.above = [2]string{above[1], t}
	if cols, limits, ok := domHeader(t, above); ok {
		e.cols, e.limits, e.ruled = cols, limits, false
		p.out.lines.add(l)
		return true
	}
	if e.cols == nil {
		return false
	}
	if !e.ruled {
		if t != "" && strings.Trim(strings.ReplaceAll(t, " ", ""), "-") == "" {
			e.ruled = true
			p.out.lines.add(l)
			return true
		}
		e.cols = nil
		return false
	}
	f := strings.Fields(t)
	if len(f) == 0 || !domPortRow().MatchString(f[0]) {
		e.cols = nil
		return false
	}
	if p.tableRow(l, f) {
		p.out.lines.add(l)
	}
	return true
}

// A domValue is one value of a row: its number (na when "N/A") and the
// mark after it.
type domValue struct {
	v       float64
	na      bool
	mark    string
	tok     string
	garbled string // what was expected, "" when it read
}

// domMarks are the flags of a value, by mark.
var domMarks = map[string]string{"++": "high alarm", "+": "high warning", "-": "low warning", "--": "low alarm"}

// domValues reads n values from toks, each with its mark (after a space
// or not) and its A2D readout in parentheses; rest is what follows them.
func domValues(toks []string, n int) (vals []domValue, rest []string) {
	for len(vals) < n {
		if len(toks) == 0 {
			return vals, nil
		}
		d := domValue{tok: toks[0]}
		s := toks[0]
		toks = toks[1:]
		if trimmed := strings.TrimRight(s, "+-"); trimmed != s && trimmed != "" {
			d.mark, s = s[len(trimmed):], trimmed
		}
		for len(toks) > 0 {
			if _, isMark := domMarks[toks[0]]; isMark && d.mark == "" {
				d.mark, toks = toks[0], toks[1:]
				continue
			}
			if strings.HasPrefix(toks[0], "(") && strings.HasSuffix(toks[0], ")") {
				toks = toks[1:]
				continue
			}
			break
		}
		switch {
		case d.mark != "" && domMarks[d.mark] == "":
			d.garbled = "a mark ++, +, - or -- after the value"
		case s == "N/A" || s == "NA":
			d.na = true
		default:
			var ok bool
			if d.v, ok = finiteFloat(s); !ok || d.v < -100 || d.v > 200 {
				d.garbled = "a number or N/A"
			}
		}
		vals = append(vals, d)
	}
	return vals, toks
}

// flagNames name a monitor's flags as ethtool does, for the judge.
var flagNames = map[string]string{"temp": "module temperature", "volt": "module voltage", "bias": "laser bias current", "tx": "laser tx power", "rx": "laser rx power"}

// tableRow reads a row: the port, then a value for each column; a detail
// row's thresholds after its value. A summary's Last Update is not read.
func (p *transceiverParser) tableRow(l Line, f []string) bool {
	e := &p.dom
	n := len(e.cols) + len(e.limits)
	vals, rest := domValues(f[1:], n)
	if len(vals) < n || e.limits != nil && len(rest) > 0 {
		p.tableGarble(l, f[0], "the port and "+strconv.Itoa(n)+" values as the header names them")
		return false
	}
	for _, v := range vals {
		if v.garbled != "" {
			p.tableGarble(l, v.tok, v.garbled)
			return false
		}
	}
	m, lane := p.tableModule(l, f[0])
	if m == nil {
		return false
	}
	ev := At(p.out.src, l)
	for i, c := range e.cols {
		if !vals[i].na {
			m.set(ev, c, lane, vals[i].v)
		}
		if vals[i].mark != "" {
			m.On = append(m.On, ModuleFlag{Name: flagNames[c] + " " + domMarks[vals[i].mark], Lane: lane, Evidence: ev})
		}
	}
	for i, name := range e.limits {
		if d := vals[len(e.cols)+i]; !d.na {
			m.Limits.set(e.cols[0], name, d.v, ev)
		}
	}
	return true
}

// tableModule returns the module of a row's port and the lane the row
// is. EOS names a module's lanes by a last number after the port's
// ("Et3/17/1", "Et6/2" on a fixed switch): its rows are lanes of one
// module. Other ports are modules of their own.
func (p *transceiverParser) tableModule(l Line, port string) (*Module, int) {
	e := &p.dom
	name, lane := port, 1
	if rest, isEOS := strings.CutPrefix(port, "Ethernet"); isEOS {
		name = "Et" + rest
	}
	if i := strings.LastIndexByte(name, '/'); i > 0 && strings.HasPrefix(name, "Et") {
		if n, err := strconv.Atoi(name[i+1:]); err == nil && n >= 1 && n <= maxModuleLanes {
			name, lane = name[:i], n
		}
	}
	if m := e.mods[name]; m != nil {
		return m, lane
	}
	if len(e.order)+len(p.out.Modules) >= maxModules {
		return nil, 0
	}
	if e.mods == nil {
		e.mods = map[string]*Module{}
	}
	m := &Module{Port: strings.Clone(name), Host: l.Host, Evidence: At(p.out.src, l)}
	e.mods[m.Port] = m
	e.order = append(e.order, m.Port)
	return m, lane
}

// set stores one monitor's value of a lane: a power in dBm.
func (m *Module) set(ev Evidence, col string, lane int, v float64) {
	switch col {
	case "temp":
		if m.TempEv.Line == 0 {
			m.TempC, m.TempEv = v, ev
		}
	case "bias":
		ln := m.lane(lane)
		ln.BiasMA, ln.BiasEv = v, ev
	case "tx":
		ln := m.lane(lane)
		ln.TxMW, ln.TxEv = milliwatts(v), ev
	case "rx":
		ln := m.lane(lane)
		ln.RxMW, ln.RxEv = milliwatts(v), ev
	}
}

// set stores the threshold name ("low alarm", "high warn") of the
// monitor col, a power in dBm, where SONiC's label of it goes.
func (lim *OpticLimits) set(col, name string, v float64, ev Evidence) {
	prefix := map[string]string{"temp": "temp", "rx": "rxpower", "tx": "txpower"}[col]
	dst, ok := sonicLimits[prefix+strings.ReplaceAll(strings.Replace(name, "warn", "warning", 1), " ", "")]
	if prefix == "" || !ok {
		return
	}
	if col != "temp" {
		v = milliwatts(v)
	}
	*dst(lim) = Limit{V: v, Ev: ev}
}

// tableGarble records a row whose port reads and whose values do not,
// at the token tok.
func (p *transceiverParser) tableGarble(l Line, tok, expected string) {
	if len(p.out.Garbled) >= maxGarbled {
		return
	}
	at := max(strings.Index(l.Text, tok), 0)
	p.out.Garbled = append(p.out.Garbled, garbleAt(l, at, expected))
}

// tableFinish adds the modules of the tables, in the order their ports
// were first seen.
func (p *transceiverParser) tableFinish() {
	e := &p.dom
	for _, name := range e.order {
		if m := e.mods[name]; m.trim() {
			p.out.Modules = append(p.out.Modules, *m)
		}
	}
	e.mods, e.order = nil, nil
}
