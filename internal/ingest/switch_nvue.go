package ingest

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/nvue"
	"rocelab/internal/pos"
)

// nvueShow keeps the lines of NVIDIA Cumulus Linux's `nv show qos roce`
// (from its "operational  applied" header on) for package nvue's reader,
// the one lint uses, to read at the end, and those of `nv show interface
// <swp> qos roce counters`, which prints the same header; and the
// interface a pasted `nv show interface <swp> ...` command names, which
// its tables do not.
type nvueShow struct {
	// blocks are the tables, one per header, in the order pasted.
	blocks []nvueBlock
	in     bool
	// port is the interface of the last `nv show interface` command;
	// counters is whether the last `nv show` command was `... qos roce
	// counters`.
	port     string
	counters bool
}

// nvueBlock is one table under an "operational  applied" header, with
// the interface of the command above it ("" when none names one).
type nvueBlock struct {
	lines []Line
	port  string
	// counters is whether the command above it is `nv show interface
	// <swp> qos roce counters`.
	counters bool
	// cut is the first line past maxNVUELines (Num 0: none).
	cut Line
}

// maxNVUELines bounds the lines kept of one table (`nv show qos roce`
// prints about 60, the RoCE counters about 45).
const maxNVUELines = 1024

// feed copies l when it belongs to `nv show qos roce` and reports whether
// it did; the line stays for the other readers.
func (n *nvueShow) feed(l Line, t string) bool {
	if i := strings.Index(t, "nv show interface "); i >= 0 {
		if f := strings.Fields(t[i+len("nv show interface "):]); len(f) > 0 {
			n.port = strings.Clone(f[0])
		}
		n.in, n.counters = false, strings.Contains(t, " qos roce counters")
		return false
	}
	if strings.Contains(t, "nv show ") {
		n.counters = false
	}
	f := strings.Fields(t)
	switch {
	case len(f) >= 2 && f[0] == "operational" && f[1] == "applied":
		n.in = true
		n.blocks = append(n.blocks, nvueBlock{port: n.port, counters: n.counters})
	case !n.in:
		return false
	case strings.Contains(t, "@") && strings.Contains(t, "$ "):
		n.in = false // the next command's prompt
		return false
	}
	b := &n.blocks[len(n.blocks)-1]
	if len(b.lines) >= maxNVUELines {
		if b.cut.Num == 0 {
			b.cut = Line{Num: l.Num, Text: strings.Clone(l.Text), col: l.col}
		}
		return true
	}
	b.lines = append(b.lines, Line{Num: l.Num, Text: strings.Clone(l.Text)})
	return true
}

// garble places the reader's error on the input's own line: its line
// counts the kept lines from the table's header.
func garbleNVUE(lines []Line, err error) Garble {
	var g Garble
	if len(lines) > 0 {
		g = Garble{Line: lines[0].Num, Col: 1, Text: lines[0].Text}
	}
	msg := err.Error()
	var pe *pos.Error
	if errors.As(err, &pe) {
		msg = pe.Msg
		if pe.Line >= 1 && pe.Line <= len(lines) {
			g.Line, g.Col, g.Text = lines[pe.Line-1].Num, max(pe.Col, 1), lines[pe.Line-1].Text
		}
	}
	g.Expected = "`nv show qos roce` as NVUE prints it: " + msg
	return g
}

// read reads each table kept: `nv show qos roce` first, whose RoCE
// priority and classes the RoCE counters of a port (which name none) are
// then read with. A table longer than maxNVUELines is refused at its
// first line past the cap rather than read in part.
func (n *nvueShow) read(o *SwitchCounters) {
	var counters []nvueBlock
	for _, b := range n.blocks {
		switch {
		case len(b.lines) == 0:
		case b.cut.Num > 0:
			o.Garbled = append(o.Garbled, garbleAt(b.cut, 0, fmt.Sprintf("an `nv show` table of at most %d lines (this one, from line %d, goes on past them: pass each command's output once)", maxNVUELines, b.lines[0].Num)))
		case isNVUERoCECounters(b):
			counters = append(counters, b)
		default:
			readShowRoCE(o, b.lines)
		}
	}
	for _, b := range counters {
		readRoCECounters(o, b)
	}
}

