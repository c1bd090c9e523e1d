package sonic

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// SONiC YANG instance data, as RFC 7951 JSON writes it and RESTCONF, gNMI
// and sonic-yang-models' tests speak it:
//
//	{"sonic-port:sonic-port": {"sonic-port:PORT": {"PORT_LIST": [{"name": "Ethernet0", ...}]}}}
//
// read back into CONFIG_DB tables as sonic-yang-mgmt's reverse translation
// (sonic_yang_ext.py _revXlateYangtoConfigDB) does: the module's container
// holds one container per table; a list's entries are the table's rows,
// keyed by the list's key leaves joined with "|", their other leaves the
// fields; a "Type 1" map list's inner list (DSCP_TO_TC_MAP_LIST's
// DSCP_TO_TC_MAP, CABLE_LENGTH_LIST's CABLE_LENGTH) gives one field per
// entry, its key leaf the field's name and its other leaf the value; a
// container inside the table's is a row of that name (DEVICE_METADATA's
// localhost). A RESTCONF answer for one table or list starts at the
// table's container ("sonic-port:PORT") or the list ("sonic-port:PORT_LIST").
// The key leaves of each list are the models' (yangTables); a module or a
// node lint has no table for is named as not judged, never dropped.

// A yangList is one list in a table's container.
type yangList struct {
	name string
	keys []string
	// ifname is set where sonic-mgmt-common's models (models/yang/sonic,
	// cvl/testdata/schema) key the same list, for the same CONFIG_DB key
	// (PORT|{ifname}, BUFFER_PG|{ifname}|{pg_num}), on the leaf "ifname"
	// in place of the first of keys: it is read as that key leaf.
	ifname bool
	// mapKey and mapValue are the leaves of a Type 1 map list's inner
	// list (named as the table): each entry is the field mapKey's value
	// set to mapValue's.
	mapKey, mapValue string
}

// A yangTable is one CONFIG_DB table as a SONiC YANG model writes it.
type yangTable struct {
	module, table string
	lists         []yangList
	// rows are the containers in the table's container, each one row.
	rows []string
}

