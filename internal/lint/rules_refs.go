package lint

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/doctor"
	"rocelab/internal/sonic"
)

// refRules reports SONiC rows that name a map, scheduler, WRED or buffer
// profile the config does not define: orchagent and bufferorch retry such
// a row until the name appears and apply none of it meanwhile (a
// PORT_QOS_MAP row's pfc_enable included), so the port runs without the
// maps, PFC, ECN or buffers the row sets. One finding per table and name.
func refRules(m *Model) []doctor.Finding {
	var fs []doctor.Finding
	for _, db := range m.Sonic {
		if db.Vendor != "" {
			continue
		}
		type group struct {
			ref  sonic.MissingRef
			keys []string
			ev   []Evidence
		}
		var order []string
		groups := map[string]*group{}
		for _, r := range db.MissingRefs() {
			id := r.Table + "\x00" + r.Field + "\x00" + r.At.Text
			g, ok := groups[id]
			if !ok {
				g = &group{ref: r}
				groups[id] = g
				order = append(order, id)
			}
			g.keys = append(g.keys, shortKey(r.Key))
			g.ev = append(g.ev, sonicEv(db, r.At))
		}
		for _, id := range order {
			g := groups[id]
			r := g.ref
			what := "PFC, the QoS maps and the port scheduler it sets are not applied: with pfc_enable unapplied the port pauses no priority"
			switch r.Table {
			case "QUEUE":
				what = "the queue's scheduler and WRED profile are not applied (the scheduler is resolved first): it runs the default scheduler and marks no ECN"
				if r.Field == "wred_profile" {
					what = "the queue's WRED profile is not applied: it marks no ECN"
				}
			case "BUFFER_PG", "BUFFER_QUEUE":
				what = "the priority group or queue keeps no buffer profile: a lossless PG has no headroom"
			case "BUFFER_PROFILE":
				what = "the profile is not created, nor any PG or queue that uses it"
			case "BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST":
				what = "no profile of the list is set on the port (SAI_PORT_ATTR_QOS_INGRESS_BUFFER_PROFILE_LIST or its egress twin): its per-pool limits stay the ASIC's defaults"
			}
			fs = append(fs, doctor.Finding{
				ID: "config.reference.missing", Severity: doctor.Error, Layer: doctor.LayerFabric,
				Title:    fmt.Sprintf("%s: %s|%s %s names %s %q, which the config does not define", db.File, r.Table, list(g.keys, 3), r.Field, r.To, r.At.Text),
				Subject:  db.File + " " + r.Table,
				Evidence: evs(g.ev...),
				Mechanism: fmt.Sprintf("SONiC applies a %s row only once every name it holds resolves: orchagent (bufferorch for buffers) retries the row until %s|%s exists and applies none of its fields meanwhile, so %s.",
					r.Table, r.To, r.At.Text, what),
				Fix: fmt.Sprintf("Name one of the %s rows the config defines (%s), or add %s|%s.", r.To, list(db.Tables[r.To].Keys(), 4), r.To, r.At.Text),
			})
		}
	}
	fs = append(fs, misnamedRefs(m)...)
	fs = append(fs, refForms(m)...)
	fs = append(fs, unheldRefs(m)...)
	return append(fs, portRules(m)...)
}

