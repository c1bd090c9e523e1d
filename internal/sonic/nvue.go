package sonic

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/nvue"
	"rocelab/internal/textout"
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
	for _, n := range slices.Sorted(maps.Keys(c.Bindings)) {
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
	pfcPorts := map[string][]string{} // a PFC profile's ports, in group order
	for _, g := range groups {
		pfcPorts[g.pfc.Text] = append(pfcPorts[g.pfc.Text], g.ports...)
		key := strings.Join(g.ports, ",")
		for _, p := range g.ports {
			db.nvueProfiles[p] = map[string]string{"mapping": g.mapping.Text, "pfc": g.pfc.Text, "congestion-control": g.cc.Text, "egress-scheduler": g.sched.Text}
		}
		row := map[string]Value{}
		if m, ok := c.Mapping[g.mapping.Text]; ok {
			row["dscp_to_tc_map"] = g.mapping
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
					dm[strconv.Itoa(d)] = v
				}
			}
			tab("DSCP_TO_TC_MAP")[g.mapping.Text] = dm
		}
		if p, ok := c.PFC[g.pfc.Text]; ok && len(p.Prios) > 0 && (p.Tx.Text == "enable" || p.Rx.Text == "enable") {
			v := p.PriosAt
			v.Text = textout.Ints(p.Prios)
			row["pfc_enable"] = v
		} else {
			// No PFC profile: NVUE runs the ports without PFC.
			on, _, at := c.RoCE()
			v := Value{}
			if on || at.Given() {
				v = at
			}
			if ok && p.Tx.Given() {
				v = p.Tx
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
				ecn, green := e.ECN, e.RED
				ecn.Text = "ecn_none"
				if e.ECN.Text == "enable" {
					ecn.Text = "ecn_all"
				}
				green.Text = strconv.FormatBool(e.RED.Text == "enable")
				tab("WRED_PROFILE")[name] = map[string]Value{"ecn": ecn, "wred_green_enable": green,
					"green_min_threshold": e.Min, "green_max_threshold": e.Max, "green_drop_probability": e.Prob}
			}
			if s, ok := c.Sched[g.sched.Text][tc]; ok && s.Mode.Text != "" {
				name := fmt.Sprintf("egress-scheduler %s traffic-class %d", g.sched.Text, tc)
				q["scheduler"] = Value{Text: name, Line: s.Mode.Line, Col: s.Mode.Col}
				typ := s.Mode
				typ.Text = strings.ToUpper(s.Mode.Text)
				sr := map[string]Value{"type": typ}
				if s.BW.Text != "" {
					sr["weight"] = s.BW
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
		db.lossyMode = at
	}
	judged := db.nvueBuffers(c, pfcPorts)
	for _, v := range c.NotJudged {
		if !judged[v.Text] {
			db.Skipped = append(db.Skipped, v)
		}
	}
	for t := range db.Tables {
		db.tablePos[t] = Value{Text: t, Line: 1, Col: 1}
	}
	return db
}

// An NVUEBuffer is a lossless PFC profile of an NVUE configuration whose
// priority-group buffer is sized by hand: both port-buffer (the buffer
// reserved for the group) and xoff-threshold (how much of it fills before
// the switch sends XOFF) are set, so the room left after XOFF, the
// headroom, is port-buffer minus xoff-threshold. NVIDIA's Cumulus Linux
// user guide defines them so (4.x "Priority flow control": port_buffer_bytes
// "the amount of reserved buffer space", xoff_size "the amount of reserved
// buffer that must be consumed before a PFC pause frame will be sent";
// 5.x maps xoff-threshold to xoff_size and port-buffer to
// port_buffer_bytes).
type NVUEBuffer struct {
	Profile string
	// Ports are the ports that use the profile ("default-global" for
	// every port without one of its own).
	Ports []string
	// Speed is their fastest link speed in Mb/s ("" when the input
	// gives none).
	Speed Value
	// PortBuffer, Xoff and Xon are bytes; Cable is metres, at no place
	// (Given false) when the profile leaves it to Cumulus Linux's default:
	// 100 m under `qos roce` in a lossless mode (its default RoCE
	// configuration), 10 m otherwise (qos_features.conf's documented
	// cable_length default).
	PortBuffer, Xoff, Xon, Cable Value
}

// NVUEBuffers returns the lossless PFC profiles of a config made from
// NVUE whose buffer is sized by hand, in profile-name order.
func (db *ConfigDB) NVUEBuffers() []NVUEBuffer { return db.nvueBufs }

// nvueBuffers records the profiles of c that NVUEBuffers returns and the
// not-judged paths that their judgement reads.
func (db *ConfigDB) nvueBuffers(c *nvue.Config, ports map[string][]string) map[string]bool {
	judged := map[string]bool{}
	for _, n := range slices.Sorted(maps.Keys(c.PFC)) {
		p := c.PFC[n]
		if !p.PortBuffer.Given() || !p.Xoff.Given() || len(ports[n]) == 0 || len(p.Prios) == 0 || p.Tx.Text != "enable" {
			continue
		}
		b := NVUEBuffer{Profile: n, Ports: ports[n], PortBuffer: p.PortBuffer, Xoff: p.Xoff, Xon: p.Xon, Cable: p.Cable}
		if !p.Cable.Given() {
			b.Cable = Value{Text: "10"}
			if on, mode, _ := c.RoCE(); on && nvue.Lossless(mode) {
				b.Cable.Text = "100"
			}
		}
		var best int64
		for _, port := range b.Ports {
			if v, ok := db.Field("PORT", port, "speed"); ok {
				if mbps, err := strconv.ParseInt(v.Text, 10, 64); err == nil && mbps > best {
					best, b.Speed = mbps, v
				}
			}
		}
		db.nvueBufs = append(db.nvueBufs, b)
		// xon-threshold stays listed as not judged: no rule weighs it.
		for _, k := range []string{"port-buffer", "xoff-threshold", "cable-length"} {
			judged["qos pfc "+n+" "+k] = true
		}
	}
	return judged
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
