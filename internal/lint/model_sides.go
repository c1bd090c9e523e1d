package lint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/fabric"
	"rocelab/internal/ingest"
	"rocelab/internal/sonic"
)

// The NIC and switch sides of the model: what each source says about the
// priority or class RoCE's DSCP is put in, the priorities PFC protects and,
// on a switch, how each class is scheduled.

func (m *Model) nicSides() []nicSide {
	var out []nicSide
	d := m.roce.DSCP
	if s := m.Desc; s != nil {
		n := nicSide{Name: "hosts (" + s.File + ")", Prio: -1}
		switch {
		case s.Host.Priority >= 0:
			n.Prio, n.PrioEv = s.Host.Priority, []Evidence{m.at("host.priority", "")}
		case s.Host.Trust == fabric.TrustDSCP:
			n.Prio = int(s.Host.DSCPToPrio[d])
			n.PrioEv = []Evidence{m.at("host.trust", "dscp"), m.at("host.dscp_to_priority", "default map (DSCP >> 3)")}
		}
		out = append(out, n)
	}
	qos := func(name string, c *ingest.QoSConfig) {
		n := nicSide{Name: name, Prio: -1, PFC: c.PFCPrios(), PFCKnown: c.PFCKnown, PFCEv: c.Evidence["pfc"]}
		if c.Trust == "dscp" {
			if p, ok := c.DSCPPrio(d); ok {
				n.Prio = p
				n.PrioEv = []Evidence{c.Evidence["trust"], c.Evidence["dscp2prio:"+strconv.Itoa(p)]}
			} else {
				// A script that does not set this DSCP leaves mlx5's
				// default map (DSCP >> 3).
				n.Prio, n.PrioEv = d>>3, []Evidence{c.Evidence["trust"]}
			}
		}
		out = append(out, n)
	}
	for _, a := range m.Artifacts {
		switch v := a.(type) {
		case *ingest.MlnxQoS:
			for i := range v.Configs {
				qos(v.Configs[i].Name()+" (mlnx_qos)", &v.Configs[i])
			}
		case *ingest.MlnxQoSCommands:
			for i := range v.Configs {
				qos(v.Configs[i].Name()+" (mlnx_qos commands)", &v.Configs[i])
			}
		}
	}
	return out
}

func (m *Model) switchSides() []switchSide {
	var out []switchSide
	d := m.roce.DSCP
	if s := m.Desc; s != nil {
		sw := &s.Switch
		sd := switchSide{Name: "switches (" + s.File + ")", TC: -1}
		if sw.Trust == fabric.TrustDSCP {
			sd.TC, sd.TCEv = int(sw.DSCPToPrio[d]), m.at("switch.dscp_to_priority", "default map (DSCP >> 3)")
		}
		sd.LosslessKnown, sd.LosslessEv = true, m.at("switch.pfc.priorities", "[3]")
		if sw.PFC.Enabled {
			sd.Lossless = maskList(sw.PFC.Priorities)
		} else {
			sd.LosslessEv = m.at("switch.pfc.enabled", "true")
		}
		sd.DSCPToTC = func(x int) (int, Evidence, bool) {
			if sw.Trust != fabric.TrustDSCP || x < 0 || x > 63 {
				return 0, Evidence{}, false
			}
			return int(sw.DSCPToPrio[x]), m.at("switch.dscp_to_priority", "default map (DSCP >> 3)"), true
		}
		sd.Strict = func(tc int) (bool, Evidence, bool) {
			return sw.Strict&(1<<tc) != 0, m.at("switch.scheduler.strict", "[6, 7]"), true
		}
		out = append(out, sd)
	}
	for _, db := range m.Sonic {
		out = append(out, sonicSides(db, d)...)
	}
	return out
}

