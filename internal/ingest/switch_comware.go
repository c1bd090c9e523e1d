package ingest

import "strings"

// H3C / HPE Comware `display interface [PORT]`: a block per interface, its
// name alone at the margin, then its state and its counters,
//
//	Ten-GigabitEthernet1/0/49
//	Current state: UP
//	 Input (total):  431898565 packets, 142188764256 bytes
//	         431613272 unicasts, 3 broadcasts, 0 multicasts, 0 pauses
//	 Input:  0 input errors, 0 runts, 0 giants, - throttles
//	         0 CRC, - frame, 0 overruns, - aborts
//	 Output (total): 1305525770 packets, 1651982346848 bytes
//	         1308446338 unicasts, 33 broadcasts, 0 multicasts, 0 pauses
//	 Output: 0 output errors, 0 underruns, - buffer failures
//
// A block is Comware's once its "Current state:" line follows the name.
// The totals' packets and pauses (802.3x and PFC not told apart, nor
// priorities: SwitchPFC rows over all priorities, Link), input and
// output errors and CRC become a PortCount; some interfaces print
// "Input: N packets, N bytes, N drops" instead, read as packets and
// drops. "-" is a counter the port does not keep. The "(normal)" lines
// repeat the totals' good part and are not read.

// comwareIface follows the interface block being read.
type comwareIface struct {
	portBlock
	// name is an unindented line that may start a block, kept until the
	// next line says whether it does.
	name string
	// sect is the counter line the indented lines under it continue:
	// "in", "in-total", "out", "out-total", or "" (not read).
	sect string
}

// comwareState maps a "Current state:" to a PortCount state.
func comwareState(s string) (string, bool) {
	s = strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(s, "UP"):
		return "U", true
	case strings.HasPrefix(s, "Administratively DOWN"), strings.HasPrefix(s, "DOWN ( Administratively"):
		return "X", true
	case strings.HasPrefix(s, "DOWN"), strings.HasPrefix(s, "STP DOWN"):
		return "D", true
	}
	return "", false
}

// comwareName reports whether s can be an interface's name as Comware
// prints it: Ten-GigabitEthernet1/0/49, Bridge-Aggregation1.
func comwareName(s string) bool {
	return !strings.ContainsAny(s, " \t:") && isIdentName(strings.ReplaceAll(s, "/", "")) && strings.ContainsAny(s, "0123456789")
}

// begin starts the block of the name read when its state is one
// Comware prints.
func (c *comwareIface) begin(state string) bool {
	st, known := comwareState(state)
	if !known {
		c.in, c.name = false, ""
		return false
	}
	c.cur = PortCount{Port: c.name, State: st, RxOK: -1, RxErr: -1, RxDrop: -1, RxOver: -1, TxOK: -1, TxErr: -1, TxDrop: -1, TxOver: -1, CRC: -1, Platform: Comware}
	c.in, c.at, c.name, c.sect = true, -1, "", ""
	return false
}

// comwareSects are the counter lines read, by their label; "" is one
// not read, whose continuation lines are skipped with it.
var comwareSects = map[string]string{"Input (total)": "in-total", "Input": "in", "Output (total)": "out-total", "Output": "out", "Input (normal)": "", "Output (normal)": ""}

// feed reads l when it belongs to a Comware interface block and reports
// whether it did. Releases differ in whether a counter line's label
// starts at the margin; its continuation lines are indented.
func (c *comwareIface) feed(p *switchParser, l Line, t string) bool {
	if t == "" {
		c.in, c.name, c.sect = false, "", ""
		return false
	}
	if name, state, ok := strings.Cut(t, " current state: "); ok && comwareName(name) {
		// Comware 5 prints the name and the state on one line.
		c.name = strings.Clone(name)
		return c.begin(state)
	}
	label, rest, head := strings.Cut(t, ":")
	sect, isSect := comwareSects[label]
	switch {
	case c.in && head && isSect:
		c.sect, t = sect, strings.TrimSpace(rest)
		if sect == "" || t == "" {
			return false
		}
	case l.Text[0] != ' ' && l.Text[0] != '\t':
		c.sect = ""
		if head && label == "Current state" && c.name != "" {
			return c.begin(rest)
		}
		c.name = ""
		if comwareName(t) {
			c.in, c.name = false, strings.Clone(t)
		}
		return false
	case !c.in || c.sect == "":
		return false
	case t[0] != '-' && (t[0] < '0' || t[0] > '9'):
		c.sect = ""
		return false
	}
	ev := At(p.out.src, l)
	d := RX
	if strings.HasPrefix(c.sect, "out") {
		d = TX
	}
	read := false
	for _, it := range ifaceItems(t) {
		switch {
		case it.label == "packets" && (c.sect == "in-total" || c.sect == "out-total" || d == RX && c.cur.RxOK < 0 || d == TX && c.cur.TxOK < 0):
			c.count(portPackets, d, it.n, ev)
		case it.label == "pauses" && strings.HasSuffix(c.sect, "-total"):
			c.pause(p, d, it.n, ev)
		case it.label == "input errors" && c.sect == "in", it.label == "output errors" && c.sect == "out":
			c.count(portErrors, d, it.n, ev)
		case it.label == "crc" && c.sect == "in":
			c.cur.CRC, c.cur.ErrEvidence = it.n, ev
		case it.label == "drops" && (c.sect == "in" || c.sect == "out"):
			c.count(portDrops, d, it.n, ev)
		default:
			continue
		}
		read = true
	}
	return c.keep(p, l, ev, read)
}
