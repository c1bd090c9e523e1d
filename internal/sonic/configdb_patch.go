package sonic

import (
	"bytes"
	"encoding/json"
	"strings"
)

// A JSON Patch (RFC 6902) as SONiC's Generic Config Updater applies it
// (`config apply-patch FILE`): a list of operations whose paths name
// CONFIG_DB's tables, rows and fields, each behind its namespace on a
// multi-ASIC switch ("/asic0/PORT_QOS_MAP/Ethernet0", "/localhost/...").

// patchNext reports whether the list just opened is a JSON Patch: its
// first element is an object whose first key is one of an operation's, or
// one whose "value" or "from" comes first and that holds an "op" and a
// "path".
func (p *parser) patchNext() bool {
	start := p.next()
	if start >= len(p.data) || p.data[start] != '{' {
		return false
	}
	off := skipSpace(p.data, start+1)
	first := func(keys ...string) bool {
		for _, k := range keys {
			if strings.HasPrefix(string(p.data[off:min(len(p.data), off+len(k))]), k) {
				return true
			}
		}
		return false
	}
	if first(`"op"`, `"path"`) {
		return true
	}
	if !first(`"value"`, `"from"`) {
		return false
	}
	var op map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(p.data[start:]))
	err := dec.Decode(&op)
	*p.scanned += int(dec.InputOffset())
	return err == nil && op["op"] != nil && op["path"] != nil
}

// patch reads a JSON Patch after its '[': each "add" or "replace" writes
// its value, a whole table, a row or a field, into the config of its
// path's namespace (main for a path without one). What a "remove" (or a
// "move" or "copy") changes is the running config's, which the patch does
// not hold: it is kept in Skipped, named where lint says what it did not
// judge; a "remove", "move" or "copy" also drops what the patch itself
// wrote where it takes away or writes.
func (p *parser) patch(main *ConfigDB) ([]*ConfigDB, error) {
	main.Patch = true
	byNS := map[string]*ConfigDB{}
	var dbs []*ConfigDB
	for {
		t, off, err := p.token()
		if err != nil {
			return nil, err
		}
		if d, ok := t.(json.Delim); ok && d == ']' {
			return dbs, nil
		}
		if d, ok := t.(json.Delim); !ok || d != '{' {
			return nil, p.errAt(off, "JSON Patch: expected an operation ({\"op\": ..., \"path\": ...}), got %s", describe(t))
		}
		db := func(ns string, create bool) *ConfigDB {
			if ns == "" {
				return main
			}
			if byNS[ns] == nil && create {
				byNS[ns] = newDB(p.name, ns)
				byNS[ns].Patch = true
				dbs = append(dbs, byNS[ns])
			}
			return byNS[ns]
		}
		if err := p.patchOp(off, db); err != nil {
			return nil, err
		}
	}
}

// patchOp reads one operation after its '{' (at off). GCU's files write
// "op" and "path" before "value"; a "value" met first is skipped and read
// once the operation is known (RFC 6902 does not order the members). db
// gives the config of a namespace, made when create is set, nil otherwise
// when the patch wrote nothing there.
func (p *parser) patchOp(at int, db func(ns string, create bool) *ConfigDB) error {
	var op, path Value
	var ns, fromNS string
	var segs, fromSegs []string
	fromSet, valued := false, false
	early, earlyEnd := -1, 0 // a "value" read before its "op" or "path"
	for {
		k, off, ok, err := p.key()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch k {
		case "op", "path":
			v, err := p.value("JSON Patch " + k)
			if err != nil {
				return err
			}
			if k == "op" {
				op = v
				continue
			}
			path = v
			if ns, segs, err = p.patchPath(v, off); err != nil {
				return err
			}
		case "from":
			v, err := p.value("JSON Patch from")
			if err != nil {
				return err
			}
			if fromNS, fromSegs, err = p.patchPath(v, off); err != nil {
				return err
			}
			fromSet = true
		case "value":
			valued = true
			if op.Text == "" || path.Line == 0 {
				early = p.next()
				if err := p.skipValue(); err != nil {
					return err
				}
				earlyEnd = int(p.dec.InputOffset())
				continue
			}
			if op.Text != "add" && op.Text != "replace" {
				if err := p.skipValue(); err != nil {
					return err
				}
				continue
			}
			if err := p.patchValue(db(ns, true), segs, path, op.Text); err != nil {
				return err
			}
		default:
			if err := p.skipValue(); err != nil {
				return err
			}
		}
	}
	if op.Text == "" || path.Line == 0 {
		return p.errAt(at, "JSON Patch operation: expected \"op\" and \"path\"")
	}
	if early >= 0 && (op.Text == "add" || op.Text == "replace") {
		if err := p.sub(early, earlyEnd).patchValue(db(ns, true), segs, path, op.Text); err != nil {
			return err
		}
	}
	if op.Text == "test" {
		// A test changes nothing (RFC 6902 4.6): it only stops the patch
		// where the running config differs.
		return nil
	}
	if !valued || op.Text != "add" && op.Text != "replace" {
		path.Text = op.Text + " " + path.Text
		d := db(ns, true)
		d.Skipped = append(d.Skipped, path)
		switch op.Text {
		case "move":
			if from := db(fromNS, false); fromSet && from != nil {
				// A namespace the patch wrote nothing to has nothing
				// to take away, and no config of its own.
				patchRemove(from, fromSegs)
			}
			patchRemove(d, segs)
		case "remove", "copy":
			patchRemove(d, segs)
		}
	}
	return nil
}

