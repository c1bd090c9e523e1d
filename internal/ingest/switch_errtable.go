package ingest

import (
	"strconv"
	"strings"
)

// Cisco NX-OS and IOS `show interface(s) counters errors`: tables of
// error counters, one row per port, each under its own header between
// rules of dashes; "--" is a counter the port does not have. Arista EOS
// prints one table of the same kind (Port FCS Align Symbol Rx Runts
// Giants Tx).
//
//	Port          Align-Err    FCS-Err   Xmit-Err    Rcv-Err  UnderSize OutDiscards
//	--------------------------------------------------------------------------------
//	Eth1/39                 0       2064          0       2064          0           0
//
//	Port         Stomped-CRC
//	Eth1/1                13450
//
// FCS-Err counts the frames this port received with a bad CRC: corrupted
// on its own link. Stomped-CRC (NX-OS) counts frames that arrived with a
// CRC a cut-through switch upstream stomped, having found them corrupt
// after it began to forward them: corrupted on another link.

// errColumns are the columns the tables' headers name (put reads FCS-Err,
// Rcv-Err, Xmit-Err, the discards and Stomped-CRC; the others are known
// and skipped).
var errColumns = map[string]bool{
	"Align-Err": true, "FCS-Err": true, "Xmit-Err": true, "Rcv-Err": true, "UnderSize": true, "OutDiscards": true,
	"Single-Col": true, "Multi-Col": true, "Late-Col": true, "Exces-Col": true, "Carri-Sen": true, "Runts": true,
	"Giants": true, "SQETest-Err": true, "Deferred-Tx": true, "IntMacTx-Er": true, "IntMacRx-Er": true, "Symbol-Err": true,
	"InDiscards": true, "Stomped-CRC": true, "OutDiscard": true,
	"FCS": true, "Align": true, "Symbol": true, "Rx": true, "Tx": true,
}

// errTable reads the tables while the parser is inside one.
type errTable struct {
	cols []string
	// at maps a port to its row in p.out.Ports, for the sections after
	// the first.
	at map[string]int
	// short is a row that ended short, held for the next line, which
	// holds the rest of it when the terminal wrapped the row (NX-OS's
	// last column on a line of its own); its line is shortAt.
	short   string
	shortAt Line
}

// errHeader returns the columns of a header line, nil for any other line.
func errHeader(t string) []string {
	f := strings.Fields(t)
	if len(f) < 2 || f[0] != "Port" {
		return nil
	}
	for _, c := range f[1:] {
		if !errColumns[c] {
			return nil
		}
	}
	// A header of the table's own: one of its error columns, not a
	// discards column alone.
	for _, c := range f[1:] {
		if strings.HasSuffix(c, "-Err") || c == "FCS" || c == "Stomped-CRC" || c == "Runts" || c == "Giants" || c == "InDiscards" {
			return f[1:]
		}
	}
	return nil
}

// feed reads l when it belongs to a table and reports whether it did.
func (e *errTable) feed(p *switchParser, l Line, t string) bool {
	if e.short != "" {
		first, at := e.short, e.shortAt
		e.short = ""
		if rest := strings.Fields(t); len(rest) > 0 && len(strings.Fields(first))+len(rest) == 1+len(e.cols) && !errPort(rest[0]) {
			// The rest of a wrapped row.
			e.row(p, at, first+" "+t)
			p.out.lines.add(l)
			return true
		}
		e.cutShort(p, at)
	}
	if cols := errHeader(t); cols != nil {
		e.cols = cols
		p.out.lines.add(l)
		return true
	}
	if e.cols == nil {
		return false
	}
	if t != "" && strings.Trim(t, "-") == "" {
		p.out.lines.add(l)
		return true
	}
	f := strings.Fields(t)
	if len(f) == 0 || !errPort(f[0]) {
		e.cols = nil
		return false
	}
	p.out.lines.add(l)
	if len(f) < 1+len(e.cols) {
		e.short, e.shortAt = strings.Clone(t), Line{Num: l.Num, Text: strings.Clone(l.Text)}
		return true
	}
	if len(f) != 1+len(e.cols) {
		e.cutShort(p, l)
		return true
	}
	e.row(p, l, t)
	return true
}

