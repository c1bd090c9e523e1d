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
	db := newDB(name, "")
	db.lines = strings.Split(string(data), "\n")
	tab := Table{}
	in := false
	for i, raw := range db.lines {
		f := strings.Fields(raw)
		switch {
		case len(f) == 3 && f[0] == "Interface" && f[1] == "Lossless" && f[2] == "priorities":
			in = false
			if i+1 < len(db.lines) && strings.HasPrefix(strings.TrimSpace(db.lines[i+1]), "---") {
				in = true
				if _, ok := db.tablePos["PORT_QOS_MAP"]; !ok {
					db.tablePos["PORT_QOS_MAP"] = Value{Text: "PORT_QOS_MAP", Line: i + 1, Col: 1}
				}
			}
		case !in || len(f) == 0 || strings.HasPrefix(f[0], "---"):
		case len(f) > 2 || !strings.HasPrefix(f[0], "Ethernet") && !strings.HasPrefix(f[0], "PortChannel"):
			in = false
		default:
			v := Value{Line: i + 1, Col: strings.Index(raw, f[0]) + len(f[0]) + 1}
			if len(f) == 2 {
				v.Text, v.Col = f[1], strings.LastIndex(raw, f[1])+1
			}
			if _, dup := tab[f[0]]; dup {
				db.Duplicates = append(db.Duplicates, Value{Text: "PORT_QOS_MAP|" + f[0], Line: i + 1, Col: 1})
			}
			tab[f[0]] = map[string]Value{"pfc_enable": v}
		}
	}
	if len(tab) == 0 {
		return nil, false
	}
	db.Tables["PORT_QOS_MAP"] = tab
	return db, true
}
