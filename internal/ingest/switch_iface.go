package ingest

import (
	"strconv"
	"strings"
)

// The per-port block of `show interfaces` on Arista EOS and Cisco NX-OS
// (and IOS, whose counters EOS follows):
//
//	Ethernet1 is up, line protocol is up (connected)        EOS
//	Ethernet12/4 is up                                      NX-OS
//	  Last clearing of "show interface" counters 63w1d
//	     292 packets input, 31440 bytes                     EOS
//	     15 input errors, 12 CRC, 0 alignment, 3 symbol, 0 input discards
//	     700787642244 input packets  521355976957180 bytes  NX-OS
//	     0 runts  0 giants  20 CRC/FCS  0 no buffer
//	     20 input error  0 short frame  0 overrun   0 underrun  0 ignored
//	     0 input with dribble  0 input discard
//	     39027 Rx pause                                     NX-OS
//	     0 PAUSE input                                      EOS
//	     478575583 packets input, 29095652278 bytes, 392 total input drops  IOS XR
//
// The pause lines ("Rx pause", "Tx pause"; EOS "PAUSE input", "PAUSE
// output") become SwitchPFC rows over all priorities, marked Link.
//
// A counter line is "N label" items separated by commas (EOS, IOS) or by
// two or more spaces (NX-OS). A block becomes a PortCount once one of its
// counters is read; a loopback or VLAN block prints none.

// portBlock follows the block of the port being read in an interface
// listing (EOS/NX-OS/IOS here, AOS-CX in switch_aoscx.go): its counters,
// whether a block is open and the row its counters are kept in.
type portBlock struct {
	cur PortCount
	in  bool // inside a port's block
	at  int  // the index of cur in p.out.Ports, -1 before its first counter
}

// ifaceBlock follows the block of the port being read.
type ifaceBlock struct{ portBlock }

// ifaceHeader reads an interface block's first line: the port and its
// state (U up, D down, X administratively down).
func ifaceHeader(t string) (port, state string, ok bool) {
	name, rest, found := strings.Cut(t, " is ")
	if !found || name == "" || !isIdentName(strings.ReplaceAll(name, "/", "")) || name[0] >= '0' && name[0] <= '9' {
		return "", "", false
	}
	after := ""
	switch {
	case strings.HasPrefix(rest, "administratively down"):
		state, after = "X", strings.TrimPrefix(rest, "administratively down")
	case strings.HasPrefix(rest, "up"):
		state, after = "U", strings.TrimPrefix(rest, "up")
	case strings.HasPrefix(rest, "down"):
		state, after = "D", strings.TrimPrefix(rest, "down")
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(after)), "(administratively down") {
			state = "X" // NX-OS: "Ethernet1/3 is down (Administratively down)"
		}
	default:
		return "", "", false
	}
	// EOS and IOS go on with the line protocol; NX-OS ends the line or
	// gives the reason in parentheses.
	after = strings.TrimSpace(after)
	if after != "" && !strings.HasPrefix(after, ", line protocol is") && !strings.HasPrefix(after, "(") {
		return "", "", false
	}
	return name, state, true
}

// feed reads l when it belongs to an interface block and reports whether
// it did.
func (b *ifaceBlock) feed(p *switchParser, l Line, t string) bool {
	if port, state, ok := ifaceHeader(t); ok && l.Text == strings.TrimLeft(l.Text, " \t") {
		b.cur = PortCount{Port: strings.Clone(port), State: state, RxOK: -1, RxErr: -1, RxDrop: -1, RxOver: -1, TxOK: -1, TxErr: -1, TxDrop: -1, TxOver: -1, CRC: -1, IOS: true}
		b.in, b.at = true, -1
		return false // a header alone is no table: the block counts once a counter is read
	}
	if !b.in || t == "" || t[0] < '0' || t[0] > '9' {
		if b.in && strings.HasPrefix(t, "Last clearing of \"show interface\" counters ") {
			b.cur.Cleared = strings.Clone(strings.TrimPrefix(t, "Last clearing of \"show interface\" counters "))
			b.put(p)
		}
		return false
	}
	ev := At(p.out.src, l)
	read := false
	for _, it := range ifaceItems(t) {
		c := &b.cur
		switch it.label {
		case "packets input", "input packets":
			b.count(portPackets, RX, it.n, ev)
		case "packets output", "output packets":
			b.count(portPackets, TX, it.n, ev)
		case "input errors", "input error":
			b.count(portErrors, RX, it.n, ev)
		case "crc", "crc/fcs":
			c.CRC, c.ErrEvidence = it.n, ev
		case "input discards", "input discard":
			b.count(portDrops, RX, it.n, ev)
		case "total input drops":
			// IOS XR's names for the port's drops
			c.Platform = IOSXR
			b.count(portDrops, RX, it.n, ev)
		case "total output drops":
			c.Platform = IOSXR
			b.count(portDrops, TX, it.n, ev)
		case "output errors", "output error":
			b.count(portErrors, TX, it.n, ev)
		case "output discards", "output discard":
			b.count(portDrops, TX, it.n, ev)
		case "rx pause", "pause input", "tx pause", "pause output":
			d := RX
			if it.label == "tx pause" || it.label == "pause output" {
				d = TX
			}
			b.pause(p, d, it.n, ev)
		default:
			continue
		}
		read = true
	}
	return b.keep(p, l, ev, read)
}

