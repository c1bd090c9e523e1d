package ingest

import (
	"cmp"
	"slices"
	"strings"

	"rocelab/internal/sonic"
)

// eosPFC keeps the lines of Arista EOS's `show priority-flow-control`
// table, from its legend to the end of its rows (a blank line, the next
// prompt, or a line that is no port's), for package sonic's reader of
// that table (the one lint uses) to read at the end.
type eosPFC struct {
	lines []Line
	// hosts are, line by line, the switch the prompt above the table names
	// ("" for none).
	hosts []string
	// in is set from the legend to the end of the table; rule once its
	// rule of dashes has been seen.
	in, rule bool
}

// maxEOSPFCLines bounds the table lines kept (a chassis lists a few
// hundred ports).
const maxEOSPFCLines = 4096

// eosLegend starts the table.
const eosLegend = "E: PFC Enabled, D: PFC Disabled"

// feed keeps l when it belongs to the table and reports whether it did;
// host is the switch the last prompt named.
func (e *eosPFC) feed(l Line, t, host string) bool {
	switch {
	case strings.HasPrefix(t, eosLegend):
		e.in, e.rule = true, false
	case !e.in:
		return false
	case t == "" || isEOSPrompt(t):
		if e.rule || t != "" {
			e.in = false
		}
		return false
	case t[0] == '-' && isRule(t):
		e.rule = true
	case e.rule && !strings.ContainsAny(strings.Fields(t)[0], "0123456789"):
		// A port row starts with its name (Et31, Ethernet1/1); another
		// table's title ends this one.
		e.in = false
		return false
	}
	if len(e.lines) >= maxEOSPFCLines {
		return false
	}
	e.lines = append(e.lines, Line{Num: l.Num, Text: strings.Clone(l.Text)})
	e.hosts = append(e.hosts, host)
	return true
}

// eosPromptHost returns the switch an EOS (or other CLI) prompt echoing a
// show command names: "leaf1#show interfaces counters queue", "leaf1>show
// …", "leaf1# show …".
func eosPromptHost(t string) (string, bool) {
	i := strings.IndexAny(t, "#>")
	if i <= 0 || !strings.HasPrefix(strings.TrimSpace(t[i+1:]), "show ") || !isIdentName(t[:i]) {
		return "", false
	}
	return t[:i], true
}

func isEOSPrompt(t string) bool {
	_, ok := eosPromptHost(t)
	return ok
}

// EOSPFCPort is a port of the EOS table: PFC on it or not, and on which
// priorities.
type EOSPFCPort struct {
	Port    string
	Enabled bool
	Prios   []int
	// Host is the switch the prompt above the table names ("" for none).
	Host     string
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
		p := EOSPFCPort{Port: port, Host: e.hosts[v.Line-1], Evidence: At(src, e.lines[v.Line-1])}
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
