package ingest

import (
	"strconv"
	"strings"
)

// KindPerfquery is infiniband-diags' perfquery output.
const KindPerfquery Kind = "perfquery"

// Perfquery holds the port counters of `perfquery` and `perfquery -x`
// (infiniband-diags): each section a header, then libibmad's dump of the
// PMA attribute, one "Name:....value" line per field, dots padding the
// name to the value's column:
//
//	# Port counters: Lid 21 port 1 (CapMask: 0x1600)
//	PortSelect:......................1
//	SymbolErrorCounter:..............0
//	# Port extended counters: Lid 21 port 1 (CapMask: 0x1600 CapMask2: 0x0000000)
//	PortXmitData:....................13672645927
//
// The counters are renamed to the kernel's sysfs names (symbol_error,
// port_xmit_discards, ...), so the rules that judge a sysfs dump judge
// the same counters here, and carry their width: PortCounters' fields are
// 4 to 32 bits wide and stop at their maximum, PortCountersExtended's 64.
// A section of the same port seen again is a later dump of it.
type Perfquery struct {
	Scoped
	artifactHead
	// Samples holds one entry per port (kind KindHWCounters); of a port
	// whose legacy and extended attributes were both printed, the
	// extended.
	Samples []CounterSample
	// Omitted counts counters and dumps dropped by the memory caps.
	Omitted int
	// Garbled are the lines of a section that are not "Name:....value"
	// with a decimal (or, for a select field, hexadecimal) value.
	Garbled []Garble
}

// Kind returns KindPerfquery.
func (p *Perfquery) Kind() Kind { return KindPerfquery }

// pqField is a PMA field: the sysfs name the kernel gives the counter
// (drivers/infiniband/core/sysfs.c), "" for a field that is no counter,
// and its width in bits in PortCounters (IBTA vol. 1, 16.1.3.5).
type pqField struct {
	name string
	bits uint8
}

var pqFields = map[string]pqField{
	"PortSelect":                   {"", 8},
	"CounterSelect":                {"", 16},
	"CounterSelect2":               {"", 8},
	"SymbolErrorCounter":           {"symbol_error", 16},
	"LinkErrorRecoveryCounter":     {"link_error_recovery", 8},
	"LinkDownedCounter":            {"link_downed", 8},
	"PortRcvErrors":                {"port_rcv_errors", 16},
	"PortRcvRemotePhysicalErrors":  {"port_rcv_remote_physical_errors", 16},
	"PortRcvSwitchRelayErrors":     {"port_rcv_switch_relay_errors", 16},
	"PortXmitDiscards":             {"port_xmit_discards", 16},
	"PortXmitConstraintErrors":     {"port_xmit_constraint_errors", 8},
	"PortRcvConstraintErrors":      {"port_rcv_constraint_errors", 8},
	"LocalLinkIntegrityErrors":     {"local_link_integrity_errors", 4},
	"ExcessiveBufferOverrunErrors": {"excessive_buffer_overrun_errors", 4},
	"VL15Dropped":                  {"VL15_dropped", 16},
	"QP1Dropped":                   {"QP1_dropped", 16},
	"PortXmitData":                 {"port_xmit_data", 32},
	"PortRcvData":                  {"port_rcv_data", 32},
	"PortXmitPkts":                 {"port_xmit_packets", 32},
	"PortRcvPkts":                  {"port_rcv_packets", 32},
	"PortXmitWait":                 {"port_xmit_wait", 32},
	"PortUnicastXmitPkts":          {"unicast_xmit_packets", 64},
	"PortUnicastRcvPkts":           {"unicast_rcv_packets", 64},
	"PortMulticastXmitPkts":        {"multicast_xmit_packets", 64},
	"PortMulticastRcvPkts":         {"multicast_rcv_packets", 64},
}

// PMABits returns the width in bits of the PortCounters field the kernel
// names name in sysfs (symbol_error: 16), where the legacy counter stops;
// 0 for a name that is none.
func PMABits(name string) uint {
	for _, f := range pqFields {
		if f.name == name && name != "" {
			return uint(f.bits)
		}
	}
	return 0
}

type pqParser struct {
	out Perfquery
	// open is the section being read; nil outside one.
	open *pqSection
	// cmd is the perfquery command last seen.
	cmd *pqCommand
}

// pqCommand is what a perfquery command line says of the port it
// queries: the device of -C or the LID, the port, and -x.
type pqCommand struct {
	dev  string
	port int
	ext  bool
}