// sonicSides groups a config_db's ports by their DSCP map and PFC set, so
// that 32 ports configured alike give one side.
func sonicSides(db *sonic.ConfigDB, d int) []switchSide {
	type group struct {
		ports []string
		pq    sonic.PortQoS
	}
	var global sonic.PortQoS
	var groups []*group
	byKey := map[string]*group{}
	pqs := db.PortQoSMaps()
	anyPFC := false
	for _, pq := range pqs {
		if pq.Port == "global" {
			// orchagent reads only dscp_to_tc_map of the global row
			// (qosorch.cpp handleGlobalQosMap: any other field "is not
			// supported at global level"): its pfc_enable pauses nothing.
			global = pq
			continue
		}
		anyPFC = anyPFC || pq.HasPFCEnable
	}
	for _, pq := range pqs {
		if pq.Port == "global" {
			continue
		}
		if pq.DSCPToTC.Text == "" {
			pq.DSCPToTC = global.DSCPToTC
		}
		key := pq.DSCPToTC.Text + "\x00" + pq.PFCEnableAt.Text + "\x00" + fmt.Sprint(pq.HasPFCEnable)
		g, ok := byKey[key]
		if !ok {
			g = &group{pq: pq}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.ports = append(g.ports, pq.Port)
	}
	// pfcOffIfUnwritten: a port row without pfc_enable is PFC off, unless
	// another row writes it (a port set apart), the config is lossy by
	// design, or the excerpt is about another feature.
	_, designed := db.LossyByDesign()
	pfcOffIfUnwritten := db.Vendor == "" && !anyPFC && !designed && !otherFeatureExcerpt(db)
	var out []switchSide
	for _, g := range groups {
		sd := switchSide{Name: fmt.Sprintf("%s %s", db.File, portList(g.ports)), TC: -1, DB: db, Port: g.ports[0], TCMap: g.pq.DSCPToTC.Text}
		mp, ok := db.NumMap("DSCP_TO_TC_MAP", g.pq.DSCPToTC.Text)
		if ok {
			if mp.To[d] >= 0 {
				sd.TC, sd.TCEv = mp.To[d], sonicEv(db, mp.At[d])
			} else {
				// SONiC sends DSCPs missing from the map to TC 0.
				sd.TC, sd.TCEv, sd.Unmapped = 0, sonicEv(db, g.pq.DSCPToTC), true
			}
			sd.DSCPToTC = func(x int) (int, Evidence, bool) {
				if x < 0 || x > 63 {
					return 0, Evidence{}, false
				}
				if mp.To[x] < 0 {
					return 0, sonicEv(db, g.pq.DSCPToTC), true
				}
				return mp.To[x], sonicEv(db, mp.At[x]), true
			}
		}
		if maps := db.Tables["DSCP_TO_TC_MAP"]; !ok && db.Vendor == "" && len(maps) > 0 && g.pq.DSCPToTC.Text == "" && g.pq.DOT1PToTC.Text == "" && g.pq.PFCEnableAt.Line > 0 {
			// The config defines a DSCP map and these ports bind none:
			// orchagent leaves them SAI's default traffic class,
			// SAI_PORT_ATTR_QOS_DEFAULT_TC 0, for every packet.
			sd.TC, sd.TCEv, sd.Unbound = 0, sonicEv(db, g.pq.PFCEnableAt), list(maps.Keys(), 3)
		}
		if g.pq.HasPFCEnable {
			sd.Lossless, sd.LosslessKnown, sd.LosslessEv = g.pq.PFCEnable, true, sonicEv(db, g.pq.PFCEnableAt)
		} else if row, ok := portQoSRow(db, g.pq.Port); ok && pfcOffIfUnwritten && !onePG(db, g.pq) {
			// orchagent (qosorch.cpp handlePortQosMapTable) reads a row
			// without pfc_enable as an empty one, and buffermgrd writes
			// no lossless priority group: PFC on no priority. Beside
			// rows that write it, a row without it is a port set apart
			// (a service port); a row sending every class to one
			// priority group, or a config no buffer profile of which
			// keeps xoff, is lossy on purpose.
			sd.LosslessKnown, sd.LosslessEv, sd.NoPFCField = true, sonicEv(db, row), true
		}
		port := g.ports[0]
		sd.Strict = func(tc int) (bool, Evidence, bool) { return queueStrict(db, port, tc) }
		out = append(out, sd)
	}
	return out
}

// otherFeatureExcerpt reports a config whose every port row of
// PORT_QOS_MAP binds no map and writes no PFC field (only a port shaper's
// scheduler, or packet trimming's tc_to_dscp_map, as SONiC's scheduler and
// trimming HLDs show them), with no dscp_to_tc_map on the global row, in a
// config that holds no QoS map, PFC priority map or buffer table
// (BUFFER_QUEUE included) and is not a switch's whole
// CONFIG_DB: an excerpt about another feature, which says nothing of PFC
// (fragmentNotJudged names it). One port row that binds a map or writes
// pfc_enable makes it no such excerpt, whatever the rows' order.
func otherFeatureExcerpt(db *sonic.ConfigDB) bool {
	if wholeConfig(db) || slices.ContainsFunc([]string{"DSCP_TO_TC_MAP", "DOT1P_TO_TC_MAP", "TC_TO_PRIORITY_GROUP_MAP", "TC_TO_QUEUE_MAP", "MAP_PFC_PRIORITY_TO_QUEUE", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "BUFFER_PG", "BUFFER_QUEUE", "BUFFER_PROFILE", "BUFFER_POOL"}, db.Has) {
		return false
	}
	ports := 0
	for _, pq := range db.PortQoSMaps() {
		if pq.Port == "global" {
			if pq.DSCPToTC.Given() {
				return false
			}
			continue
		}
		if pq.HasPFCEnable || slices.ContainsFunc([]sonic.Value{pq.DSCPToTC, pq.TCToPG, pq.TCToQueue, pq.DOT1PToTC, pq.PFCToQueueMapName, pq.PFCToPGMapName, pq.PFCWDSWAt}, sonic.Value.Given) {
			return false
		}
		ports++
	}
	return ports > 0
}

// portQoSRow is the key of the PORT_QOS_MAP row that holds port, alone
// or in a comma list ("Ethernet0,Ethernet4").
func portQoSRow(db *sonic.ConfigDB, port string) (sonic.Value, bool) {
	for _, k := range db.Tables["PORT_QOS_MAP"].Keys() {
		if slices.Contains(strings.Split(k, ","), port) {
			return db.KeyPos("PORT_QOS_MAP|" + k)
		}
	}
	return sonic.Value{}, false
}

// onePG reports whether a PORT_QOS_MAP row binds a tc_to_pg_map that
// sends every class to one priority group.
func onePG(db *sonic.ConfigDB, pq sonic.PortQoS) bool {
	_, one := db.OnePG(pq.TCToPG.Text)
	return one
}

// queueStrict reports whether a port's queue is scheduled strictly.
func queueStrict(db *sonic.ConfigDB, port string, queue int) (bool, Evidence, bool) {
	for _, q := range db.Queues() {
		if !slices.Contains(q.Ports, port) || !slices.Contains(q.Queues, queue) || q.Scheduler.Text == "" {
			continue
		}
		typ, ok := db.Field("SCHEDULER", q.Scheduler.Text, "type")
		if !ok {
			return false, sonicEv(db, q.Scheduler), false
		}
		return strings.EqualFold(typ.Text, "STRICT"), sonicEv(db, typ), true
	}
	return false, Evidence{}, false
}
