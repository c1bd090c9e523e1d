package sonic

import (
	"maps"
	"slices"
	"strings"
)

// refFields are the fields that name a row of another table, by the table
// they are in: orchagent binds nothing of a row until every name resolves.
var refFields = map[string]map[string]string{
	"PORT_QOS_MAP": {
		"dscp_to_tc_map": "DSCP_TO_TC_MAP", "dot1p_to_tc_map": "DOT1P_TO_TC_MAP", "tc_to_pg_map": "TC_TO_PRIORITY_GROUP_MAP",
		"tc_to_queue_map": "TC_TO_QUEUE_MAP", "pfc_to_queue_map": "MAP_PFC_PRIORITY_TO_QUEUE", "pfc_to_pg_map": "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
		"tc_to_dscp_map": "TC_TO_DSCP_MAP", "tc_to_dot1p_map": "TC_TO_DOT1P_MAP", "scheduler": "SCHEDULER",
	},
	"QUEUE":          {"scheduler": "SCHEDULER", "wred_profile": "WRED_PROFILE"},
	"BUFFER_PG":      {"profile": "BUFFER_PROFILE"},
	"BUFFER_QUEUE":   {"profile": "BUFFER_PROFILE"},
	"BUFFER_PROFILE": {"pool": "BUFFER_POOL"},
	// profile_list is a comma list of profiles, one per pool; bufferorch
	// resolves every item (orch.cpp Orch::resolveFieldRefArray) and
	// retries the port's row while one is missing.
	"BUFFER_PORT_INGRESS_PROFILE_LIST": {"profile_list": "BUFFER_PROFILE"},
	"BUFFER_PORT_EGRESS_PROFILE_LIST":  {"profile_list": "BUFFER_PROFILE"},
}

// A MissingRef is a field naming a row its table does not hold.
type MissingRef struct {
	// Table, Key and Field say where the name is; To is the table it
	// names a row of.
	Table, Key, Field, To string
	At                    Value
	// Written is, for MisnamedRefs and RefForms, the table the
	// reference's bracket form names ("SCHEDULAR" of
	// "[SCHEDULAR|scheduler.0]").
	Written string
	// Elsewhere is, for MisnamedRefs, set when Written is a table whose
	// references orchagent up to 202106 resolves (qos202106Tables) and it
	// holds the name: the reference resolves, to a row of the wrong table.
	Elsewhere bool
}

// qos202106Tables are the tables QosOrch::m_qos_maps held at SONiC 202106
// (sonic-swss orchagent/qosorch.cpp, branch 202106): the types
// Orch::parseReference resolves a QoS reference's TABLE among.
var qos202106Tables = []string{"DSCP_TO_TC_MAP", "DOT1P_TO_TC_MAP", "TC_TO_QUEUE_MAP", "SCHEDULER", "WRED_PROFILE",
	"PORT_QOS_MAP", "QUEUE", "TC_TO_PRIORITY_GROUP_MAP", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "MAP_PFC_PRIORITY_TO_QUEUE"}

// MissingRefs returns the fields of QoS rows that name a map, scheduler,
// WRED or buffer profile, or pool, absent from its table, where the config
// holds that table (a fragment without it, qos.json naming buffers.json's
// profiles, says nothing of it). The buffer model's "NULL" profile names
// none, nor do the fields of PORT_QOS_MAP|global orchagent skips. Sorted
// by table, key and field.
func (db *ConfigDB) MissingRefs() []MissingRef {
	return db.refs(func(r *MissingRef) bool {
		_, ok := db.Tables[r.To][strings.TrimSpace(r.At.Text)]
		return len(db.Tables[r.To]) > 0 && !ok
	})
}

// UnheldRefs returns the fields of QoS rows that name a row of a table
// the config does not hold at all: a fragment (a PORT_QOS_MAP pasted
// alone, a configlet adding a port to a switch that holds the maps) whose
// names resolve, or not, on the switch it was cut from. Sorted as
// MissingRefs.
func (db *ConfigDB) UnheldRefs() []MissingRef {
	return db.refs(func(r *MissingRef) bool { return len(db.Tables[r.To]) == 0 })
}

