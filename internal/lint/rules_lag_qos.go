package lint

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/doctor"
)

// lagQoSRows reports PORT_QOS_MAP rows keyed by a port channel (a
// PORTCHANNEL row, not a PORT one) whose members have no row of their
// own. orchagent applies a row's maps and pfc_enable with
// sai_port_api->set_port_attribute on each named port's port id
// (sonic-swss qosorch.cpp handlePortQosMapTable); a port channel is a
// port of type LAG holding a LAG id and no port id (portsorch.cpp
// addLag), so sairedis refuses the set (a null object id,
// SAI_STATUS_INVALID_PARAMETER). From SONiC 202505 on orchagent logs it
// and drops the row (saihelper.cpp handleSaiSetStatus); through 202411 a
// failed port set exits orchagent, and swss restarts on the same row.
// Either way the members get none of its maps and pause no priority.
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
			for _, lag := range strings.Split(key, ",") {
				if _, isLag := db.Tables["PORTCHANNEL"][lag]; !isLag {
					continue
				}
				if _, isPort := db.Tables["PORT"][lag]; isPort {
					continue
				}
				bare := slices.DeleteFunc(slices.Clone(members[lag]), func(p string) bool { return own[p] })
				if len(bare) == 0 {
					continue
				}
				at, _ := db.KeyPos("PORT_QOS_MAP|" + key)
				fs = append(fs, doctor.Finding{
					ID: "qos.ports.unbound", Severity: doctor.Error, Layer: doctor.LayerFabric,
					Title:     fmt.Sprintf("%s PORT_QOS_MAP|%s names port channel %s, to which orchagent applies no QoS map or PFC: its %s %s no row of %s own", db.File, key, lag, pick(len(bare), "member", "members"), list(bare, 3)+pick(len(bare), " has", " have"), pick(len(bare), "its", "their")),
					Subject:   db.File + " " + lag,
					Evidence:  evs(sonicEv(db, at)),
					Mechanism: "orchagent (qosorch.cpp handlePortQosMapTable) binds a row's maps and pfc_enable with sai_port_api->set_port_attribute on each named port's port id; a port channel is a LAG object without one (portsorch.cpp addLag keeps only its LAG id), so sairedis refuses the call (a null object id, SAI_STATUS_INVALID_PARAMETER). From SONiC 202505 on orchagent logs 'Failed to apply … to port' and drops the row; through 202411 a failed port set exits orchagent (handleSaiSetStatus), and swss restarts into the same row. The members, which carry the traffic, get none of the row's maps (only PORT_QOS_MAP|global's dscp_to_tc_map, where written, classifies them; else SAI's default class 0) and pause no priority: RoCE runs lossy through them. sonic-port-qos-map.yang keys the table by PORT names alone.",
					Fix:       fmt.Sprintf("Write the row's fields (dscp_to_tc_map, tc_to_queue_map, tc_to_pg_map, pfc_to_queue_map, pfc_enable, pfcwd_sw_enable) under each member, PORT_QOS_MAP|%s, and remove PORT_QOS_MAP|%s.", bare[0], key),
				})
			}
		}
	}
	return fs
}
