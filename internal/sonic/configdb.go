// Package sonic reads a SONiC config_db.json (or a fragment of one, such as
// the qos.json and buffers.json SONiC renders) with the position of every
// value, and exposes the QoS tables RoCE depends on: DSCP_TO_TC_MAP,
// TC_TO_PRIORITY_GROUP_MAP, TC_TO_QUEUE_MAP, PORT_QOS_MAP, BUFFER_POOL,
// BUFFER_PROFILE, BUFFER_PG, WRED_PROFILE, QUEUE, SCHEDULER, PFC_WD, PORT
// and CABLE_LENGTH.
package sonic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// MaxFileBytes bounds a config_db.json read into memory.
const MaxFileBytes = 256 << 20

// An Error is a problem in a config_db.json at a line and column.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg) }

// A Value is one field value with where it is.
type Value struct {
	Text      string
	Line, Col int
}

// A Table is one config_db table: key → field → value.
type Table map[string]map[string]Value

// ConfigDB is a parsed config_db.json.
type ConfigDB struct {
	File string
	// Tables maps a table name to its rows.
	Tables map[string]Table
	// Duplicates are keys the file gives twice: a table, a row or a
	// field. As SONiC's loaders (Python's json) do, the later one wins;
	// Text names what was replaced ("QUEUE|Ethernet0|3").
	Duplicates []Value
	// Skipped are the entries of tables lint does not read that are not
	// rows of fields (a VERSIONS string, an object-valued field): kept
	// out, not refused.
	Skipped []Value
	// tablePos is where each table's name is.
	tablePos map[string]Value
	lines    []string
}

// ReadTable reports whether lint reads the table (and Parse insists on
// its shape).
func ReadTable(name string) bool { return readTables[name] }

// readTables are the tables whose shape Parse insists on; any other
// table is read as far as it is rows of fields, and what is not is
// skipped (ACL rules, telemetry settings, a VERSIONS string).
var readTables = map[string]bool{
	"DSCP_TO_TC_MAP": true, "TC_TO_PRIORITY_GROUP_MAP": true, "TC_TO_QUEUE_MAP": true, "MAP_PFC_PRIORITY_TO_QUEUE": true,
	"PORT_QOS_MAP": true, "BUFFER_POOL": true, "BUFFER_PROFILE": true, "BUFFER_PG": true, "BUFFER_QUEUE": true,
	"WRED_PROFILE": true, "QUEUE": true, "SCHEDULER": true, "PFC_WD": true, "PORT": true, "CABLE_LENGTH": true,
	"DEVICE_METADATA": true,
}

// Read reads a config_db.json from r. name is used in messages.
func Read(name string, r io.Reader) (*ConfigDB, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, &Error{File: name, Line: 1, Col: 1, Msg: fmt.Sprintf("larger than %d MiB: not a config_db.json", MaxFileBytes>>20)}
	}
	return Parse(name, data)
}

// Parse parses config_db.json text, or a fragment of its tables without
// the enclosing braces as documents and threads show them ("QUEUE": {...},
// "WRED_PROFILE": {...}); positions are those of the text as given.
func Parse(name string, data []byte) (*ConfigDB, error) {
	body, shift := data, 0
	if IsFragment(data) {
		body = make([]byte, 0, len(data)+2)
		body = append(append(append(body, '{'), data...), '}')
		shift = 1
	}
	p := &parser{name: name, data: body, shift: shift, dec: json.NewDecoder(bytes.NewReader(body))}
	p.dec.UseNumber()
	p.index()
	db := &ConfigDB{File: name, Tables: map[string]Table{}, tablePos: map[string]Value{}}
	if err := p.top(db); err != nil {
		return nil, err
	}
	db.lines = strings.Split(string(data), "\n")
	return db, nil
}

type parser struct {
	name   string
	data   []byte
	dec    *json.Decoder
	starts []int // byte offset of each line start
	// lastDelim is the opening delimiter of the value token last read
	// ('{' or '['), 0 for a scalar; lastSyntax is set when the last
	// error was a JSON syntax error.
	lastDelim  json.Delim
	lastSyntax bool
	// shift is 1 when data is a fragment wrapped in the braces it lacked:
	// offsets into data are one past those of the text as given.
	shift int
}