// misnamedRefs reports PORT_QOS_MAP and QUEUE references written in the
// bracket form with a table other than the one the field names
// (sonic.MisnamedRefs): orchagent up to 202106 resolves none of them and
// applies none of the row. One finding per table, field and reference.
func misnamedRefs(m *Model) []doctor.Finding {
	var fs []doctor.Finding
	for _, db := range m.Sonic {
		if db.Vendor != "" {
			continue
		}
		byRef := func(r sonic.MissingRef) string {
			return fmt.Sprint(r.Table, "\x00", r.Field, "\x00", r.Written, "\x00", r.At.Text, "\x00", r.Elsewhere)
		}
		for _, rs := range inOrder(db.MisnamedRefs(), byRef) {
			r := rs[0]
			var keys []string
			var ev []Evidence
			for _, x := range rs {
				keys = append(keys, shortKey(x.Key))
				ev = append(ev, sonicEv(db, x.At))
			}
			what := "none of the row's maps and none of its pfc_enable are applied: the port pauses no priority"
			if r.Table == "QUEUE" {
				what = "neither the queue's scheduler nor its WRED profile is applied (qosorch resolves the scheduler first and retries the row): the queue marks no ECN"
			}
			does := "resolves no such reference"
			why := fmt.Sprintf("%s is not %s, the reference never resolves, and qosorch retries the %s row without applying it, so %s", r.Written, r.To, r.Table, what)
			if r.Elsewhere {
				does = fmt.Sprintf("binds %s's row %s in its place", r.Written, r.At.Text)
				why = fmt.Sprintf("%s is one of them and holds %s, so the reference resolves to that row's object and qosorch sets it where the field takes a %s: SAI refuses an object of another type (a WRED profile as a scheduler; the row fails and is dropped, not retried), while one QoS map of another kind is the same SAI object type and may be bound as this one", r.Written, r.At.Text, r.To)
			}
			fs = append(fs, doctor.Finding{
				ID: "config.reference.table", Severity: doctor.Warn, Layer: doctor.LayerFabric,
				Title: fmt.Sprintf("%s: %s|%s %s names [%s|%s], a row of %s, where the field takes a %s row: SONiC up to 202106 %s",
					db.File, r.Table, list(keys, 3), r.Field, r.Written, r.At.Text, r.Written, r.To, does),
				Subject:   db.File + " " + r.Table,
				Evidence:  evs(ev...),
				Mechanism: fmt.Sprintf("Up to SONiC 202106 orchagent reads a reference as \"[TABLE|name]\" and looks TABLE up among the tables it resolves (sonic-swss orchagent/orch.cpp Orch::parseReference, branch 202106: \"not recognized type\"): %s. From 202111 orchagent reads plain names, and db_migrator (sonic-utilities scripts/db_migrator.py migrate_qos_db_fieldval_reference_remove), run by `config reload`, keeps what follows the '|' whatever the table, which hides the mistake.", why),
				Fix:       fmt.Sprintf("Write the field as \"[%s|%s]\" (or the plain name %q, the form since 202111).", r.To, r.At.Text, r.At.Text),
			})
		}
	}
	return fs
}

// refForms reports a config whose QoS and buffer references no SONiC
// release reads as written (sonic.RefForms): bracketed ones in a CONFIG_DB
// whose VERSIONS|DATABASE db_migrator writes once it has stripped the
// bracket form (bracketsStripped: 202111 on), an error; both forms in one file, a warning, since each release refuses
// one of them unless db_migrator rewrites the file on upgrade; plain names
// alone under a stamp of 202106 or earlier, or one db_migrator passes
// before it strips brackets, an info note (plainBeforeForm).
func refForms(m *Model) []doctor.Finding {
	var fs []doctor.Finding
	for _, db := range m.Sonic {
		if db.Vendor != "" {
			continue
		}
		bracket, plain := db.RefForms()
		v, versioned := db.Field("VERSIONS", "DATABASE", "VERSION")
		if len(bracket) == 0 {
			if versioned && (bracketsOnly(v.Text) || bracketsUnstripped(v.Text)) && len(plain) > 0 {
				fs = append(fs, plainBeforeForm(db, plain, v))
			}
			continue
		}
		var rows []string
		var evs0 []Evidence
		for _, r := range bracket {
			rows = append(rows, fmt.Sprintf("%s|%s %s", r.Table, shortKey(r.Key), r.Field))
			evs0 = append(evs0, sonicEv(db, r.At))
		}
		refused := fmt.Sprintf("%d %s in the bracket form, \"[TABLE|name]\" (%s)", len(bracket), pick(len(bracket), "reference", "references"), list(rows, 3))
		mech := "Up to SONiC 202106 orchagent reads a reference only as \"[TABLE|name]\" and refuses a plain name (sonic-swss orchagent/orch.cpp Orch::parseReference: \"Must be surrounded by [ ]\"); from 202111 it reads plain names only and refuses the bracket form (sonic-swss #1754: \"Must not be surrounded by [ ]\"). A refused reference leaves its row unresolved: qosorch and bufferorch retry it and apply none of it (a QUEUE row's scheduler and WRED profile; a PORT_QOS_MAP row's maps and pfc_enable; a buffer profile's pool, so the profile and every priority group and queue that uses it; a priority group's or queue's profile). db_migrator strips the brackets (scripts/db_migrator.py migrate_qos_db_fieldval_reference_remove) only while upgrading a CONFIG_DB from version_3_0_2 or earlier, at boot or `config reload`"
		fix := fmt.Sprintf("Write every reference as the plain name, the form since 202111 (%q for %q).", bracket[0].At.Text, "["+bracket[0].Written+"|"+bracket[0].At.Text+"]")
		switch {
		case versioned && bracketsStripped(v.Text):
			fs = append(fs, doctor.Finding{
				ID: "config.reference.form", Severity: doctor.Error, Layer: doctor.LayerFabric,
				Title:     fmt.Sprintf("%s: %s, in a CONFIG_DB whose VERSIONS|DATABASE is %s (SONiC 202111 or later): orchagent refuses each and applies none of its row", db.File, refused, v.Text),
				Subject:   db.File + " " + bracket[0].Table,
				Evidence:  evs(append(evs0, sonicEv(db, v))...),
				Mechanism: mech + "; at " + v.Text + " it has nothing left to migrate, so these stay refused.",
				Fix:       fix,
			})
		case len(plain) > 0:
			p := plain[0]
			fs = append(fs, doctor.Finding{
				ID: "config.reference.form", Severity: doctor.Warn, Layer: doctor.LayerFabric,
				Title: fmt.Sprintf("%s: %s beside %d written as plain names (%s|%s %s %q): up to 202106 orchagent refuses the plain ones, from 202111 the bracketed ones", db.File, refused, len(plain),
					p.Table, shortKey(p.Key), p.Field, p.At.Text),
				Subject:   db.File + " " + bracket[0].Table,
				Evidence:  evs(append(evs0, sonicEv(db, p.At))...),
				Mechanism: mech + "; a render applied onto a running switch (`config qos reload`, `config load`, `config apply-patch`) is not migrated, so on 202111 and later the bracketed references stay refused, and on 202106 and earlier the plain ones.",
				Fix:       fix,
			})
		}
	}
	return fs
}

