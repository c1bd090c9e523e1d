package lint

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/doctor"
	"rocelab/internal/headroom"
	"rocelab/internal/ingest"
	"rocelab/internal/sonic"
)

// configRules reports config_db keys given twice in the tables lint
// reads: SONiC's loaders (Python's json) keep the later one, so the
// earlier row or field is silently lost.
func configRules(m *Model) []doctor.Finding {
	fs := uncheckedConfigs(m)
	fs = append(fs, notJudged(m)...)
	fs = append(fs, fragmentNotJudged(m)...)
	fs = append(fs, unmappedNotJudged(m)...)
	fs = append(fs, m.dynamicNotJudged()...)
	fs = append(fs, pfcEnableFormat(m)...)
	fs = append(fs, nullFields(m)...)
	for _, db := range m.Sonic {
		keys, ev := keysWhere(db, db.Duplicates, func(table string, d sonic.Value) bool { return sonic.ReadTable(table) || d.Text == db.Wrapper }, func(d sonic.Value) string { return shortKey(d.Text) })
		if len(keys) == 0 {
			continue
		}
		fs = append(fs, doctor.Finding{
			ID: "config.duplicate_key", Severity: doctor.Warn, Layer: doctor.LayerFabric,
			Title:     fmt.Sprintf("%s: %s given twice (%s): the later replaces the earlier", db.File, counted(len(keys), "key", "keys"), list(keys, 3)),
			Subject:   db.File,
			Evidence:  evs(ev...),
			Mechanism: "JSON objects have one value per key. `config load` and sonic-cfggen read config_db.json with Python's json module, which keeps the last value of a repeated key: a QUEUE row given once for its scheduler and again for its WRED profile ends up with the WRED profile only, and the queue runs on the default scheduler.",
			Fix:       "Merge the repeated rows into one (both fields under one key).",
		})
	}
	return fs
}

// keysWhere names the keys of vs ("TABLE|key", "TABLE|key.field") that
// keep takes, given each one's table, as name writes them, with their
// evidence.
func keysWhere(db *sonic.ConfigDB, vs []sonic.Value, keep func(table string, v sonic.Value) bool, name func(sonic.Value) string) ([]string, []Evidence) {
	var keys []string
	var ev []Evidence
	for _, v := range vs {
		table, _, _ := strings.Cut(v.Text, "|")
		table, _, _ = strings.Cut(table, ".")
		if !keep(table, v) {
			continue
		}
		keys = append(keys, name(v))
		ev = append(ev, sonicEv(db, v))
	}
	return keys, ev
}

// list names up to n items, then how many more.
// counted is n with the noun phrase for one or for many: "1 key", "2 keys".
func counted(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, pick(n, one, many))
}

// pick is one when n is 1, many otherwise.
func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func list(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(" and %d more", len(xs)-n)
}

// shortKey abbreviates the port list of a key such as
// "QUEUE|Ethernet1,Ethernet2,...|3".
func shortKey(k string) string {
	parts := strings.Split(k, "|")
	for i, p := range parts {
		if ports := strings.Split(p, ","); len(ports) > 4 {
			parts[i] = portList(ports)
		}
	}
	return strings.Join(parts, "|")
}

// qosTables are the CONFIG_DB tables that carry what lint checks of the
// RoCE class: its maps, PFC, ECN, buffers and the watchdog.
var qosTables = []string{"PORT_QOS_MAP", "DSCP_TO_TC_MAP", "BUFFER_PG", "BUFFER_PROFILE", "WRED_PROFILE", "QUEUE", "PFC_WD"}

// attachTables are those of qosTables that put the RoCE class on ports
// and queues; WRED and buffer profiles alone are used by none, and lint
// judges a profile at the speed of the ports that use it.
var attachTables = []string{"PORT_QOS_MAP", "DSCP_TO_TC_MAP", "BUFFER_PG", "QUEUE", "PFC_WD"}

