package sonic

import (
	"slices"
	"strings"
)

// ParseShowPFCPriority reads `show pfc priority` (`pfc show priority`) as
// sonic-utilities prints it, a table of each port's lossless priorities:
//
//	Interface    Lossless priorities
//	-----------  ---------------------
//	Ethernet0    3,4
//
// into PORT_QOS_MAP rows with pfc_enable, at the positions of the table
// (a port with no lossless priority has an empty pfc_enable). A multi-ASIC
// switch prints one table per namespace; they are read as one. ok is false
// when the text has no such table.
func ParseShowPFCPriority(name string, data []byte) (*ConfigDB, bool) {
	m := newPFCMap(name, data)
	in := false
	for i, raw := range m.db.lines {
		f := strings.Fields(raw)
		switch {
		case PFCPriorityHeader(f):
			in = false
			if i+1 < len(m.db.lines) && strings.HasPrefix(strings.TrimSpace(m.db.lines[i+1]), "---") {
				in = true
				m.tableAt(i + 1)
			}
		case !in || len(f) == 0 || strings.HasPrefix(f[0], "---"):
		default:
			port, v, ok := PFCPriorityRow(raw)
			if !ok {
				in = false
				continue
			}
			v.Line = i + 1
			m.set(port, v)
		}
	}
	return m.done()
}

// PFCPriorityHeader reports whether the fields of a line are the header
// of `show pfc priority`'s table.
func PFCPriorityHeader(f []string) bool {
	return len(f) == 3 && f[0] == "Interface" && f[1] == "Lossless" && f[2] == "priorities"
}

// PFCPriorityRow reads a row of `show pfc priority`'s table
// ("Ethernet0    3,4", or the port alone when it has no lossless
// priority): the port, and its priorities as a Value whose Col is where
// they stand (the column after the port, with empty Text, when there are
// none); Line is left for the caller. ok is false when the line is not a
// row: more than two fields, a port that is no interface name (SONiC's,
// or an alias in alias mode: a letter, then letters, digits and /_.:-),
// or priorities that are not a list of 0-7. This is the one reader of
// the rows: ParseShowPFCPriority (lint) and the doctor's switch parser
// both call it.
func PFCPriorityRow(raw string) (port string, prios Value, ok bool) {
	f := strings.Fields(raw)
	if len(f) == 0 || len(f) > 2 || !ifaceName(f[0]) {
		return "", Value{}, false
	}
	v := Value{Col: strings.Index(raw, f[0]) + len(f[0]) + 1}
	if len(f) == 2 {
		ps, ok := Range(f[1])
		if !ok || slices.Max(ps) > 7 {
			return "", Value{}, false
		}
		v.Text, v.Col = f[1], strings.LastIndex(raw, f[1])+1
	}
	return f[0], v, true
}

// ifaceName reports whether s can name an interface in a SONiC CLI
// table.
func ifaceName(s string) bool {
	if s == "" || len(s) > 64 || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("/_.:-", c)) {
			return false
		}
	}
	return true
}

// pfcMap collects the PORT_QOS_MAP pfc_enable rows a show command's PFC
// table gives, at the table's positions.
type pfcMap struct {
	db  *ConfigDB
	tab Table
	// table numbers the tables met, in[port] the table that set port.
	table int
	in    map[string]int
}

func newPFCMap(name string, data []byte) *pfcMap {
	db := newDB(name, "")
	db.lines = strings.Split(string(data), "\n")
	return &pfcMap{db: db, tab: Table{}, in: map[string]int{}}
}

// tableAt records where a table begins (the first one's place is the
// evidence).
func (m *pfcMap) tableAt(line int) {
	m.table++
	if _, ok := m.db.tablePos["PORT_QOS_MAP"]; !ok {
		m.db.tablePos["PORT_QOS_MAP"] = Value{Text: "PORT_QOS_MAP", Line: line, Col: 1}
	}
}

// set gives port its pfc_enable. A port listed twice in one table is a
// duplicate; in a later table it is the command run again (for one port,
// or after a change), the later state, as the doctor reads repeated
// tables.
func (m *pfcMap) set(port string, v Value) {
	if t, dup := m.in[port]; dup && t == m.table {
		m.db.Duplicates = append(m.db.Duplicates, Value{Text: "PORT_QOS_MAP|" + port, Line: v.Line, Col: 1})
	}
	m.in[port] = m.table
	m.tab[port] = map[string]Value{"pfc_enable": v}
}

// done returns the rows as a ConfigDB; ok is false when there are none.
func (m *pfcMap) done() (*ConfigDB, bool) {
	if len(m.tab) == 0 {
		return nil, false
	}
	m.db.Tables["PORT_QOS_MAP"] = m.tab
	return m.db, true
}