// yangTables are the tables lint reads (and the QoS maps beside them),
// from sonic-buildimage src/sonic-yang-models/yang-models at 086b03bd;
// TestYANGTablesMatchModels checks each against the models copied to
// testdata/yang.
var yangTables = []yangTable{
	{module: "sonic-port", table: "PORT", lists: []yangList{{name: "PORT_LIST", keys: []string{"name"}, ifname: true}}},
	{module: "sonic-device_metadata", table: "DEVICE_METADATA", rows: []string{"localhost", "bmc"}},
	{module: "sonic-port-qos-map", table: "PORT_QOS_MAP", lists: []yangList{{name: "PORT_QOS_MAP_LIST", keys: []string{"ifname"}}}},
	{module: "sonic-dscp-tc-map", table: "DSCP_TO_TC_MAP", lists: []yangList{{name: "DSCP_TO_TC_MAP_LIST", keys: []string{"name"}, mapKey: "dscp", mapValue: "tc"}}},
	{module: "sonic-dot1p-tc-map", table: "DOT1P_TO_TC_MAP", lists: []yangList{{name: "DOT1P_TO_TC_MAP_LIST", keys: []string{"name"}, mapKey: "dot1p", mapValue: "tc"}}},
	{module: "sonic-tc-priority-group-map", table: "TC_TO_PRIORITY_GROUP_MAP", lists: []yangList{{name: "TC_TO_PRIORITY_GROUP_MAP_LIST", keys: []string{"name"}, mapKey: "tc", mapValue: "pg"}}},
	{module: "sonic-tc-queue-map", table: "TC_TO_QUEUE_MAP", lists: []yangList{{name: "TC_TO_QUEUE_MAP_LIST", keys: []string{"name"}, mapKey: "tc", mapValue: "qindex"}}},
	{module: "sonic-pfc-priority-queue-map", table: "MAP_PFC_PRIORITY_TO_QUEUE", lists: []yangList{{name: "MAP_PFC_PRIORITY_TO_QUEUE_LIST", keys: []string{"name"}, mapKey: "pfc_priority", mapValue: "qindex"}}},
	{module: "sonic-pfc-priority-priority-group-map", table: "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", lists: []yangList{{name: "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP_LIST", keys: []string{"name"}, mapKey: "pfc_priority", mapValue: "pg"}}},
	{module: "sonic-tc-dscp-map", table: "TC_TO_DSCP_MAP", lists: []yangList{{name: "TC_TO_DSCP_MAP_LIST", keys: []string{"name"}, mapKey: "tc", mapValue: "dscp"}}},
	{module: "sonic-buffer-pool", table: "BUFFER_POOL", lists: []yangList{{name: "BUFFER_POOL_LIST", keys: []string{"name"}}}},
	{module: "sonic-buffer-profile", table: "BUFFER_PROFILE", lists: []yangList{{name: "BUFFER_PROFILE_LIST", keys: []string{"name"}}}},
	{module: "sonic-buffer-pg", table: "BUFFER_PG", lists: []yangList{{name: "BUFFER_PG_LIST", keys: []string{"port", "pg_num"}, ifname: true}}},
	{module: "sonic-buffer-queue", table: "BUFFER_QUEUE", lists: []yangList{
		{name: "BUFFER_QUEUE_LIST", keys: []string{"port", "qindex"}},
		{name: "VOQ_BUFFER_QUEUE_LIST", keys: []string{"hostname", "asic_name", "port", "qindex"}}}},
	{module: "sonic-buffer-port-ingress-profile-list", table: "BUFFER_PORT_INGRESS_PROFILE_LIST", lists: []yangList{{name: "BUFFER_PORT_INGRESS_PROFILE_LIST_LIST", keys: []string{"port"}}}},
	{module: "sonic-buffer-port-egress-profile-list", table: "BUFFER_PORT_EGRESS_PROFILE_LIST", lists: []yangList{{name: "BUFFER_PORT_EGRESS_PROFILE_LIST_LIST", keys: []string{"port"}}}},
	{module: "sonic-default-lossless-buffer-parameter", table: "DEFAULT_LOSSLESS_BUFFER_PARAMETER", lists: []yangList{{name: "DEFAULT_LOSSLESS_BUFFER_PARAMETER_LIST", keys: []string{"name"}}}},
	{module: "sonic-lossless-traffic-pattern", table: "LOSSLESS_TRAFFIC_PATTERN", lists: []yangList{{name: "LOSSLESS_TRAFFIC_PATTERN_LIST", keys: []string{"name"}}}},
	{module: "sonic-cable-length", table: "CABLE_LENGTH", lists: []yangList{{name: "CABLE_LENGTH_LIST", keys: []string{"name"}, mapKey: "port", mapValue: "length"}}},
	{module: "sonic-wred-profile", table: "WRED_PROFILE", lists: []yangList{{name: "WRED_PROFILE_LIST", keys: []string{"name"}}}},
	{module: "sonic-queue", table: "QUEUE", lists: []yangList{
		{name: "QUEUE_LIST", keys: []string{"ifname", "qindex"}},
		{name: "VOQ_QUEUE_LIST", keys: []string{"hostname", "asic_name", "ifname", "qindex"}}}},
	{module: "sonic-scheduler", table: "SCHEDULER", lists: []yangList{{name: "SCHEDULER_LIST", keys: []string{"name"}}}},
	{module: "sonic-pfcwd", table: "PFC_WD", lists: []yangList{{name: "PFC_WD_LIST", keys: []string{"ifname"}}}},
}

// yangModule returns the tables of a module lint has a mapping for.
func yangModule(module string) []*yangTable {
	var ts []*yangTable
	for i := range yangTables {
		if yangTables[i].module == module {
			ts = append(ts, &yangTables[i])
		}
	}
	return ts
}

// yangNode finds node (a table's container or one of its lists) in a
// module's tables.
func yangNode(module, node string) (*yangTable, *yangList) {
	for _, t := range yangModule(module) {
		if t.table == node {
			return t, nil
		}
		for i := range t.lists {
			if t.lists[i].name == node {
				return t, &t.lists[i]
			}
		}
	}
	return nil, nil
}

// openConfig reports a module-qualified name of an OpenConfig model.
func openConfig(name string) bool { return strings.HasPrefix(name, "openconfig-") }

// holdsYANG reports whether an object holds SONiC YANG modules and no
// CONFIG_DB table or namespace: the object (a sonic-yang-models test case,
// its expected error's "eStrKey" beside the modules) is one config's
// instance data.
func holdsYANG(obj map[string]json.RawMessage) bool {
	modules := 0
	for key := range obj {
		switch {
		case yangName(key) && !openConfig(key):
			modules++
		case tableName(key) || isNamespace(key) || openConfig(key):
			return false
		}
	}
	return modules > 0
}

// inModule strips the module prefix from a child's name, which RFC 7951
// writes only where the module changes; a prefix of another module is
// reported (ok false).
func inModule(module, name string) (string, bool) {
	m, node, q := strings.Cut(name, ":")
	if !q {
		return name, true
	}
	return node, m == module
}