// uncheckedConfigs says of a config_db that holds none of attachTables
// (at most WRED or buffer profiles) that PFC, ECN and the buffers went
// unchecked: "no findings" would read as a clean fabric.
func uncheckedConfigs(m *Model) []doctor.Finding {
	var fs []doctor.Finding
	for _, db := range m.Sonic {
		if f, ok := unboundKLISH(db); ok {
			fs = append(fs, f)
			continue
		}
		have := db.TableNames()
		if slices.ContainsFunc(attachTables, db.Has) || hostOfASICs(m, db) || db.PortsSkipped || yangNoneRead(db, have) {
			continue
		}
		var profiles []string
		for _, t := range have {
			if slices.Contains(qosTables, t) {
				profiles = append(profiles, t)
			}
		}
		read := list(have, 6)
		if len(have) == 0 {
			read = "none (empty)"
		}
		title := fmt.Sprintf("%s: none of the tables that set RoCE's class (%s): its PFC, ECN and buffers were not checked; tables read: %s", db.File, strings.Join(qosTables, ", "), read)
		if len(profiles) > 0 {
			checked := "the profiles were not checked"
			if n := namedLossless(db); n > 0 {
				checked = fmt.Sprintf("only the headroom of the %d lossless profiles named by speed and cable (pg_lossless_<speed>_<cable>_profile) was judged, by their names", n)
			}
			title = fmt.Sprintf("%s: %s without the tables that put them on ports and queues (%s): %s; tables read: %s", db.File, strings.Join(profiles, ", "), strings.Join(attachTables, ", "), checked, list(have, 6))
		}
		f := doctor.Finding{
			ID: "config.qos.absent", Severity: doctor.Info, Layer: doctor.LayerInput,
			Title:     title,
			Subject:   db.File,
			Evidence:  []Evidence{{File: db.Source(), Text: "tables: " + strings.Join(have, ", ")}},
			Mechanism: "A switch's lossless class lives in its QoS maps, buffer profiles and WRED profiles; a config without them says nothing about PFC or ECN, so no finding here is not a clean bill.",
			Fix:       "Give the switch's whole CONFIG_DB: `show runningconfiguration all`, or /etc/sonic/config_db.json.",
		}
		if at, ok := caseEv(db); ok {
			f.Evidence = []Evidence{at}
		}
		if isNOS(db) && db.Vendor != sonic.VendorKLISH {
			// CONFIG_DB's tables are lint's own rows here: the switch's
			// configuration set QoS on no port lint judges.
			f.Title = fmt.Sprintf("%s: no interface or system policy sets QoS (trust, PFC, queues): its PFC, ECN and buffers were not checked", db.File)
			f.Evidence = []Evidence{{File: db.Source(), Line: 1, Text: "no QoS on any interface"}}
			f.Mechanism = "A switch's lossless class lives in its classification, PFC and queue settings; a configuration that applies none to a port says nothing about PFC or ECN, so no finding here is not a clean bill."
			f.Fix = "Give the switch's whole running-config (`show running-config`), with the interfaces that carry RoCE and the QoS policies or profiles they apply."
			if h, ok := db.RunningConfigHeader(); ok {
				// The whole configuration, by its header: nothing is
				// left out, and the OS's defaults pause and mark nothing.
				f.Title = fmt.Sprintf("%s: the whole configuration (%s) sets QoS on no interface: the switch runs its defaults, which pause no priority and mark no ECN", db.File, h.Text)
				f.Evidence = []Evidence{{File: db.Source(), Line: h.Line, Col: h.Col, Text: h.Text}}
				f.Mechanism = "A whole running-config is the switch's state: with no classification, PFC or queue setting, every class is lossy. RoCE crossing this switch is dropped when a queue fills, with no pause to hold the sender and no ECN mark for DCQCN to slow it first; that is right for a switch RoCE does not cross (management, BMC), wrong for one it does."
				f.Fix = "If RoCE crosses this switch, give its class PFC on the ports it uses and ECN marking on its queue (docs/lint.md names each OS's commands); a switch RoCE does not cross needs neither."
			}
		}
		fs = append(fs, f)
	}
	for _, a := range m.Artifacts {
		sw, ok := a.(*ingest.SwitchCounters)
		if !ok {
			continue
		}
		var names []string
		var ev []Evidence
		for _, p := range sw.Profiles {
			if _, named := headroom.ParseProfileName(p.Name); p.Xoff > 0 && !named {
				names = append(names, p.Name)
				ev = append(ev, p.Evidence...)
			}
		}
		if len(names) == 0 {
			continue
		}
		noun := "profiles"
		if len(names) == 1 {
			noun = "profile"
		}
		fs = append(fs, doctor.Finding{
			ID: "config.buffers.unmapped", Severity: doctor.Info, Layer: doctor.LayerInput,
			Title:     fmt.Sprintf("%s: %d lossless buffer %s (%s) without the ports and PGs that use them: headroom not checked", sw.Source(), len(names), noun, list(names, 3)),
			Subject:   sw.Source(),
			Evidence:  evs(ev...),
			Mechanism: "Whether xoff holds what arrives after a pause depends on the speed and cable of the port the profile is on; `mmuconfig -l` and `show buffer configuration` list pools and profiles, not BUFFER_PG, PORT or CABLE_LENGTH. A profile named as buffermgrd names them (pg_lossless_<speed>_<cable>_profile) is judged by its name (switch.headroom.short); these are not, so no finding here is not a clean bill.",
			Fix:       "Give the switch's CONFIG_DB (`show runningconfiguration all`), whose BUFFER_PG, PORT and CABLE_LENGTH say where each profile is used.",
		})
	}
	return fs
}

