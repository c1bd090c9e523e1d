package ingest

import (
	"slices"
	"strings"
)

// SONiC `show interfaces counters detailed PORT` (portstat -l -i PORT):
// one port's counters as dotted key/value lines, in groups split by
// blank lines:
//
//	Total Packets Received Without Errors.......... 4
//	Jabbers Received............................... N/A
//	Overruns Received.............................. 0
//	Total Packets Transmitted Successfully......... 40
//	WRED Total Dropped Packets..................... 101
//	Time Since Counters Last Cleared............... None
//
// The port is the one the echoed command names ("" when the paste
// left the command out: portstat prints no port of its own in the block). The block becomes a PortCount: the packets
// received and sent, the WRED drops as its egress drops, the jabbers,
// fragments and undersize frames as its receive errors, and its overruns;
// its trim counts (Trimmed Packets, Trimmed Sent Packets, Trimmed Dropped
// Packets) the port's QueueTrim.
//
// `show switch counters --detail` (switchstat -l) prints the switch's trim
// total in the same form, under "Namespace: asicN" on a multi-ASIC switch,
// and with the time since the last clear after a `sonic-clear switch
// counters`:
//
//	Trimmed Sent Packets........................... 2,000
//	Trimmed Dropped Packets........................ 1,000
//
// A block that starts with its Trimmed Sent line (a port's starts with
// what it received) is the switch's.

// detailedBlock follows the block being read.
type detailedBlock struct {
	port string // the port the last echoed command named
	in   bool
	cur  PortCount
	// trim is the block's trim counts, trimSet once one was read; sw is
	// set when the block is switchstat's.
	trim    QueueTrim
	trimSet bool
	sw      bool
}

// detailedLine splits a dotted counter line into its name and value.
func detailedLine(t string) (name, val string, ok bool) {
	i := strings.Index(t, "...")
	if i <= 0 {
		return "", "", false
	}
	name = strings.TrimSpace(t[:i])
	rest := strings.TrimLeft(t[i:], ".")
	if !strings.HasPrefix(rest, " ") {
		return "", "", false
	}
	val = strings.TrimSpace(rest)
	if name == "" || val == "" || strings.Contains(val, " ") && name != "Time Since Counters Last Cleared" {
		return "", "", false
	}
	return name, val, true
}

// detailedCommand reads an echoed command that prints one port's
// detailed counters, `show interfaces counters detailed PORT` or the
// script behind it, `portstat -l -i PORT` (-l and -i in either order, or
// --detail and --interface), and returns the port it names: "" when it
// names none or several (portstat -i takes a comma-separated list or a
// range, Ethernet0-8, and prints the ports' blocks one after another with
// nothing between them).
func detailedCommand(t string) (string, bool) {
	if strings.Contains(t, "...") {
		return "", false
	}
	if _, rest, ok := strings.Cut(t, "counters detailed "); ok {
		if f := strings.Fields(rest); len(f) > 0 && onePort(f[0]) {
			return strings.Clone(f[0]), true
		}
		return "", true
	}
	f := strings.Fields(t)
	i := slices.IndexFunc(f, func(w string) bool { return w == "portstat" || strings.HasSuffix(w, "/portstat") })
	if i < 0 || !slices.ContainsFunc(f[i+1:], func(w string) bool { return w == "-l" || w == "--detail" }) {
		return "", false
	}
	for j := i + 1; j+1 < len(f); j++ {
		if (f[j] == "-i" || f[j] == "--interface") && onePort(f[j+1]) {
			return strings.Clone(f[j+1]), true
		}
	}
	return "", true
}

// onePort reports whether an interface filter portstat is given names one
// port: not a list, and not a range (sonic-utilities' intf_filter.py reads
// a dash after the name's prefix as one, Ethernet-BP's own dash aside).
func onePort(w string) bool {
	return isIdentName(w) && !strings.Contains(strings.TrimPrefix(w, "Ethernet-BP"), "-")
}

// detailedStart reports whether a dotted line's name is one portstat
// prints, so that a block starts only on SONiC's own names.
func detailedStart(name string) bool {
	for _, pre := range []string{"Packets Received ", "Packets Transmitted ", "Total Packets ", "WRED ", "Unicast Packets ", "Multicast Packets ", "Broadcast Packets ", "Jabbers Received", "Fragments Received", "Undersize Received", "Overruns Received", "Trimmed "} {
		if strings.HasPrefix(name, pre) {
			return true
		}
	}
	return false
}

// feed reads l when it belongs to a detailed block and reports whether
// it did.
func (d *detailedBlock) feed(p *switchParser, l Line, t string) bool {
	if port, ok := detailedCommand(t); ok {
		d.port = port
		return false
	}
	if t == "" {
		return d.in // blank lines split the block's groups
	}
	name, val, ok := detailedLine(t)
	if !ok {
		d.end(p)
		return false
	}
	if !d.in {
		if !detailedStart(name) {
			return false
		}
		d.in, d.sw, d.trimSet = true, name == "Trimmed Sent Packets", false
		d.cur = PortCount{Port: d.port, RxOK: -1, RxErr: -1, RxDrop: -1, RxOver: -1, TxOK: -1, TxErr: -1, TxDrop: -1, TxOver: -1, CRC: -1, Detailed: true}
		d.trim = QueueTrim{Port: d.port, Queue: -1, Trimmed: -1, Sent: -1, Dropped: -1}
		if d.sw {
			d.trim.Port, d.trim.Namespace = "", p.titleNS
		}
	}
	ev := At(p.out.src, l)
	v := numOr(val)
	c := &d.cur
	switch name {
	case "Trimmed Packets":
		d.trim.Trimmed = v
	case "Trimmed Sent Packets":
		d.trim.Sent = v
	case "Trimmed Dropped Packets":
		d.trim.Dropped = v
	}
	if strings.HasPrefix(name, "Trimmed ") && !d.trimSet {
		d.trim.Evidence, d.trimSet = ev, true
	}
	switch name {
	case "Total Packets Received Without Errors":
		c.RxOK = v
	case "Total Packets Transmitted Successfully":
		c.TxOK = v
	case "WRED Total Dropped Packets":
		c.TxDrop, c.Evidence = v, ev
	case "Overruns Received":
		c.RxOver = v
	case "Jabbers Received", "Fragments Received", "Undersize Received":
		if v >= 0 {
			c.RxErr = max(c.RxErr, 0) + v
		}
		if v > 0 && c.ErrEvidence.Line == 0 {
			c.ErrEvidence = ev
		}
	}
	if c.Evidence.Line == 0 {
		c.Evidence = ev
	}
	p.out.lines.add(l)
	if name == "Time Since Counters Last Cleared" {
		if val != "None" { // None: never cleared
			c.Cleared = strings.Clone(val)
		}
		d.end(p)
	}
	return true
}

// end keeps the block read, if one was.
func (d *detailedBlock) end(p *switchParser) {
	if !d.in {
		return
	}
	d.in = false
	if d.sw {
		if d.trimSet {
			p.keepSwitchTrim(d.trim)
		}
		return
	}
	if t := d.trim; d.trimSet && (t.Trimmed >= 0 || t.Dropped >= 0) {
		p.noteNA(naTrim, false, t.Evidence)
		p.out.Trims = appendCapped(p.out.Trims, t, maxSwitchRows, &p.out.Omitted)
	}
	if d.cur.ErrEvidence.Line == 0 {
		d.cur.ErrEvidence = d.cur.Evidence
	}
	p.out.Ports = appendCapped(p.out.Ports, d.cur, maxSwitchRows, &p.out.Omitted)
}
