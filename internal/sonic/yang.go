package sonic

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// This file is the one table of the constraints SONiC's published YANG
// models put on the CONFIG_DB tables rocelab writes (sonic-buildimage
// src/sonic-yang-models/yang-models, 086b03bd): each row names its model
// file and node, and TestConstraintsMatchModels reads the models (copied to
// testdata/yang) and checks every row against them. CheckYANG applies the
// table to a config_db fragment; `config gen --target sonic` runs it on
// everything it writes.

// Where says which part of a row a constraint is on.
type Where uint8

// Where a constraint applies.
const (
	// Key is part Part of the row key ("Ethernet0|3-4" has parts 0 and 1),
	// or the whole key when the table's keys have one part.
	Key Where = iota
	// Field is the value of the field named Field.
	Field
	// FieldName is the name of every field (a map table's from-values).
	FieldName
	// FieldValue is the value of every field (a map table's to-values).
	FieldValue
)

// A Constraint is one YANG restriction on one place of a table.
type Constraint struct {
	Table string
	Where Where
	Part  int
	Field string
	// Model is the YANG file, Node the path of the leaf in it below the
	// module's container ("PFC_WD/PFC_WD_LIST/detection_time").
	Model, Node string
	// Type is the YANG base type: uint8..uint64, int32, boolean, string.
	Type string
	// Range and Length are YANG range and length arguments ("100..5000").
	Range, Length string
	Enum          []string
	// Pattern is a YANG (XSD) pattern: the whole value must match.
	Pattern string
	// Ref is a leafref: the value must be a key of this table.
	Ref string
	// Or are literal values a union also accepts ("GLOBAL", "NULL").
	Or        []string
	Mandatory bool
}

// Models is the directory of the YANG models in sonic-buildimage.
const Models = "src/sonic-yang-models/yang-models"

// Must constraints: YANG "must" expressions, checked by code.
var mustRules = []struct {
	Model, Node, Msg string
}{
	{"sonic-wred-profile.yang", "WRED_PROFILE/WRED_PROFILE_LIST/{green,yellow,red}_max_threshold", "max threshold must be greater than or equal to min threshold"},
	{"sonic-pfcwd.yang", "PFC_WD/PFC_WD_LIST/{detection,restoration}_time", "must be greater than or equal to GLOBAL's POLL_INTERVAL; only on a port, not GLOBAL"},
	{"sonic-pfcwd.yang", "PFC_WD/PFC_WD_LIST/action", "only on a port, not GLOBAL"},
	{"sonic-pfcwd.yang", "PFC_WD/PFC_WD_LIST/POLL_INTERVAL", "only on GLOBAL"},
}