// IsFragment reports whether data is CONFIG_DB tables without the
// enclosing braces: it starts with a quoted table name followed by a colon
// and an opening brace.
func IsFragment(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(t) < 2 || t[0] != '"' {
		return false
	}
	end := bytes.IndexByte(t[1:], '"')
	if end < 1 {
		return false
	}
	rest := bytes.TrimLeft(t[end+2:], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return false
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	return len(rest) > 0 && rest[0] == '{'
}

func (p *parser) index() {
	p.starts = []int{0}
	for i, c := range p.data[p.shift : len(p.data)-p.shift] {
		if c == '\n' {
			p.starts = append(p.starts, i+1)
		}
	}
}

// pos converts a byte offset into data into a 1-based line and column (in
// bytes) of the text as given.
func (p *parser) pos(off int) (int, int) {
	off -= p.shift
	off = max(0, min(off, len(p.data)-2*p.shift))
	l := sort.Search(len(p.starts), func(i int) bool { return p.starts[i] > off }) - 1
	return l + 1, off - p.starts[l] + 1
}

// next returns the offset where the next token starts.
func (p *parser) next() int {
	off := int(p.dec.InputOffset())
	for off < len(p.data) {
		switch p.data[off] {
		case ' ', '\t', '\r', '\n', ':', ',':
			off++
			continue
		}
		break
	}
	return off
}

func (p *parser) errAt(off int, format string, args ...any) *Error {
	l, c := p.pos(off)
	return &Error{File: p.name, Line: l, Col: c, Msg: fmt.Sprintf(format, args...)}
}

// token reads a token, turning decoder errors into positioned ones.
func (p *parser) token() (json.Token, int, error) {
	off := p.next()
	t, err := p.dec.Token()
	p.lastDelim, p.lastSyntax = 0, err != nil
	if d, ok := t.(json.Delim); ok && (d == '{' || d == '[') {
		p.lastDelim = d
	}
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, off, p.errAt(int(se.Offset), "invalid JSON: %s", se.Error())
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, off, p.errAt(len(p.data), "invalid JSON: unexpected end of input")
		}
		return nil, off, p.errAt(off, "invalid JSON: %v", err)
	}
	return t, off, nil
}

// open expects '{'.
func (p *parser) open(what string) (int, error) {
	t, off, err := p.token()
	if err != nil {
		return off, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return off, p.errAt(off, "%s: expected an object ({...}), got %s", what, describe(t))
	}
	return off, nil
}

// key reads an object key, or reports the object's end.
func (p *parser) key() (string, int, bool, error) {
	t, off, err := p.token()
	if err != nil {
		return "", off, false, err
	}
	if d, ok := t.(json.Delim); ok && d == '}' {
		return "", off, false, nil
	}
	k, ok := t.(string)
	if !ok {
		return "", off, false, p.errAt(off, "expected a key, got %s", describe(t))
	}
	return k, off, true, nil
}

func (p *parser) top(db *ConfigDB) error {
	if _, err := p.open("config_db.json"); err != nil {
		return err
	}
	for {
		name, off, ok, err := p.key()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		l, c := p.pos(off)
		if table, key, flat := strings.Cut(name, "|"); flat {
			// A flat dump (sonic-cfggen --print-data, redis dumps of
			// CONFIG_DB): "TABLE|key": {fields}.
			if err := p.flatRow(db, table, key, Value{Text: name, Line: l, Col: c}); err != nil {
				return err
			}
			continue
		}
		if _, dup := db.Tables[name]; dup {
			db.Duplicates = append(db.Duplicates, Value{Text: name, Line: l, Col: c})
		}
		db.tablePos[name] = Value{Text: name, Line: l, Col: c}
		tab := Table{}
		if err := p.table(db, name, tab); err != nil {
			return err
		}
		db.Tables[name] = tab
	}
	if p.dec.More() {
		return p.errAt(p.next(), "unexpected data after the top-level object")
	}
	if off := p.next(); off < len(p.data) {
		return p.errAt(off, "unexpected data after the top-level object")
	}
	return nil
}