// plainBeforeForm notes plain-name references in a CONFIG_DB whose
// VERSIONS|DATABASE a release up to 202106 wrote (bracketsOnly): that
// release's orchagent reads only "[TABLE|name]", but plain names are the
// form of 202111 on, where db_migrator moves the stamp on at load and
// leaves the names as they are. The stamp is no sign of the release the
// file is loaded on: every such file among the public ones is written for
// 202111 or later with an old stamp kept (sonic-mgmt loads its
// vs_voq_cfgs *_qos_new_dbfmt config_db files only on releases after
// 202106, tests/common/utilities.py check_qos_db_fv_reference_with_table),
// so it is information, not a warning.
func plainBeforeForm(db *sonic.ConfigDB, plain []sonic.MissingRef, v sonic.Value) doctor.Finding {
	var rows []string
	var ev []Evidence
	for i, r := range plain {
		rows = append(rows, fmt.Sprintf("%s|%s %s", r.Table, shortKey(r.Key), r.Field))
		if i < 3 {
			ev = append(ev, sonicEv(db, r.At))
		}
	}
	p := plain[0]
	era, title := " is the schema a release up to 202106 writes, and db_migrator there adds no brackets.", "SONiC 202106 or earlier): read as written on 202111 or later, refused by that release's orchagent"
	if !bracketsOnly(v.Text) {
		era = " is a stamp db_migrator of 202205 and later passes on its way up (version_3_0_0 to version_3_0_2 renumber the 202106 line's version_2_0_0 to version_2_0_2, sonic-utilities #2272): at version_3_0_2 it strips the bracket form from every reference (migrate_qos_fieldval_reference_format) and writes version_3_0_3, so the schema of this stamp still holds bracketed references. No release stops at it, and one up to 202106, whose db_migrator does not know it, migrates nothing."
		title = "a stamp db_migrator passes before it strips brackets, from 202205): read as written on 202111 or later, refused by SONiC 202106 or earlier"
	}
	return doctor.Finding{
		ID: "config.reference.form", Severity: doctor.Info, Layer: doctor.LayerFabric,
		Title: fmt.Sprintf("%s: %d %s written as plain names (%s), in a CONFIG_DB whose VERSIONS|DATABASE is %s (%s",
			db.File, len(plain), pick(len(plain), "reference", "references"), list(rows, 3), v.Text, title),
		Subject:  db.File + " " + p.Table,
		Evidence: evs(append(ev, sonicEv(db, v))...),
		Mechanism: "Up to SONiC 202106 orchagent reads a reference only as \"[TABLE|name]\" and refuses a plain name (sonic-swss orchagent/orch.cpp Orch::parseReference: \"Must be surrounded by [ ]\"): qosorch and bufferorch retry the row and apply none of it (a PORT_QOS_MAP row's maps and pfc_enable; a QUEUE row's scheduler and WRED profile; a buffer profile's pool; a priority group's or queue's profile). " +
			v.Text + era + " From 202111 plain names are the form orchagent reads, and db_migrator, run at boot and by `config reload`, moves an older stamp on and leaves plain names as they are: there the file is read as written. Plain names are that form, so the file was most likely written for 202111 or later and kept an old stamp (sonic-mgmt's vs_voq_cfgs qos_new_dbfmt config_db files do, and it loads them only on releases after 202106).",
		Fix: fmt.Sprintf("Nothing to change on 202111 or later. To load the file on 202106 or earlier, write each reference in the bracket form (%q for %q).", "["+p.To+"|"+p.At.Text+"]", p.At.Text),
	}
}