// pqCommandOf reads perfquery's arguments: [options] [<lid> [<port>]],
// -C <ca> and -P <port> naming the local port.
func pqCommandOf(args []string) *pqCommand {
	c := &pqCommand{port: 1}
	var pos []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case (a == "-C" || a == "--Ca" || a == "-P" || a == "--Port" || a == "-t" || a == "-y") && i+1 < len(args):
			if a == "-C" || a == "--Ca" {
				c.dev = args[i+1]
			} else if n, err := strconv.Atoi(args[i+1]); (a == "-P" || a == "--Port") && err == nil {
				c.port = n
			}
			i++
		case a == "-x" || a == "--extended":
			c.ext = true
		case !strings.HasPrefix(a, "-"):
			pos = append(pos, a)
		}
	}
	if len(pos) > 0 {
		if _, err := strconv.Atoi(pos[0]); err == nil {
			c.dev = "LID " + pos[0]
		}
	}
	if len(pos) > 1 {
		if n, err := strconv.Atoi(pos[1]); err == nil && n >= 0 && n <= pqAllPorts {
			c.port = n
		}
	}
	return c
}

type pqSection struct {
	key  hwKey
	ext  bool
	host string
	set  *CounterSet
	// port is the header's port; PortSelect must agree.
	port int
}

// NewPerfqueryParser returns a parser for perfquery output in the input
// src.
func NewPerfqueryParser(src string) Parser {
	return &pqParser{out: Perfquery{artifactHead: artifactHead{src: src}}}
}

// Feed implements Parser.
func (p *pqParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimSpace(l.Text)
	if c, ok := findCommand(t, "perfquery"); ok {
		p.flush()
		p.cmd = pqCommandOf(c.Args)
		return
	}
	if p.queryErrors(l, t) {
		p.out.lines.add(l)
		return
	}
	if h, ok := p.header(l, t); ok {
		p.flush()
		p.open = h
		p.out.lines.add(l)
		return
	}
	if p.open == nil && p.cmd != nil && strings.HasPrefix(t, "PortSelect:") {
		// A paste of the fields without perfquery's header: the port is
		// the command's.
		p.open = &pqSection{key: hwKey{dev: p.cmd.dev, port: p.cmd.port}, ext: p.cmd.ext, host: l.Host, set: &CounterSet{Stamp: l.Stamp}, port: p.cmd.port}
	}
	if p.open == nil {
		return
	}
	if p.open.set.Len() == 0 && strings.HasPrefix(t, "0x") && strings.HasSuffix(t, ")") && !strings.Contains(t, ":") {
		// The end of a header a mail or terminal wrapped ("CapMask2:" then
		// "0x0000000)").
		p.out.lines.add(l)
		return
	}
	name, val, ok := strings.Cut(t, ":")
	f, known := pqFields[name]
	if !ok || !known && (!isPQName(name) || !strings.HasPrefix(val, ".")) {
		p.flush()
		return
	}
	p.out.lines.add(l)
	val = strings.TrimLeft(val, ".")
	at := len(l.Text) - len(strings.TrimLeft(l.Text, " \t")) + len(name) + 1
	for at < len(l.Text) && l.Text[at] == '.' {
		at++
	}
	if f.name == "" && known {
		if name == "PortSelect" {
			if v, ok := parseCounterValue(val); !ok || int(v) != p.open.port && p.open.port != pqAllPorts {
				p.garble(l, at, "PortSelect "+strconv.Itoa(p.open.port)+", the header's port")
			}
		} else if _, ok := parseHexValue(val); !ok {
			p.garble(l, at, "a hexadecimal select value (0x0000)")
		}
		return
	}
	v, ok := parseCounterValue(val)
	if !ok {
		p.garble(l, at, "a decimal counter value")
		return
	}
	p.addField(l, name, v, false)
}

// addField records the value v of field name in the open section; an
// ibqueryerrors value (queried) keeps the counter's legacy width.
func (p *pqParser) addField(l Line, name string, v uint64, queried bool) {
	f, known := pqFields[name]
	bits := f.bits
	switch {
	case queried:
		bits = 0
	case p.open.ext || !known:
		bits = 64
	}
	cname := f.name
	if !known {
		cname = name
	}
	if p.open.set.has(cname) {
		// A field seen again is the port's next dump, pasted without
		// its header.
		next := *p.open
		next.set = &CounterSet{Stamp: l.Stamp}
		p.flush()
		p.open = &next
	}
	if !p.open.set.add(Counter{Name: cname, Value: v, Bits: bits, Evidence: At(p.out.src, l)}) {
		p.out.Omitted++
	}
}

