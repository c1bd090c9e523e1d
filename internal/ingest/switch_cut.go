package ingest

import "strings"

// swRowShapes are the column counts of the SONiC tables whose rows begin
// with a port and a queue (or are all numbers after the port): a line that
// begins so and has fewer fields is a row the paste cut or wrapped.
var swRowShapes = map[swTable]struct {
	fields int
	cmd    string
}{
	swPFCRx: {9, "show pfc counters"},
	swPFCTx: {9, "show pfc counters"},
	swQueue: {6, "show queue counters"},
	swWRED:  {6, "show queue wredcounters"},
}

// cutRow records line l as a cut row of the current table when it begins
// as the table's rows do and ends short of its columns; it reports whether
// it did.
func (p *switchParser) cutRow(l Line, t string) bool {
	switch p.table {
	case swPorts:
		return p.cutPortRow(l, t)
	case swPGShared, swPGHeadroom, swPGDrop, swPGUntitled:
		return p.cutPGRow(l, t)
	case swWREDSum:
		return p.cutWREDSumRow(l, t)
	}
	shape, ok := swRowShapes[p.table]
	if !ok {
		return false
	}
	f := strings.Fields(t)
	// A port name has a letter: the rest of a wrapped row, all numbers,
	// is not taken for another row.
	if len(f) < 2 || len(f) >= shape.fields || !queuePortName(f[0]) || !strings.ContainsAny(f[0], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return false
	}
	typ, _ := splitQueueName(f[1])
	switch {
	case p.table == swPFCRx || p.table == swPFCTx:
		if _, ok := switchNum(f[1]); !ok {
			return false
		}
	case typ == "":
		return false
	}
	// SONiC keys a row by system port ("host|asic|port") only in a VOQ
	// chassis' queue counters (show queue counters --voq), whose queues
	// are VOQn: elsewhere such a line is no row of the table.
	if strings.Contains(f[0], "|") && (p.table != swQueue || typ != "VOQ") {
		return false
	}
	p.cut(l, strings.Index(l.Text, f[0])+1, "a `"+shape.cmd+"` row of "+itoa(shape.fields)+" columns (this one has "+itoa(len(f))+")")
	p.out.lines.add(l)
	return true
}

// cutPGRow records a per-PG table row (a port, then counts or N/A) with
// fewer cells than the header has PG columns.
func (p *switchParser) cutPGRow(l Line, t string) bool {
	f := strings.Fields(t)
	if len(f) < 2 || len(f) >= len(p.cols)+1 || !slashedName(f[0]) || !strings.ContainsAny(f[0], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return false
	}
	for _, c := range f[1:] {
		if _, ok := switchNum(c); !ok && c != "N/A" {
			return false
		}
	}
	p.cut(l, strings.Index(l.Text, f[0])+1, "a per-PG row of "+itoa(len(p.cols)+1)+" columns, the port and one cell under each of "+strings.Join(p.cols, " ")+" (this one has "+itoa(len(f))+")")
	p.out.lines.add(l)
	return true
}

// cutPortRow records a `show interfaces counters` row whose cells do
// not match its header's columns (a row cut or wrapped, or portstat's own
// misprint, sonic-utilities#751): a port, a STATE, then too few or too
// many cells to place.
func (p *switchParser) cutPortRow(l Line, t string) bool {
	f := strings.Fields(t)
	if len(f) < 3 || p.cols[0] != "IFACE" || !isIdentName(f[0]) || !strings.ContainsAny(f[0], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") || !fecState(f[1]) && f[1] != "UP" && f[1] != "DOWN" {
		return false
	}
	vals := portVals(f)
	expected := "a `show interfaces counters` row of " + itoa(len(p.cols)) + " columns (this one has " + itoa(len(vals)) + ")"
	if len(vals) == len(p.cols) {
		bad := misfit(p.cols, vals)
		if bad == "" {
			return false
		}
		expected = "a `show interfaces counters` row whose cells stand under their columns (" + bad + ": the row is shifted)"
	}
	p.cut(l, strings.Index(l.Text, f[0])+1, expected)
	p.out.lines.add(l)
	return true
}

// cut records line l as a row that ends short or holds what its table
// cannot, at column col, with what was expected there.
func (p *switchParser) cut(l Line, col int, expected string) {
	p.out.CutRows = appendCapped(p.out.CutRows, Garble{Line: l.Num, Col: col, Text: strings.Clone(l.Text), Expected: expected}, maxGarbled, &p.out.Omitted)
}