// notRead names a YANG node lint has no mapping for, at where it is, and
// skips its value: it is listed as not judged.
func (p *parser) notRead(db *ConfigDB, what string, off int, why string) error {
	l, c := p.pos(off)
	db.Skipped = append(db.Skipped, Value{Text: what + " (" + why + ")", Line: l, Col: c})
	if _, _, err := p.token(); err != nil {
		return err
	}
	return p.skipRest(nil)
}

// yangTop reads the value of a top-level SONiC YANG name "module:node":
// the module's container, a table's container or a list.
func (p *parser) yangTop(db *ConfigDB, name string, off int) error {
	db.YANG = true
	module, node, _ := strings.Cut(name, ":")
	if node == module {
		if len(yangModule(module)) == 0 {
			return p.notRead(db, name, off, "a YANG module lint has no CONFIG_DB mapping for: not read")
		}
		return p.members(name, func(child string, coff int) error {
			table, own := inModule(module, child)
			if !own {
				return p.errAt(coff, "%q in %q: expected a container of module %s (a table such as %s:%s)", child, name, module, module, yangModule(module)[0].table)
			}
			if t, _ := yangNode(module, table); t != nil && t.table == table {
				return p.yangTable(db, t, child, coff)
			}
			return p.notRead(db, name+"/"+child, coff, "not a table of "+module+" lint knows: not read")
		})
	}
	t, l := yangNode(module, node)
	switch {
	case t == nil:
		return p.notRead(db, name, off, "a YANG node lint has no CONFIG_DB mapping for: not read")
	case l == nil:
		return p.yangTable(db, t, name, off)
	}
	p.tableAt(db, t.table, off)
	return p.yangList(db, t, l)
}

// tableAt notes where a table is first written.
func (p *parser) tableAt(db *ConfigDB, table string, off int) Table {
	tab, ok := db.Tables[table]
	if !ok {
		tab = Table{}
		db.Tables[table] = tab
		l, c := p.pos(off)
		db.tablePos[table] = Value{Text: table, Line: l, Col: c}
	}
	return tab
}

// yangTable reads a table's container: its lists and its row containers.
func (p *parser) yangTable(db *ConfigDB, t *yangTable, name string, off int) error {
	if p.peek() == '[' {
		return p.errAt(p.next(), "%s: a list where sonic-yang-models' %s writes a container (of lists or rows), as only sonic-mgmt-common's CVL test schema writes a table (its PORT_QOS_MAP): not read", name, t.module)
	}
	tab := p.tableAt(db, t.table, off)
	return p.members(name, func(child string, coff int) error {
		node, own := inModule(t.module, child)
		i := slices.IndexFunc(t.lists, func(l yangList) bool { return l.name == node })
		switch {
		case own && i >= 0:
			return p.yangList(db, t, &t.lists[i])
		case own && slices.Contains(t.rows, node):
			l, c := p.pos(coff)
			if _, dup := tab[node]; dup {
				db.Duplicates = append(db.Duplicates, Value{Text: t.table + "|" + node, Line: l, Col: c})
			}
			db.keyPos[t.table+"|"+node] = Value{Text: node, Line: l, Col: c}
			row := map[string]Value{}
			tab[node] = row
			return p.row(db, t.table, t.table+"|"+node, row, false)
		}
		return p.notRead(db, t.table+"/"+child, coff, "not a list of "+t.module+":"+t.table+" lint knows: not read")
	})
}

// members opens the object named what and calls each with every member's
// key and where it is.
func (p *parser) members(what string, each func(key string, off int) error) error {
	if _, err := p.open(what); err != nil {
		return err
	}
	for {
		key, off, ok, err := p.key()
		if err != nil || !ok {
			return err
		}
		if err := each(key, off); err != nil {
			return err
		}
	}
}

// yangList reads a list's entries, each a row of the table.
func (p *parser) yangList(db *ConfigDB, t *yangTable, l *yangList) error {
	return p.elements(l.name, "a list of entries ([{...}])", func() error { return p.yangEntry(db, t, l) })
}

// elements reads a JSON list, calling each at every element; what and
// want name the list and what it should hold when it is none.
func (p *parser) elements(what, want string, each func() error) error {
	tok, off, err := p.token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return p.errAt(off, "%s: expected %s, got %s", what, want, describe(tok))
	}
	for p.peek() != ']' {
		if err := each(); err != nil {
			return err
		}
	}
	_, _, err = p.token()
	return err
}