// constraints makes the table, once, when it is first needed (not at
// start-up: every rocelab command would pay for it).
var constraints = sync.OnceValue(func() []Constraint {
	var cs []Constraint
	add := func(c Constraint) { cs = append(cs, c) }
	port := func(table, model, node string, where Where, part int, or ...string) {
		add(Constraint{Table: table, Where: where, Part: part, Model: model, Node: node, Type: "string", Ref: "PORT", Or: or})
	}
	mapName := `[a-zA-Z0-9]{1}([-a-zA-Z0-9_]{0,31})`

	// sonic-port.yang
	const pm = "sonic-port.yang"
	add(Constraint{Table: "PORT", Where: Key, Part: -1, Model: pm, Node: "PORT/PORT_LIST/name", Type: "string", Length: "1..128"})
	add(Constraint{Table: "PORT", Where: Field, Field: "speed", Model: pm, Node: "PORT/PORT_LIST/speed", Type: "uint32", Range: "1..1600000", Mandatory: true})
	add(Constraint{Table: "PORT", Where: Field, Field: "mtu", Model: pm, Node: "PORT/PORT_LIST/mtu", Type: "uint16", Range: "68..9216"})

	// sonic-cable-length.yang
	const cl = "sonic-cable-length.yang"
	add(Constraint{Table: "CABLE_LENGTH", Where: Key, Part: -1, Model: cl, Node: "CABLE_LENGTH/CABLE_LENGTH_LIST/name", Type: "string", Pattern: mapName, Length: "1..32"})
	port("CABLE_LENGTH", cl, "CABLE_LENGTH/CABLE_LENGTH_LIST/CABLE_LENGTH/port", FieldName, 0)
	add(Constraint{Table: "CABLE_LENGTH", Where: FieldValue, Model: cl, Node: "CABLE_LENGTH/CABLE_LENGTH_LIST/CABLE_LENGTH/length", Type: "string", Pattern: "[0-9]+m"})

	// QoS maps.
	for _, m := range []struct {
		table, model, list, from, to, fromType, toType, fromPattern, toPattern, toRange string
	}{
		{"DSCP_TO_TC_MAP", "sonic-dscp-tc-map.yang", "DSCP_TO_TC_MAP", "dscp", "tc", "string", "uint8", "6[0-3]|[1-5][0-9]?|[0-9]?", "", "0..15"},
		{"TC_TO_PRIORITY_GROUP_MAP", "sonic-tc-priority-group-map.yang", "TC_TO_PRIORITY_GROUP_MAP", "tc", "pg", "uint8", "string", "", "[0-7]?", ""},
		{"TC_TO_QUEUE_MAP", "sonic-tc-queue-map.yang", "TC_TO_QUEUE_MAP", "tc", "qindex", "uint8", "string", "", "[0-9]?", ""},
		{"MAP_PFC_PRIORITY_TO_QUEUE", "sonic-pfc-priority-queue-map.yang", "MAP_PFC_PRIORITY_TO_QUEUE", "pfc_priority", "qindex", "string", "string", "[0-7]?", "[0-7]?", ""},
	} {
		node := m.table + "/" + m.list + "_LIST/"
		add(Constraint{Table: m.table, Where: Key, Part: -1, Model: m.model, Node: node + "name", Type: "string", Pattern: mapName, Length: "1..32"})
		from := Constraint{Table: m.table, Where: FieldName, Model: m.model, Node: node + m.list + "/" + m.from, Type: m.fromType, Pattern: m.fromPattern}
		if m.fromType == "uint8" {
			from.Range = "0..15" // tc_type, sonic-types.yang.j2
		}
		add(from)
		add(Constraint{Table: m.table, Where: FieldValue, Model: m.model, Node: node + m.list + "/" + m.to, Type: m.toType, Pattern: m.toPattern, Range: m.toRange})
	}

	// sonic-port-qos-map.yang
	const pq = "sonic-port-qos-map.yang"
	port("PORT_QOS_MAP", pq, "PORT_QOS_MAP/PORT_QOS_MAP_LIST/ifname", Key, -1, "global")
	for field, ref := range map[string]string{"dscp_to_tc_map": "DSCP_TO_TC_MAP", "tc_to_pg_map": "TC_TO_PRIORITY_GROUP_MAP",
		"tc_to_queue_map": "TC_TO_QUEUE_MAP", "pfc_to_queue_map": "MAP_PFC_PRIORITY_TO_QUEUE", "scheduler": "SCHEDULER"} {
		add(Constraint{Table: "PORT_QOS_MAP", Where: Field, Field: field, Model: pq, Node: "PORT_QOS_MAP/PORT_QOS_MAP_LIST/" + field, Type: "string", Ref: ref})
	}
	for _, f := range []string{"pfc_enable", "pfcwd_sw_enable"} {
		add(Constraint{Table: "PORT_QOS_MAP", Where: Field, Field: f, Model: pq, Node: "PORT_QOS_MAP/PORT_QOS_MAP_LIST/" + f, Type: "string", Pattern: "([0-7](,[0-7])*)?"})
	}

	// sonic-scheduler.yang
	const sm = "sonic-scheduler.yang"
	add(Constraint{Table: "SCHEDULER", Where: Field, Field: "type", Model: sm, Node: "SCHEDULER/SCHEDULER_LIST/type", Type: "enumeration", Enum: []string{"DWRR", "WRR", "STRICT"}})
	add(Constraint{Table: "SCHEDULER", Where: Field, Field: "weight", Model: sm, Node: "SCHEDULER/SCHEDULER_LIST/weight", Type: "uint8", Range: "1..100"})
	add(Constraint{Table: "SCHEDULER", Where: Field, Field: "priority", Model: sm, Node: "SCHEDULER/SCHEDULER_LIST/priority", Type: "uint8", Range: "0..9"})

	// sonic-queue.yang
	const qm = "sonic-queue.yang"
	port("QUEUE", qm, "QUEUE/QUEUE_LIST/ifname", Key, 0, "CPU")
	add(Constraint{Table: "QUEUE", Where: Field, Field: "scheduler", Model: qm, Node: "QUEUE/QUEUE_LIST/scheduler", Type: "string", Ref: "SCHEDULER"})
	add(Constraint{Table: "QUEUE", Where: Field, Field: "wred_profile", Model: qm, Node: "QUEUE/QUEUE_LIST/wred_profile", Type: "string", Ref: "WRED_PROFILE"})

	// sonic-wred-profile.yang
	const wm = "sonic-wred-profile.yang"
	add(Constraint{Table: "WRED_PROFILE", Where: Key, Part: -1, Model: wm, Node: "WRED_PROFILE/WRED_PROFILE_LIST/name", Type: "string", Pattern: mapName, Length: "1..32"})
	for _, c := range []string{"green", "yellow", "red"} {
		for _, f := range []string{"_min_threshold", "_max_threshold"} {
			add(Constraint{Table: "WRED_PROFILE", Where: Field, Field: c + f, Model: wm, Node: "WRED_PROFILE/WRED_PROFILE_LIST/" + c + f, Type: "uint64"})
		}
		add(Constraint{Table: "WRED_PROFILE", Where: Field, Field: c + "_drop_probability", Model: wm, Node: "WRED_PROFILE/WRED_PROFILE_LIST/" + c + "_drop_probability", Type: "uint64", Range: "0..100"})
		add(Constraint{Table: "WRED_PROFILE", Where: Field, Field: "wred_" + c + "_enable", Model: wm, Node: "WRED_PROFILE/WRED_PROFILE_LIST/wred_" + c + "_enable", Type: "boolean"})
	}
	add(Constraint{Table: "WRED_PROFILE", Where: Field, Field: "ecn", Model: wm, Node: "WRED_PROFILE/WRED_PROFILE_LIST/ecn", Type: "enumeration",
		Enum: []string{"ecn_none", "ecn_green", "ecn_yellow", "ecn_red", "ecn_green_yellow", "ecn_green_red", "ecn_yellow_red", "ecn_all"}})

	// Buffers.
	const bpo, bpr, bpg = "sonic-buffer-pool.yang", "sonic-buffer-profile.yang", "sonic-buffer-pg.yang"
	add(Constraint{Table: "BUFFER_POOL", Where: Field, Field: "type", Model: bpo, Node: "BUFFER_POOL/BUFFER_POOL_LIST/type", Type: "enumeration", Enum: []string{"ingress", "egress", "both"}, Mandatory: true})
	add(Constraint{Table: "BUFFER_POOL", Where: Field, Field: "mode", Model: bpo, Node: "BUFFER_POOL/BUFFER_POOL_LIST/mode", Type: "enumeration", Enum: []string{"static", "dynamic"}, Mandatory: true})
	add(Constraint{Table: "BUFFER_POOL", Where: Field, Field: "size", Model: bpo, Node: "BUFFER_POOL/BUFFER_POOL_LIST/size", Type: "uint64"})
	add(Constraint{Table: "BUFFER_POOL", Where: Field, Field: "xoff", Model: bpo, Node: "BUFFER_POOL/BUFFER_POOL_LIST/xoff", Type: "uint64"})
	add(Constraint{Table: "BUFFER_PROFILE", Where: Field, Field: "pool", Model: bpr, Node: "BUFFER_PROFILE/BUFFER_PROFILE_LIST/pool", Type: "string", Ref: "BUFFER_POOL", Mandatory: true})
	add(Constraint{Table: "BUFFER_PROFILE", Where: Field, Field: "size", Model: bpr, Node: "BUFFER_PROFILE/BUFFER_PROFILE_LIST/size", Type: "uint64", Mandatory: true})
	add(Constraint{Table: "BUFFER_PROFILE", Where: Field, Field: "dynamic_th", Model: bpr, Node: "BUFFER_PROFILE/BUFFER_PROFILE_LIST/dynamic_th", Type: "int32", Range: "-8..7"})
	for _, f := range []string{"static_th", "xon", "xoff", "xon_offset"} {
		add(Constraint{Table: "BUFFER_PROFILE", Where: Field, Field: f, Model: bpr, Node: "BUFFER_PROFILE/BUFFER_PROFILE_LIST/" + f, Type: "uint64"})
	}
	port("BUFFER_PG", bpg, "BUFFER_PG/BUFFER_PG_LIST/port", Key, 0)
	add(Constraint{Table: "BUFFER_PG", Where: Key, Part: 1, Model: bpg, Node: "BUFFER_PG/BUFFER_PG_LIST/pg_num", Type: "string", Pattern: "[0-7]((-)[0-7])?"})
	add(Constraint{Table: "BUFFER_PG", Where: Field, Field: "profile", Model: bpg, Node: "BUFFER_PG/BUFFER_PG_LIST/profile", Type: "string", Ref: "BUFFER_PROFILE", Or: []string{"NULL"}})

	// sonic-lossless-traffic-pattern.yang
	const lt = "sonic-lossless-traffic-pattern.yang"
	add(Constraint{Table: "LOSSLESS_TRAFFIC_PATTERN", Where: Key, Part: -1, Model: lt, Node: "LOSSLESS_TRAFFIC_PATTERN/LOSSLESS_TRAFFIC_PATTERN_LIST/name", Type: "string", Pattern: mapName, Length: "1..32"})
	add(Constraint{Table: "LOSSLESS_TRAFFIC_PATTERN", Where: Field, Field: "mtu", Model: lt, Node: "LOSSLESS_TRAFFIC_PATTERN/LOSSLESS_TRAFFIC_PATTERN_LIST/mtu", Type: "uint16", Range: "1..9216", Mandatory: true})
	add(Constraint{Table: "LOSSLESS_TRAFFIC_PATTERN", Where: Field, Field: "small_packet_percentage", Model: lt, Node: "LOSSLESS_TRAFFIC_PATTERN/LOSSLESS_TRAFFIC_PATTERN_LIST/small_packet_percentage", Type: "uint8", Range: "0..100", Mandatory: true})

	// sonic-pfcwd.yang
	const wd = "sonic-pfcwd.yang"
	port("PFC_WD", wd, "PFC_WD/PFC_WD_LIST/ifname", Key, -1, "GLOBAL")
	add(Constraint{Table: "PFC_WD", Where: Field, Field: "action", Model: wd, Node: "PFC_WD/PFC_WD_LIST/action", Type: "enumeration", Enum: []string{"drop", "forward", "alert"}})
	add(Constraint{Table: "PFC_WD", Where: Field, Field: "detection_time", Model: wd, Node: "PFC_WD/PFC_WD_LIST/detection_time", Type: "uint32", Range: "100..5000"})
	add(Constraint{Table: "PFC_WD", Where: Field, Field: "restoration_time", Model: wd, Node: "PFC_WD/PFC_WD_LIST/restoration_time", Type: "uint32", Range: "100..60000"})
	add(Constraint{Table: "PFC_WD", Where: Field, Field: "POLL_INTERVAL", Model: wd, Node: "PFC_WD/PFC_WD_LIST/POLL_INTERVAL", Type: "uint32", Range: "100..1000"})
	add(Constraint{Table: "PFC_WD", Where: Field, Field: "pfc_stat_history", Model: wd, Node: "PFC_WD/PFC_WD_LIST/pfc_stat_history", Type: "string", Pattern: "enable|disable"})
	return cs
})

