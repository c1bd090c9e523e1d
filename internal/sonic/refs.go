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
}

// A MissingRef is a field naming a row its table does not hold.
type MissingRef struct {
	// Table, Key and Field say where the name is; To is the table it
	// names a row of.
	Table, Key, Field, To string
	At                    Value
}

// MissingRefs returns the fields of QoS rows that name a map, scheduler,
// WRED or buffer profile, or pool, absent from its table, where the config
// holds that table (a fragment without it, qos.json naming buffers.json's
// profiles, says nothing of it). The buffer model's "NULL" profile names
// none, nor do the fields of PORT_QOS_MAP|global orchagent skips. Sorted
// by table, key and field.
func (db *ConfigDB) MissingRefs() []MissingRef {
	var out []MissingRef
	for _, table := range []string{"PORT_QOS_MAP", "QUEUE", "BUFFER_PG", "BUFFER_QUEUE", "BUFFER_PROFILE"} {
		t := db.Tables[table]
		for _, key := range t.Keys() {
			for _, field := range slices.Sorted(maps.Keys(refFields[table])) {
				v, ok := t[key][field]
				to := refFields[table][field]
				name := strings.TrimSpace(v.Text)
				if !ok || name == "" || strings.EqualFold(name, "NULL") || len(db.Tables[to]) == 0 || !globalApplies(table, key, field) {
					continue
				}
				if _, ok := db.Tables[to][name]; !ok {
					out = append(out, MissingRef{Table: table, Key: key, Field: field, To: to, At: v})
				}
			}
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
