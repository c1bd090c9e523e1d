package ingest

import (
	"strconv"
	"strings"
)

// NVIDIA Cumulus Linux's `ethtool -S swpN`: switchd's counters of a switch
// port, HwIf* read from the ASIC and Soft* from the kernel, in ethtool's
// "name: value" layout under "NIC statistics:".
//
//	cumulus@switch$ ethtool -S swp1
//	NIC statistics:
//	     HwIfInUcastPkts: 7669711571
//	     HwIfInDiscards: 1439
//	     HwIfInBufferDrops: 1439
//	     HwIfInErrors: 15682741
//	     HwIfInPfc3Pkt: 0          (with PFC, as NetQ's ethtool-stats lists them)
//
// They are a switch port's, not a NIC's: read here as the port's row
// (PortCount: packets, errors, discards, FCS errors) and its PFC frames
// per priority, for the switch port rules. HwIfInDiscards counts what the
// port dropped on arrival for want of buffer (HwIfInBufferDrops) and for
// a forwarding decision (HwIfInL3Drops); ACL drops are apart
// (HwIfInAclDrops, meant) and not read.

// cumulusStats follows the dumps of one input.
type cumulusStats struct {
	// port is the switch port the last `ethtool -S` command names, ""
	// before one; used is set once a dump of it began (the next dump
	// without a command of its own is of a port nothing names).
	port string
	used bool
	// row is 1 + the dump's row in p.out.Ports, 0 outside a dump (or
	// for a dump over the cap); seen the names it has read (a name seen
	// again starts the next dump).
	row  int
	seen map[string]bool
}

// cumulusUnnamed names the port of a dump no command names.
const cumulusUnnamed = "swp?"

// cumulusName reports whether name is one switchd prints.
func cumulusName(name string) bool {
	return strings.HasPrefix(name, "HwIf") || strings.HasPrefix(name, "SoftIn") || strings.HasPrefix(name, "SoftOut")
}

// feed reads l when it is a line of a switchd dump and reports whether it
// was.
func (c *cumulusStats) feed(p *switchParser, l Line, t string) bool {
	if cmd, ok := findCommand(t, "ethtool"); ok {
		c.port, c.row, c.used = "", 0, false
		for i, a := range cmd.Args {
			if (a == "-S" || a == "--statistics") && i+1 < len(cmd.Args) && isIdentName(cmd.Args[i+1]) {
				c.port = strings.Clone(cmd.Args[i+1])
			}
		}
		return false
	}
	name, v, ok := splitNameValue(t)
	if !ok || !cumulusName(name) {
		if t != "NIC statistics:" {
			c.row = 0
		}
		return false
	}
	if c.row == 0 || c.seen[name] {
		c.start(p)
	}
	c.seen[name] = true
	c.put(p, l, name, v)
	p.out.lines.add(l)
	return true
}

// start opens a dump's row.
func (c *cumulusStats) start(p *switchParser) {
	port := c.port
	if port == "" || c.used {
		port = cumulusUnnamed
	}
	c.used = true
	c.seen = map[string]bool{}
	var at int
	p.out.Ports, at = appendCappedAt(p.out.Ports, PortCount{Port: port, RxOK: -1, RxErr: -1, RxDrop: -1, RxOver: -1, TxOK: -1, TxErr: -1, TxDrop: -1, TxOver: -1, CRC: -1, Cumulus: true}, maxSwitchRows, &p.out.Omitted)
	c.row = at + 1 // 0 over the cap: the dump is counted, not kept
}

// put reads one counter into the dump's row.
func (c *cumulusStats) put(p *switchParser, l Line, name string, v uint64) {
	if c.row == 0 {
		return
	}
	r := &p.out.Ports[c.row-1]
	ev := At(p.out.src, l)
	n := int64(min(v, 1<<63-1))
	add := func(f *int64) {
		*f = max(*f, 0) + n
	}
	switch name {
	case "HwIfInUcastPkts", "HwIfInMcastPkts", "HwIfInBcastPkts":
		add(&r.RxOK)
	case "HwIfOutUcastPkts", "HwIfOutMcastPkts", "HwIfOutBcastPkts":
		add(&r.TxOK)
	case "HwIfInErrors":
		r.RxErr = n
		if r.CRC <= 0 {
			r.ErrEvidence = ev
		}
	case "HwIfInDot3FrameErrors":
		r.CRC = n
		if n > 0 {
			r.ErrEvidence = ev
		}
	case "HwIfOutErrors":
		r.TxErr = n
	case "HwIfInDiscards":
		r.RxDrop = n
		if n > 0 || r.Evidence.Line == 0 {
			r.Evidence = ev
		}
	case "HwIfOutDiscards":
		r.TxDrop = n
		if n > 0 && r.RxDrop <= 0 || r.Evidence.Line == 0 {
			r.Evidence = ev
		}
	default:
		c.pfc(p, r.Port, ev, name, v)
	}
}

// pfc reads HwIfInPfcNPkt and HwIfOutPfcNPkt: the PFC frames the port
// received and sent on priority N.
func (c *cumulusStats) pfc(p *switchParser, port string, ev Evidence, name string, v uint64) {
	d, rest := RX, strings.TrimPrefix(name, "HwIfInPfc")
	if rest == name {
		d, rest = TX, strings.TrimPrefix(name, "HwIfOutPfc")
	}
	digits, ok := strings.CutSuffix(rest, "Pkt")
	if rest == name || !ok || len(digits) != 1 {
		return
	}
	prio, err := strconv.Atoi(digits)
	if err != nil || prio > 7 {
		return
	}
	p.out.PFC = appendCapped(p.out.PFC, SwitchPFC{Port: port, Dir: d, Prio: prio, Frames: v, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
}