// readShowRoCE gives the switch priorities `nv show qos roce` runs PFC on
// and the ECN thresholds of the traffic class RoCE's priority drains
// into, with their lines.
func readShowRoCE(o *SwitchCounters, lines []Line) {
	text := make([]string, len(lines))
	for i, l := range lines {
		text[i] = l.Text
	}
	c, err := nvue.ParseShowRoCE(o.src, []byte(strings.Join(text, "\n")))
	if err != nil {
		o.Garbled = append(o.Garbled, garbleNVUE(lines, err))
		return
	}
	at := func(v nvue.Value) (Evidence, bool) {
		if v.Line < 1 || v.Line > len(lines) {
			return Evidence{}, false
		}
		return At(o.src, lines[v.Line-1]), true
	}
	roce := nvueRoCEPrio
	var pfc []int
	var pfcEv Evidence
	if f := c.PFC[nvue.DefaultProfile]; f != nil {
		if ev, ok := at(f.PriosAt); ok {
			for _, p := range f.Prios {
				o.PFCPrios = append(o.PFCPrios, p)
				o.PFCPrioEvs = append(o.PFCPrioEvs, ev)
			}
			if len(f.Prios) > 0 {
				roce = f.Prios[0]
			}
			pfc, pfcEv = f.Prios, ev
		}
	}
	egress := func(sp int) int {
		if tc, err := strconv.Atoi(c.EgressMap[sp].Text); err == nil {
			return tc
		}
		return sp
	}
	tc := egress(roce)
	if o.NVUERoCE == nil {
		r := &NVUERoCE{Prio: roce, TC: tc, CNPTC: egress(nvueCNPPrio), Evidence: pfcEv}
		_, mode, modeAt := c.RoCE()
		r.Mode = mode
		if ev, ok := at(modeAt); ok && r.Evidence.Line == 0 {
			r.Evidence = ev
		}
		if !strings.HasPrefix(mode, "lossy") {
			for _, p := range pfc {
				if t := egress(p); !slices.Contains(r.Lossless, t) {
					r.Lossless = append(r.Lossless, t)
				}
			}
		}
		o.NVUERoCE = r
	}
	// enabled-tc gives one set of thresholds to every class it names:
	// the profile is named by all of them, and judged as RoCE's class's
	// (else the first one's: lossy-multi-tc marks 1, 2 and 3).
	cc := c.CC[nvue.DefaultProfile]
	var tcs []string
	for t := range 8 {
		if cc[t] != nil && cc[t].ECN.Text == "enable" {
			tcs = append(tcs, strconv.Itoa(t))
			if cc[tc] == nil {
				tc = t
			}
		}
	}
	e := cc[tc]
	if e == nil || len(tcs) == 0 {
		return
	}
	classes := "traffic class " + tcs[0]
	if len(tcs) > 1 {
		classes = "traffic classes " + strings.Join(tcs, ",")
	}
	_, mode, _ := c.RoCE()
	p := ECNProfile{Name: fmt.Sprintf("nv show qos roce congestion-control (%s)", classes), GreenMin: -1, GreenMax: -1, GreenDropProbability: -1, ECN: "ecn", Mode: mode,
		MinName: "min-threshold", MaxName: "max-threshold", ProbName: "probability", Units: "bytes (NVUE prints min-threshold and max-threshold in binary units: 146.48 KB is 150000 B)"}
	for _, x := range []struct {
		v   nvue.Value
		dst *int64
	}{{e.Min, &p.GreenMin}, {e.Max, &p.GreenMax}, {e.Prob, &p.GreenDropProbability}} {
		if v, err := strconv.ParseInt(x.v.Text, 10, 64); err == nil {
			*x.dst = v
			if ev, ok := at(x.v); ok {
				p.Evidence = append(p.Evidence, ev)
			}
		}
	}
	if len(p.Evidence) > 0 {
		o.ECN = appendCapped(o.ECN, p, maxSwitchRows, &o.Omitted)
	}
}

