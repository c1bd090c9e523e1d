package sonic

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/nvue"
	"rocelab/internal/unit"
)

// VendorCumulus marks a ConfigDB made from an NVIDIA Cumulus Linux (NVUE)
// configuration.
const VendorCumulus = "cumulus"

// FromNVUE writes what an NVUE configuration says of QoS as the CONFIG_DB
// rows lint judges a SONiC switch by, each value at its place in the NVUE
// input, so that both are judged by one set of rules:
//
//   - Cumulus classifies a DSCP into a switch priority, pauses per switch
//     priority and queues per traffic class. The rows use the switch
//     priority as SONiC's class: DSCP_TO_TC_MAP is the DSCP → switch
//     priority map (every DSCP to port-default-sp under trust l2 or port,
//     as untagged IP takes the default priority then), pfc_enable the PFC
//     switch priorities, and QUEUE|<ports>|<sp> carries the congestion
//     control and scheduler of the traffic class that switch priority
//     drains into (egress-queue-mapping).
//   - A profile's ports are "default-global" (every port that names no
//     profile of its own) or the interfaces that name one.
//   - ECN (congestion-control) becomes a WRED_PROFILE with ecn ecn_all or
//     ecn_none and wred_green_enable from RED. An interface that binds a
//     profile has its link speed as PORT speed; default-global the fastest
//     of the others.
//   - The settings no rule judges (traffic pools, buffers, the watchdog's
//     timing) are the Skipped values, each named by its path.
func FromNVUE(c *nvue.Config) *ConfigDB {
	c.Resolve()
	db := newDB(c.File, "")
	db.lines, db.Vendor = c.Lines, VendorCumulus
	val := func(v nvue.Value) Value { return Value{Text: v.Text, Line: v.Line, Col: v.Col} }
	tab := func(name string) Table {
		if db.Tables[name] == nil {
			db.Tables[name] = Table{}
		}
		return db.Tables[name]
	}
	// Ports: default-global, and each interface binding profiles of its
	// own, grouped by the profiles it binds.
	type group struct {
		ports                   []string
		mapping, pfc, cc, sched nvue.Value
	}
	dflt := nvue.Value{Text: nvue.DefaultProfile}
	groups := []*group{{ports: []string{nvue.DefaultProfile}, mapping: dflt, pfc: dflt, cc: dflt, sched: dflt}}
	byKey := map[string]*group{}
	ifaces := make([]string, 0, len(c.Bindings))
	for n := range c.Bindings {
		ifaces = append(ifaces, n)
	}
	slices.Sort(ifaces)
	for _, n := range ifaces {
		b := c.Bindings[n]
		g := &group{mapping: dflt, pfc: dflt, cc: dflt, sched: dflt}
		for kind, dst := range map[string]*nvue.Value{"mapping": &g.mapping, "pfc": &g.pfc, "congestion-control": &g.cc, "egress-scheduler": &g.sched} {
			if v, ok := b[kind]; ok {
				*dst = v
			}
		}
		k := g.mapping.Text + "|" + g.pfc.Text + "|" + g.cc.Text + "|" + g.sched.Text
		if have, ok := byKey[k]; ok {
			have.ports = append(have.ports, n)
			continue
		}
		g.ports = []string{n}
		byKey[k] = g
		groups = append(groups, g)
	}
	db.nvueProfiles = map[string]map[string]string{}
	for _, g := range groups {
		key := strings.Join(g.ports, ",")
		for _, p := range g.ports {
			db.nvueProfiles[p] = map[string]string{"mapping": g.mapping.Text, "pfc": g.pfc.Text, "congestion-control": g.cc.Text, "egress-scheduler": g.sched.Text}
		}
		row := map[string]Value{}
		if m, ok := c.Mapping[g.mapping.Text]; ok {
			row["dscp_to_tc_map"] = val(g.mapping)
			dm := map[string]Value{}
			for d := range m.DSCP {
				v := m.DSCP[d]
				if t := m.Trust.Text; t == "l2" || t == "port" {
					v = m.DefaultSP
					if !v.Given() {
						v = m.Trust
						v.Text = m.DefaultSP.Text
					}
				}
				if v.Text != "" {
					dm[strconv.Itoa(d)] = val(v)
				}
			}
			tab("DSCP_TO_TC_MAP")[g.mapping.Text] = dm
		}
		if p, ok := c.PFC[g.pfc.Text]; ok && len(p.Prios) > 0 && (p.Tx.Text == "enable" || p.Rx.Text == "enable") {
			v := val(p.PriosAt)
			v.Text = prioText(p.Prios)
			row["pfc_enable"] = v
		} else {
			// No PFC profile: NVUE runs the ports without PFC.
			on, _, at := c.RoCE()
			v := Value{}
			if on || at.Given() {
				v = val(at)
			}
			if ok && p.Tx.Given() {
				v = val(p.Tx)
			}
			v.Text = ""
			row["pfc_enable"] = v
		}
		tab("PORT_QOS_MAP")[key] = row
		for sp := range 8 {
			tc, err := strconv.Atoi(c.EgressMap[sp].Text)
			if err != nil {
				continue
			}
			q := map[string]Value{}
			if e, ok := c.CC[g.cc.Text][tc]; ok {
				name := fmt.Sprintf("congestion-control %s traffic-class %d", g.cc.Text, tc)
				q["wred_profile"] = Value{Text: name, Line: e.ECN.Line, Col: e.ECN.Col}
				ecn, green := val(e.ECN), val(e.RED)
				ecn.Text = "ecn_none"
				if e.ECN.Text == "enable" {
					ecn.Text = "ecn_all"
				}
				green.Text = strconv.FormatBool(e.RED.Text == "enable")
				tab("WRED_PROFILE")[name] = map[string]Value{"ecn": ecn, "wred_green_enable": green,
					"green_min_threshold": val(e.Min), "green_max_threshold": val(e.Max), "green_drop_probability": val(e.Prob)}
			}
			if s, ok := c.Sched[g.sched.Text][tc]; ok && s.Mode.Text != "" {
				name := fmt.Sprintf("egress-scheduler %s traffic-class %d", g.sched.Text, tc)
				q["scheduler"] = Value{Text: name, Line: s.Mode.Line, Col: s.Mode.Col}
				typ := val(s.Mode)
				typ.Text = strings.ToUpper(s.Mode.Text)
				sr := map[string]Value{"type": typ}
				if s.BW.Text != "" {
					sr["weight"] = val(s.BW)
				}
				tab("SCHEDULER")[name] = sr
			}
			if len(q) > 0 {
				tab("QUEUE")[key+"|"+strconv.Itoa(sp)] = q
			}
		}
	}
	// PORT speeds: each interface that binds a profile its own,
	// default-global the fastest of the others.
	rest := map[string]nvue.Value{}
	for n, v := range c.Speed {
		if _, bound := c.Bindings[n]; !bound {
			rest[n] = v
			continue
		}
		if sv, ok := fastest(map[string]nvue.Value{n: v}); ok {
			tab("PORT")[n] = map[string]Value{"speed": sv}
		}
	}
	if v, ok := fastest(rest); ok {
		tab("PORT")[nvue.DefaultProfile] = map[string]Value{"speed": v}
	}
	if on, mode, at := c.RoCE(); on && !nvue.Lossless(mode) {
		db.lossyMode = val(at)
	}
	for _, v := range c.NotJudged {
		db.Skipped = append(db.Skipped, val(v))
	}
	for t := range db.Tables {
		db.tablePos[t] = Value{Text: t, Line: 1, Col: 1}
	}
	return db
}

// NVUEProfile returns the NVUE profile of a kind (mapping, pfc,
// congestion-control, egress-scheduler) that a port of a config made from
// NVUE uses: default-global unless the interface binds its own.
func (db *ConfigDB) NVUEProfile(port, kind string) string {
	if p := db.nvueProfiles[port][kind]; p != "" {
		return p
	}
	return nvue.DefaultProfile
}

// fastest returns the fastest link speed written ("400G") in Mb/s, as
// unit reads a rate.
func fastest(speeds map[string]nvue.Value) (Value, bool) {
	var best Value
	bestMbps := int64(0)
	for _, v := range speeds {
		r, err := unit.ParseRate(v.Text)
		n := int64(r / unit.Mbps)
		if err != nil || n <= 0 {
			continue
		}
		if n > bestMbps || n == bestMbps && v.Line < best.Line {
			bestMbps, best = n, Value{Text: strconv.FormatInt(n, 10), Line: v.Line, Col: v.Col}
		}
	}
	return best, bestMbps > 0
}

func prioText(ps []int) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ",")
}