// bracketsOnly reports whether a CONFIG_DB at schema version v was
// written by a release whose orchagent reads references only in the
// bracket form: version_1_0_x (201911 and before) through version_2_0_2
// (202012, 202106); 202111 migrates past version_2_0_2 (bracketsStripped).
func bracketsOnly(v string) bool {
	return dbVersionAtLeast(v, 1, 0, 0) && !dbVersionAtLeast(v, 2, 0, 3)
}

// bracketsUnstripped reports whether a CONFIG_DB at schema version v is
// one db_migrator of 202205 on has not yet stripped of the bracket form:
// version_3_0_0 to version_3_0_2, which it migrates to version_3_0_3 by
// migrate_qos_fieldval_reference_format (sonic-utilities
// scripts/db_migrator.py, branch 202205 and master). No release writes
// them as its own (202205 starts at version_3_0_5 or later).
func bracketsUnstripped(v string) bool {
	return dbVersionAtLeast(v, 3, 0, 0) && !dbVersionAtLeast(v, 3, 0, 3)
}

// bracketsStripped reports whether a CONFIG_DB at schema version v has
// been through db_migrator's migrate_qos_fieldval_reference_format, so
// that no later boot strips a bracketed reference: 202111 migrates
// version_2_0_2 to version_2_0_3 and writes version_2_0_4; 202205 on
// migrate version_3_0_2 to version_3_0_3 (sonic-utilities
// scripts/db_migrator.py, branches 202111 and 202205) and write
// version_3_0_7, version_4_0_3, then release-named versions. 202012 and
// 202106 write version_2_0_2.
func bracketsStripped(v string) bool {
	return v == "version_2_0_3" || v == "version_2_0_4" || dbVersionAtLeast(v, 3, 0, 3)
}

// unknownPortHandling is what the orch that reads the table does with a
// key's name portsorch does not know: qosorch skips it and sets the
// row's other ports (sonic-swss orchagent/qosorch.cpp
// handlePortQosMapTable, the same at 202305, 202411 and master);
// bufferorch refuses the row there, after setting the ports before it
// up to 202405 and, since it gathers every port before setting any
// (202411 on), setting none of them (bufferorch.cpp processQueue and
// processPriorityGroup).
var unknownPortHandling = map[string]string{
	"PORT_QOS_MAP": "qosorch splits the key's port list at ',' and skips a name portsorch does not know (\"Failed to apply QoS maps to port X. Port is not found.\"), setting the row on the other ports: ",
	"BUFFER_PG":    bufferUnknownPort,
	"BUFFER_QUEUE": bufferUnknownPort,
	// bufferorch.cpp processIngressBufferProfileList and its egress twin.
	"BUFFER_PORT_INGRESS_PROFILE_LIST": bufferListUnknownPort,
	"BUFFER_PORT_EGRESS_PROFILE_LIST":  bufferListUnknownPort,
}

const bufferListUnknownPort = "bufferorch resolves the profile list and splits the key's port list at ','; at the first name portsorch does not know (\"Port with alias:... not found\") it drops the row (task_invalid_entry, not retried): up to SONiC 202405, which sets the list on each port in turn, the ports listed before it keep the list and those after it do not; from 202411, which gathers every port before setting any, no port of the row is set: "

const bufferUnknownPort = "bufferorch splits the key's port list at ',' and refuses the row at the first name portsorch does not know (\"Port with alias:... not found\"): up to SONiC 202405 the ports listed before it were set and those after it are not; from 202411, which gathers every port before setting any, no port of the row is set: "

