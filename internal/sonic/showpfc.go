package sonic

import (
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
		case len(f) == 3 && f[0] == "Interface" && f[1] == "Lossless" && f[2] == "priorities":
			in = false
			if i+1 < len(m.db.lines) && strings.HasPrefix(strings.TrimSpace(m.db.lines[i+1]), "---") {
				in = true
				m.tableAt(i + 1)
			}
		case !in || len(f) == 0 || strings.HasPrefix(f[0], "---"):
		case len(f) > 2 || !strings.HasPrefix(f[0], "Ethernet") && !strings.HasPrefix(f[0], "PortChannel"):
			in = false
		default:
			v := Value{Line: i + 1, Col: strings.Index(raw, f[0]) + len(f[0]) + 1}
			if len(f) == 2 {
				v.Text, v.Col = f[1], strings.LastIndex(raw, f[1])+1
			}
			m.set(f[0], v)
		}
	}
	return m.done()
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
