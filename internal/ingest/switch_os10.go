package ingest

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// Dell SmartFabric OS10 `show queuing statistics [interface ethernet X]`:
// per interface, each egress queue's packets and bytes sent and dropped,
//
//	hound-dirt# show queuing statistics interface ethernet 1/1/4
//	Interface ethernet1/1/4
//	Queue Packets                  Bytes                    Dropped-Packets          Dropped-Bytes
//	0     18                       1218                     0                        0
//	5     21037361                 189283361906             953632                   8583259654
//
// Columns are read by their header's names; a row that begins with a
// queue number and does not go on as the header says is reported at its
// line and column. The queue counts all traffic the queue sent (Type
// "ALL"): OS10 prints no unicast/multicast split here.

// os10Queuing follows an OS10 queuing statistics table.
type os10Queuing struct {
	// port is the interface of the block: its "Interface" line's, else
	// the echoed command's.
	port string
	// cols are the header's column names while rows are read.
	cols []string
	// host is the switch the last echoed command's prompt names.
	host string
}

// os10QueueCmd is the OS10 command whose output this reads.
const os10QueueCmd = "show queuing statistics"

// feed reads l when it belongs to an OS10 queuing statistics table and
// reports whether it did.
func (o *os10Queuing) feed(p *switchParser, l Line, t string) bool {
	if host, cmd, ok := strings.Cut(t, "# "); ok && strings.HasPrefix(strings.TrimSpace(cmd), os10QueueCmd) {
		// The echoed command: its prompt names the switch, its argument
		// the interface when one is given.
		o.cols, o.port, o.host = nil, os10CmdPort(strings.TrimSpace(cmd)[len(os10QueueCmd):]), ""
		if isIdentName(host) {
			o.host = strings.Clone(host)
			if p.out.Switch == "" {
				p.out.Switch = o.host
			}
		}
		p.out.lines.add(l)
		return true
	}
	f := strings.Fields(t)
	switch {
	case len(f) == 2 && f[0] == "Interface" && os10Port(f[1]):
		o.port, o.cols = strings.Clone(f[1]), nil
	case len(f) >= 3 && f[0] == "Queue" && slices.Contains(f, "Dropped-Packets") && slices.Contains(f, "Packets"):
		o.cols = f
	case o.cols != nil && len(f) > 0 && isDigits(f[0]):
		o.row(p, l, f)
	default:
		o.cols = nil
		return false
	}
	p.out.lines.add(l)
	return true
}

// row reads one queue's counters under the header's columns.
func (o *os10Queuing) row(p *switchParser, l Line, f []string) {
	if os10QueueNum(f[0]) < 0 {
		p.cut(l, strings.Index(l.Text, f[0])+1, "a `show queuing statistics` queue number, 0-15")
		return
	}
	if len(f) != len(o.cols) {
		p.cut(l, strings.Index(l.Text, f[0])+1, "a `show queuing statistics` row of "+itoa(len(o.cols))+" columns (this one has "+itoa(len(f))+")")
		return
	}
	q := QueueCount{Port: o.port, Queue: os10QueueNum(f[0]), Type: "ALL", OS10: true, Host: o.host, DropPkts: -1, DropBytes: -1, Evidence: At(p.out.src, l)}
	if q.Port == "" {
		q.Port = "?"
	}
	for i, c := range o.cols[1:] {
		v, ok := switchNum(f[i+1])
		if !ok {
			p.cut(l, os10FieldCol(l.Text, f, i+1), "a count under "+c+" (`show queuing statistics`)")
			return
		}
		if v > math.MaxInt64 && (c == "Dropped-Packets" || c == "Dropped-Bytes") {
			// int64 would wrap it negative, -1 being "not shown".
			p.cut(l, os10FieldCol(l.Text, f, i+1), "a count under "+c+" below 2^63 (`show queuing statistics`)")
			return
		}
		switch c {
		case "Packets":
			q.Packets = v
		case "Bytes":
			q.Bytes = v
		case "Dropped-Packets":
			q.DropPkts = int64(v)
		case "Dropped-Bytes":
			q.DropBytes = int64(v)
		}
	}
	p.out.Queues = appendCapped(p.out.Queues, q, maxSwitchRows, &p.out.Omitted)
}

// os10FieldCol is the 1-based column of field i of the fields f of line.
func os10FieldCol(line string, f []string, i int) int {
	at := 0
	for j := 0; j <= i; j++ {
		at += strings.Index(line[at:], f[j])
		if j < i {
			at += len(f[j])
		}
	}
	return at + 1
}

// os10QueueNum reads a queue number, 0-15, or -1.
func os10QueueNum(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 15 || len(s) > 2 {
		return -1
	}
	return n
}

// os10Port reports whether s is an OS10 interface name as the Interface
// line prints it: ethernet1/1/4, ethernet1/1/49:1, port-channel10.
func os10Port(s string) bool {
	rest, ok := strings.CutPrefix(s, "ethernet")
	if !ok {
		rest, ok = strings.CutPrefix(s, "port-channel")
		return ok && rest != "" && strings.Trim(rest, "0123456789") == ""
	}
	return strings.Count(rest, "/") == 2 && strings.Trim(rest, "0123456789/:") == "" && rest[0] != '/'
}

// os10CmdPort is the interface an echoed `show queuing statistics
// interface ethernet 1/1/4` names (ethernet1/1/4), or "": the word or
// two after `interface`, so that what follows (`queue 5`, `| no-more`)
// is not taken for the port.
func os10CmdPort(args string) string {
	f := strings.Fields(args)
	if len(f) < 2 || f[0] != "interface" {
		return ""
	}
	if os10Port(f[1]) {
		return f[1]
	}
	name := strings.Join(f[1:min(3, len(f))], "")
	if os10Port(name) {
		return name
	}
	return ""
}
