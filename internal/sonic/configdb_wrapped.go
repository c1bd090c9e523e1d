package sonic

import (
	"bytes"
	"encoding/json"
	"strings"
)

// A config wrapped under one key: test harnesses and tools keep a whole
// CONFIG_DB below a key of their own (sonic-yang-models' sample config
// under "SAMPLE_CONFIG_DB_JSON", generic_config_updater's "running_data",
// config override tests' "running_config" and "golden_config", Ansible's
// "ansible_facts"). Read as a table, its tables would be rows whose
// fields are objects, skipped: the config would look empty of QoS.

// wrapper reports whether the value of the top-level key name, about to
// be read, is a wrapped config rather than a table: name is no table lint
// reads, and the object holds CONFIG_DB tables (or multi-ASIC namespaces
// that do), each an object of rows (objects). A table's rows named like
// tables (FLEX_COUNTER_TABLE's "PORT" and "QUEUE") hold fields, plain
// values, and a tool's settings keyed by table (generic_config_updater's
// validators: "PFC_WD": {"…": [...]}) hold lists: neither is a wrapper;
// nor is a table (a name as tables are written) with rows beside a table.
// An object of SONiC YANG modules alone (a sonic-yang-models test case,
// "BUFFER_PG_VALID": {"sonic-port:sonic-port": ..., ...}) is one config's
// instance data: a wrapper too. It returns the offset just past the object.
func (p *parser) wrapper(name string) (int, bool) {
	if p.wrapped || readTables[name] || yangName(name) || p.peek() != '{' {
		return 0, false
	}
	start := p.next()
	dec := json.NewDecoder(bytes.NewReader(p.data[start:]))
	var inner map[string]json.RawMessage
	err := dec.Decode(&inner)
	end := start + int(dec.InputOffset())
	*p.scanned += 2 * (end - start) // the object, then its tables again
	if err == nil && gcuCase(inner) {
		p.gcuCase = true
		return end, true
	}
	if err != nil || !holdsYANG(inner) && (!holdsTables(inner, true) || tableName(name) && holdsRows(inner)) {
		return 0, false
	}
	return end, true
}

// gcuCase reports whether an object is one test case of sonic-utilities'
// generic config updater tests (tests/generic_config_updater/files:
// patch_sorter_test_success.json's "ADD_RACK": {"desc": ...,
// "current_config": {tables}, "patch": [...], "expected_changes": [...]}):
// the switch's config is its current_config; the patch is what the test
// applies to it.
func gcuCase(obj map[string]json.RawMessage) bool {
	cur, ok := obj["current_config"]
	if _, patch := obj["patch"]; !ok || !patch {
		return false
	}
	var tables map[string]json.RawMessage
	return json.Unmarshal(cur, &tables) == nil && holdsTables(tables, true)
}

// holdsRows reports whether an object has a key that names neither a
// table nor a namespace: a row. A table with a table pasted among its rows
// (its } missing) is no wrapper, whose keys are tables alone.
func holdsRows(obj map[string]json.RawMessage) bool {
	for key := range obj {
		if !tableName(key) && !isNamespace(key) {
			return true
		}
	}
	return false
}

// holdsTables reports whether an object holds at least one CONFIG_DB
// table (an upper-case name) of rows, and, when it names tables lint
// reads, at least one of them holds rows alone (a malformed row in one is
// then the config's error to report, at its place); with namespaces, a
// multi-ASIC namespace's object counts as its tables do.
func holdsTables(obj map[string]json.RawMessage, namespaces bool) bool {
	tables, goodRead, badRead := 0, 0, 0
	for key, raw := range obj {
		if namespaces && isNamespace(key) {
			var ns map[string]json.RawMessage
			if json.Unmarshal(raw, &ns) == nil && holdsTables(ns, false) {
				tables++
			}
			continue
		}
		if !tableName(key) {
			continue
		}
		var rows map[string]json.RawMessage
		ok := json.Unmarshal(raw, &rows) == nil
		for _, row := range rows {
			if t := bytes.TrimLeft(row, " \t\r\n"); len(t) == 0 || t[0] != '{' {
				ok = false
			}
		}
		switch {
		case !ok && readTables[key]:
			badRead++
		case ok && readTables[key]:
			goodRead++
		}
		if ok && len(rows) > 0 {
			tables++
		}
	}
	return tables > 0 && (badRead == 0 || goodRead > 0)
}

// sub returns a parser of the value at data[start:end], with positions in
// the whole file.
func (p *parser) sub(start, end int) *parser {
	obj := p.data[start:end]
	*p.scanned += len(obj)
	in := &parser{name: p.name, data: obj, shift: p.shift, starts: p.starts, base: p.base + start, textLen: p.textLen,
		wrapped: p.wrapped, scanned: p.scanned, dec: json.NewDecoder(bytes.NewReader(obj))}
	in.dec.UseNumber()
	return in
}

// unwrap reads the wrapped config that starts at the next token and ends
// at end (its key written at off) as a config of its own (or the
// namespaces it holds), named for its key as a namespace is
// ("config_db.json running_config"), with positions in the whole file;
// the outer reader then skips it. A wrapper
// holds one config: keys in it are tables or namespaces, never wrappers
// again.
func (p *parser) unwrap(name string, off, end int) ([]*ConfigDB, error) {
	in := p.sub(p.next(), end)
	// A generic config updater test case holds its config one level
	// down, under current_config: its parser looks for that wrapper.
	in.wrapped, p.gcuCase = !p.gcuCase, false
	dbs, err := in.top()
	if err != nil {
		return nil, err
	}
	l, c := p.pos(off)
	for _, db := range dbs {
		db.Case = db.Case || !in.wrapped
		db.Wrapper, db.File = name, strings.TrimSpace(p.name+" "+name+" "+db.Namespace)
		db.WrapperAt = Value{Text: name, Line: l, Col: c}
	}
	if _, err := p.open(name); err != nil {
		return nil, err
	}
	p.unwrapped = true
	return dbs, p.skipRest(nil)
}
