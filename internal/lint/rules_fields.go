package lint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/doctor"
	"rocelab/internal/sonic"
	"rocelab/internal/textout"
)

// nullFields names the fields lint judges (judgedField) whose value is
// null: the parser
// reads them as not written, but SONiC stores the text "None".
func nullFields(m *Model) []doctor.Finding {
	var fs []doctor.Finding
	for _, db := range m.Sonic {
		names, ev := keysWhere(db, db.Nulls, func(table string, v sonic.Value) bool {
			return sonic.ReadTable(table) && judgedField(v.Text[strings.LastIndex(v.Text, ".")+1:])
		}, func(v sonic.Value) string { return fmt.Sprintf("%s at %d:%d", shortKey(v.Text), v.Line, v.Col) })
		if len(names) == 0 {
			continue
		}
		fs = append(fs, doctor.Finding{
			ID: "config.field.null", Severity: doctor.Warn, Layer: doctor.LayerFabric,
			Title:     fmt.Sprintf("%s: %s (%s): SONiC stores %s as the text \"None\"; lint reads %s as not written", db.File, counted(len(names), "field is null", "fields are null"), list(names, 3), pick(len(names), "it", "each"), pick(len(names), "it", "them")),
			Subject:   db.File,
			Evidence:  evs(ev...),
			Mechanism: "ConfigDBConnector (`config load`, `sonic-cfggen --write-to-db`) writes each field with Python's str(): a JSON null becomes the text \"None\" in CONFIG_DB. orchagent then reads pfc_enable \"None\" with std::stoi, which refuses it (std::invalid_argument), and a map, scheduler or profile named \"None\" refers to no row, so the row waits for it. lint judges the rest of the config as if the field were not written.",
			Fix:       "Write the value (pfc_enable \"3,4\", the map or profile's name) or leave the field out.",
		})
	}
	return fs
}

// judgedField reports a field lint judges: pfc_enable, pfcwd_sw_enable, a
// map, a scheduler, a WRED or buffer profile or profile_list, a pool.
func judgedField(field string) bool {
	switch field {
	case "pfc_enable", "pfcwd_sw_enable", "profile", "profile_list", "pool", "scheduler", "wred_profile":
		return true
	}
	return strings.HasSuffix(field, "_map")
}

// pfcEnableFormat names a pfc_enable that is not the comma list SONiC's
// YANG model takes, with what orchagent makes of it: a range, blanks or
// semicolons lose every priority after the first.
func pfcEnableFormat(m *Model) []doctor.Finding {
	var fs []doctor.Finding
	for _, db := range m.Sonic {
		if db.Vendor != "" {
			continue // rows another OS's reader wrote
		}
		ports := map[string][]string{}
		var texts []string
		var ev []Evidence
		reads := map[string][]int{}
		for _, pq := range db.PortQoSMaps() {
			if !pq.PFCEnableOdd {
				continue
			}
			t := pq.PFCEnableAt.Text
			if _, seen := ports[t]; !seen {
				texts = append(texts, t)
				ev = append(ev, sonicEv(db, pq.PFCEnableAt))
				reads[t] = pq.PFCEnable
			}
			ports[t] = append(ports[t], pq.Port)
		}
		for i, t := range texts {
			read := "no priority: PFC off"
			switch len(reads[t]) {
			case 0:
			case 1:
				read = "priority " + textout.Ints(reads[t]) + " alone"
			default:
				read = "priorities " + textout.Ints(reads[t])
			}
			fs = append(fs, doctor.Finding{
				ID: "config.pfc_enable.format", Severity: doctor.Warn, Layer: doctor.LayerFabric,
				Title:     fmt.Sprintf("%s %s: pfc_enable %q is not a comma list of priorities 0-7; orchagent reads it as %s", db.File, list(ports[t], 3), t, read),
				Subject:   db.File,
				Evidence:  evs(ev[i]),
				Mechanism: "orchagent (qosorch.cpp) splits pfc_enable at commas and reads each part with std::stoi, which takes the part's leading digits and ignores the rest: \"3-4\", \"3 4\" and \"3;4\" enable priority 3 alone, a priority past 7 sets no bit, and a trailing comma is dropped. sonic-port-qos-map.yang allows only ([0-7](,[0-7])*)?, so `config load` with YANG validation and GCU refuse the row, while config_db.json at boot is applied as orchagent reads it.",
				Fix:       pfcFix(t),
			})
		}
	}
	return fs
}

