package ingest

import (
	"strconv"
	"strings"
)

// Cisco NX-OS `show interface priority-flow-control`: one row per port
// under a header framed by rules of equals signs,
//
//	============================================================
//	Port               Mode Oper(VL bmap)  RxPPP      TxPPP
//	============================================================
//	Ethernet1/47       Auto Off           7316       762946
//	Ethernet1/1/1      Auto On  (8)       0          0
//
// Mode is what the port is configured to (Auto: as DCBX negotiates, On,
// Off), Oper whether PFC runs, with the bitmap of its no-drop priorities
// in hex when it does (8: priority 3). RxPPP and TxPPP count the PFC
// frames received and sent over every priority together.

// NXOSPFCPort is a row of the NX-OS table.
type NXOSPFCPort struct {
	Port string
	// Mode is the configured mode as printed (Auto, On, Off).
	Mode string
	// Enabled is set when Oper is On; Prios are its bitmap's priorities.
	Enabled  bool
	Prios    []int
	Evidence Evidence
}

// AllPrios is SwitchPFC's Prio for a count that sums every priority
// (NX-OS RxPPP and TxPPP on a port whose PFC does not run on one priority).
const AllPrios = -1

// nxosPFC reads the table's rows while the parser is inside it.
type nxosPFC struct {
	in bool
}

// nxosPFCHeader reports whether t is the table's header.
func nxosPFCHeader(t string) bool {
	return strings.HasPrefix(t, "Port") && strings.Contains(t, "Oper(VL bmap)") && strings.Contains(t, "RxPPP") && strings.Contains(t, "TxPPP")
}

// feed reads l when it belongs to the table and reports whether it did.
func (n *nxosPFC) feed(p *switchParser, l Line, t string) bool {
	switch {
	case nxosPFCHeader(t):
		n.in = true
	case !n.in:
		return false
	case t == "" || strings.Trim(t, "=") == "":
		// The rules around the header and the blank line after them.
	case !n.row(p, l, t):
		n.in = false
		return false
	}
	p.out.lines.add(l)
	return true
}

// row reads a port's row; a line that begins with an interface name and
// does not go on as a row does is kept as garbled.
func (n *nxosPFC) row(p *switchParser, l Line, t string) bool {
	f := strings.Fields(t)
	if len(f) == 0 || !nxosPort(f[0]) || strings.HasSuffix(t, ":") {
		// A title ("Ethernet1/9 queuing information:") ends the table.
		return false
	}
	garble := func(at, want string) bool {
		col := strings.Index(l.Text, at) + 1
		if at == "" || col == 0 {
			col = len(l.Text) + 1
		}
		p.cut(l, col, "a `show interface priority-flow-control` row: port, mode, oper, RxPPP, TxPPP; "+want)
		return true
	}
	if len(f) < 5 {
		return garble("", "it ends after "+strconv.Itoa(len(f))+" columns")
	}
	mode := f[1]
	if mode != "Auto" && mode != "On" && mode != "Off" {
		return garble(f[1], "the mode Auto, On or Off")
	}
	rx, ok1 := switchNum(f[len(f)-2])
	tx, ok2 := switchNum(f[len(f)-1])
	if !ok1 {
		return garble(f[len(f)-2], "RxPPP, a count")
	}
	if !ok2 {
		return garble(f[len(f)-1], "TxPPP, a count")
	}
	oper := strings.Join(f[2:len(f)-2], "")
	port := NXOSPFCPort{Port: strings.Clone(f[0]), Mode: strings.Clone(mode), Evidence: At(p.out.src, l)}
	switch {
	case oper == "Off":
	case strings.HasPrefix(oper, "On"):
		port.Enabled = true
		bm := strings.TrimPrefix(oper, "On")
		if bm != "" {
			v, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(bm, "("), ")"), 16, 8)
			if err != nil || !strings.HasPrefix(bm, "(") || !strings.HasSuffix(bm, ")") {
				return garble("(", "the bitmap of no-drop priorities in hex, as (8)")
			}
			port.Prios = bitmapPrios(v)
		}
	default:
		return garble(f[2], "the operational state On or Off")
	}
	p.out.NXOSPFC = appendCapped(p.out.NXOSPFC, port, maxSwitchRows, &p.out.Omitted)
	prio := AllPrios
	if len(port.Prios) == 1 {
		prio = port.Prios[0]
	}
	p.out.PFC = appendCapped(p.out.PFC, SwitchPFC{Port: port.Port, Dir: RX, Prio: prio, Frames: rx, Evidence: port.Evidence}, maxSwitchRows, &p.out.Omitted)
	p.out.PFC = appendCapped(p.out.PFC, SwitchPFC{Port: port.Port, Dir: TX, Prio: prio, Frames: tx, Evidence: port.Evidence}, maxSwitchRows, &p.out.Omitted)
	return true
}

// nxosPort reports an NX-OS interface name as its tables print it
// (Ethernet1/47, Eth1/1, Ethernet1/1/1, Vethernet9547, port-channel10,
// Br-Ethernet1/17/1).
func nxosPort(s string) bool {
	for _, p := range []string{"Ethernet", "Eth", "Vethernet", "Br-Ethernet", "port-channel", "Po"} {
		if rest, ok := strings.CutPrefix(s, p); ok && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
			return true
		}
	}
	return false
}