// klishDefs are the tables a KLISH `qos map` or `qos wred-policy` or
// `qos scheduler-policy` block writes, which only an interface's lines
// put on a port.
var klishDefs = []string{"DSCP_TO_TC_MAP", "DOT1P_TO_TC_MAP", "TC_TO_QUEUE_MAP", "TC_TO_PRIORITY_GROUP_MAP", "MAP_PFC_PRIORITY_TO_QUEUE", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "WRED_PROFILE", "SCHEDULER"}

// unboundKLISH says of a KLISH running configuration whose maps and
// policies no interface binds (no `qos-map`, `queue N wred-policy`,
// `scheduler-policy` or `priority-flow-control priority` line under an
// `interface Eth…`) what it defines and that nothing was judged: the maps
// alone put no packet in a class, and "no findings" would read as a clean
// switch.
func unboundKLISH(db *sonic.ConfigDB) (doctor.Finding, bool) {
	if db.Vendor != sonic.VendorKLISH || db.Has("PORT_QOS_MAP") || db.Has("QUEUE") || db.Has("PFC_WD") {
		return doctor.Finding{}, false
	}
	var names []string
	var ev []Evidence
	for _, t := range klishDefs {
		seen := map[string]bool{}
		for _, key := range db.Tables[t].Keys() {
			name, _, _ := strings.Cut(key, "@")
			if seen[name] {
				continue
			}
			seen[name] = true
			if at, ok := db.KeyPos(t + "|" + name); ok {
				names = append(names, at.Text)
				ev = append(ev, sonicEv(db, at))
			}
		}
	}
	if len(names) == 0 {
		return doctor.Finding{}, false
	}
	return doctor.Finding{
		ID: "config.qos.absent", Severity: doctor.Info, Layer: doctor.LayerInput,
		Title:     fmt.Sprintf("%s: no interface binds %s: no port's PFC, ECN or classes were checked", db.File, list(names, 4)),
		Subject:   db.File,
		Evidence:  evs(ev...),
		Mechanism: "The management framework writes a `qos map` or `qos wred-policy` block as a CONFIG_DB map or profile that no port uses until an interface names it (`qos-map dscp-tc NAME`, `queue N wred-policy NAME`, `scheduler-policy NAME`) and enables PFC on it (`priority-flow-control priority N`); without those lines the switch classifies, pauses and marks nothing of RoCE's, and lint has no port to judge.",
		Fix:       "Give the interfaces' blocks of `show running-configuration` (each `interface Eth…` with its `qos-map`, `priority-flow-control priority` and `queue N wred-policy` lines), or bind the maps on the ports that carry RoCE.",
	}, true
}

// yangNoneRead reports a YANG config of which lint read no table (have),
// every module named not read (notJudged's finding says so): telling it
// sets no QoS too would say it twice (sonic-yang-models' ACL or VLAN tests,
// one finding per case).
func yangNoneRead(db *sonic.ConfigDB, have []string) bool {
	return db.YANG && len(have) == 0 && len(db.Skipped) > 0
}

// caseEv is where a YANG test case's name is written, the evidence for
// what is said of the whole case; false for a config that is no case.
func caseEv(db *sonic.ConfigDB) (Evidence, bool) {
	at := db.WrapperAt
	if !db.YANG || at.Line == 0 {
		return Evidence{}, false
	}
	return Evidence{File: db.Source(), Line: at.Line, Col: at.Col, Text: db.LineText(at.Line)}, true
}

// hostOfASICs reports the host namespace ("localhost") of a multi-ASIC
// dump one of whose ASIC namespaces sets RoCE's class: on a multi-ASIC
// switch the ASICs' namespaces hold the QoS tables and the host's none.
func hostOfASICs(m *Model, db *sonic.ConfigDB) bool {
	if db.Namespace != "localhost" {
		return false
	}
	return slices.ContainsFunc(m.Sonic, func(o *sonic.ConfigDB) bool {
		return db.SameDump(o) && o.Namespace != "localhost" && slices.ContainsFunc(attachTables, o.Has)
	})
}