// queryErrors reads a port line of ibqueryerrors, the counters that
// passed its thresholds by the same names: "GUID 0x1070fd0300370ea2 port
// ALL: [LinkDownedCounter == 25 (25.000)] [PortXmitDiscards == 2846
// (2.779K)]". Its values may be the extended counters', so their widths
// are not known.
func (p *pqParser) queryErrors(l Line, t string) bool {
	rest, ok := strings.CutPrefix(t, "GUID 0x")
	if !ok {
		return false
	}
	who, rest, ok := strings.Cut(rest, " port ")
	if !ok {
		return false
	}
	ps, items, ok := strings.Cut(rest, ": [")
	if !ok {
		return false
	}
	port := pqAllPorts
	if ps != "ALL" {
		n, err := strconv.Atoi(ps)
		if err != nil || n < 0 || n > pqAllPorts {
			p.garble(l, strings.Index(l.Text, " port ")+len(" port "), "a port number from 0 to 255, or ALL")
			return true
		}
		port = n
	}
	p.flush()
	p.open = &pqSection{key: hwKey{dev: "GUID 0x" + who, port: port}, host: l.Host, set: &CounterSet{Stamp: l.Stamp}, port: port}
	off := len(l.Text) - len(items)
	for _, it := range strings.Split(items, "[") {
		name, v, ok := strings.Cut(it, " == ")
		val, _, _ := strings.Cut(strings.TrimSpace(v), " ")
		n, okv := parseCounterValue(strings.TrimSuffix(val, "]"))
		if !ok || !isPQName(name) || !okv {
			p.garble(l, off, "\"[<Counter> == <value>]\"")
		} else {
			p.addField(l, name, n, true)
		}
		off += len(it) + 1
	}
	p.flush()
	return true
}

// pqAllPorts is the port perfquery -a prints for the sum of all ports.
const pqAllPorts = 255

// header parses "# Port counters: Lid 21 port 1 (CapMask: 0x1600)" and
// the extended attribute's "# Port extended counters: ...".
func (p *pqParser) header(l Line, t string) (*pqSection, bool) {
	rest, ok := strings.CutPrefix(t, "# Port counters: ")
	ext := false
	if !ok {
		if rest, ok = strings.CutPrefix(t, "# Port extended counters: "); !ok {
			return nil, false
		}
		ext = true
	}
	head := len(l.Text) - len(strings.TrimLeft(l.Text, " \t")) + len(t) - len(rest)
	if i := strings.Index(rest, " (CapMask"); i >= 0 {
		rest = rest[:i]
	}
	i := strings.LastIndex(rest, " port ")
	if i < 0 {
		p.garble(l, head, "the queried port: \"Lid <lid> port <port>\"")
		return nil, false
	}
	port, err := strconv.Atoi(strings.TrimSpace(rest[i+len(" port "):]))
	if err != nil || port < 0 || port > pqAllPorts {
		p.garble(l, head+i+len(" port "), "a port number from 0 to 255")
		return nil, false
	}
	dev := ""
	if p.cmd != nil && p.cmd.dev != "" && !strings.HasPrefix(p.cmd.dev, "LID ") {
		dev = p.cmd.dev
	}
	if who := strings.TrimSpace(rest[:i]); dev == "" || !strings.HasPrefix(who, "Lid ") {
		dev = strings.Replace(who, "Lid ", "LID ", 1)
	}
	k := hwKey{dev: dev, port: port}
	return &pqSection{key: k, ext: ext, host: l.Host, set: &CounterSet{Stamp: l.Stamp}, port: port}, true
}

// isPQName reports a field name as libibmad spells one: letters and
// digits, a capital first.
func isPQName(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// parseHexValue parses "0x1600".
func parseHexValue(s string) (uint64, bool) {
	h, ok := strings.CutPrefix(strings.TrimSpace(s), "0x")
	if !ok || h == "" {
		return 0, false
	}
	v, err := strconv.ParseUint(h, 16, 64)
	return v, err == nil
}

func (p *pqParser) garble(l Line, i int, expected string) {
	if len(p.out.Garbled) < maxKept {
		p.out.Garbled = append(p.out.Garbled, garbleAt(l, i, expected))
	}
}

// flush ends the open section.
func (p *pqParser) flush() {
	s := p.open
	p.open = nil
	if s == nil || s.set.Len() == 0 {
		return
	}
	smp := CounterSample{Kind: KindHWCounters, Host: s.host, Device: s.key.dev, Port: s.key.port, After: s.set}
	for i := len(p.out.Samples) - 1; i >= 0; i-- {
		o := &p.out.Samples[i]
		if !o.samePort(&smp) {
			continue
		}
		if o.Before == nil && pqExt(o.After) != s.ext {
			// The legacy and the extended attribute of one port: the
			// same counters, the extended ones wider and never stopped.
			if s.ext {
				*o = smp
			}
			return
		}
		break
	}
	var ok bool
	if p.out.Samples, ok = mergeInto(p.out.Samples, smp, nil); !ok {
		p.out.Omitted++
	}
}

// pqExt reports a dump of the extended attribute.
func pqExt(s *CounterSet) bool {
	for _, c := range s.Counters {
		if c.Name == "port_xmit_data" || c.Name == "symbol_error" {
			return c.Bits == 64
		}
	}
	return false
}

// Result implements Parser.
func (p *pqParser) Result() Artifact {
	p.flush()
	if p.out.lines.n == 0 || len(p.out.Samples) == 0 && len(p.out.Garbled) == 0 {
		return nil
	}
	return &p.out
}
