package ingest

import (
	"strconv"
	"strings"
)

// Cisco NX-OS `show queuing interface ethernet X` as the Nexus 5000
// prints it (and `show interface ethernet X queuing`): a block per port,
// its ingress classes under RX Queuing, each with its drop type and
// counters,
//
//	Ethernet1/47 queuing information:
//	  RX Queuing
//	    qos-group 1
//	    q-size: 79360, HW MTU: 2158 (2158 configured)
//	    drop-type: no-drop, xon: 20480, xoff: 40320
//	    Statistics:
//	        Pkts discarded on ingress               : 160104
//	        Per-priority-pause status               : Rx (Inactive), Tx (Active)
//
// A qos-group's ingress discards are read as a priority group's drops
// (PGDrop), with the group's own word on whether it is no-drop.

// nxosQueuing follows the block being read.
type nxosQueuing struct {
	port  string
	rx    bool // inside RX Queuing
	group int  // the qos-group, -1 before one
	// noDrop is the group's drop-type; typed once that line is seen.
	noDrop, typed bool
}

// nxosQueuingTitle is the end of the block's first line.
const nxosQueuingTitle = " queuing information:"

// feed reads l when it belongs to a queuing block and reports whether it
// did.
func (n *nxosQueuing) feed(p *switchParser, l Line, t string) bool {
	if port, ok := strings.CutSuffix(t, nxosQueuingTitle); ok && nxosPort(port) {
		*n = nxosQueuing{port: strings.Clone(port), group: -1}
		p.out.lines.add(l)
		return true
	}
	if n.port == "" {
		return false
	}
	if t != "" && l.Text[0] != ' ' && l.Text[0] != '\t' {
		// The block's lines are indented: an unindented one ends it.
		*n = nxosQueuing{}
		return false
	}
	key, val, kv := strings.Cut(t, ":")
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	switch {
	case t == "RX Queuing" || t == "TX Queuing":
		n.rx, n.group, n.typed = t == "RX Queuing", -1, false
	case strings.HasPrefix(t, "qos-group ") && !kv:
		g, err := strconv.Atoi(strings.TrimSpace(t[len("qos-group "):]))
		if err != nil || g < 0 || g > 7 {
			return false
		}
		n.group, n.typed = g, false
	case key == "drop-type" && n.group >= 0:
		dt, _, _ := strings.Cut(val, ",")
		n.noDrop, n.typed = strings.TrimSpace(dt) == "no-drop", true
	case key == "Pkts discarded on ingress" && n.rx && n.group >= 0:
		v, ok := switchNum(val)
		if !ok {
			p.cut(l, strings.LastIndex(l.Text, val)+1, "`show queuing interface`'s ingress discards: a count after the colon")
			break
		}
		p.out.PGDrops = appendCapped(p.out.PGDrops, PGDrop{Port: n.port, PG: n.group, Packets: v, QoSGroup: true, NoDrop: n.typed && n.noDrop, Evidence: At(p.out.src, l)}, maxSwitchRows, &p.out.Omitted)
	case kv && (key == "q-size" || key == "Statistics" || strings.HasPrefix(key, "Pkts ") || strings.HasPrefix(key, "Ucast pkts") || strings.HasPrefix(key, "Mcast pkts") || key == "Per-priority-pause status"):
		// The group's other lines, read by no rule.
	default:
		return false
	}
	p.out.lines.add(l)
	return true
}