// unknownPortEffect is what the port a dropped row was meant for misses.
var unknownPortEffect = map[string]string{
	"PORT_QOS_MAP":                     "the port meant keeps no QoS maps and no pfc_enable, so it pauses no priority.",
	"BUFFER_PG":                        "the port meant gets no profile from this row; its lossless priority groups keep headroom only if buffermgrd writes them itself (the traditional model does, from the port's speed and cable length, where pfc_enable is set), else they drop instead of pausing.",
	"BUFFER_QUEUE":                     "the port meant gets no queue profile from this row and its queues take the pool's default.",
	"BUFFER_PORT_INGRESS_PROFILE_LIST": "the port meant gets no SAI_PORT_ATTR_QOS_INGRESS_BUFFER_PROFILE_LIST: its per-pool ingress limits stay the ASIC's defaults.",
	"BUFFER_PORT_EGRESS_PROFILE_LIST":  "the port meant gets no SAI_PORT_ATTR_QOS_EGRESS_BUFFER_PROFILE_LIST: its per-pool egress limits stay the ASIC's defaults.",
}

// portRules reports ports a PORT_QOS_MAP, BUFFER_PG, BUFFER_QUEUE or
// BUFFER_PORT_*_PROFILE_LIST key, or a CABLE_LENGTH field, names that the config's PORT table does not
// hold: a typo (Ethernet1 for Ethernet4) leaves the port meant without
// the row. One finding per table.
func portRules(m *Model) []doctor.Finding {
	var fs []doctor.Finding
	for _, db := range m.Sonic {
		if db.Vendor != "" {
			continue
		}
		for _, us := range inOrder(db.UnknownPorts(), func(u sonic.UnknownPort) string { return u.Table }) {
			table := us[0].Table
			var names, keys []string
			var ev []Evidence
			for _, u := range us {
				if !slices.Contains(names, u.Port) {
					names = append(names, u.Port) // a port's rows of several priority groups name it once
				}
				keys = append(keys, u.Key)
				ev = append(ev, sonicEv(db, u.At))
			}
			keys = slices.Compact(keys)
			title := fmt.Sprintf("%s: %s|%s names %s, which PORT does not hold", db.File, table, list(keys, 3), list(names, 4))
			if slices.Equal(keys, names) {
				// Each row keyed by one port: name the ports once.
				title = fmt.Sprintf("%s: %s rows of %s, ports PORT does not hold", db.File, table, list(names, 4))
			}
			others, nowhere := otherNamespaces(m, db, names)
			if others != "" {
				title += " (" + others + ")"
			}
			f := doctor.Finding{
				ID: "config.port.unknown", Severity: doctor.Error, Layer: doctor.LayerFabric,
				Title:     title,
				Subject:   db.File + " " + table,
				Evidence:  evs(ev...),
				Mechanism: unknownPortHandling[table] + unknownPortEffect[table],
				Fix:       fmt.Sprintf("Name ports PORT holds (%s), one by one, comma-separated: SONiC expands no ranges in these keys.", list(db.Tables["PORT"].Keys(), 4)),
			}
			if others != "" {
				f.Fix = fmt.Sprintf("Move the rows into the namespace whose PORT holds the port (%s): each ASIC's orchagent reads its own CONFIG_DB (`config load` writes the file's asicN object to that ASIC's database), so a row under another ASIC is dropped there and missing where the port is.", others)
				if len(nowhere) > 0 {
					f.Fix = fmt.Sprintf("For %s, in no namespace's PORT: name ports PORT holds (%s), one by one, comma-separated. %s", list(nowhere, 4), list(db.Tables["PORT"].Keys(), 4), strings.Replace(f.Fix, "Move the rows", "Move the other rows", 1))
				}
			}
			if table != "PORT_QOS_MAP" {
				f.Severity = doctor.Warn
			}
			if table == "CABLE_LENGTH" {
				f.Mechanism = "buffermgrd reads a port's cable length when the port comes up and skips lengths of ports that do not exist: harmless in itself, but a typo'd name leaves the port meant at the default length, so its lossless headroom is sized for the wrong cable."
				f.Fix = fmt.Sprintf("Name the ports PORT holds (%s) in CABLE_LENGTH.", list(db.Tables["PORT"].Keys(), 4))
			}
			fs = append(fs, f)
		}
	}
	return fs
}