// patchRemove drops what the patch's earlier operations wrote at segs
// when a later one takes it away or puts there what only the running
// config holds: a "remove" (RFC 6902 4.2: the target no longer exists),
// a "move"'s from and target, a "copy"'s target (4.4, 4.5).
func patchRemove(db *ConfigDB, segs []string) {
	switch len(segs) {
	case 0:
		clear(db.Tables)
	case 1:
		delete(db.Tables, segs[0])
	case 2:
		delete(db.Tables[segs[0]], segs[1])
	case 3:
		delete(db.Tables[segs[0]][segs[1]], strings.TrimSuffix(segs[2], "@"))
	}
}

// patchPath splits a path ("/asic0/QUEUE/Ethernet0|3/wred_profile") into
// its namespace and its CONFIG_DB segments, undoing JSON Pointer's
// escapes ("~1" for '/', "~0" for '~').
func (p *parser) patchPath(v Value, off int) (string, []string, error) {
	if v.Text != "" && v.Text[0] != '/' {
		return "", nil, p.errAt(off, "JSON Patch path %q: expected a JSON Pointer starting with '/'", v.Text)
	}
	var segs []string
	if v.Text != "" {
		segs = strings.Split(v.Text[1:], "/")
	}
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	if len(segs) > 0 && isNamespace(segs[0]) {
		return segs[0], segs[1:], nil
	}
	return "", segs, nil
}

// patchValue writes an "add" or "replace" (op) value at the path's
// segments: the whole config (no segment), a table, a row or a field. A
// path into a list ("/ACL_TABLE/EVERFLOW/ports/-"), or a field's value
// that is none in a table lint does not read, is kept in Skipped.
func (p *parser) patchValue(db *ConfigDB, segs []string, path Value, op string) error {
	skipped := Value{Text: op + " " + path.Text, Line: path.Line, Col: path.Col}
	// The value replaces what the path held (RFC 6902's add on an
	// existing member, and replace): read into a config, table or row
	// cleared first.
	switch len(segs) {
	case 0:
		if _, err := p.open("JSON Patch value at " + path.Text); err != nil {
			return err
		}
		clear(db.Tables)
		return p.tables(db, true)
	case 1:
		delete(db.Tables, segs[0])
		return p.entry(db, segs[0], p.next(), true)
	case 2:
		delete(db.Tables[segs[0]], segs[1])
		return p.flatRow(db, segs[0], segs[1], Value{Text: segs[0] + "|" + segs[1], Line: path.Line, Col: path.Col}, true)
	case 3:
		table, key, field := segs[0], segs[1], segs[2]
		v, err := p.value(table + "|" + key + "." + field)
		if err != nil {
			if readTables[table] {
				return err
			}
			db.Skipped = append(db.Skipped, skipped)
			return p.skipRest(err)
		}
		tab, ok := db.Tables[table]
		if !ok {
			tab = Table{}
			db.Tables[table] = tab
			db.tablePos[table] = path
		}
		if tab[key] == nil {
			tab[key] = map[string]Value{}
			db.keyPos[table+"|"+key] = Value{Text: key, Line: path.Line, Col: path.Col}
		}
		tab[key][strings.TrimSuffix(field, "@")] = v
		return nil
	}
	db.Skipped = append(db.Skipped, skipped)
	return p.skipValue()
}

// skipValue reads the next value whatever it is.
func (p *parser) skipValue() error {
	if _, _, err := p.token(); err != nil {
		return err
	}
	return p.skipRest(nil)
}