// namedLossless counts the BUFFER_PROFILE rows with an xoff whose name
// gives their speed and cable: those sonicNamedProfiles judges.
func namedLossless(db *sonic.ConfigDB) int {
	n := 0
	for _, name := range db.Tables["BUFFER_PROFILE"].Keys() {
		_, named := headroom.ParseProfileName(name)
		if p, ok := db.Profile(name); named && ok && p.Xoff > 0 {
			n++
		}
	}
	return n
}

// notJudged names the QoS settings of an NVUE, EOS, NX-OS, OS10, AOS-CX, Onyx, Junos or traffic.conf input that were read
// but that no rule judges: no finding on them is not a clean bill.
func notJudged(m *Model) []doctor.Finding {
	var fs []doctor.Finding
	for _, db := range m.Sonic {
		if db.Vendor == "" && !db.YANG && !db.Patch || len(db.Skipped) == 0 {
			continue
		}
		var names []string
		var ev []Evidence
		if at, ok := caseEv(db); ok {
			ev = append(ev, at)
		}
		for _, v := range db.Skipped {
			names = append(names, v.Text)
			ev = append(ev, sonicEv(db, v))
		}
		f := doctor.Finding{
			ID: "config.nvue.not_judged", Severity: doctor.Info, Layer: doctor.LayerInput,
			Title:     fmt.Sprintf("%s: %d QoS settings read but not judged: %s", db.File, len(names), list(names, 4)),
			Subject:   db.File,
			Evidence:  evs(ev...),
			Mechanism: "lint judges the RoCE class of a Cumulus switch (its DSCP map, PFC, ECN and scheduling) by the rules it judges SONiC by; buffer pools, remarking, link pause and the like are read so that none is silently lost, but no rule weighs them.",
			Fix:       "Nothing to change for lint; check these settings by hand (`nv show qos roce`, `nv show qos <feature>`).",
		}
		switch {
		case db.Patch:
			f.ID = "config.not_judged"
			f.Title = fmt.Sprintf("%s: %s not read: %s", db.File, counted(len(names), "patch operation", "patch operations"), list(names, 4))
			f.Mechanism = "lint reads a JSON Patch for SONiC's Generic Config Updater (`config apply-patch`) as the tables, rows and fields its add and replace operations write; a remove, a move or copy, or an append to a list changes what the running config holds, which the patch does not, so what it leaves is unknown and no rule weighs it."
			f.Fix = "Nothing to change for lint; to judge the result, give the switch's CONFIG_DB after the patch (`show runningconfiguration all`), or lint the patch beside the config it is applied to."
		case db.YANG:
			f.ID = "config.not_judged"
			f.Title = fmt.Sprintf("%s: %s not read: %s", db.File, counted(len(names), "YANG node", "YANG nodes"), list(names, 4))
			f.Mechanism = "lint reads SONiC YANG instance data by turning each module's lists back into the CONFIG_DB tables they model (sonic-yang-mgmt's reverse translation), which needs each list's key leaves: it knows them for the QoS, buffer, port and device tables; a module or node outside them is named here, not dropped, and no rule weighs it."
			f.Fix = "Nothing to change for lint if these modules set no QoS; otherwise give the switch's CONFIG_DB (`show runningconfiguration all`, /etc/sonic/config_db.json), which holds every table."
		case db.Vendor != sonic.VendorCumulus:
			f.ID = "config.not_judged"
			f.Mechanism = "lint judges the RoCE class of an EOS, NX-OS, OS10, FTOS, AOS-CX, Onyx, Junos or Cumulus traffic.conf switch (its DSCP classification, PFC and queue ECN) by the rules it judges SONiC by; the watchdog, shapers, schedulers, EOS's classification by policy-map, OS10 queuing policies no port applies (their ECN marks nothing) and ECN thresholds in segments, time, NX-OS presets or Junos fill levels (percentages of a buffer the configuration does not size) are read so that none is silently lost, but no rule weighs them."
			f.Fix = "Nothing to change for lint; check these settings by hand (EOS: `show qos interfaces`, `show priority-flow-control`; NX-OS: `show queuing interface`; OS10: `show qos interface ethernet 1/1/1`, `show interface priority-flow-control`; FTOS: `show qos dcb-map NAME`, `show interfaces tengigabitethernet 0/0 pfc detail`; AOS-CX: `show interface 1/1/1 qos`, `show dcbx interface 1/1/1`, `show qos pool`; Cumulus 4.x: `cl-consistency-check --datapath-syncheck`; Onyx: `show dcb priority-flow-control`, `show interfaces ethernet 1/1 congestion-control`; Junos: `show class-of-service interface`); thresholds in bytes or kbytes let lint judge ECN against the BDP."
		}
		fs = append(fs, f)
	}
	return fs
}

