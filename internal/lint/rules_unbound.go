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
// statement, not a fragment's silence (fragmentNotJudged's); a row of
// another SONiC file of the run naming one of this config's ports binds the
// ports (another namespace of the same dump does not), and a PORT_QOS_MAP
// port row or QUEUE row of this one leaves the judging to the rules that
// follow the ports, and to connectedUnbound for the connected ports that
// lack them.
func unboundPorts(m *Model) []doctor.Finding {
	var fs []doctor.Finding
	for _, db := range m.Sonic {
		at, ok := db.TablePos("PORT_QOS_MAP")
		if db.Vendor == "" && bindsPorts(db) {
			fs = append(fs, connectedUnbound(db)...)
			continue
		}
		if db.Vendor != "" || !ok || !db.Has("QUEUE") {
			continue
		}
		ports, from := configPorts(db)
		if slices.ContainsFunc(m.Sonic, func(o *sonic.ConfigDB) bool { return bindsPortsOf(o, db, ports) }) {
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
		if len(defined) == 0 || len(ports) == 0 {
			continue
		}
		lacks := "pfc_enable, the DSCP map or a WRED profile"
		if g, ok := db.Tables["PORT_QOS_MAP"]["global"]; ok && g["dscp_to_tc_map"].Text != "" {
			lacks = "pfc_enable or a WRED profile (the global row's DSCP map classifies)"
		}
		subject := db.File
		fs = append(fs, doctor.Finding{
			ID: "qos.ports.unbound", Severity: doctor.Error, Layer: doctor.LayerFabric,
			Title: fmt.Sprintf("%s: PORT_QOS_MAP and QUEUE hold no port's row, though the config defines %s for its %d ports (%s): no port has %s, so PFC and ECN are off on every port",
				subject, list(defined, 2), len(ports), strings.Join(from, ", "), lacks),
			Subject:  subject,
			Evidence: evs(ev...),
			Mechanism: "orchagent applies the QoS maps and PFC per port, from the port's PORT_QOS_MAP row (dscp_to_tc_map, tc_to_pg_map, pfc_enable), and ECN per queue, from QUEUE's wred_profile; a map or WRED profile no row names is programmed into the ASIC and used by no port. " +
				"Every port then pauses no priority and marks nothing (and, unless PORT_QOS_MAP|global binds a dscp_to_tc_map, puts all traffic in class 0): RoCE is dropped under congestion. sonic-cfggen's qos_config.j2 (`config qos reload`) writes these rows only for the ports DEVICE_NEIGHBOR names (every port when the table is absent), so a switch whose neighbours are not in its config renders them empty.",
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

// bindsPortsOf reports whether another input, o, binds QoS to some of a
// config's ports: a PORT_QOS_MAP port row or a QUEUE row naming one of
// them. The namespaces of one multi-ASIC dump (one Path) hold separate
// ASICs' configs and never bind each other's ports; nor do the test
// cases of one YANG test file.
func bindsPortsOf(o, db *sonic.ConfigDB, ports []string) bool {
	if db.SameDump(o) || !db.SuppliedBy(o) {
		return false
	}
	for _, pq := range o.PortQoSMaps() {
		if slices.Contains(ports, pq.Port) {
			return true
		}
	}
	for _, q := range o.Queues() {
		if slices.ContainsFunc(q.Ports, func(p string) bool { return slices.Contains(ports, p) }) {
			return true
		}
	}
	return false
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

// connectedUnbound reports, in a config that binds QoS to some ports, the
// ports DEVICE_NEIGHBOR names (those connected, which qos_config.j2 gives
// rows; a VOQ chassis's inband and recirculation ports are skipped: they
// carry control traffic, not RoCE) that lack what the other connected
// ports have: a PORT_QOS_MAP row,
// or, on a port with PFC, a QUEUE row binding a WRED profile to a
// lossless queue. The rows of a port added or recabled after `config qos
// reload` are not written for it: the port runs lossy, or paused without
// ECN, beside ports that do not.
func connectedUnbound(db *sonic.ConfigDB) []doctor.Finding {
	var connected []string
	for _, p := range db.Tables["DEVICE_NEIGHBOR"].Keys() {
		if _, ok := db.Tables["PORT"][p]; ok {
			if !db.NotDataPort(p) {
				connected = append(connected, p)
			}
		}
	}
	if len(connected) < 2 {
		return nil
	}
	rows := map[string]sonic.PortQoS{}
	for _, pq := range db.PortQoSMaps() {
		rows[pq.Port] = pq
	}
	wred := map[string]bool{}
	for _, q := range db.Queues() {
		if q.WREDProfile.Text == "" {
			continue
		}
		for _, p := range q.Ports {
			wred[p] = true
		}
	}
	var noRow, noWRED, withRow, withWRED []string
	for _, p := range connected {
		pq, ok := rows[p]
		switch {
		case !ok:
			noRow = append(noRow, p)
		case len(pq.PFCEnable) > 0 && !wred[p]:
			noWRED = append(noWRED, p)
			withRow = append(withRow, p)
		case len(pq.PFCEnable) > 0:
			withWRED = append(withWRED, p)
			withRow = append(withRow, p)
		default:
			withRow = append(withRow, p)
		}
	}
	var fs []doctor.Finding
	neighbours, _ := db.TablePos("DEVICE_NEIGHBOR")
	if len(noRow) > 0 && len(withRow) > 0 {
		lacks := "no DSCP map and no pfc_enable"
		if g, ok := rows["global"]; ok && g.DSCPToTC.Text != "" {
			lacks = "no pfc_enable (the global row's DSCP map classifies)"
		}
		if v, ok := db.KeyPos("DEVICE_NEIGHBOR|" + noRow[0]); ok {
			neighbours = v
		}
		ev := []Evidence{sonicEv(db, neighbours)}
		if v, ok := db.KeyPos("PORT_QOS_MAP|" + withRow[0]); ok {
			ev = append(ev, sonicEv(db, v))
		} else if v, ok := db.TablePos("PORT_QOS_MAP"); ok {
			ev = append(ev, sonicEv(db, v))
		}
		fs = append(fs, doctor.Finding{
			ID: "qos.ports.unbound", Severity: doctor.Warn, Layer: doctor.LayerFabric,
			Title:    fmt.Sprintf("%s: %s, connected (DEVICE_NEIGHBOR), %s no PORT_QOS_MAP row, unlike the %d other connected ports (%s): %s, so PFC is off there", db.File, portList(noRow), hasHave(len(noRow)), len(withRow), portList(withRow), lacks),
			Subject:  db.File + " " + portList(noRow),
			Evidence: evs(ev...),
			Mechanism: "orchagent applies the QoS maps and PFC per port, from the port's PORT_QOS_MAP row; a port without one puts every packet in class 0 and pauses no priority, so RoCE through it is dropped under congestion while the ports beside it pause. " +
				"`config qos reload` writes the rows for the ports DEVICE_NEIGHBOR names at that moment: a port connected or renamed later keeps none.",
			Fix: fmt.Sprintf("Give %s the PORT_QOS_MAP row the other connected ports have (e.g. %s's), and its QUEUE rows; or `config qos reload` now that DEVICE_NEIGHBOR names it.", noRow[0], withRow[0]),
		})
	}
	if len(noWRED) > 0 && len(withWRED) > 0 {
		ev := []Evidence{sonicEv(db, rows[noWRED[0]].PFCEnableAt)}
		if v, ok := db.TablePos("QUEUE"); ok {
			ev = append(ev, sonicEv(db, v))
		}
		fs = append(fs, doctor.Finding{
			ID: "qos.ports.unbound", Severity: doctor.Warn, Layer: doctor.LayerFabric,
			Title:     fmt.Sprintf("%s: %s, connected with PFC on, %s no QUEUE row binding a WRED profile, unlike the %d other such ports (%s): no ECN marking there", db.File, portList(noWRED), hasHave(len(noWRED)), len(withWRED), portList(withWRED)),
			Subject:   db.File + " " + portList(noWRED),
			Evidence:  evs(ev...),
			Mechanism: "ECN is set per queue, by QUEUE's wred_profile; a port whose lossless queues no row names marks nothing, so DCQCN senders through it never slow down and congestion there spreads by PFC pauses alone. `config qos reload` writes the rows for the ports DEVICE_NEIGHBOR names at that moment.",
			Fix:       fmt.Sprintf("Give %s the QUEUE rows the other ports have (e.g. %s's lossless queues with their wred_profile).", noWRED[0], withWRED[0]),
		})
	}
	return fs
}

// hasHave is "has" for one, "have" for more.
func hasHave(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}