// nvuePFCRow reads a row of `nv show interface <swp> counters qos
// pfc-stats` (or the PFC Statistics table of `... counters qos`):
// switch-priority, rx-pause-frames, rx-pause-duration, tx-pause-frames,
// tx-pause-duration, for the interface its command names.
func (p *switchParser) nvuePFCRow(f []string, ev Evidence) bool {
	if len(f) != 5 {
		return false
	}
	prio, err := strconv.Atoi(f[0])
	rx, ok1 := switchNum(f[1])
	tx, ok2 := switchNum(f[3])
	if err != nil || prio < 0 || prio > 7 || !ok1 || !ok2 {
		return false
	}
	port := p.nvuePort()
	p.out.PFC = appendCapped(p.out.PFC, SwitchPFC{Port: port, Dir: RX, Prio: prio, Frames: rx, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	p.out.PFC = appendCapped(p.out.PFC, SwitchPFC{Port: port, Dir: TX, Prio: prio, Frames: tx, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	return true
}

// nvueQueueRow reads a row of `nv show interface <swp> counters qos
// egress-queue-stats` (or the Egress Queue Statistics table of `...
// counters qos`): per traffic class its frames and bytes sent, its
// unicast buffer discards and WRED discards, and on later releases its
// ECN-marked frames, for the interface its command names. A cell with a
// unit ("0 Bytes", "75.19 KB") is one cell; NVUE prints
// tx-uc-buffer-discards, a frame count, with a byte unit (76993 frames as
// "75.19 KB"), so it is read back to the precision shown and marked
// approximate when a unit scaled it.
func (p *switchParser) nvueQueueRow(l Line, f []string, ev Evidence) bool {
	cells, tc, ok := p.nvueNumberedRow(l, f, "egress-queue-stats")
	if !ok || cells == nil {
		return ok
	}
	port := p.nvuePort()
	q := QueueCount{Port: port, Queue: tc, Type: "UC", DropPkts: -1, DropBytes: -1, Evidence: ev}
	w := QueueWRED{Port: port, Queue: tc, Type: "UC", WREDDrop: -1, ECNMarks: -1, Evidence: ev}
	for i, c := range cells[1:] {
		v, ok := nvue.Size(c)
		if !ok {
			p.cut(l, strings.Index(l.Text, strings.Fields(c)[0])+1, "a count under "+p.cols[i+1])
			return true
		}
		switch p.cols[i+1] {
		case "tx-frames":
			q.Packets = uint64(v)
		case "tx-bytes":
			q.Bytes = uint64(v)
		case "tx-uc-buffer-discards":
			q.DropPkts, q.DropsApprox = v, strings.ContainsAny(c, "KMG")
		case "wred-discards":
			w.WREDDrop = v
		case "ecn-marked-frames":
			w.ECNMarks = v
		}
	}
	p.out.Queues = appendCapped(p.out.Queues, q, maxSwitchRows, &p.out.Omitted)
	if w.WREDDrop >= 0 || w.ECNMarks >= 0 {
		p.out.WRED = appendCapped(p.out.WRED, w, maxSwitchRows, &p.out.Omitted)
	}
	return true
}

// nvuePortRow reads a row of `nv show interface <swp> counters qos
// port-stats` (or the Qos Port Statistics table of `... counters qos`):
// a counter, named as the command prints it ("Pause Frames" in
// port-stats, "pause-frames" in `counters qos`), and its Receive and Transmit counts, "n/a"
// where the direction counts nothing. Pause frames are kept as the port's
// pause counter, priorities and 802.3x pause not told apart (Link); the
// ECN marks and multicast buffer discards are port totals over every
// traffic class, which egress-queue-stats gives per class, so they are
// not kept.
func (p *switchParser) nvuePortRow(l Line, f []string, ev Evidence) bool {
	if len(f) < 3 {
		return false
	}
	name := strings.ToLower(strings.Join(f[:len(f)-2], "-"))
	switch name {
	case "ecn-marked-packets", "mc-buffer-discards":
		return true
	case "pause-frames":
	default:
		return false
	}
	port := p.nvuePort()
	for i, d := range []Dir{RX, TX} {
		c := f[len(f)-2+i]
		if c == "n/a" {
			continue
		}
		v, ok := switchNum(c)
		if !ok {
			p.cut(l, strings.LastIndex(l.Text, c)+1, "a count or n/a under "+[]string{"Receive", "Transmit"}[i]+" of `nv show interface … counters qos port-stats`")
			return true
		}
		p.out.PFC = appendCapped(p.out.PFC, SwitchPFC{Port: port, Dir: d, Prio: AllPrios, Frames: v, Link: true, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	}
	return true
}

// nvuePort is the interface the pasted `nv show interface <swp> ...`
// command names, for tables that name none.
func (p *switchParser) nvuePort() string {
	if p.nv.port == "" {
		return "(interface not in the paste)"
	}
	return p.nv.port
}

// nvueNumberedRow splits a row of an NVUE counters table keyed by a
// traffic class or priority group (`counters qos <table>`) into its
// cells, a count and its unit being one, and gives its number. ok is
// false for a line that is no row of the table (it ends the table); a
// row short of or past the header's cells is reported as cut, with ok
// set and no cells.
func (p *switchParser) nvueNumberedRow(l Line, f []string, table string) (cells []string, n int, ok bool) {
	cells = nvueCells(f)
	n, err := strconv.Atoi(cells[0])
	if err != nil || n < 0 || n > 15 {
		return nil, 0, false
	}
	if len(cells) != len(p.cols) {
		p.cut(l, strings.Index(l.Text, f[0])+1, "an `nv show interface … counters qos "+table+"` row of "+itoa(len(p.cols))+" cells ("+strings.Join(p.cols, ", ")+"), a count with its unit being one")
		return nil, 0, true
	}
	return cells, n, true
}

// nvueCells joins a count and the unit NVUE prints after it ("0 Bytes")
// into one cell.
func nvueCells(f []string) []string {
	var cells []string
	for _, w := range f {
		if len(cells) > 0 && nvueUnit(w) {
			cells[len(cells)-1] += " " + w
			continue
		}
		cells = append(cells, w)
	}
	return cells
}

// nvueIngressRow reads a row of `nv show interface <swp> counters qos
// ingress-buffer-stats` (or the Ingress Buffer Statistics table of `...
// counters qos`): per priority group the frames received and the frames
// discarded for want of buffer, rx-buffer-discards and
// rx-shared-buffer-discards, which NVUE prints with a byte unit as it
// does tx-uc-buffer-discards. The larger of the two is kept as the PG's
// ingress drops: whether the shared discards are part of the others the
// output does not say, so the count is at least what was dropped.
func (p *switchParser) nvueIngressRow(l Line, f []string, ev Evidence) bool {
	cells, pg, ok := p.nvueNumberedRow(l, f, "ingress-buffer-stats")
	if !ok || cells == nil {
		return ok
	}
	var drops int64
	var approx bool
	for i, c := range cells[1:] {
		v, ok := nvue.Size(c)
		if !ok {
			p.cut(l, strings.Index(l.Text, strings.Fields(c)[0])+1, "a count under "+p.cols[i+1])
			return true
		}
		if strings.HasSuffix(p.cols[i+1], "buffer-discards") && v >= drops {
			drops, approx = v, strings.ContainsAny(c, "KMG")
		}
	}
	port := p.nvuePort()
	p.out.PGDrops = appendCapped(p.out.PGDrops, PGDrop{Port: port, PG: pg, Packets: uint64(drops), Approx: approx, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	return true
}

// nvueUnit reports whether w is a unit NVUE prints after a count.
func nvueUnit(w string) bool {
	switch w {
	case "B", "Bytes", "KB", "MB", "GB":
		return true
	}
	return false
}
