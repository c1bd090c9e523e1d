package lint

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/doctor"
	"rocelab/internal/sonic"
)

// classTables are the CONFIG_DB tables that define a lossless class
// without putting it on a port: the maps PORT_QOS_MAP names and the WRED
// profiles QUEUE names.
var classTables = []string{"DSCP_TO_TC_MAP", "TC_TO_PRIORITY_GROUP_MAP", "TC_TO_QUEUE_MAP", "MAP_PFC_PRIORITY_TO_QUEUE", "WRED_PROFILE"}

// unboundPorts reports a SONiC config whose PORT_QOS_MAP and QUEUE tables
// are there but hold no port's row (at most PORT_QOS_MAP|global), while it
// defines the class's maps or WRED profiles and has ports: what
// sonic-cfggen renders when no port is active (qos_config.j2 binds the maps,
// pfc_enable and the WRED profiles only to the ports DEVICE_NEIGHBOR
// names). No port has PFC or ECN then. A table held empty is the config's
// statement, not a fragment's silence (fragmentNotJudged's); a port row
// another SONiC input of the run holds binds the ports, and a PORT_QOS_MAP
// port row or QUEUE row of this one leaves the judging to the rules that
// follow the ports.
func unboundPorts(m *Model) []doctor.Finding {
	var fs []doctor.Finding
	for _, db := range m.Sonic {
		at, ok := db.TablePos("PORT_QOS_MAP")
		if db.Vendor != "" || !ok || !db.Has("QUEUE") || bindsPorts(db) {
			continue
		}
		if slices.ContainsFunc(m.Sonic, func(o *sonic.ConfigDB) bool { return o != db && o.Vendor == "" && bindsPorts(o) }) {
			continue
		}
		var defined []string
		ev := []Evidence{sonicEv(db, at)}
		if q, ok := db.TablePos("QUEUE"); ok {
			ev = append(ev, sonicEv(db, q))
		}
		for _, t := range classTables {
			names := db.Tables[t].Keys()
			if len(names) == 0 {
				continue
			}
			defined = append(defined, t+" "+list(names, 2))
			if v, ok := db.TablePos(t); ok {
				ev = append(ev, sonicEv(db, v))
			}
		}
		ports, from := configPorts(db)
		if len(defined) == 0 || len(ports) == 0 {
			continue
		}
		subject := db.File
		fs = append(fs, doctor.Finding{
			ID: "qos.ports.unbound", Severity: doctor.Error, Layer: doctor.LayerFabric,
			Title: fmt.Sprintf("%s: PORT_QOS_MAP and QUEUE hold no port's row, though the config defines %s for its %d ports (%s): no port has pfc_enable, the DSCP map or a WRED profile, so PFC and ECN are off on every port",
				subject, list(defined, 2), len(ports), strings.Join(from, ", ")),
			Subject:  subject,
			Evidence: evs(ev...),
			Mechanism: "orchagent applies the QoS maps and PFC per port, from the port's PORT_QOS_MAP row (dscp_to_tc_map, tc_to_pg_map, pfc_enable), and ECN per queue, from QUEUE's wred_profile; a map or WRED profile no row names is programmed into the ASIC and used by no port. " +
				"Every port then puts all traffic in class 0, pauses no priority and marks nothing: RoCE is dropped under congestion. sonic-cfggen's qos_config.j2 (`config qos reload`) writes these rows only for the ports DEVICE_NEIGHBOR names (every port when the table is absent), so a switch whose neighbours are not in its config renders them empty.",
			Fix: fmt.Sprintf("Give each RoCE port its PORT_QOS_MAP row (dscp_to_tc_map, tc_to_queue_map, tc_to_pg_map, pfc_to_queue_map, pfc_enable and pfcwd_sw_enable on the lossless priorities) and QUEUE rows binding the lossless queues to the WRED profile (\"%s|3-4\": {\"wred_profile\": ...}); with `config qos reload`, name the ports' neighbours in DEVICE_NEIGHBOR first.", ports[0]),
		})
	}
	return fs
}

// bindsPorts reports whether a config puts QoS on some port: a
// PORT_QOS_MAP row other than global, or a QUEUE row.
func bindsPorts(db *sonic.ConfigDB) bool {
	return len(db.Queues()) > 0 || slices.ContainsFunc(db.PortQoSMaps(), func(pq sonic.PortQoS) bool { return pq.Port != "global" })
}

// configPorts lists the ports a config names, and the tables it found
// them in: PORT, CABLE_LENGTH and BUFFER_PG.
func configPorts(db *sonic.ConfigDB) ([]string, []string) {
	var ports, from []string
	add := func(table string, ps ...string) {
		n := len(ports)
		for _, p := range ps {
			if !slices.Contains(ports, p) {
				ports = append(ports, p)
			}
		}
		if len(ports) > n {
			from = append(from, table)
		}
	}
	add("PORT", db.Tables["PORT"].Keys()...)
	var cabled, grouped []string
	for _, row := range db.Tables["CABLE_LENGTH"] {
		for p := range row {
			cabled = append(cabled, p)
		}
	}
	slices.Sort(cabled)
	add("CABLE_LENGTH", cabled...)
	for _, pg := range db.PGs() {
		grouped = append(grouped, pg.Ports...)
	}
	add("BUFFER_PG", grouped...)
	slices.Sort(ports)
	return ports, from
}