// Constraints returns the table.
func Constraints() []Constraint { return constraints() }

// Tables lists the tables the constraints cover, sorted.
func Tables() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range constraints() {
		if !seen[c.Table] {
			seen[c.Table] = true
			out = append(out, c.Table)
		}
	}
	sort.Strings(out)
	return out
}

// Source names the model and node of c.
func (c *Constraint) Source() string { return c.Model + " " + c.Node }

// Rule says what c allows, in the model's words.
func (c *Constraint) Rule() string {
	var parts []string
	switch {
	case c.Ref != "":
		parts = append(parts, "a key of "+c.Ref)
	case len(c.Enum) > 0:
		parts = append(parts, "one of "+strings.Join(c.Enum, ", "))
	case c.Type == "boolean":
		parts = append(parts, "true or false")
	case strings.HasPrefix(c.Type, "uint") || strings.HasPrefix(c.Type, "int"):
		r := c.Range
		if r == "" {
			r = "its range"
		}
		parts = append(parts, c.Type+" "+r)
	}
	if c.Pattern != "" {
		parts = append(parts, "matching "+strconv.Quote(c.Pattern))
	}
	if c.Length != "" {
		parts = append(parts, "of length "+c.Length)
	}
	for _, o := range c.Or {
		parts = append(parts, "or "+strconv.Quote(o))
	}
	return strings.Join(parts, ", ")
}

