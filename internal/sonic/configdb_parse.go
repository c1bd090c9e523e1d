package sonic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"rocelab/internal/pos"
)

// The config_db grammar over the token reader: the top level (one config,
// a multi-ASIC dump, a configlet), tables, flat "TABLE|key" rows, fields
// and their values, with duplicates and skipped entries recorded.

func (p *parser) top() ([]*ConfigDB, error) {
	t, off, err := p.token()
	if err != nil {
		return nil, err
	}
	main := newDB(p.name, "")
	var dbs []*ConfigDB
	switch d, _ := t.(json.Delim); d {
	case '[':
		if p.patchNext() {
			if dbs, err = p.patch(main); err != nil {
				return nil, err
			}
			break
		}
		if err := p.configlet(main); err != nil {
			return nil, err
		}
	case '{':
		if dbs, err = p.objectTop(main); err != nil {
			return nil, err
		}
	default:
		return nil, p.errAt(off, "config_db.json: expected an object ({...}), got %s", describe(t))
	}
	if p.dec.More() {
		return nil, p.errAt(p.next(), "unexpected data after the top-level object")
	}
	if off := p.next(); off < len(p.data) {
		return nil, p.errAt(off, "unexpected data after the top-level object")
	}
	// Beside wrapped configs, the top level's other keys (a test's
	// parameters, a patch) are a config only if they hold a table lint
	// reads.
	if len(dbs) == 0 || len(main.Duplicates) > 0 || len(main.Tables) > 0 && (!p.unwrapped || slices.ContainsFunc(slices.Collect(maps.Keys(main.Tables)), func(t string) bool { return readTables[t] })) {
		dbs = append([]*ConfigDB{main}, dbs...)
	}
	return dbs, nil
}

// objectTop reads the top-level object after its '{': the tables of main,
// each namespace of a multi-ASIC dump into a ConfigDB of its own, and so
// each config a wrapper key holds.
func (p *parser) objectTop(main *ConfigDB) ([]*ConfigDB, error) {
	var dbs []*ConfigDB
	wrapped := map[string]bool{}
	for {
		name, off, ok, err := p.key()
		if err != nil {
			return nil, err
		}
		if !ok {
			return dbs, nil
		}
		if isNamespace(name) && p.peek() == '{' {
			ns := newDB(p.name, name)
			if _, err := p.open(name); err != nil {
				return nil, err
			}
			if err := p.tables(ns, false); err != nil {
				return nil, err
			}
			if len(ns.Tables) > 0 {
				dbs = append(dbs, ns)
			}
			continue
		}
		if end, ok := p.wrapper(name); ok {
			inner, err := p.unwrap(name, off, end)
			if err != nil {
				return nil, err
			}
			if wrapped[name] && len(inner) > 0 {
				// Given twice: the later replaces the earlier, as
				// JSON readers keep the last value.
				dbs = slices.DeleteFunc(dbs, func(db *ConfigDB) bool { return db.Wrapper == name })
				l, c := p.pos(off)
				inner[0].Duplicates = append(inner[0].Duplicates, Value{Text: name, Line: l, Col: c})
			}
			wrapped[name] = true
			dbs = append(dbs, inner...)
			continue
		}
		if wrapped[name] {
			// A wrapper given again with a value that is no config:
			// the later replaces the earlier, the value read below
			// (and reported skipped) as main's.
			dbs = slices.DeleteFunc(dbs, func(db *ConfigDB) bool { return db.Wrapper == name })
			l, c := p.pos(off)
			main.Duplicates = append(main.Duplicates, Value{Text: name, Line: l, Col: c})
		}
		if err := p.entry(main, name, off, false); err != nil {
			return nil, err
		}
	}
}

// configlet reads a list of table objects after its '['.
func (p *parser) configlet(db *ConfigDB) error {
	for {
		t, off, err := p.token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok && d == ']' {
			return nil
		}
		if d, ok := t.(json.Delim); !ok || d != '{' {
			return p.errAt(off, "configlet: expected an object of tables ({...}) in the list, got %s", describe(t))
		}
		if err := p.tables(db, true); err != nil {
			return err
		}
	}
}

