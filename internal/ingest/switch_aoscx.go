package ingest

import (
	"slices"
	"strconv"
	"strings"
)

// HPE Aruba AOS-CX `show interface [PORT]`: a block per interface, its
// counters in one of two layouts. Releases since 10.07 print a table,
//
//	Interface 1/1/51 is up
//	 Admin state is up
//	 Statistic                          RX                   TX                Total
//	 ---------------- -------------------- -------------------- --------------------
//	 Packets                     103446835            401143191            504590026
//	 Dropped                             0                    4                    4
//	 Pause Frames                        0                    0                    0
//	 Errors                              0                    0                    0
//	   CRC/FCS                           0                  n/a                    0
//
// older ones an Rx and a Tx section of "N label" items,
//
//	 Rx
//	      2417650 total packets            457274611 total bytes
//	            0 errors                           0 dropped
//	            0 CRC/FCS
//	 Tx
//	    116722501 total packets           8432615310 total bytes
//	            0 errors                          14 dropped
//
// (10.03's manual shows them as RX and TX, "N input packets N bytes",
// "N input error N dropped N CRC/FCS", "N output packets"),
//
// A block is AOS-CX's only once a line no other `show interface` prints
// follows its header (aoscxOnly): FRR's zebra prints "Interface swp3 is
// down" at the margin too. Each physical port (and LAG, "Aggregate lag1
// is up", with its Aggregated-interfaces) with counters becomes a
// PortCount (AOSCX): Packets, Dropped and Errors per direction, CRC/FCS,
// Runts and Giants received. Pause Frames become SwitchPFC rows over all
// priorities (Link): AOS-CX prints one count that does not tell PFC from
// 802.3x pause. A table row the reader needs that does not go on as RX,
// TX and Total counts is reported with file:line:col at its first bad cell. The Rate table
// above the counters (rates, not counts) is not read.

// aoscxSection is the part of a block being read.
type aoscxSection int

const (
	aoscxNone  aoscxSection = iota
	aoscxTable              // under the "Statistic RX TX Total" header
	aoscxRx                 // the old layout's Rx section
	aoscxTx                 // its Tx section
)

// aoscxIface follows the interface block being read.
type aoscxIface struct {
	portBlock
	sure bool // a line only AOS-CX prints followed the header
	hdr  int  // the header's line number, claimed once sure
	sect aoscxSection
}

// aoscxHeader reads a block's first line, "Interface 1/1/1 is up" or
// "Aggregate lag1 is down (Administratively down)": the port and its state.
func aoscxHeader(t string) (port, state string, ok bool) {
	rest, found := strings.CutPrefix(t, "Interface ")
	if !found {
		if rest, found = strings.CutPrefix(t, "Aggregate "); !found {
			return "", "", false
		}
	}
	name, st, found := strings.Cut(strings.TrimSpace(rest), " is ")
	if !found || !isIdentName(strings.ReplaceAll(name, "/", "")) {
		return "", "", false
	}
	switch st = strings.TrimSpace(st); {
	case st == "up":
		return name, "U", true
	case st == "down":
		return name, "D", true
	case strings.HasPrefix(st, "down (") && strings.HasSuffix(st, ")"):
		if strings.Contains(strings.ToLower(st), "administratively") {
			return name, "X", true
		}
		return name, "D", true // "down (Waiting for link)", "down (Module not present)"
	}
	return "", "", false
}

// aoscxOnly reports whether t, a line of a block, is one only AOS-CX's
// `show interface` prints (not FRR's, whose header looks the same).
func aoscxOnly(t string) bool {
	return strings.HasPrefix(t, "Admin state is ") || strings.HasPrefix(t, "Hardware: ") && strings.Contains(t, ", MAC Address: ") ||
		strings.HasPrefix(t, "L3 Counters: ") || strings.HasPrefix(t, "Aggregated-interfaces ") || isAOSCXTableHeader(t) ||
		strings.EqualFold(t, "Rx") || strings.EqualFold(t, "Tx")
}

// aoscxRows are the table rows read, by their label.
var aoscxRows = []string{"Packets", "Dropped", "Pause Frames", "Errors", "CRC/FCS", "Runts", "Giants"}

// feed reads l when it belongs to an AOS-CX interface block and reports
// whether it did.
func (b *aoscxIface) feed(p *switchParser, l Line, t string) bool {
	if port, state, ok := aoscxHeader(t); ok && l.Text == strings.TrimLeft(l.Text, " \t") {
		b.cur = PortCount{Port: strings.Clone(port), State: state, RxOK: -1, RxErr: -1, RxDrop: -1, RxOver: -1, TxOK: -1, TxErr: -1, TxDrop: -1, TxOver: -1, CRC: -1, Runts: -1, Giants: -1, AOSCX: true}
		b.in, b.sure, b.hdr, b.sect, b.at = true, false, l.Num, aoscxNone, -1
		return false // claimed once a line only AOS-CX prints follows
	}
	if !b.in {
		return false
	}
	if t != "" && l.Text == strings.TrimLeft(l.Text, " \t") {
		b.in = false // a line at the margin (a prompt, another output) ends the block
		return false
	}
	if !b.sure {
		if !aoscxOnly(t) {
			return false
		}
		b.sure = true
		p.out.lines.add(Line{Num: b.hdr})
	}
	if m, ok := strings.CutPrefix(t, "Aggregated-interfaces "); ok {
		if m, ok = strings.CutPrefix(strings.TrimSpace(m), ":"); ok {
			for _, f := range strings.Fields(m) {
				b.cur.Members = append(b.cur.Members, strings.Clone(f))
			}
		}
		return false
	}
	switch {
	case t == "":
		if b.sect == aoscxTable {
			b.sect = aoscxNone
		}
		return false
	case t == "Admin state is down" && b.cur.State != "X":
		b.cur.State = "X"
		b.put(p)
		return false
	case strings.EqualFold(t, "Rx") || strings.EqualFold(t, "Tx"):
		b.sect = aoscxTx
		if strings.EqualFold(t, "Rx") {
			b.sect = aoscxRx
		}
		p.out.lines.add(l)
		return true
	case isAOSCXTableHeader(t):
		b.sect = aoscxTable
		p.out.lines.add(l)
		return true
	}
	switch b.sect {
	case aoscxTable:
		return b.tableRow(p, l, t)
	case aoscxRx, aoscxTx:
		if t[0] >= '0' && t[0] <= '9' {
			return b.itemLine(p, l, t)
		}
	}
	return false
}