// pfcFix tells how to write a malformed pfc_enable, with the comma list
// it most likely means when that can be told.
func pfcFix(s string) string {
	if m := pfcMeant(s); m != "" {
		return fmt.Sprintf("Write the priorities as a comma list: \"pfc_enable\": \"%s\" if %s is what is meant.", m, m)
	}
	return "Write the priorities as a comma list of 0-7, each once: \"pfc_enable\": \"3,4\" for priorities 3 and 4."
}

// pfcMeant is the comma list a malformed pfc_enable most likely means:
// its digits 0-7 in order, a range expanded; "" when it cannot be told:
// no digit, or digits run together ("10": priority 10, or 1 and 0?).
func pfcMeant(s string) string {
	if lo, hi, ok := strings.Cut(s, "-"); ok {
		a, e1 := strconv.Atoi(strings.TrimSpace(lo))
		b, e2 := strconv.Atoi(strings.TrimSpace(hi))
		if e1 == nil && e2 == nil && 0 <= a && a <= b && b <= 7 {
			var ps []int
			for p := a; p <= b; p++ {
				ps = append(ps, p)
			}
			return textout.Ints(ps)
		}
	}
	var ps []int
	digit := false
	for _, c := range s {
		if c >= '0' && c <= '9' {
			if digit {
				return ""
			}
			if p := int(c - '0'); c <= '7' && !slices.Contains(ps, p) {
				ps = append(ps, p)
			}
		}
		digit = c >= '0' && c <= '9'
	}
	if len(ps) == 0 {
		return ""
	}
	slices.Sort(ps)
	return textout.Ints(ps)
}

// unmappedNotJudged names, for a SONiC cut whose PORT_QOS_MAP rows set
// pfc_enable but name no dscp_to_tc_map (nor dot1p_to_tc_map, nor a global
// row) while no input of the run holds a DSCP_TO_TC_MAP, which class RoCE
// lands in as not judged: merged into the switch's rows (`config load`,
// `sonic-cfggen --write-to-db`), the rows keep the maps they had, so the
// cut does not say the port has none; but no finding on RoCE's class is no
// clean bill either. A whole config (with PORT rows) is the port's own
// statement and left to the class rules; PORT_QOS_MAP alone is what `show
// pfc priority` and EOS's `show priority-flow-control` give, PFC only.
func unmappedNotJudged(m *Model) []doctor.Finding {
	var fs []doctor.Finding
	for _, db := range m.Sonic {
		if db.Vendor != "" || len(db.Tables["PORT"]) > 0 || len(db.Tables) < 2 || sonicHolds(m, db, "DSCP_TO_TC_MAP") {
			continue
		}
		var ports []string
		var ev []Evidence
		for _, pq := range db.PortQoSMaps() {
			if pq.Port == "global" && pq.DSCPToTC.Text != "" {
				ports = nil
				break
			}
			if pq.Port != "global" && pq.HasPFCEnable && pq.DSCPToTC.Text == "" && pq.DOT1PToTC.Text == "" {
				ports = append(ports, pq.Port)
				if len(ev) == 0 {
					ev = append(ev, sonicEv(db, pq.PFCEnableAt))
				}
			}
		}
		if len(ports) == 0 {
			continue
		}
		fs = append(fs, doctor.Finding{
			ID: "config.not_judged", Severity: doctor.Info, Layer: doctor.LayerInput,
			Title:     fmt.Sprintf("%s %s: PORT_QOS_MAP sets pfc_enable but names no dscp_to_tc_map, and no input holds a DSCP_TO_TC_MAP: not judged: which class RoCE's DSCP lands in, so whether PFC and ECN cover it", db.File, portList(ports)),
			Subject:   db.File,
			Evidence:  evs(ev...),
			Mechanism: "orchagent classifies a port's packets by the dscp_to_tc_map its PORT_QOS_MAP row names (else the global row's); a port with none keeps the ASIC's default class, 0, for every packet. Loaded over a running switch (`config load`, `sonic-cfggen --write-to-db`), a cut's rows are merged into the rows the switch holds and keep the maps they had; alone, the cut says neither.",
			Fix:       "Give lint the switch's whole CONFIG_DB (`show runningconfiguration all`) or the qos.json beside the cut; writing the rows yourself, name \"dscp_to_tc_map\" (and tc_to_pg_map, tc_to_queue_map) in each port's PORT_QOS_MAP row beside pfc_enable.",
		})
	}
	return fs
}