// tables reads table entries up to the closing '}' of their object. With
// merge (a configlet's later element), a table or row given again updates
// the earlier one, as configlet does, rather than replacing it.
func (p *parser) tables(db *ConfigDB, merge bool) error {
	for {
		name, off, ok, err := p.key()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if err := p.entry(db, name, off, merge); err != nil {
			return err
		}
	}
}

// entry reads one top-level entry: a table, or a "TABLE|key" row of a flat
// dump. An element of a list of APPL_DB entries ("OP": "SET") or of a JSON
// Patch ("op", "path") is refused for what it is.
func (p *parser) entry(db *ConfigDB, name string, off int, merge bool) error {
	l, c := p.pos(off)
	switch name {
	case "OP":
		return p.errAt(off, "an APPL_DB entry (\"OP\", as swssconfig files write them), not CONFIG_DB: lint reads config_db.json")
	case "op", "path":
		return p.errAt(off, "a JSON Patch operation (%q, as `config apply-patch` takes them), not CONFIG_DB: lint reads config_db.json", name)
	}
	if yangName(name) {
		if openConfig(name) {
			return p.errAt(off, "%s", openConfigMsg(name))
		}
		return p.yangTop(db, name, off)
	}
	if table, key, flat := strings.Cut(name, "|"); flat {
		// A flat dump (sonic-cfggen --print-data, redis dumps of
		// CONFIG_DB): "TABLE|key": {fields}.
		return p.flatRow(db, table, key, Value{Text: name, Line: l, Col: c}, merge)
	}
	tab, seen := db.Tables[name]
	if seen && !merge {
		db.Duplicates = append(db.Duplicates, Value{Text: name, Line: l, Col: c})
	}
	if !seen || !merge {
		tab = Table{}
		db.tablePos[name] = Value{Text: name, Line: l, Col: c}
	}
	if err := p.table(db, name, tab, merge); err != nil {
		return err
	}
	db.Tables[name] = tab
	return nil
}

// flatRow reads the fields of one "TABLE|key" entry of a flat dump.
func (p *parser) flatRow(db *ConfigDB, table, key string, at Value, merge bool) error {
	if msg := badKey(table, key); msg != "" {
		return &pos.Error{File: p.name, Line: at.Line, Col: at.Col, Msg: msg}
	}
	tab, ok := db.Tables[table]
	if !ok {
		tab = Table{}
		db.Tables[table] = tab
		db.tablePos[table] = at
	}
	return p.putRow(db, table, tab, key, at, at, merge)
}

// putRow reads the fields of tab's row at key into it (with merge, over
// the row given before), noting it at keyAt and, given before without
// merge, as a duplicate at dupAt.
func (p *parser) putRow(db *ConfigDB, table string, tab Table, key string, dupAt, keyAt Value, merge bool) error {
	row, dup := tab[key]
	if dup && !merge {
		db.Duplicates = append(db.Duplicates, dupAt)
	}
	db.keyPos[table+"|"+key] = keyAt
	if !dup || !merge {
		row = map[string]Value{}
	}
	if err := p.row(db, table, table+"|"+key, row, merge); err != nil {
		return err
	}
	tab[key] = row
	return nil
}