// cutShort reports a row of line l that does not hold the port and one
// count a column.
func (e *errTable) cutShort(p *switchParser, l Line) {
	p.cut(l, len(l.Text)+1, "a `show interface counters errors` row: the port and "+strconv.Itoa(len(e.cols))+" counters ("+strings.Join(e.cols, ", ")+")")
}

// end reports a row still held short when the input ends.
func (e *errTable) end(p *switchParser) {
	if e.short != "" {
		e.cutShort(p, e.shortAt)
		e.short = ""
	}
}

// row reads a row's port and counts t, of line l (its first, when the
// terminal wrapped it).
func (e *errTable) row(p *switchParser, l Line, t string) {
	f := strings.Fields(t)
	vals := make([]int64, len(e.cols))
	for i, s := range f[1:] {
		if s == "--" {
			vals[i] = -1
			continue
		}
		v, ok := switchNum(s)
		if !ok || v > 1<<62 {
			col := strings.Index(l.Text, s) + 1
			if col < 1 {
				// On the wrapped part: reported at the row's end.
				col = len(l.Text) + 1
			}
			p.cut(l, col, "a count or -- under "+e.cols[i])
			return
		}
		vals[i] = int64(v)
	}
	e.put(p, l, f[0], vals)
}

// put stores a row's counters in its port's PortCount.
func (e *errTable) put(p *switchParser, l Line, port string, vals []int64) {
	i, seen := e.at[port]
	if !seen {
		before := len(p.out.Ports)
		p.out.Ports = appendCapped(p.out.Ports, PortCount{Port: strings.Clone(port), RxOK: -1, RxErr: -1, RxDrop: -1, RxOver: -1, TxOK: -1, TxErr: -1, TxDrop: -1, TxOver: -1, CRC: -1, Stomped: -1, IOS: true, ErrTable: true, Evidence: At(p.out.src, l)}, maxSwitchRows, &p.out.Omitted)
		if len(p.out.Ports) == before {
			return
		}
		if e.at == nil {
			e.at = map[string]int{}
		}
		i = len(p.out.Ports) - 1
		e.at[port] = i
	}
	c := &p.out.Ports[i]
	ev := At(p.out.src, l)
	for k, col := range e.cols {
		v := vals[k]
		switch col {
		case "FCS-Err", "FCS":
			c.CRC = v
			if v > 0 {
				c.ErrEvidence = ev
			}
		case "Rcv-Err", "Rx":
			c.RxErr, c.RxErrCol = v, col
			if v > 0 && c.ErrEvidence.Line == 0 {
				c.ErrEvidence = ev
			}
		case "Xmit-Err", "Tx":
			c.TxErr = v
		case "OutDiscards", "OutDiscard":
			c.TxDrop = v
			if v > 0 {
				c.Evidence = ev
			}
		case "InDiscards":
			c.RxDrop = v
			if v > 0 {
				c.Evidence = ev
			}
		case "Stomped-CRC":
			c.Stomped, c.StompedEvidence = v, ev
		}
	}
}

// errPort reports a port name of the tables: NX-OS's (Eth1/1, Po700,
// mgmt0) and IOS's (Gi1/0/48, Te1/1/1, Hu1/0/49, Po12).
func errPort(s string) bool {
	if nxosPort(s) || strings.HasPrefix(s, "mgmt") {
		return true
	}
	i := 0
	for i < len(s) && (s[i] >= 'A' && s[i] <= 'Z' || s[i] >= 'a' && s[i] <= 'z') {
		i++
	}
	if i == 0 || i > 24 || i == len(s) {
		return false
	}
	for _, c := range s[i:] {
		if (c < '0' || c > '9') && c != '/' && c != '.' {
			return false
		}
	}
	return s[i] >= '0' && s[i] <= '9'
}