// flatRow reads the fields of one "TABLE|key" entry of a flat dump.
func (p *parser) flatRow(db *ConfigDB, table, key string, at Value) error {
	tab, ok := db.Tables[table]
	if !ok {
		tab = Table{}
		db.Tables[table] = tab
		db.tablePos[table] = at
	}
	if _, dup := tab[key]; dup {
		db.Duplicates = append(db.Duplicates, at)
	}
	row := map[string]Value{}
	if err := p.row(db, table, table+"|"+key, row); err != nil {
		return err
	}
	tab[key] = row
	return nil
}

func (p *parser) table(db *ConfigDB, name string, tab Table) error {
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
		if _, dup := tab[key]; dup {
			l, c := p.pos(off)
			db.Duplicates = append(db.Duplicates, Value{Text: name + "|" + key, Line: l, Col: c})
		}
		row := map[string]Value{}
		if err := p.row(db, name, name+"|"+key, row); err != nil {
			return err
		}
		tab[key] = row
	}
}

// row reads one row's fields. In a table lint does not read, a row that is
// not an object, or a field that is not a value, is skipped.
func (p *parser) row(db *ConfigDB, table, what string, row map[string]Value) error {
	off, err := p.open(what)
	if err != nil {
		if readTables[table] {
			return err
		}
		l, c := p.pos(off)
		db.Skipped = append(db.Skipped, Value{Text: what, Line: l, Col: c})
		return p.skipRest(err)
	}
	for {
		field, off, ok, err := p.key()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		l, c := p.pos(off)
		if _, dup := row[field]; dup {
			db.Duplicates = append(db.Duplicates, Value{Text: what + "." + field, Line: l, Col: c})
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

// skipRest recovers from a shape error in a table lint does not read: the
// token that did not fit has been read, so the rest of its value (when it
// opened an object or a list) is consumed. Syntax errors stay errors.
func (p *parser) skipRest(shapeErr error) error {
	if p.lastDelim == 0 {
		return nil
	}
	if p.lastSyntax {
		return shapeErr
	}
	depth := 1
	for depth > 0 {
		t, _, err := p.token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
		}
	}
	return nil
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
// into the plain name the newer form writes ("AZURE"; "a,b").
func unref(s string) string {
	if len(s) < 4 || s[0] != '[' || s[len(s)-1] != ']' || !strings.Contains(s, "|") {
		return s
	}
	parts := strings.Split(s, ",")
	for i, x := range parts {
		x = strings.TrimSpace(x)
		if len(x) < 4 || x[0] != '[' || x[len(x)-1] != ']' {
			return s
		}
		_, name, ok := strings.Cut(x[1:len(x)-1], "|")
		if !ok {
			return s
		}
		parts[i] = name
	}
	return strings.Join(parts, ",")
}

func describe(t json.Token) string {
	switch x := t.(type) {
	case json.Delim:
		if x == '[' || x == ']' {
			return "a list"
		}
		return "an object"
	case string:
		return fmt.Sprintf("the string %q", x)
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", t)
}

// LineText returns line n of the file (1-based), trimmed.
func (db *ConfigDB) LineText(n int) string {
	if n < 1 || n > len(db.lines) {
		return ""
	}
	return strings.TrimSpace(db.lines[n-1])
}

// Has reports whether the file has the table.
func (db *ConfigDB) Has(table string) bool {
	_, ok := db.Tables[table]
	return ok
}

// TablePos returns where a table's name is.
func (db *ConfigDB) TablePos(table string) (Value, bool) {
	v, ok := db.tablePos[table]
	return v, ok
}

// Keys returns a table's keys, sorted, for deterministic iteration.
func (t Table) Keys() []string {
	ks := make([]string, 0, len(t))
	for k := range t {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
