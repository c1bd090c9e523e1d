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
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"rocelab/internal/pos"
)

// MaxFileBytes bounds a config_db.json read into memory.
const MaxFileBytes = 256 << 20

// A Value is one field value with where it is.
type Value = pos.Value

// A Table is one config_db table: key → field → value.
type Table map[string]map[string]Value

// ConfigDB is a parsed config_db.json.
type ConfigDB struct {
	// File names the config in findings: the file as given, followed by
	// the namespace in a multi-ASIC dump ("config.json asic0").
	File string
	// Path is the file as given (positions are in it); Namespace the
	// multi-ASIC namespace ("localhost", "asic0"), "" for a single config;
	// Wrapper the key a wrapped config was under ("running_config"), ""
	// for a config at the top level.
	Path, Namespace, Wrapper string
	// YANG is set when the config was read from SONiC YANG instance
	// data (configdb_yang.go): its Skipped are the modules and nodes lint
	// has no CONFIG_DB mapping for.
	YANG bool
	// Patch is set when the config is what a JSON Patch for SONiC's
	// Generic Config Updater writes (configdb_patch.go): its Skipped are
	// the operations that change what the patch does not hold.
	Patch bool
	// Case is set when the config is the current_config of one test case
	// of a generic config updater test file (gcuCase), keyed by the case's
	// name (Wrapper).
	Case bool
	// WrapperAt is where the wrapper's key is written (a YANG test
	// case's name), zero for a config at the top level.
	WrapperAt Value
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
	// Nulls are the fields whose value is null ("TABLE|key.field"), read
	// as not written: ConfigDBConnector stores such a field as the text
	// "None".
	Nulls []Value
	// PortsSkipped is set when a switch configuration's interface that
	// sets QoS was not judged (its qos profile is not in the input): the
	// configuration is not one without QoS.
	PortsSkipped bool
	// Vendor is VendorCumulus for a config made from NVUE (FromNVUE),
	// "" for SONiC's own.
	Vendor string
	// nvueProfiles are, for a config made from NVUE, the profile each
	// port (or default-global) uses of each kind (mapping, pfc,
	// congestion-control, egress-scheduler): what a fix names.
	nvueProfiles map[string]map[string]string
	// tablePos is where each table's name is; keyPos where each row's
	// key is ("TABLE|key"), and each CABLE_LENGTH field's name
	// ("CABLE_LENGTH|AZURE|Ethernet0"), the port it names.
	tablePos, keyPos map[string]Value
	lines            []string
	// lossyMode is where an NVUE configuration sets a lossy RoCE mode.
	lossyMode Value
	// nvueBufs are an NVUE configuration's hand-sized PFC buffers.
	nvueBufs []NVUEBuffer
	// noECN: a switch OS's configuration that writes ECN and WRED
	// nowhere, and applies no policy it does not hold (nosECN).
	noECN bool
	// noPFC: a switch OS's configuration that names no lossless class
	// anywhere (nosPFC).
	noPFC bool
	// excerpt is the `show running-config` of a part of the
	// configuration that printed the input (MarkExcerpt).
	excerpt Value
	// onyxPFCOn and onyxPrios: an Onyx configuration writes `dcb
	// priority-flow-control enable` and a `dcb priority-flow-control
	// priority N enable` (OnyxPFCWritten).
	onyxPFCOn, onyxPrios bool
	// pfcAllOff is a global command that turns PFC off on every port
	// whatever the ports' own lines say (EOS `priority-flow-control all
	// off`).
	pfcAllOff Value
}

// PFCAllOff is the global command that turns PFC off on every port of
// the switch, if the configuration has one.
func (db *ConfigDB) PFCAllOff() (Value, bool) { return db.pfcAllOff, db.pfcAllOff.Given() }