// MisnamedRefs returns the PORT_QOS_MAP and QUEUE fields written in the
// bracket form config_db used up to SONiC 202106, "[TABLE|name]", whose
// TABLE is not the table the field names a row of: QUEUE's scheduler as
// "[SCHEDULAR|scheduler.0]". orchagent up to 202106 looked the written
// TABLE up among its own (sonic-swss orchagent/orch.cpp
// Orch::parseReference at branch 202106: "not recognized type"), so the
// name never resolves and qosorch retries the row without applying it
// (qosorch.cpp handleQueueTable, task_need_retry); from 202111 it reads
// plain names only, and db_migrator's
// migrate_qos_db_fieldval_reference_remove keeps what follows the '|'
// whatever the table. Each has Written set. A Written that orchagent
// knows and that holds the name resolves instead, to that row's object
// (Elsewhere). Sorted as MissingRefs.
func (db *ConfigDB) MisnamedRefs() []MissingRef {
	return db.refs(func(r *MissingRef) bool {
		if r.Table != "PORT_QOS_MAP" && r.Table != "QUEUE" {
			return false
		}
		for _, w := range db.writtenTables(r.At) {
			if t := w.table; t != "" && t != r.To {
				_, held := db.Tables[t][strings.TrimSpace(r.At.Text)]
				r.Written, r.Elsewhere = t, held && slices.Contains(qos202106Tables, t)
				return true
			}
		}
		return false
	})
}

// RefForms splits the reference fields of QoS and buffer rows by how the
// file writes them: in the bracket form, "[TABLE|name]", the only one
// orchagent read up to 202106 (sonic-swss orchagent/orch.cpp
// Orch::parseReference: "Must be surrounded by [ ]"), or as plain names,
// the only one it reads from 202111 (sonic-swss #1754: "Must not be
// surrounded by [ ]"). A value whose file text is not at hand (YANG
// instance data) counts as plain. One entry per field, a bracketed one
// with Written set (of a list, its first bracketed item's); a list mixing
// the forms, "[BUFFER_PROFILE|a],b", which no release reads whole, is in
// both, each entry's At.Text the first item written in its form ("a" the
// bracketed, "b" the plain). Each list sorted as MissingRefs.
func (db *ConfigDB) RefForms() (bracket, plain []MissingRef) {
	seen := map[string]bool{}
	db.refs(func(r *MissingRef) bool {
		id := r.Table + "|" + r.Key + "|" + r.Field
		if seen[id] {
			return false
		}
		seen[id] = true
		w := db.writtenTables(r.At)
		if i := slices.IndexFunc(w, func(x writtenRef) bool { return x.table != "" }); i >= 0 {
			b := *r
			b.Written, b.At.Text = w[i].table, w[i].name
			bracket = append(bracket, b)
		}
		i := slices.IndexFunc(w, func(x writtenRef) bool { return x.table == "" && len(refNames("", x.name)) > 0 })
		switch {
		case w == nil:
			plain = append(plain, *r)
		case i >= 0:
			p := *r
			p.At.Text = w[i].name
			plain = append(plain, p)
		}
		return false
	})
	return bracket, plain
}

// writtenRef is an item of a value as the file writes it: the table its
// bracket form names ("" for a plain name) and the name.
type writtenRef struct{ table, name string }

// writtenTables returns, item by item, the tables a value written in the
// bracket form names, and the names, read from the file at the value's
// position: "[A|x],[B|y]" gives A x, B y; a mixed list, "[A|x],y", gives
// A x and "" y for its plain item. None for a value with no bracketed item, or where the
// file's text is not at hand. The position is the value's opening quote
// (JSON's '"', a Python dict's '\”) or, as redis-cli prints a value,
// its first character, the quote just before it.
func (db *ConfigDB) writtenTables(v Value) []writtenRef {
	if v.Line < 1 || v.Line > len(db.lines) || v.Col < 1 || v.Col > len(db.lines[v.Line-1]) {
		return nil
	}
	line := db.lines[v.Line-1]
	raw := line[v.Col-1:]
	quote := byte('"')
	switch {
	case raw[0] == '"' || raw[0] == '\'':
		quote, raw = raw[0], raw[1:]
	case v.Col >= 2 && (line[v.Col-2] == '"' || line[v.Col-2] == '\''):
		quote = line[v.Col-2]
	default:
		return nil
	}
	raw, _, ok := strings.Cut(raw, string(quote))
	if !ok || !strings.Contains(raw, "[") {
		return nil
	}
	var out []writtenRef
	bracketed := false
	for _, x := range strings.Split(raw, ",") {
		x = strings.TrimSpace(x)
		table, name, ok := refItem(x)
		if ok && table == "" {
			return nil
		}
		if !ok {
			name = x
		}
		bracketed = bracketed || ok
		out = append(out, writtenRef{table, strings.TrimSpace(name)})
	}
	if !bracketed {
		return nil
	}
	return out
}