// portCounter names a count an interface listing prints for each
// direction.
type portCounter uint8

const (
	portPackets portCounter = iota // packets received or sent
	portErrors                     // input or output errors
	portDrops                      // input or output discards (drops)
)

// count records n as the port's count k in direction d, with the evidence
// the rules cite: a CRC line, when there is one, shows more than the
// input errors; receive drops before transmit drops.
func (b *portBlock) count(k portCounter, d Dir, n int64, ev Evidence) {
	c := &b.cur
	switch {
	case k == portPackets && d == RX:
		c.RxOK = n
	case k == portPackets:
		c.TxOK = n
	case k == portErrors && d == RX:
		c.RxErr = n
		if c.CRC < 0 {
			c.ErrEvidence = ev
		}
	case k == portErrors:
		c.TxErr = n
	case k == portDrops && d == RX:
		c.RxDrop, c.Evidence = n, ev
	default:
		c.TxDrop, c.TxEvidence = n, ev
		if c.RxDrop <= 0 {
			c.Evidence = ev
		}
	}
}

// pause records a link pause count of the port (802.3x and PFC frames
// not told apart, nor priorities).
func (b *portBlock) pause(p *switchParser, d Dir, n int64, ev Evidence) {
	if n < 0 {
		return
	}
	p.out.PFC = appendCapped(p.out.PFC, SwitchPFC{Port: b.cur.Port, Dir: d, Prio: AllPrios, Frames: uint64(n), Link: true, Platform: b.cur.Platform, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
}

// keep ends a line of a port block: a line that set a counter is stored
// in the port's row and kept as read; any other line is left to the
// other readers.
func (b *portBlock) keep(p *switchParser, l Line, ev Evidence, read bool) bool {
	if !read {
		return false
	}
	b.store(p, ev)
	p.out.lines.add(l)
	return true
}

// store keeps the block's counters in its row, adding the row at its
// first counter.
func (b *portBlock) store(p *switchParser, ev Evidence) {
	if b.at < 0 {
		if b.cur.Evidence.Line == 0 {
			b.cur.Evidence = ev
		}
		var at int
		p.out.Ports, at = appendCappedAt(p.out.Ports, b.cur, maxSwitchRows, &p.out.Omitted)
		if at < 0 {
			b.in = false // over the cap
			return
		}
		b.at = at
	}
	b.put(p)
}

// put stores the block's counters in its row once it has one.
func (b *portBlock) put(p *switchParser) {
	if b.at >= 0 {
		p.out.Ports[b.at] = b.cur
	}
}

// ifaceItem is one "N label" item of a counter line.
type ifaceItem struct {
	n     int64
	label string // lower case
}

// ifaceItems splits a counter line into its "N label" items: each number
// starts one, and the words up to the next number (commas dropped) are its
// label. A lone "-" (Comware's counter the port does not keep: "-
// underruns") starts an item of n -1.
func ifaceItems(t string) []ifaceItem {
	var out []ifaceItem
	for _, f := range strings.Fields(strings.ReplaceAll(t, ",", " ")) {
		if v, err := strconv.ParseInt(f, 10, 64); err == nil && v >= 0 {
			out = append(out, ifaceItem{n: v})
			continue
		}
		if f == "-" {
			out = append(out, ifaceItem{n: -1})
			continue
		}
		if len(out) == 0 {
			continue
		}
		it := &out[len(out)-1]
		if it.label != "" {
			it.label += " "
		}
		it.label += strings.ToLower(f)
	}
	return out
}