// WritesNoECN reports a switch OS's configuration (EOS, NX-OS, OS10,
// FTOS, AOS-CX, Onyx, Junos) that configures ECN and WRED on no queue at
// all: none of its lines writes them, or turns them on by default, and it
// applies no policy or profile the input does not hold. Every queue then
// runs the OS's default, which marks nothing.
// A configuration a `show running-config` of a part printed (MarkExcerpt)
// may write ECN where it does not print.
func (db *ConfigDB) WritesNoECN() bool { return db.noECN && !db.excerpt.Given() }

// excerptDefaults is what a part of the configuration leaves unknown when
// its reader says nothing more precise.
const excerptDefaults = "what it does not print, global QoS maps included, is taken as the switch's defaults"

// MarkExcerpt notes that the configuration is what the command at `at`, a
// `show running-config` of a part (an interface, a section), printed: the
// one place that decides it, whether the reader found the command (NX-OS's
// `!Command:` header) or the pasted session it was typed in. It is named
// once among the settings not judged, with why (excerptDefaults when
// empty): a finding's absence says nothing of what it leaves out. The
// first call wins; a command not given marks nothing.
func (db *ConfigDB) MarkExcerpt(at Value, why string) {
	if !at.Given() || db.excerpt.Given() {
		return
	}
	if why == "" {
		why = excerptDefaults
	}
	db.excerpt = at
	at.Text += " (a part of the configuration: " + why + ")"
	db.Skipped = append(db.Skipped, at)
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
	dbs, _, err := parseAll(name, data)
	return dbs, err
}

// parseAll is ParseAll that also says how many bytes were decoded beside
// the one pass over data.
func parseAll(name string, data []byte) ([]*ConfigDB, int, error) {
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
	p := &parser{name: name, data: body, shift: shift, scanned: new(int), dec: json.NewDecoder(bytes.NewReader(body))}
	p.dec.UseNumber()
	p.index()
	dbs, err := p.top()
	if err != nil {
		return nil, *p.scanned, err
	}
	lines := strings.Split(string(data), "\n")
	for _, db := range dbs {
		db.lines = lines
	}
	return dbs, *p.scanned, nil
}