// refs returns the reference fields whose table and name match says.
func (db *ConfigDB) refs(match func(r *MissingRef) bool) []MissingRef {
	var out []MissingRef
	for _, table := range []string{"PORT_QOS_MAP", "QUEUE", "BUFFER_PG", "BUFFER_QUEUE", "BUFFER_PROFILE",
		"BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST"} {
		t := db.Tables[table]
		for _, key := range t.Keys() {
			for _, field := range slices.Sorted(maps.Keys(refFields[table])) {
				v, ok := t[key][field]
				if !ok || !globalApplies(table, key, field) {
					continue
				}
				for _, name := range refNames(field, v.Text) {
					at := v
					at.Text = name
					r := MissingRef{Table: table, Key: key, Field: field, To: refFields[table][field], At: at}
					if match(&r) {
						out = append(out, r)
					}
				}
			}
		}
	}
	return out
}

// refNames returns the names a reference field's value holds: the items
// of a profile_list, the value itself elsewhere; none for an empty value
// or the buffer model's "NULL".
func refNames(field, text string) []string {
	items := []string{text}
	if field == "profile_list" {
		items = strings.Split(text, ",")
	}
	var out []string
	for _, x := range items {
		if x = strings.TrimSpace(x); x != "" && !strings.EqualFold(x, "NULL") {
			out = append(out, x)
		}
	}
	return out
}

// globalApplies reports whether orchagent reads field of a row: of
// PORT_QOS_MAP|global it applies dscp_to_tc_map alone (to the switch) and
// skips the others without resolving them (qosorch.cpp
// handleGlobalQosMap), so their names bind nothing.
func globalApplies(table, key, field string) bool {
	return table != "PORT_QOS_MAP" || key != "global" || field == "dscp_to_tc_map"
}

// An UnknownPort is a port a QoS or buffer row names that the config's
// PORT table does not hold.
type UnknownPort struct {
	// Table and Key are the row; Port the name; At where the key (for
	// CABLE_LENGTH the field naming the port) is.
	Table, Key, Port string
	At               Value
}

// portTables are the tables whose keys name ports, "PORTS" or
// "PORTS|IDS", PORTS a comma list: qosorch and bufferorch split it at
// ',' alone (no "Ethernet0-Ethernet8" ranges); a name portsorch does not
// know is skipped by qosorch and ends the row in bufferorch ("Port with
// alias:%s not found"), as it ends a BUFFER_PORT_INGRESS_PROFILE_LIST or
// BUFFER_PORT_EGRESS_PROFILE_LIST row, keyed by ports alone.
var portTables = []string{"PORT_QOS_MAP", "BUFFER_PG", "BUFFER_QUEUE", "BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST"}

// UnknownPorts returns the ports named by the keys of portTables and by
// CABLE_LENGTH fields that PORT does not hold, when
// the config holds PORT (a fragment without it says nothing of its
// ports). PortChannels, PORT_QOS_MAP|global and VOQ system-port keys
// ("HOST|ASIC|PORT|IDS") are left out. Sorted by table and key.
func (db *ConfigDB) UnknownPorts() []UnknownPort {
	ports := db.Tables["PORT"]
	if len(ports) == 0 {
		return nil
	}
	known := func(p string) bool {
		_, ok := ports[p]
		return ok || db.PortChannel(p)
	}
	var out []UnknownPort
	for _, table := range portTables {
		for _, key := range db.Tables[table].Keys() {
			list, _, _ := strings.Cut(key, "|")
			if (table == "PORT_QOS_MAP" && key == "global") || strings.Count(key, "|") > 1 {
				continue
			}
			at, _ := db.KeyPos(table + "|" + key)
			for _, p := range strings.Split(list, ",") {
				if p = strings.TrimSpace(p); !known(p) {
					out = append(out, UnknownPort{Table: table, Key: key, Port: p, At: at})
				}
			}
		}
	}
	cl := db.Tables["CABLE_LENGTH"]
	for _, key := range cl.Keys() {
		for _, p := range slices.Sorted(maps.Keys(cl[key])) {
			if p != "" && !known(p) { // an empty field names no port
				at, _ := db.KeyPos("CABLE_LENGTH|" + key + "|" + p)
				out = append(out, UnknownPort{Table: "CABLE_LENGTH", Key: key, Port: p, At: at})
			}
		}
	}
	return out
}
