package ingest

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Cisco NX-OS prints a port's module with `show interface transceiver
// details`: the port alone on a line, the module's words, and a table of
// its monitors with their alarm and warning thresholds, once per lane
// on a multi-lane module:
//
//	Ethernet3/1
//	    transceiver is present
//	    type is 10Gbase-SR
//	    name is CISCO-FINISAR
//	    part number is FTLX8571D3BCL-C2
//	Lane Number:2 Network Lane
//	           SFP Detail Diagnostics Information (internal calibration)
//	                Current              Alarms                  Warnings
//	                Measurement     High        Low         High          Low
//	  Temperature   35.66 C        75.00 C     -5.00 C     70.00 C        0.00 C
//	  Current           N/A        11.80 mA     4.00 mA    10.80 mA       5.00 mA
//	  Rx Power     -30.45 dBm --    2.00 dBm  -13.90 dBm   -1.00 dBm     -9.90 dBm
//	  Transmit Fault Count = 0
//
// A value's mark after its unit is the module's flag (-- low alarm).

// nxosPortLine matches the line that names the next module's port.
var nxosPortLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Ethernet[0-9]{1,3}(?:/[0-9]{1,3}){1,3}$`) })

// nxosMonitors are the table's rows, by label, with the unit each prints.
var nxosMonitors = map[string]struct{ col, unit string }{
	"Temperature": {"temp", "C"}, "Voltage": {"volt", "V"}, "Current": {"bias", "mA"},
	"Tx Power": {"tx", "dBm"}, "Rx Power": {"rx", "dBm"},
}

// nxosLimits are the thresholds after the value, in NX-OS's order.
var nxosLimits = []string{"high alarm", "low alarm", "high warn", "low warn"}

// nxosWords are the module's lines NX-OS prints before its table.
var nxosWords = []string{"transceiver is ", "type is ", "name is ", "part number is ", "revision is ", "serial number is ",
	"nominal bitrate is ", "Link length supported for ", "cisco id is ", "cisco extended id number is ",
	"cisco part number is ", "cisco product id is ", "cisco vendor id is ", "number of lanes "}

// nxos reads one line of `show interface transceiver details` and
// reports whether it was one.
func (p *transceiverParser) nxos(l Line, t string) bool {
	if nxosPortLine().MatchString(t) {
		p.finish()
		p.port, p.host, p.nxLane, p.nxIn = strings.Clone(t), l.Host, 1, true
		p.out.lines.add(l)
		return true
	}
	if !p.nxIn {
		return false
	}
	if strings.Contains(t, "Diagnostics Information") || strings.HasPrefix(t, "Current ") && strings.Contains(t, "Alarms") || strings.HasPrefix(t, "Measurement ") {
		// The table's title and header.
		p.out.lines.add(l)
		return true
	}
	ev := At(p.out.src, l)
	for _, w := range nxosWords {
		rest, ok := strings.CutPrefix(t, w)
		if !ok {
			continue
		}
		m := p.module(ev)
		if m == nil {
			return false
		}
		switch w {
		case "type is ":
			m.Type = strings.Clone(rest)
			p.copper(ev, rest)
		case "name is ":
			m.Vendor = strings.Clone(rest)
		case "part number is ":
			m.PN = strings.Clone(rest)
		}
		p.out.lines.add(l)
		return true
	}
	if rest, ok := strings.CutPrefix(t, "Lane Number:"); ok {
		n, err := strconv.Atoi(strings.Fields(rest + " x")[0])
		if err != nil || n < 1 || n > maxModuleLanes {
			return false
		}
		p.nxLane = n
		p.out.lines.add(l)
		return true
	}
	if rest, ok := strings.CutPrefix(t, "Transmit Fault Count = "); ok {
		n, err := strconv.Atoi(rest)
		if err != nil || n < 0 {
			return false
		}
		if m := p.module(ev); m != nil && n > 0 {
			m.Signals = append(m.Signals, LaneSignal{Name: "tx fault", Lanes: []int{p.nxLane}, Evidence: ev})
		}
		p.out.lines.add(l)
		return true
	}
	return p.nxosRow(l, t)
}

// nxosRow reads a monitor's row: the label, the value with its unit and
// mark, and four thresholds with their units.
func (p *transceiverParser) nxosRow(l Line, t string) bool {
	label, mon := "", nxosMonitors[""]
	for name, m := range nxosMonitors {
		if rest, ok := strings.CutPrefix(t, name+" "); ok && strings.TrimSpace(rest) != "" {
			label, mon = name, m
			break
		}
	}
	if label == "" {
		return false
	}
	var toks []string
	for _, f := range strings.Fields(t[len(label):]) {
		if f != mon.unit {
			toks = append(toks, f)
		}
	}
	vals, rest := domValues(toks, 1+len(nxosLimits))
	if len(vals) < 1+len(nxosLimits) || len(rest) > 0 {
		p.tableGarble(l, strings.TrimSpace(t[len(label):]), "the value and four thresholds (high and low alarm, high and low warning), each with its unit "+mon.unit)
		return true
	}
	for _, v := range vals {
		if v.garbled != "" {
			p.tableGarble(l, v.tok, v.garbled)
			return true
		}
	}
	ev := At(p.out.src, l)
	m := p.module(ev)
	if m == nil {
		return false
	}
	if !vals[0].na {
		m.set(ev, mon.col, p.nxLane, vals[0].v)
	}
	if vals[0].mark != "" {
		m.On = append(m.On, ModuleFlag{Name: flagNames[mon.col] + " " + domMarks[vals[0].mark], Lane: p.nxLane, Evidence: ev})
	}
	for i, name := range nxosLimits {
		if d := vals[1+i]; !d.na {
			m.Limits.set(mon.col, name, d.v, ev)
		}
	}
	p.out.lines.add(l)
	return true
}