// sonicHolds reports whether an input of the run that can supply db's
// tables (db.SuppliedBy) has table.
func sonicHolds(m *Model, db *sonic.ConfigDB, table string) bool {
	return slices.ContainsFunc(m.Sonic, func(o *sonic.ConfigDB) bool { return db.SuppliedBy(o) && o.Has(table) })
}

// fragmentChecks are, by table, the checks a SONiC fragment without it
// cannot run (and when the table is wanted: a fragment that binds queues
// needs no QUEUE).
var fragmentChecks = []struct{ table, checks string }{
	{"PORT_QOS_MAP", "PFC on the RoCE priority (pfc_enable), and which DSCP_TO_TC, TC_TO_PRIORITY_GROUP and TC_TO_QUEUE maps the ports use, so which priority group and queue RoCE lands in"},
	{"QUEUE", "ECN marking and scheduling on the RoCE queue (QUEUE binds WRED_PROFILE and SCHEDULER rows to queues)"},
}

// fragmentCheck is what fragmentChecks says a fragment without table
// cannot check.
func fragmentCheck(table string) string {
	i := slices.IndexFunc(fragmentChecks, func(c struct{ table, checks string }) bool { return c.table == table })
	return fragmentChecks[i].checks
}

// bufferChecks are the checks a SONiC config that sets PFC on its ports
// cannot run without BUFFER_PG and BUFFER_PROFILE (a qos.json render
// without its buffers.json).
const bufferChecks = "the PFC headroom of the lossless priority groups (xoff against each port's speed and cable length), whether RoCE's priority group keeps headroom at all, the shared headroom pool, and the egress buffer of RoCE's queue (BUFFER_QUEUE)"

// wholeConfig reports whether db is a switch's whole CONFIG_DB
// (DEVICE_METADATA|localhost and PORT), whose missing tables are missing
// on the switch, not in another file.
func wholeConfig(db *sonic.ConfigDB) bool {
	_, meta := db.Tables["DEVICE_METADATA"]["localhost"]
	return meta && len(db.Tables["PORT"]) > 0
}

// setsPFC reports whether a port of db has pfc_enable on some priority.
func setsPFC(db *sonic.ConfigDB) bool {
	return slices.ContainsFunc(db.PortQoSMaps(), func(pq sonic.PortQoS) bool { return pq.Port != "global" && len(pq.PFCEnable) > 0 })
}

// fragmentNotJudged names, for a SONiC fragment that puts some of the
// RoCE class on ports (a buffers.json with BUFFER_PG, a QUEUE and WRED
// excerpt) but lacks PORT_QOS_MAP, the checks that could not run for lack
// of it (and of QUEUE, when that is missing too), and for one that sets
// PFC on its ports but holds no buffer table (a qos.json; a whole
// CONFIG_DB without them is pfc.pg.lossy's, sonic.StandInUnwritten), those of the
// buffers (bufferChecks): a fragment claims no table it does not hold, so
// their absence is no finding, but no finding on them is no clean bill
// either. A table another SONiC input of the run holds (qos.json beside
// buffers.json) is not missing (another test case of the same YANG test
// file is no other input); a config with none of the tables that
// put the class on ports is config.qos.absent's.
func fragmentNotJudged(m *Model) []doctor.Finding {
	var fs []doctor.Finding
	for _, db := range m.Sonic {
		if db.Vendor != "" || !slices.ContainsFunc(attachTables, db.Has) || hostOfASICs(m, db) {
			continue
		}
		var missing, checks []string
		for _, c := range fragmentChecks {
			if !sonicHolds(m, db, c.table) {
				missing = append(missing, c.table)
				checks = append(checks, c.checks)
			}
		}
		if !slices.Contains(missing, "PORT_QOS_MAP") {
			missing, checks = nil, nil
		}
		if len(missing) == 0 && otherFeatureExcerpt(db) {
			missing, checks = append(missing, "pfc_enable or a QoS map"), append(checks, fragmentCheck("PORT_QOS_MAP"))
		}
		if setsPFC(db) && !wholeConfig(db) && !sonicHolds(m, db, "BUFFER_PG") && !sonicHolds(m, db, "BUFFER_PROFILE") {
			missing, checks = append(missing, "BUFFER_PG", "BUFFER_PROFILE"), append(checks, bufferChecks)
		}
		if len(missing) == 0 {
			continue
		}
		var held []string
		var ev []Evidence
		for _, t := range qosTables {
			if v, ok := db.TablePos(t); ok {
				held = append(held, t)
				ev = append(ev, sonicEv(db, v))
			}
		}
		fs = append(fs, doctor.Finding{
			ID: "config.not_judged", Severity: doctor.Info, Layer: doctor.LayerInput,
			Title:     fmt.Sprintf("%s: %s without %s: not judged: %s", db.File, strings.Join(held, ", "), strings.Join(missing, " or "), strings.Join(checks, "; ")),
			Subject:   db.File,
			Evidence:  evs(ev...),
			Mechanism: "lint judges the tables a config holds and raises nothing for those a fragment does not claim to hold (qos.json and buffers.json are rendered apart); what the missing tables decide is therefore unchecked, and no finding on it is not a clean bill.",
			Fix:       "Nothing to change in the fragment; to judge the rest, give lint the other file beside it (qos.json with buffers.json) or the switch's whole CONFIG_DB (`show runningconfiguration all`, /etc/sonic/config_db.json).",
		})
	}
	return fs
}