// isAOSCXTableHeader reports whether t is the counters table's header.
func isAOSCXTableHeader(t string) bool {
	f := strings.Fields(t)
	return len(f) == 4 && f[0] == "Statistic" && f[1] == "RX" && f[2] == "TX" && f[3] == "Total"
}

// tableRow reads a row of the counters table: a label, then RX, TX and
// Total, each a count or n/a.
func (b *aoscxIface) tableRow(p *switchParser, l Line, t string) bool {
	if t[0] == '-' && isRule(t) {
		p.out.lines.add(l)
		return true
	}
	f := strings.Fields(t)
	label, n := aoscxLabel(f)
	if label == "" {
		if len(f) > 1 && isAOSCXCell(f[len(f)-1]) {
			p.out.lines.add(l) // a row of the table the rules do not read
			return true
		}
		return false
	}
	cells := f[n:]
	if bad := aoscxBadCell(cells); bad >= 0 || len(cells) != 3 {
		if bad < 0 {
			bad = len(cells) // the cell missing, or the first one too many
		}
		p.cut(l, fieldStart(l.Text, n+bad)+1, "AOS-CX `show interface`'s "+label+" row: RX, TX and Total, each a count (up to 2^63-1) or n/a")
		p.out.lines.add(l)
		return true
	}
	rx, tx := aoscxCount(cells[0]), aoscxCount(cells[1])
	ev := At(p.out.src, l)
	c := &b.cur
	switch label {
	case "Packets":
		c.RxOK, c.TxOK = rx, tx
	case "Dropped":
		c.RxDrop, c.TxDrop, c.Evidence, c.TxEvidence = rx, tx, ev, ev
	case "Errors":
		c.RxErr, c.TxErr = rx, tx
		if c.CRC < 0 {
			c.ErrEvidence = ev
		}
	case "CRC/FCS":
		c.CRC, c.ErrEvidence = rx, ev
	case "Runts":
		c.Runts = rx
	case "Giants":
		c.Giants = rx
	case "Pause Frames":
		b.pause(p, RX, rx, ev)
		b.pause(p, TX, tx, ev)
	}
	b.store(p, ev)
	p.out.lines.add(l)
	return true
}

// aoscxLabel is the label of a table row the reader reads ("Pause
// Frames") and the number of fields it takes, "" for another row.
func aoscxLabel(f []string) (string, int) {
	for _, r := range aoscxRows {
		w := strings.Fields(r)
		if len(f) >= len(w) && slices.Equal(f[:len(w)], w) {
			return r, len(w)
		}
	}
	return "", 0
}

// aoscxBadCell is the index of the first of cells that is no count of
// int64 nor n/a, -1 when all are.
func aoscxBadCell(cells []string) int {
	for i, c := range cells {
		if !isAOSCXCell(c) {
			return i
		}
	}
	return -1
}

// isAOSCXCell reports whether f is a cell of the counters table: a
// count that fits int64, or n/a.
func isAOSCXCell(f string) bool {
	if f == "n/a" {
		return true
	}
	_, err := strconv.ParseInt(f, 10, 64)
	return err == nil && f[0] != '-' && f[0] != '+'
}

// aoscxCount is a cell's count, -1 for n/a.
func aoscxCount(f string) int64 {
	v, err := strconv.ParseInt(f, 10, 64)
	if err != nil {
		return -1
	}
	return v
}

// itemLine reads a line of the old layout's Rx or Tx section.
func (b *aoscxIface) itemLine(p *switchParser, l Line, t string) bool {
	ev := At(p.out.src, l)
	rx, d := b.sect == aoscxRx, TX
	if rx {
		d = RX
	}
	read := false
	for _, it := range ifaceItems(t) {
		c := &b.cur
		switch it.label {
		case "total packets", "input packets", "output packets":
			b.count(portPackets, d, it.n, ev)
		case "errors", "input error", "input errors", "output error", "output errors":
			b.count(portErrors, d, it.n, ev)
		case "dropped":
			b.count(portDrops, d, it.n, ev)
		case "crc/fcs":
			if rx {
				c.CRC, c.ErrEvidence = it.n, ev
			}
		case "unicast packets", "multicast packets", "broadcast packets", "total bytes", "bytes", "collision":
		default:
			continue
		}
		read = true
	}
	return b.keep(p, l, ev, read)
}