// yangName reports a module-qualified name of SONiC's YANG models as
// RFC 7951's JSON writes it ("sonic-port:sonic-port",
// "sonic-scheduler:SCHEDULER", "sonic-device_metadata:DEVICE_METADATA",
// "openconfig-qos:qos"): no CONFIG_DB table
// or key is one (an IPv6 address's colons follow hex digits).
func yangName(s string) bool {
	module, node, ok := strings.Cut(s, ":")
	if !ok || !strings.HasPrefix(module, "sonic-") && !strings.HasPrefix(module, "openconfig-") || node == "" || !isLetter(node[0]) {
		return false
	}
	return !strings.ContainsFunc(module, func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' && r != '_' }) &&
		!strings.ContainsAny(node, ":/|")
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// yangMsg refuses a YANG module-qualified name found as a row of a
// CONFIG_DB table.
func yangMsg(table, name string) string {
	return fmt.Sprintf("%q as a row of %s: a YANG module-qualified name: SONiC YANG instance data (as RESTCONF, gNMI and sonic-yang-models' tests write it) is read at the top level or as a test case's object of modules, not inside a CONFIG_DB table", name, table)
}

// applForm ends the message refusing APPL_DB's forms.
const applForm = "this is APPL_DB content, what buffermgrd and orchagent are told; lint reads CONFIG_DB (config_db.json, `show runningconfiguration all`)"

// badKey says why a key of a table lint reads is no CONFIG_DB key, "" when
// it is one: an empty port name in PORT_QOS_MAP, or a priority group or
// queue after a colon ("Ethernet0:3-4"), APPL_DB's separator where
// CONFIG_DB writes "Ethernet0|3-4".
func badKey(table, key string) string {
	if msg := emptyPortName(table, key); msg != "" {
		return msg
	}
	switch table {
	case "BUFFER_PG", "BUFFER_QUEUE", "QUEUE":
		if port, ids, ok := strings.Cut(key, ":"); ok && !strings.Contains(key, "|") {
			return fmt.Sprintf("%s key %q: a port and its %s joined by a colon are APPL_DB's form (CONFIG_DB writes %q): %s", table, key, portKeyIDs[table], port+"|"+ids, applForm)
		}
	}
	return ""
}

// portKeyIDs names what follows the port in a table's "port|ids" key.
var portKeyIDs = map[string]string{"BUFFER_PG": "priority groups", "BUFFER_QUEUE": "queues", "QUEUE": "queue"}

// splitKeyTables are the tables lint reads whose keys have parts, which
// config_facts returns nested at the first '|' (see nestedRows): the
// port-keyed ones, and PORTCHANNEL_MEMBER ("PortChannel0001|Ethernet0"),
// whose members the port-channel rule reads.
var splitKeyTables = map[string]bool{"BUFFER_PG": true, "BUFFER_QUEUE": true, "QUEUE": true, "PORTCHANNEL_MEMBER": true}

// emptyPortName says why a PORT_QOS_MAP key is no port list: orchagent
// splits it on commas, and an empty name ("", ",", "Ethernet0,") is no
// port.
func emptyPortName(table, key string) string {
	if table != "PORT_QOS_MAP" || !slices.Contains(strings.Split(key, ","), "") {
		return ""
	}
	return fmt.Sprintf("PORT_QOS_MAP key %q: expected a port name or a comma-separated list of port names (or \"global\"), got an empty name", key)
}

func (p *parser) table(db *ConfigDB, name string, tab Table, merge bool) error {
	off, err := p.open(name)
	if err != nil {
		if readTables[name] {
			return err
		}
		l, c := p.pos(off)
		db.Skipped = append(db.Skipped, Value{Text: name, Line: l, Col: c})
		return p.skipRest(err)
	}
	for {
		key, off, ok, err := p.key()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if yangName(key) {
			return p.errAt(off, "%s", yangMsg(name, key))
		}
		if readTables[key] && (readTables[name] || tableName(name) && p.objectOfObjects()) {
			return p.errAt(off, "%s|%s: the table %s as a row of %s: a } is missing before it, to close %s", name, key, key, name, name)
		}
		if splitKeyTables[name] && !strings.Contains(key, "|") && p.nestedRows() {
			if err := p.nested(db, name, tab, key, merge); err != nil {
				return err
			}
			continue
		}
		if err := p.tableRow(db, name, tab, key, off, merge); err != nil {
			return err
		}
	}
}

// tableRow reads the row of tab at key, written at off.
func (p *parser) tableRow(db *ConfigDB, name string, tab Table, key string, off int, merge bool) error {
	if msg := badKey(name, key); msg != "" {
		return p.errAt(off, "%s", msg)
	}
	l, c := p.pos(off)
	return p.putRow(db, name, tab, key, Value{Text: name + "|" + key, Line: l, Col: c}, Value{Text: key, Line: l, Col: c}, merge)
}

// nestedRows reports whether the next value is a key's first part holding
// the rows its second parts name, as sonic-mgmt's config_facts module
// (ansible/library/config_facts.py, format_config) splits a row's key at
// its first '|': "BUFFER_PG": {"Ethernet0": {"3-4": {"profile": ...}}}
// for "BUFFER_PG|Ethernet0|3-4". CONFIG_DB's fields hold strings or
// lists, never objects; sonic-db-dump's row wrapper, whose "value" holds
// the fields, is no such object. It is asked in splitKeyTables only: in
// the others an object for a field stays the error it is, and the odd
// shapes of the tables lint does not read stay skipped.
func (p *parser) nestedRows() bool {
	if !p.objectOfObjects() {
		return false
	}
	off := skipSpace(p.data, p.next()+1)
	return !bytes.HasPrefix(p.data[off:], []byte(`"value"`))
}

// nested reads the rows a key's first part first holds, each the row of
// first|second.
func (p *parser) nested(db *ConfigDB, name string, tab Table, first string, merge bool) error {
	if _, err := p.open(name + "|" + first); err != nil {
		return err
	}
	for {
		second, off, ok, err := p.key()
		if err != nil || !ok {
			return err
		}
		if err := p.tableRow(db, name, tab, first+"|"+second, off, merge); err != nil {
			return err
		}
	}
}

// dumpKeys are the keys sonic-db-dump (and redis-dump) write around a
// hash's fields: {"expireat": ..., "ttl": ..., "type": "hash", "value":
// {fields}}. `show techsupport` saves CONFIG_DB so (dump/CONFIG_DB.json).
var dumpKeys = map[string]bool{"expireat": true, "ttl": true, "type": true}

// row reads one row's fields. In a table lint does not read, a row that is
// not an object, or a field that is not a value, is skipped. A field whose
// value is null, as sonic-cfggen's --print-data writes an attribute the
// minigraph leaves out (`"deployment_id": null`), is read as not written
// in any table (replacing a value given before it) and kept in db.Nulls:
// ConfigDBConnector stores it as the text "None", which lint names where
// it judges the field; a value given after the null replaces it. A row in
// sonic-db-dump's wrapper is read from its "value" object, and the
// wrapper's own keys are dropped. A field name ending in '@' is a list
// Redis keeps comma-joined (ConfigDBConnector's convention): the name is
// read without it.
func (p *parser) row(db *ConfigDB, table, what string, row map[string]Value, merge bool) error {
	off, err := p.open(what)
	if err != nil {
		if readTables[table] {
			return err
		}
		l, c := p.pos(off)
		db.Skipped = append(db.Skipped, Value{Text: what, Line: l, Col: c})
		return p.skipRest(err)
	}
	// wrapper holds what this object set under the dump's keys, and what
	// the row held under those names before, while it may be a wrapper.
	type prior struct {
		v   Value
		had bool
	}
	wrapper, maybeDump, wrapped := map[string]prior{}, !p.inDump, false
	// nulled holds the fields this object gave as null: no longer in
	// row, still given.
	nulled := map[string]bool{}
	for {
		field, off, ok, err := p.key()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if maybeDump && field == "value" && p.peek() == '{' {
			for k, was := range wrapper {
				if was.had {
					row[k] = was.v
				} else {
					delete(row, k)
				}
			}
			p.inDump = true
			err := p.row(db, table, what, row, merge)
			p.inDump = false
			if err != nil {
				return err
			}
			maybeDump, wrapped = false, true
			continue
		}
		if wrapped && dumpKeys[field] {
			if _, err := p.value(what + "." + field); err != nil {
				return err
			}
			continue
		}
		if maybeDump && dumpKeys[field] {
			if _, noted := wrapper[field]; !noted {
				v, had := row[field]
				wrapper[field] = prior{v, had}
			}
		} else {
			maybeDump = false
		}
		field = strings.TrimSuffix(field, "@")
		l, c := p.pos(off)
		if table == "CABLE_LENGTH" {
			db.keyPos[what+"|"+field] = Value{Text: field, Line: l, Col: c}
		}
		if _, dup := row[field]; (dup || nulled[field]) && !merge {
			db.Duplicates = append(db.Duplicates, Value{Text: what + "." + field, Line: l, Col: c})
		}
		if p.peek() == 'n' {
			if _, _, err := p.token(); err != nil {
				return err
			}
			delete(row, field)
			nulled[field] = true
			db.Nulls = append(db.Nulls, Value{Text: what + "." + field, Line: l, Col: c})
			continue
		}
		if nulled[field] || merge {
			// A value after a null replaces it, as the later key does.
			db.Nulls = slices.DeleteFunc(db.Nulls, func(v Value) bool { return v.Text == what+"."+field })
			delete(nulled, field)
		}
		v, err := p.value(what + "." + field)
		if err != nil {
			if readTables[table] {
				return err
			}
			db.Skipped = append(db.Skipped, Value{Text: what + "." + field, Line: l, Col: c})
			if err := p.skipRest(err); err != nil {
				return err
			}
			continue
		}
		row[field] = v
	}
}

// value reads a field value: a string, number or boolean, or a list of
// them (joined with commas, as SONiC stores lists in Redis).
func (p *parser) value(what string) (Value, error) {
	t, off, err := p.token()
	if err != nil {
		return Value{}, err
	}
	l, c := p.pos(off)
	v := Value{Line: l, Col: c}
	switch x := t.(type) {
	case string:
		v.Text = unref(x)
	case json.Number:
		v.Text = x.String()
	case bool:
		v.Text = fmt.Sprint(x)
	case json.Delim:
		if x != '[' {
			return v, p.errAt(off, "%s: expected a string, number or list, got an object", what)
		}
		var items []string
		var bad error
		for {
			t, off, err := p.token()
			if err != nil {
				return v, err
			}
			if d, ok := t.(json.Delim); ok && d == ']' {
				break
			}
			switch y := t.(type) {
			case string:
				items = append(items, unref(y))
			case json.Number:
				items = append(items, y.String())
			default:
				if bad == nil {
					bad = p.errAt(off, "%s: expected strings or numbers in the list, got %s", what, describe(t))
				}
				if err := p.skipRest(bad); err != nil {
					return v, err
				}
			}
		}
		p.lastDelim = 0
		if bad != nil {
			return v, bad
		}
		v.Text = strings.Join(items, ",")
	default:
		return v, p.errAt(off, "%s: expected a string, got %s", what, describe(t))
	}
	return v, nil
}

// unref turns the reference form config_db used before SONiC 202111,
// "[DSCP_TO_TC_MAP|AZURE]" (a list: "[BUFFER_PROFILE|a],[BUFFER_PROFILE|b]"),
// into the plain name the newer form writes ("AZURE"; "a,b"). A list
// mixing the forms, "[BUFFER_PROFILE|a],b", gives its names alike ("a,b");
// writtenTables reads the form of each item from the file. A colon
// after the table name, "[TC_TO_PRIORITY_GROUP_MAP:default]", is read
// alike: orchagent's Orch::parseReference took ':' as well as '|' until
// 202111, and vendor scripts (sonic-buildimage's Asterfusion CX564P-N
// breakout_interface.py) write it into config_db.json.
func unref(s string) string {
	if !strings.Contains(s, "[") {
		return s
	}
	parts := strings.Split(s, ",")
	bracketed := false
	for i, x := range parts {
		if _, name, ok := refItem(strings.TrimSpace(x)); ok {
			parts[i], bracketed = name, true
		}
	}
	if !bracketed {
		return s
	}
	return strings.Join(parts, ",")
}

// refItem splits one reference written in the bracket form, "[TABLE|name]"
// or "[TABLE:name]", into its table and name; ok is false for any other
// text.
func refItem(x string) (table, name string, ok bool) {
	if len(x) < 4 || x[0] != '[' || x[len(x)-1] != ']' {
		return "", "", false
	}
	table, name, ok = strings.Cut(x[1:len(x)-1], "|")
	if t, n, isColon := strings.Cut(x[1:len(x)-1], ":"); !ok && isColon && tableName(t) {
		table, name, ok = t, n, true
	}
	return table, name, ok
}