// dynamicNotJudged says, of a SONiC config whose RoCE priority group is
// "NULL" or on a headroom_type dynamic profile on some port (the dynamic buffer model: buffermgrd computes the
// group's profile and the pools' sizes at run time, into APPL_DB), what
// lint cannot judge from CONFIG_DB: the headroom against the port's
// maximum and ECN's Kmin against where the group sends XOFF. Its inputs
// (speed, cable length, default_dynamic_th) are judged.
func (m *Model) dynamicNotJudged() []doctor.Finding {
	var fs []doctor.Finding
	for _, db := range m.Sonic {
		if db.Vendor != "" {
			continue
		}
		var ports []string
		var ev []Evidence
		for _, p := range m.rocePaths(db) {
			if row, ok := dynamicRocePG(db, p); ok {
				if len(ports) == 0 {
					ev = append(ev, atEv(db, row))
				}
				ports = append(ports, p.pq.Port)
			}
		}
		if len(ports) == 0 {
			continue
		}
		if v, ok := db.Field("DEVICE_METADATA", "localhost", "buffer_model"); ok {
			ev = append([]Evidence{atEv(db, v)}, ev...)
		}
		var sizeless []string
		for _, pool := range db.Tables["BUFFER_POOL"].Keys() {
			if _, _, ok := db.PoolSize(pool); !ok {
				sizeless = append(sizeless, pool)
			}
		}
		pools := "the pools' sizes"
		if len(sizeless) > 0 {
			pools = fmt.Sprintf("the pools' sizes (%s: BUFFER_POOL without size)", list(sizeless, 3))
		}
		fs = append(fs, doctor.Finding{
			ID: "config.not_judged", Severity: doctor.Info, Layer: doctor.LayerInput,
			Title: fmt.Sprintf("%s %s: RoCE's priority group is sized by buffermgrd (the dynamic buffer model): buffermgrd computes its headroom and %s at run time, so not judged: the headroom against the port's maximum, and ECN's Kmin against where the group sends XOFF",
				db.File, portList(ports), pools),
			Subject:   db.File + " " + portList(ports),
			Evidence:  evs(ev...),
			Mechanism: "Under the dynamic buffer model CONFIG_DB holds what buffermgrd computes from, not what it computes: each lossless group's profile (pg_lossless_<speed>_<cable>_profile, xoff from buffer_headroom_<vendor>.lua with the port's speed, cable length and MTU and LOSSLESS_TRAFFIC_PATTERN) and the pools' sizes (buffer_pool_<vendor>.lua, from the ASIC's buffer less what the ports reserve) are written to APPL_DB, and the port's maximum headroom is in STATE_DB (BUFFER_MAX_PARAM_TABLE). lint judges the inputs (the speed and cable length each group needs, pfc.pg.lossy; default_dynamic_th, pfc.pg.dynamic_th); the computed sizes are not in the input, so no finding on them is not a clean bill.",
			Fix:       "Nothing to change for lint; on the switch, `show buffer information` lists the profiles and pool sizes buffermgrd computed, and `mmuconfig -l` given to lint is judged by the profiles' names (switch.headroom.short).",
		})
	}
	return fs
}
