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
	"unicode/utf8"

	"rocelab/internal/pos"
)

// MaxFileBytes bounds a config_db.json read into memory.
const MaxFileBytes = 256 << 20

// A Value is one field value with where it is.
type Value struct {
	Text      string
	Line, Col int
}

// A Table is one config_db table: key → field → value.
type Table map[string]map[string]Value

// ConfigDB is a parsed config_db.json.
type ConfigDB struct {
	// File names the config in findings: the file as given, followed by
	// the namespace in a multi-ASIC dump ("config.json asic0").
	File string
	// Path is the file as given (positions are in it); Namespace the
	// multi-ASIC namespace ("localhost", "asic0"), "" for a single config.
	Path, Namespace string
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
	// Vendor is VendorCumulus for a config made from NVUE (FromNVUE),
	// "" for SONiC's own.
	Vendor string
	// nvueProfiles are, for a config made from NVUE, the profile each
	// port (or default-global) uses of each kind (mapping, pfc,
	// congestion-control, egress-scheduler): what a fix names.
	nvueProfiles map[string]map[string]string
	// tablePos is where each table's name is.
	tablePos map[string]Value
	lines    []string
	// lossyMode is where an NVUE configuration sets a lossy RoCE mode.
	lossyMode Value
	// nvueBufs are an NVUE configuration's hand-sized PFC buffers.
	nvueBufs []NVUEBuffer
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
		return nil, &pos.Error{File: name, Line: 1, Col: 1, Msg: fmt.Sprintf("larger than %d MiB: not a config_db.json", MaxFileBytes>>20)}
	}
	return Parse(name, data)
}

// Parse parses config_db.json text, or a fragment of its tables without
// the enclosing braces as documents and threads show them ("QUEUE": {...},
// "WRED_PROFILE": {...}, the comma after the last table included);
// positions are those of the text as given. Text
// that holds several configs (a multi-ASIC dump) is refused: use ParseAll.
func Parse(name string, data []byte) (*ConfigDB, error) {
	dbs, err := ParseAll(name, data)
	if err != nil {
		return nil, err
	}
	if len(dbs) != 1 {
		return nil, &pos.Error{File: name, Line: 1, Col: 1, Msg: fmt.Sprintf("holds %d configs (a multi-ASIC dump): one expected", len(dbs))}
	}
	return dbs[0], nil
}

// ParseAll parses config_db text that may hold more than one config:
//
//   - a multi-ASIC dump keyed by namespace, {"localhost": {tables},
//     "asic0": {tables}, ...}, as `show runningconfiguration all` prints it
//     on a multi-ASIC switch and config override files are written: one
//     ConfigDB per namespace that has tables;
//   - a configlet, a list of table objects applied in order (sonic-utilities'
//     configlet -u): one ConfigDB, each element updating the rows and fields
//     of the ones before, as configlet does;
//   - anything Parse reads: one ConfigDB.
func ParseAll(name string, data []byte) ([]*ConfigDB, error) {
	body, shift := data, 0
	if IsFragment(data) {
		body = make([]byte, 0, len(data)+2)
		body = append(append(append(body, '{'), data...), '}')
		shift = 1
		// A table cut from a whole config keeps the comma that separated
		// it from the next ("QUEUE": {...},): blank it, offsets unchanged.
		if t := bytes.TrimRight(body[1:len(body)-1], " \t\r\n"); len(t) > 0 && t[len(t)-1] == ',' {
			body[len(t)] = ' '
		}
	}
	p := &parser{name: name, data: body, shift: shift, dec: json.NewDecoder(bytes.NewReader(body))}
	p.dec.UseNumber()
	p.index()
	dbs, err := p.top()
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(data), "\n")
	for _, db := range dbs {
		db.lines = lines
	}
	return dbs, nil
}

func newDB(name, ns string) *ConfigDB {
	file := name
	if ns != "" {
		file = name + " " + ns
	}
	return &ConfigDB{File: file, Path: name, Namespace: ns, Tables: map[string]Table{}, tablePos: map[string]Value{}}
}