func newDB(name, ns string) *ConfigDB {
	file := name
	if ns != "" {
		file = name + " " + ns
	}
	return &ConfigDB{File: file, Path: name, Namespace: ns, Tables: map[string]Table{}, tablePos: map[string]Value{}, keyPos: map[string]Value{}}
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

// IsFragment reports whether data is CONFIG_DB tables without the
// enclosing braces: it starts with a quoted table name followed by a colon
// and an opening brace.
func IsFragment(data []byte) bool {
	_, ok := objectKey(bytes.TrimLeft(data, " \t\r\n\ufeff"))
	return ok
}

// FirstTable returns the first key of data when data begins as a CONFIG_DB
// does (config_db.json, `show runningconfiguration all`, or tables pasted
// without their braces): a table name (PORT, BUFFER_PG) or a multi-ASIC
// namespace (localhost, asicN) whose value is an object.
func FirstTable(data []byte) (string, bool) {
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(t) > 0 && t[0] == '{' {
		t = bytes.TrimLeft(t[1:], " \t\r\n")
	}
	key, ok := objectKey(t)
	if !ok || !tableName(key) && !isNamespace(key) {
		return "", false
	}
	return key, true
}

// objectKey returns the quoted key t starts with when a colon and an
// opening brace follow it.
func objectKey(t []byte) (string, bool) {
	if len(t) < 2 || t[0] != '"' {
		return "", false
	}
	end := bytes.IndexByte(t[1:], '"')
	if end < 1 {
		return "", false
	}
	rest := bytes.TrimLeft(t[end+2:], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return "", false
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	return string(t[1 : end+1]), len(rest) > 0 && rest[0] == '{'
}

// Foreign reports a config whose top-level keys are all something other
// than CONFIG_DB tables, whose names are upper case (PORT, BUFFER_PG,
// VERSIONS) and whose values are objects: a test's parameters or a tool's
// JSON output (sonic-utilities' gcu_field_operation_validators.conf.json:
// a "README" list beside lower-case keys), not a config. It returns the
// first key that is no table name, else the first key, for the message.
// An empty config is not foreign.
func (db *ConfigDB) Foreign() (Value, bool) {
	var first, firstNamed Value
	earlier := func(a, b Value) bool { return b.Line == 0 || a.Line < b.Line || a.Line == b.Line && a.Col < b.Col }
	for name, at := range db.tablePos {
		if !tableName(name) {
			if earlier(at, first) {
				first = at
			}
			continue
		}
		if !db.wasSkipped(name) {
			return Value{}, false
		}
		if earlier(at, firstNamed) {
			firstNamed = at
		}
	}
	if first.Line == 0 {
		first = firstNamed
	}
	return first, first.Line > 0
}

// wasSkipped reports whether text (a table, "TABLE|key" or
// "TABLE|key.field") was skipped. A top-level key that held no object is
// skipped under its bare name (a row or field skipped names its table and
// key).
func (db *ConfigDB) wasSkipped(text string) bool {
	return slices.ContainsFunc(db.Skipped, func(v Value) bool { return v.Text == text })
}

// TableNames lists, sorted, the tables the config holds: its top-level
// keys whose value is an object of rows. A key beside them whose value is
// a string (the "platform" and "aboot_*" values of a 2017 config_db) is
// no table.
func (db *ConfigDB) TableNames() []string {
	var names []string
	for name := range db.Tables {
		if !db.wasSkipped(name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
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

// SameDump reports whether o is db or another namespace of the same
// multi-ASIC dump: the same file, under the same wrapper key.
func (db *ConfigDB) SameDump(o *ConfigDB) bool {
	return o.Path == db.Path && o.Wrapper == db.Wrapper
}

// OtherCase reports whether o is another test case of db's YANG test
// file (sonic-yang-models' tests: one file, one config per case, each
// under its case's name) or generic config updater test file (Case).
// Each case is judged alone: o holds no table for db, as another input
// of the run would.
func (db *ConfigDB) OtherCase(o *ConfigDB) bool {
	return (db.YANG || db.Case) && db.Wrapper != "" && o != db && o.Path == db.Path
}

// SuppliedBy reports whether o, an input of the run, can supply tables
// db lacks: a SONiC CONFIG_DB (no vendor's CLI config), db itself, and
// neither another ASIC's namespace of the same dump (each ASIC's
// orchagent reads its own CONFIG_DB) nor another test case of db's YANG
// test file (OtherCase).
func (db *ConfigDB) SuppliedBy(o *ConfigDB) bool {
	return o.Vendor == "" && !db.OtherCase(o) && (!db.SameDump(o) || o.Namespace == db.Namespace)
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

// KeyPos returns where a row's key is, by "TABLE|key".
func (db *ConfigDB) KeyPos(what string) (Value, bool) {
	v, ok := db.keyPos[what]
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

// TemplateKey returns the first row key, in file order, that holds an
// unrendered Jinja2 expression ("{{ pfc_wd_interface_list }}", as
// sonic-mgmt's ansible/roles/test/templates/pfc_wd_config.j2 writes its
// PFC_WD row): a template that happens to be JSON, whose rows
// sonic-cfggen or Ansible fill in. A value holding one (a running config
// with a field left unrendered, sonic-buildimage #15102) is still a
// configuration.
func (db *ConfigDB) TemplateKey() (Value, bool) {
	var first Value
	for _, at := range db.keyPos {
		open := strings.Index(at.Text, "{{")
		if open < 0 || !strings.Contains(at.Text[open:], "}}") {
			continue
		}
		if first.Line == 0 || at.Line < first.Line || at.Line == first.Line && at.Col < first.Col {
			first = at
		}
	}
	return first, first.Line > 0
}
