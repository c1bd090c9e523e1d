package ingest

import (
	"strconv"
	"strings"
)

// Cisco NX-OS `show interface priority-flow-control detail` (Nexus 9000):
// a block per port, with the PFC frames received and sent per priority,
//
//	Ethernet1/51
//	    Admin Mode: On
//	    Oper Mode: On
//	    VL bitmap: (20)
//	    Total Rx PFC Frames: 0
//	    Total Tx PFC Frames: 150
//	    ---------------------------------------------------------------
//	        |  Priority0  |  Priority1  | ... |  Priority7  |
//	    ---------------------------------------------------------------
//	    Rx  |0            |0            | ... |0
//	    ---------------------------------------------------------------
//	    Tx  |0            |0            | ... |0
//
// The port's mode and bitmap are an NXOSPFCPort as the summary table's
// row; its Rx and Tx rows are PFC frames per priority. The totals are
// the rows' sums and are not read again.

// nxosPFCDetail follows the block being read.
type nxosPFCDetail struct {
	// port is the port line just read, or the port whose block is read
	// once in is set.
	port string
	in   bool
	at   int // the port's row in p.out.NXOSPFC, -1 before its Oper Mode
	mode string
	// prios are the header's priorities, column by column.
	prios []int
}

// feed reads l when it belongs to a detail block and reports whether it
// did.
func (n *nxosPFCDetail) feed(p *switchParser, l Line, t string) bool {
	if t != "" && l.Text[0] != ' ' && l.Text[0] != '\t' {
		// An unindented line: a port's name starts a block, anything else
		// ends one.
		*n = nxosPFCDetail{at: -1}
		if nxosPort(t) && !strings.ContainsAny(t, " \t:") {
			n.port = strings.Clone(t)
		}
		return false
	}
	if n.port == "" {
		return false
	}
	key, val, kv := strings.Cut(t, ":")
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	switch {
	case kv && key == "Admin Mode":
		n.in, n.mode = true, strings.Clone(val)
	case !n.in:
		return false
	case kv && key == "Oper Mode":
		if val != "On" && val != "Off" {
			p.cut(l, strings.LastIndex(l.Text, val)+1, "`show interface priority-flow-control detail`'s Oper Mode: On or Off")
			break
		}
		port := NXOSPFCPort{Port: n.port, Mode: n.mode, Enabled: val == "On", Evidence: At(p.out.src, l)}
		p.out.NXOSPFC, n.at = appendCappedAt(p.out.NXOSPFC, port, maxSwitchRows, &p.out.Omitted)
	case kv && key == "VL bitmap":
		v, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(val, "("), ")"), 16, 8)
		if err != nil || !strings.HasPrefix(val, "(") || !strings.HasSuffix(val, ")") {
			p.cut(l, strings.LastIndex(l.Text, val)+1, "`show interface priority-flow-control detail`'s VL bitmap: the no-drop priorities in hex, as (8)")
			break
		}
		if n.at >= 0 && p.out.NXOSPFC[n.at].Enabled {
			p.out.NXOSPFC[n.at].Prios = bitmapPrios(v)
		}
	case kv && (key == "Total Rx PFC Frames" || key == "Total Tx PFC Frames"):
	case strings.Trim(t, "-") == "":
	case strings.HasPrefix(t, "|"):
		n.prios = n.prios[:0]
		for i, c := range strings.Split(strings.Trim(t, "|"), "|") {
			q, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(c), "Priority"))
			if err != nil || q != i || !strings.HasPrefix(strings.TrimSpace(c), "Priority") {
				p.cut(l, len(l.Text)-len(strings.TrimLeft(l.Text, " \t"))+1, "`show interface priority-flow-control detail`'s header: | Priority0 | ... | Priority7 |")
				n.prios = n.prios[:0]
				break
			}
			n.prios = append(n.prios, q)
		}
	case strings.HasPrefix(t, "Rx") || strings.HasPrefix(t, "Tx"):
		n.row(p, l, t)
	default:
		*n = nxosPFCDetail{at: -1}
		return false
	}
	p.out.lines.add(l)
	return true
}

// row reads the Rx or Tx row: a count per priority of the header.
func (n *nxosPFCDetail) row(p *switchParser, l Line, t string) {
	cells := strings.Split(t, "|")
	dir := RX
	if strings.TrimSpace(cells[0]) == "Tx" {
		dir = TX
	}
	const want = "`show interface priority-flow-control detail`'s Rx or Tx row: | then a count per priority of the header"
	if strings.TrimSpace(cells[0]) != "Rx" && dir != TX || len(n.prios) == 0 || len(cells)-1 != len(n.prios) {
		p.cut(l, len(l.Text)+1, want)
		return
	}
	ev := At(p.out.src, l)
	counts := make([]uint64, len(n.prios))
	at := strings.Index(l.Text, "|")
	for i, c := range cells[1:] {
		v, ok := switchNum(strings.TrimSpace(c))
		if !ok {
			p.cut(l, at+2, want)
			return
		}
		counts[i] = v
		at += 1 + len(c)
	}
	for i, v := range counts {
		p.out.PFC = appendCapped(p.out.PFC, SwitchPFC{Port: n.port, Dir: dir, Prio: n.prios[i], Frames: v, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	}
}

// bitmapPrios returns the priorities of a PFC bitmap (8: priority 3).
func bitmapPrios(v uint64) []int {
	var out []int
	for q := 0; q < 8; q++ {
		if v>>q&1 == 1 {
			out = append(out, q)
		}
	}
	return out
}