// isNamespace reports whether a top-level key names a multi-ASIC
// namespace: "localhost" (the host's, SONiC's DEFAULT_NAMESPACE as `show
// runningconfiguration all` names it) or asicN.
func isNamespace(k string) bool {
	if k == "localhost" {
		return true
	}
	n, ok := strings.CutPrefix(k, "asic")
	if !ok || n == "" {
		return false
	}
	for _, c := range n {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
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

func (p *parser) errAt(off int, format string, args ...any) *pos.Error {
	l, c := p.pos(off)
	return &pos.Error{File: p.name, Line: l, Col: c, Msg: fmt.Sprintf(format, args...)}
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
			return nil, off, p.syntaxErr(int(se.Offset), se)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, off, p.errAt(len(p.data), "invalid JSON: unexpected end of input")
		}
		return nil, off, p.errAt(off, "invalid JSON: %v", err)
	}
	return t, off, nil
}

// syntaxErr positions a JSON syntax error at off, the offending byte, and
// names the mistakes hand-made configs show most: typographic quotes (text
// copied from a document or a chat), a missing comma, a comment, and a
// comma before a closing brace or bracket, which is placed at the comma.
func (p *parser) syntaxErr(off int, se *json.SyntaxError) *pos.Error {
	for off > 0 && off < len(p.data) && !utf8.RuneStart(p.data[off]) {
		off--
	}
	if off < 0 || off >= len(p.data) {
		return p.errAt(off, "invalid JSON: %s", se.Error())
	}
	switch r, _ := utf8.DecodeRune(p.data[off:]); r {
	case '\u201c', '\u201d', '\u2018', '\u2019', '\u00ab', '\u00bb':
		return p.errAt(off, "invalid JSON: typographic quote %c (U+%04X) where JSON needs a straight \" (copied from a document or chat?)", r, r)
	case '/':
		if off+1 < len(p.data) && (p.data[off+1] == '/' || p.data[off+1] == '*') {
			return p.errAt(off, "invalid JSON: a comment (JSON has none)")
		}
	case '"', '{', '[':
		if strings.Contains(se.Error(), "after object key:value pair") || strings.Contains(se.Error(), "after array element") {
			return p.errAt(off, "invalid JSON: a comma is missing before %c", r)
		}
	case '}', ']':
		i := off - 1
		for i >= 0 && (p.data[i] == ' ' || p.data[i] == '\t' || p.data[i] == '\r' || p.data[i] == '\n') {
			i--
		}
		if i >= 0 && p.data[i] == ',' {
			return p.errAt(i, "invalid JSON: comma before %c (JSON allows no trailing comma)", r)
		}
	}
	return p.errAt(off, "invalid JSON: %s", se.Error())
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

func (p *parser) top() ([]*ConfigDB, error) {
	t, off, err := p.token()
	if err != nil {
		return nil, err
	}
	main := newDB(p.name, "")
	var dbs []*ConfigDB
	switch d, _ := t.(json.Delim); d {
	case '[':
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
	if len(dbs) == 0 || len(main.Tables) > 0 {
		dbs = append([]*ConfigDB{main}, dbs...)
	}
	return dbs, nil
}

// objectTop reads the top-level object after its '{': the tables of main,
// and each namespace of a multi-ASIC dump into a ConfigDB of its own.
func (p *parser) objectTop(main *ConfigDB) ([]*ConfigDB, error) {
	var dbs []*ConfigDB
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

// peek returns the first byte of the next token, 0 at the end.
func (p *parser) peek() byte {
	if off := p.next(); off < len(p.data) {
		return p.data[off]
	}
	return 0
}

// flatRow reads the fields of one "TABLE|key" entry of a flat dump.
func (p *parser) flatRow(db *ConfigDB, table, key string, at Value, merge bool) error {
	tab, ok := db.Tables[table]
	if !ok {
		tab = Table{}
		db.Tables[table] = tab
		db.tablePos[table] = at
	}
	row, dup := tab[key]
	if dup && !merge {
		db.Duplicates = append(db.Duplicates, at)
	}
	if !dup || !merge {
		row = map[string]Value{}
	}
	if err := p.row(db, table, table+"|"+key, row, merge); err != nil {
		return err
	}
	tab[key] = row
	return nil
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
		row, dup := tab[key]
		if dup && !merge {
			l, c := p.pos(off)
			db.Duplicates = append(db.Duplicates, Value{Text: name + "|" + key, Line: l, Col: c})
		}
		if !dup || !merge {
			row = map[string]Value{}
		}
		if err := p.row(db, name, name+"|"+key, row, merge); err != nil {
			return err
		}
		tab[key] = row
	}
}

// row reads one row's fields. In a table lint does not read, a row that is
// not an object, or a field that is not a value, is skipped.
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
	for {
		field, off, ok, err := p.key()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		l, c := p.pos(off)
		if _, dup := row[field]; dup && !merge {
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

// Foreign reports a config whose top-level keys are all something other
// than CONFIG_DB tables, whose names are upper case (PORT, BUFFER_PG,
// VERSIONS): a test's parameters or a tool's JSON output, not a config.
// It returns the first key, for the message. An empty config is not
// foreign.
func (db *ConfigDB) Foreign() (Value, bool) {
	var first Value
	for name, at := range db.tablePos {
		if tableName(name) {
			return Value{}, false
		}
		if first.Line == 0 || at.Line < first.Line || at.Line == first.Line && at.Col < first.Col {
			first = at
		}
	}
	return first, first.Line > 0
}

// tableName reports whether s is written as CONFIG_DB writes table names:
// upper-case letters, digits and underscores, starting with a letter.
func tableName(s string) bool {
	for i, c := range s {
		switch {
		case c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '_'):
		default:
			return false
		}
	}
	return s != ""
}

// Source is the file the config's positions are in.
func (db *ConfigDB) Source() string {
	if db.Path != "" {
		return db.Path
	}
	return db.File
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

// BlankPrompts returns data with the shell lines around a pasted JSON
// dump blanked out: a first line that is a prompt or a command
// ("admin@sonic:~$ show runningconfiguration all", "$ sudo sonic-cfggen -d
// --print-data") followed by a line opening the JSON, and prompt lines after
// its last line. Blanking keeps every byte's line and column, so positions
// stay those of the text as given. ok is false when there is nothing to
// blank.
func BlankPrompts(data []byte) ([]byte, bool) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	first := -1
	for i, l := range lines {
		if len(bytes.TrimSpace(l)) > 0 {
			first = i
			break
		}
	}
	if first < 0 || !shellLine(lines[first]) {
		return data, false
	}
	next := -1
	for i := first + 1; i < len(lines); i++ {
		if t := bytes.TrimSpace(lines[i]); len(t) > 0 {
			if t[0] == '{' || t[0] == '[' {
				next = i
			}
			break
		}
	}
	if next < 0 {
		return data, false
	}
	out := make([]byte, 0, len(data))
	for i, l := range lines {
		if i == first || i > next && shellLine(l) {
			l = blank(l)
		}
		out = append(out, l...)
	}
	return out, true
}

// shellLine reports whether a line is a shell prompt or a command that
// prints CONFIG_DB.
func shellLine(l []byte) bool {
	t := string(bytes.TrimSpace(l))
	if t == "" || t[0] == '{' || t[0] == '[' || t[0] == '"' || t[0] == '}' || t[0] == ']' {
		return false
	}
	if strings.Contains(t, "$ ") || strings.HasSuffix(t, "$") || strings.HasSuffix(t, "#") || strings.Contains(t, "# ") {
		return true
	}
	for _, c := range []string{"show ", "sudo ", "sonic-cfggen", "cat ", "sonic-db-cli", "redis-cli"} {
		if strings.HasPrefix(t, c) {
			return true
		}
	}
	return false
}

// blank replaces a line's bytes by spaces, keeping its line break.
func blank(l []byte) []byte {
	out := bytes.Repeat([]byte(" "), len(l))
	if n := len(l); n > 0 && l[n-1] == '\n' {
		out[n-1] = '\n'
		if n > 1 && l[n-2] == '\r' {
			out[n-2] = '\r'
		}
	}
	return out
}