// yangEntry reads one list entry into the row its key leaves name.
func (p *parser) yangEntry(db *ConfigDB, t *yangTable, l *yangList) error {
	off := p.next()
	// names are where each map field's name is (CABLE_LENGTH's ports).
	keys, row, names := map[string]Value{}, map[string]Value{}, map[string]Value{}
	var dups []Value
	err := p.members(l.name+" entry", func(leaf string, loff int) error {
		lf, lc := p.pos(loff)
		name, own := inModule(t.module, leaf)
		what := l.name + "." + leaf
		switch {
		case !own:
			return p.errAt(loff, "%s: a leaf of another module in a %s entry", what, l.name)
		case l.mapKey != "" && name == t.table:
			return p.yangMap(l, row, names, &dups)
		case p.peek() == '{' || p.peek() == '[' && p.listOfObjects():
			return p.notRead(db, what, loff, "a container or list inside a list entry: not read")
		}
		v, err := p.value(what)
		if err != nil {
			return err
		}
		dst := row
		if l.ifname && name == "ifname" {
			name = l.keys[0]
		}
		if slices.Contains(l.keys, name) {
			dst = keys
		}
		if _, dup := dst[name]; dup {
			dups = append(dups, Value{Text: name, Line: lf, Col: lc})
		}
		dst[name] = v
		return nil
	})
	if err != nil {
		return err
	}
	parts := make([]string, len(l.keys))
	for i, k := range l.keys {
		v, ok := keys[k]
		if !ok {
			or := ""
			if l.ifname && i == 0 {
				or = ` (or "ifname", as sonic-mgmt-common's models name it)`
			}
			return p.errAt(off, "%s entry: no %q%s, a key leaf of the list (key \"%s\"): the row's CONFIG_DB key %s|%s is made of them", l.name, k, or, strings.Join(l.keys, " "), t.table, strings.Join(l.keys, "|"))
		}
		parts[i] = v.Text
	}
	key := strings.Join(parts, "|")
	if msg := badKey(t.table, key); msg != "" {
		return p.errAt(off, "%s", msg)
	}
	what := t.table + "|" + key
	for _, d := range dups {
		d.Text = what + "." + d.Text
		db.Duplicates = append(db.Duplicates, d)
	}
	tab := p.tableAt(db, t.table, off)
	at := keys[l.keys[0]]
	if _, dup := tab[key]; dup {
		db.Duplicates = append(db.Duplicates, Value{Text: what, Line: at.Line, Col: at.Col})
	}
	db.keyPos[what] = Value{Text: key, Line: at.Line, Col: at.Col}
	if t.table == "CABLE_LENGTH" {
		for port, at := range names {
			db.keyPos[what+"|"+port] = at
		}
	}
	tab[key] = row
	return nil
}

// yangMap reads a Type 1 map list's inner list into row: each entry's
// mapKey value is a field, its mapValue the field's value; names keeps
// where each field's name is.
func (p *parser) yangMap(l *yangList, row, names map[string]Value, dups *[]Value) error {
	return p.elements(l.name, fmt.Sprintf("a list of {%q, %q} entries", l.mapKey, l.mapValue), func() error {
		eoff := p.next()
		var k, v Value
		err := p.members(l.name+" map entry", func(leaf string, loff int) error {
			x, err := p.value(l.name + "." + leaf)
			switch {
			case err != nil:
				return err
			case leaf == l.mapKey:
				k = x
			case leaf == l.mapValue:
				v = x
			default:
				return p.errAt(loff, "%q in a %s map entry: expected only %q and %q", leaf, l.name, l.mapKey, l.mapValue)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if k.Text == "" || !v.Given() {
			return p.errAt(eoff, "%s map entry: expected both %q and %q", l.name, l.mapKey, l.mapValue)
		}
		if _, dup := row[k.Text]; dup {
			*dups = append(*dups, k)
		}
		row[k.Text], names[k.Text] = v, k
		return nil
	})
}

// listOfObjects reports whether the next value is a list whose first
// element is an object.
func (p *parser) listOfObjects() bool {
	off := p.next()
	if off >= len(p.data) || p.data[off] != '[' {
		return false
	}
	off = skipSpace(p.data, off+1)
	return off < len(p.data) && p.data[off] == '{'
}

// openConfigMsg refuses OpenConfig instance data.
func openConfigMsg(name string) string {
	return fmt.Sprintf("%q: an OpenConfig module-qualified name: this is OpenConfig instance data, not SONiC's CONFIG_DB or its YANG models (sonic-port:sonic-port, sonic-queue:sonic-queue, ...): lint reads config_db.json and SONiC YANG instance data; `show runningconfiguration all` prints the settings as CONFIG_DB tables", name)
}