// RangeBounds returns the bounds of a one-interval range "lo..hi".
func RangeBounds(r string) (lo, hi int64, ok bool) {
	a, b, found := strings.Cut(r, "..")
	if !found {
		return 0, 0, false
	}
	lo, err1 := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
	hi, err2 := strconv.ParseInt(strings.TrimSpace(b), 10, 64)
	return lo, hi, err1 == nil && err2 == nil && lo <= hi
}

// typeBounds are the YANG integer types' own ranges.
var typeBounds = map[string][2]int64{
	"uint8": {0, 255}, "uint16": {0, 65535}, "uint32": {0, 1<<32 - 1}, "int32": {-1 << 31, 1<<31 - 1},
}

// patterns compiles the table's patterns, once, when they are first
// needed.
var patterns = sync.OnceValue(func() map[string]*regexp.Regexp {
	m := map[string]*regexp.Regexp{}
	for _, c := range constraints() {
		if c.Pattern != "" {
			m[c.Pattern] = regexp.MustCompile("^(?:" + c.Pattern + ")$")
		}
	}
	return m
})

// A Violation is a value a constraint refuses.
type Violation struct {
	Table, Key, Field, Value string
	// C is the constraint, nil for a must rule.
	C *Constraint
	// Msg says what is wrong.
	Msg string
	// Source names the model and node.
	Source string
}

