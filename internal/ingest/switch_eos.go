package ingest

import (
	"cmp"
	"slices"
	"strings"

	"rocelab/internal/sonic"
)

// eosPFC keeps the lines of Arista EOS's `show priority-flow-control`
// table, from its legend to the blank line after its rows, for package
// sonic's reader of that table (the one lint uses) to read at the end.
type eosPFC struct {
	lines []Line
	// in is set from the legend to the end of the table; rule once its
	// rule of dashes has been seen.
	in, rule bool
}

// maxEOSPFCLines bounds the table lines kept (a chassis lists a few
// hundred ports).
const maxEOSPFCLines = 4096

// eosLegend starts the table.
const eosLegend = "E: PFC Enabled, D: PFC Disabled"

// feed keeps l when it belongs to the table and reports whether it did.
func (e *eosPFC) feed(l Line, t string) bool {
	switch {
	case strings.HasPrefix(t, eosLegend):
		e.in, e.rule = true, false
	case !e.in:
		return false
	case t == "":
		if e.rule {
			e.in = false
		}
		return false
	case t[0] == '-' && isRule(t):
		e.rule = true
	}
	if len(e.lines) >= maxEOSPFCLines {
		return false
	}
	e.lines = append(e.lines, Line{Num: l.Num, Text: strings.Clone(l.Text)})
	return true
}

// EOSPFCPort is a port of the EOS table: PFC on it or not, and on which
// priorities.
type EOSPFCPort struct {
	Port     string
	Enabled  bool
	Prios    []int
	Evidence Evidence
}

// read gives the ports sonic's reader finds in the kept lines, in input
// order.
func (e *eosPFC) read(src string) []EOSPFCPort {
	if len(e.lines) == 0 {
		return nil
	}
	text := make([]string, len(e.lines))
	for i, l := range e.lines {
		text[i] = l.Text
	}
	db, ok := sonic.ParseEOSPriorityFlowControl(src, []byte(strings.Join(text, "\n")))
	if !ok {
		return nil
	}
	var out []EOSPFCPort
	for port, row := range db.Tables["PORT_QOS_MAP"] {
		v := row["pfc_enable"]
		if v.Line < 1 || v.Line > len(e.lines) {
			continue
		}
		p := EOSPFCPort{Port: port, Evidence: At(src, e.lines[v.Line-1])}
		if v.Text != "" {
			p.Prios, p.Enabled = sonic.Range(v.Text)
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b EOSPFCPort) int { return cmp.Compare(a.Evidence.Line, b.Evidence.Line) })
	return out
}

// LosslessPrios returns the priorities the switch says PFC is enabled on,
// Onyx's `show roce`, EOS's and NX-OS's enabled ports together, with the
// lines that say so.
func (s *SwitchCounters) LosslessPrios() ([]int, []Evidence) {
	prios, evs := slices.Clone(s.PFCPrios), slices.Clone(s.PFCPrioEvs)
	add := func(ps []int, ev Evidence) {
		for _, q := range ps {
			if !slices.Contains(prios, q) {
				prios = append(prios, q)
				evs = append(evs, ev)
			}
		}
	}
	for _, e := range s.EOSPFC {
		add(e.Prios, e.Evidence)
	}
	for _, n := range s.NXOSPFC {
		add(n.Prios, n.Evidence)
	}
	return prios, evs
}