// otherNamespaces says which other ASIC namespaces of the same multi-ASIC
// config_db hold the ports in their PORT tables ("Ethernet0 is asic0's"),
// or "" when none does, and lists the ports no other namespace holds; the
// host's (localhost) PORT, which may list every front-panel port, says
// nothing of where orchagent knows one.
func otherNamespaces(m *Model, db *sonic.ConfigDB, ports []string) (string, []string) {
	var said, nowhere []string
	for _, p := range slices.Compact(slices.Sorted(slices.Values(ports))) {
		held := slices.ContainsFunc(m.Sonic, func(o *sonic.ConfigDB) bool {
			if o == db || !db.SameDump(o) || o.Namespace == "" || o.Namespace == "localhost" {
				return false
			}
			if _, ok := o.Tables["PORT"][p]; ok {
				said = append(said, fmt.Sprintf("%s is %s's", p, o.Namespace))
				return true
			}
			return false
		})
		if !held {
			nowhere = append(nowhere, p)
		}
	}
	return list(said, 3), nowhere
}

// unheldDecides is, by the table a name points into, what lint cannot
// judge while the input does not hold it; names of schedulers and pools,
// which decide none of RoCE's rules but the egress pool's, are left out.
var unheldDecides = map[string]string{
	"DSCP_TO_TC_MAP":                     "which class RoCE's DSCP lands in",
	"DOT1P_TO_TC_MAP":                    "which class RoCE's 802.1p priority lands in",
	"TC_TO_PRIORITY_GROUP_MAP":           "which priority group RoCE's class fills (its headroom)",
	"TC_TO_QUEUE_MAP":                    "which queue RoCE's class leaves by (its ECN and scheduler)",
	"MAP_PFC_PRIORITY_TO_QUEUE":          "which queue a received pause stops",
	"PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": "which priority group's fill sends a pause",
	"WRED_PROFILE":                       "the queue's ECN marking and its thresholds",
	"BUFFER_PROFILE":                     "the priority group's headroom (xoff) or the queue's buffer",
}

// unheldRefs says of a SONiC fragment whose rows name maps or profiles of
// tables it does not hold (PORT_QOS_MAP pasted alone; a configlet adding
// a port to a switch that already holds AZURE's maps) which names went
// unresolved and what they decide: orchagent resolves them on the switch,
// lint cannot, and "no findings" would read as a sound port. A table
// another SONiC input of the run holds (qos.json beside buffers.json)
// resolves the name there; another ASIC's namespace of the same dump does
// not (each ASIC's orchagent reads its own CONFIG_DB), nor does another
// test case of the same YANG test file. One finding per file.
func unheldRefs(m *Model) []doctor.Finding {
	held := func(db *sonic.ConfigDB, to, name string) bool {
		return slices.ContainsFunc(m.Sonic, func(o *sonic.ConfigDB) bool {
			_, ok := o.Tables[to][name]
			return ok && db.SuppliedBy(o)
		})
	}
	var fs []doctor.Finding
	for _, db := range m.Sonic {
		if db.Vendor != "" {
			continue
		}
		var names, decides []string
		var ev []Evidence
		seen := map[string]bool{}
		for _, r := range db.UnheldRefs() {
			name := r.To + "|" + strings.TrimSpace(r.At.Text)
			d, ok := unheldDecides[r.To]
			if !ok || held(db, r.To, strings.TrimSpace(r.At.Text)) || seen[name] {
				continue
			}
			seen[name] = true
			names = append(names, name)
			ev = append(ev, sonicEv(db, r.At))
			if !slices.Contains(decides, d) {
				decides = append(decides, d)
			}
		}
		if len(names) == 0 {
			continue
		}
		fs = append(fs, doctor.Finding{
			ID: "config.not_judged", Severity: doctor.Info, Layer: doctor.LayerInput,
			Title:     fmt.Sprintf("%s: names %s, which no input holds: not judged: %s", db.File, list(names, 4), strings.Join(decides, "; ")),
			Subject:   db.File,
			Evidence:  evs(ev...),
			Mechanism: "orchagent resolves these names against the tables of the switch the fragment was cut from; lint sees neither the rows nor whether they exist, so what they decide is unchecked (a name the switch lacks would hold the whole row back, its pfc_enable included), and no finding on it is not a clean bill.",
			Fix:       "Give lint the tables beside the fragment (the switch's whole CONFIG_DB: `show runningconfiguration all`, /etc/sonic/config_db.json, or qos.json with buffers.json).",
		})
	}
	return fs
}

// inOrder groups items by key, the groups in the order of their first
// items.
func inOrder[T any](items []T, key func(T) string) [][]T {
	at := map[string]int{}
	var groups [][]T
	for _, it := range items {
		k := key(it)
		i, ok := at[k]
		if !ok {
			i = len(groups)
			at[k] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], it)
	}
	return groups
}