// Error implements error.
func (v Violation) Error() string {
	where := v.Table + "|" + v.Key
	if v.Field != "" {
		where += " " + v.Field
	}
	return fmt.Sprintf("%s = %q: %s (%s)", where, v.Value, v.Msg, v.Source)
}

// Rows is a config_db fragment: table, key, field, value.
type Rows = map[string]map[string]map[string]string

// CheckYANG checks every value of db's known tables against the
// constraints and the must rules, and returns what they refuse, sorted.
func CheckYANG(db Rows) []Violation {
	var out []Violation
	cs := constraints()
	for i := range cs {
		c := &cs[i]
		for key, row := range db[c.Table] {
			switch c.Where {
			case Key:
				v := key
				if c.Part >= 0 {
					parts := strings.Split(key, "|")
					if c.Part >= len(parts) {
						out = append(out, Violation{Table: c.Table, Key: key, Value: key, C: c, Msg: fmt.Sprintf("the key has no part %d", c.Part+1), Source: c.Source()})
						continue
					}
					v = parts[c.Part]
				}
				if msg := c.check(v, db); msg != "" {
					out = append(out, Violation{Table: c.Table, Key: key, Value: v, C: c, Msg: msg, Source: c.Source()})
				}
			case Field:
				v, ok := row[c.Field]
				if !ok {
					if c.Mandatory {
						out = append(out, Violation{Table: c.Table, Key: key, Field: c.Field, C: c, Msg: "mandatory, missing", Source: c.Source()})
					}
					continue
				}
				if msg := c.check(v, db); msg != "" {
					out = append(out, Violation{Table: c.Table, Key: key, Field: c.Field, Value: v, C: c, Msg: msg, Source: c.Source()})
				}
			case FieldName, FieldValue:
				for f, v := range row {
					x := v
					if c.Where == FieldName {
						x = f
					}
					if msg := c.check(x, db); msg != "" {
						out = append(out, Violation{Table: c.Table, Key: key, Field: f, Value: x, C: c, Msg: msg, Source: c.Source()})
					}
				}
			}
		}
	}
	out = append(out, checkMust(db)...)
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Table != b.Table {
			return a.Table < b.Table
		}
		if a.Key != b.Key {
			return a.Key < b.Key
		}
		if a.Field != b.Field {
			return a.Field < b.Field
		}
		return a.Msg < b.Msg
	})
	return out
}

