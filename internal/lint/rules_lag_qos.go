package lint

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/doctor"
	"rocelab/internal/sonic"
)

// portMapFields are the PORT_QOS_MAP fields orchagent sets on a port
// through sai_port_api->set_port_attribute (qosorch.cpp qos_to_attr_map);
// pfc_enable and pfcwd_sw_enable go through portsorch instead.
var portMapFields = []string{"dscp_to_tc_map", "mpls_tc_to_tc_map", "dot1p_to_tc_map", "tc_to_queue_map", "tc_to_dot1p_map", "tc_to_dscp_map",
	"tc_to_pg_map", "pfc_to_pg_map", "pfc_to_queue_map", "scheduler", "dscp_to_fc_map", "exp_to_fc_map"}

// lagQoSRows reports PORT_QOS_MAP rows keyed by a port channel (a
// PORTCHANNEL row, not a PORT one) whose members have no row of their
// own, or ahead of ports in the key. orchagent applies a row to the key's
// names in order (sonic-swss orchagent/qosorch.cpp handlePortQosMapTable,
// alike at 202305 ea9f11fd7f77, 202411 8aa8f0f93feb and master
// e6b0c5b5d2ab): a name portsorch does not know is skipped ("Port is not
// found"); on each other it sets the row's maps with
// sai_port_api->set_port_attribute on the port id. A port channel is a
// port of type LAG holding a LAG id and no port id (portsorch.cpp
// addLag), so the first map set on it fails (sonic-sairedis
// meta/Meta.cpp meta_sai_validate_oid, master 21851c5dda57: a null
// object id is SAI_STATUS_INVALID_PARAMETER), and orchagent gives up on
// the row there: through 202411 a failed port set exits orchagent
// (saihelper.cpp handleSaiSetStatus), and swss restarts on the same row;
// from 202505 on it drops the row. Names after it get nothing. A row
// with no map (pfc_enable alone) sets none on the port channel: setPortPfc
// finds no port for its null id, logs, and orchagent goes on. Either way
// the members get none of the row and pause no priority.
func lagQoSRows(m *Model) []doctor.Finding {
	var fs []doctor.Finding
	for _, db := range m.Sonic {
		if db.Vendor != "" || len(db.Tables["PORTCHANNEL"]) == 0 {
			continue
		}
		members := map[string][]string{}
		for _, k := range db.Tables["PORTCHANNEL_MEMBER"].Keys() {
			if lag, port, ok := strings.Cut(k, "|"); ok {
				members[lag] = append(members[lag], port)
			}
		}
		own := map[string]bool{}
		for _, pq := range db.PortQoSMaps() {
			own[pq.Port] = true
		}
		for _, key := range db.Tables["PORT_QOS_MAP"].Keys() {
			names := strings.Split(key, ",")
			lags := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return db.Tables["PORTCHANNEL"][n] == nil || !db.PortChannel(n) })
			if len(lags) == 0 {
				continue
			}
			ports := slices.DeleteFunc(slices.Clone(names), db.PortChannel)
			var after []string
			if slices.ContainsFunc(portMapFields, func(f string) bool { _, ok := db.Tables["PORT_QOS_MAP"][key][f]; return ok }) {
				after = slices.DeleteFunc(slices.Clone(names[slices.Index(names, lags[0])+1:]), db.PortChannel)
			}
			at, _ := db.KeyPos("PORT_QOS_MAP|" + key)
			for i, lag := range lags {
				bare := slices.DeleteFunc(slices.Clone(members[lag]), func(p string) bool { return own[p] })
				if i > 0 {
					after = nil
				}
				if len(bare) == 0 && len(after) == 0 {
					continue
				}
				fs = append(fs, lagQoSFinding(db, key, lag, lags, bare, after, ports, at))
			}
		}
	}
	return fs
}

// lagQoSFinding is qos.ports.unbound for port channel lag in
// PORT_QOS_MAP|key: bare are its members without a row of their own,
// after the key's ports behind it left without the row when orchagent
// gives up on it there, lags and ports the key's port channels and
// ports.
func lagQoSFinding(db *sonic.ConfigDB, key, lag string, lags, bare, after, ports []string, at sonic.Value) doctor.Finding {
	title := fmt.Sprintf("%s PORT_QOS_MAP|%s names port channel %s, to which orchagent applies no QoS map or PFC", db.File, key, lag)
	sev, fix := doctor.Warn, ""
	if len(bare) > 0 {
		sev = doctor.Error
		title += fmt.Sprintf(": its %s %s no row of %s own", pick(len(bare), "member", "members"), list(bare, 3)+pick(len(bare), " has", " have"), pick(len(bare), "its", "their"))
		fix = fmt.Sprintf("Write the row's fields (dscp_to_tc_map, tc_to_queue_map, tc_to_pg_map, pfc_to_queue_map, pfc_enable, pfcwd_sw_enable) under each member, PORT_QOS_MAP|%s, and ", bare[0])
	}
	if len(after) > 0 {
		title += fmt.Sprintf(", and %s, after it in the key, %s the row only if portsorch has not yet created %s when orchagent applies it", list(after, 3), pick(len(after), "gets", "get"), lag)
	}
	rest := fmt.Sprintf("take %s out of the key: PORT_QOS_MAP|%s.", strings.Join(lags, ", "), strings.Join(ports, ","))
	if len(ports) == 0 {
		rest = fmt.Sprintf("remove PORT_QOS_MAP|%s.", key)
	}
	if fix == "" {
		rest = strings.ToUpper(rest[:1]) + rest[1:]
	}
	return doctor.Finding{
		ID: "qos.ports.unbound", Severity: sev, Layer: doctor.LayerFabric,
		Title:    title,
		Subject:  db.File + " " + lag,
		Evidence: evs(sonicEv(db, at)),
		Mechanism: "orchagent (qosorch.cpp handlePortQosMapTable) applies a row to the names of its key in order: a name portsorch does not know yet is skipped ('Port is not found'); on each other it sets the row's maps (dscp_to_tc_map, tc_to_queue_map, tc_to_pg_map, pfc_to_queue_map, …) with sai_port_api->set_port_attribute on the port's port id, then pfc_enable and pfcwd_sw_enable through portsorch. " +
			"A port channel is a LAG object without a port id (portsorch.cpp addLag keeps only its LAG id): sairedis refuses a map set on it (a null object id, SAI_STATUS_INVALID_PARAMETER), and portsorch finds no port to set PFC on. " +
			"On the first refused set orchagent gives up on the row: through 202411 a failed port set exits orchagent (handleSaiSetStatus), and swss restarts into the same row; from SONiC 202505 on it logs 'Failed to apply … to port' and drops the row. The ports after the port channel in the key then get none of the row: they get it only if portsorch has not yet created the port channel (from teamd's LAG_TABLE) when qosorch handles the row, which then skips it. A row setting no map (pfc_enable alone) makes no SAI call on the port channel and goes on to them. " +
			"The members, which carry the traffic, get none of the row's maps (only PORT_QOS_MAP|global's dscp_to_tc_map, where written, classifies them; else SAI's default class 0) and pause no priority: RoCE runs lossy through them. sonic-port-qos-map.yang keys the table by PORT names alone.",
		Fix: fix + rest,
	}
}