// check returns what is wrong with v, or "".
func (c *Constraint) check(v string, db Rows) string {
	for _, o := range c.Or {
		if v == o {
			return ""
		}
	}
	if c.Ref != "" {
		if _, ok := db[c.Ref][v]; !ok {
			return "expected a key of " + c.Ref + " in the same config (leafref)"
		}
		return ""
	}
	if len(c.Enum) > 0 {
		for _, e := range c.Enum {
			if v == e {
				return ""
			}
		}
		return "expected " + c.Rule()
	}
	switch t := c.Type; {
	case t == "boolean":
		if v != "true" && v != "false" {
			return "expected true or false"
		}
	case t == "uint64":
		if _, err := strconv.ParseUint(v, 10, 64); err != nil {
			return "expected an unsigned 64-bit integer"
		}
	case typeBounds[t] != [2]int64{}:
		n, err := strconv.ParseInt(v, 10, 64)
		b := typeBounds[t]
		if err != nil || n < b[0] || n > b[1] {
			return "expected " + t
		}
		if lo, hi, ok := RangeBounds(c.Range); ok && (n < lo || n > hi) {
			return "expected " + c.Range
		}
	}
	if c.Pattern != "" && !patterns()[c.Pattern].MatchString(v) {
		return "expected a value matching " + strconv.Quote(c.Pattern)
	}
	if lo, hi, ok := RangeBounds(c.Length); ok && (int64(len(v)) < lo || int64(len(v)) > hi) {
		return "expected a length of " + c.Length
	}
	return ""
}

// checkMust checks the must rules.
func checkMust(db Rows) []Violation {
	var out []Violation
	wred := mustRules[0]
	for key, row := range db["WRED_PROFILE"] {
		for _, c := range []string{"green", "yellow", "red"} {
			lo, err1 := strconv.ParseUint(row[c+"_min_threshold"], 10, 64)
			hi, err2 := strconv.ParseUint(row[c+"_max_threshold"], 10, 64)
			if err1 == nil && err2 == nil && hi < lo {
				out = append(out, Violation{Table: "WRED_PROFILE", Key: key, Field: c + "_max_threshold", Value: row[c+"_max_threshold"],
					Msg: wred.Msg, Source: wred.Model + " " + wred.Node})
			}
		}
	}
	poll, hasPoll := int64(0), false
	if g, ok := db["PFC_WD"]["GLOBAL"]; ok {
		if n, err := strconv.ParseInt(g["POLL_INTERVAL"], 10, 64); err == nil {
			poll, hasPoll = n, true
		}
	}
	for key, row := range db["PFC_WD"] {
		for f, v := range row {
			switch {
			case key == "GLOBAL" && f != "POLL_INTERVAL":
				r := mustRules[1]
				if f == "action" {
					r = mustRules[2]
				}
				out = append(out, Violation{Table: "PFC_WD", Key: key, Field: f, Value: v, Msg: "only on a port, not GLOBAL", Source: r.Model + " " + r.Node})
			case key != "GLOBAL" && f == "POLL_INTERVAL":
				r := mustRules[3]
				out = append(out, Violation{Table: "PFC_WD", Key: key, Field: f, Value: v, Msg: r.Msg, Source: r.Model + " " + r.Node})
			case hasPoll && (f == "detection_time" || f == "restoration_time"):
				if n, err := strconv.ParseInt(v, 10, 64); err == nil && n < poll {
					r := mustRules[1]
					out = append(out, Violation{Table: "PFC_WD", Key: key, Field: f, Value: v, Msg: fmt.Sprintf("must be at least GLOBAL's POLL_INTERVAL %d", poll), Source: r.Model + " " + r.Node})
				}
			}
		}
	}
	return out
}
