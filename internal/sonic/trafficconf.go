package sonic

import (
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/swcfg"
	"rocelab/internal/textout"
	"rocelab/internal/trafficconf"
)

// VendorTrafficConf marks a ConfigDB made from Cumulus Linux's switchd
// QoS file (traffic.conf, qos_features.conf).
const VendorTrafficConf = "cumulus-traffic-conf"

// A confGroup is a PFC or ECN port group of traffic.conf.
type confGroup struct {
	name  string
	at    Value
	field func(string) (Value, bool)
}

// FromTrafficConf writes what Cumulus Linux's traffic.conf (or 5.x's
// qos_features.conf) says of QoS as the CONFIG_DB rows lint judges a SONiC
// switch by, each value at its place in the file. The internal cos
// (switch priority) is SONiC's class, and on Cumulus also the egress
// queue:
//
//   - DSCP_TO_TC_MAP is the traffic.cos_N.priority_source.dscp lists
//     (3.x: packet_priorities.dscp) when
//     traffic.packet_priority_source_set holds dscp (a DSCP no list names
//     is cos 0); with 802.1p alone, the default, there is no DSCP map: the
//     class is the frame's priority, judged by the NICs'.
//   - pfc_enable is, on each port of a PFC group's port_set, the cos_list
//     of the groups pfc.port_group_list names (a group whose tx_enable
//     and rx_enable are both false pauses nothing).
//   - Each ECN group ecn_red.port_group_list names (and the default ECN
//     configuration, default_ecn_red_conf or default_ecn_conf, on every
//     port) is a WRED_PROFILE on its queues: ecn_all with ecn_enable true,
//     a drop profile with red_enable alone.
//
// Groups whose keys the file sets but whose list does not name them are
// ignored by switchd, and named so; headroom (port_buffer_bytes,
// xoff_size), link pause, scheduling weights and shaping are named as not
// judged. Ports are those the groups' port sets name; a file with none
// is one port, "all ports". A group on `allports` (NVUE writes its
// default-global profiles so) covers every port.
func FromTrafficConf(c *trafficconf.Config) *ConfigDB {
	db := newDB(c.File, "")
	db.lines, db.Vendor = c.Lines, VendorTrafficConf
	pfc, ecn := confGroups(c, db, "pfc"), confGroups(c, db, "ecn_red")
	var ports []string
	for _, g := range append(slices.Clone(pfc), ecn...) {
		if v, ok := g.field("port_set"); ok {
			for _, p := range trafficconf.Ports(v.Text) {
				if p != trafficconf.AllPorts && !slices.Contains(ports, p) {
					ports = append(ports, p)
				}
			}
		}
	}
	if len(ports) == 0 {
		ports = []string{"all ports"}
	}
	covers := func(g confGroup, port string) bool {
		v, ok := g.field("port_set")
		set := trafficconf.Ports(v.Text)
		return port == "all ports" || ok && (slices.Contains(set, port) || slices.Contains(set, trafficconf.AllPorts))
	}
	src, _ := c.Names("traffic.packet_priority_source_set")
	if slices.Contains(src, "dscp") {
		m := map[string]Value{}
		for d := range 64 {
			m[strconv.Itoa(d)] = Value{Text: "0"}
		}
		for cos := range 8 {
			for _, k := range []string{"traffic.cos_%d.priority_source.dscp", "traffic.cos_%d.packet_priorities.dscp"} {
				ds, at := c.Ints(strings.Replace(k, "%d", strconv.Itoa(cos), 1))
				for _, d := range ds {
					v := at
					v.Text = strconv.Itoa(cos)
					m[strconv.Itoa(d)] = v
				}
			}
		}
		db.table("DSCP_TO_TC_MAP")["traffic.conf dscp"] = m
	}
	srcAt, _ := c.Get("traffic.packet_priority_source_set")
	for _, port := range ports {
		row := map[string]Value{}
		if slices.Contains(src, "dscp") {
			srcAt.Text = "traffic.conf dscp"
			row["dscp_to_tc_map"] = srcAt
		}
		var cos []int
		at, _ := c.Get("pfc.port_group_list")
		for _, g := range pfc {
			tx, _ := g.field("tx_enable")
			rx, _ := g.field("rx_enable")
			list, ok := g.field("cos_list")
			if !covers(g, port) || !ok || tx.Text == "false" && rx.Text == "false" {
				continue
			}
			cos, at = append(cos, c.List(list)...), list
		}
		slices.Sort(cos)
		at.Text = textout.Ints(slices.Compact(cos))
		row["pfc_enable"] = at
		db.table("PORT_QOS_MAP")[port] = row
		for _, g := range ecn {
			if !covers(g, port) && g.name != "" {
				continue
			}
			red := confRED(g)
			if red == nil {
				continue
			}
			list, ok := g.field("cos_list")
			if !ok {
				list, _ = g.field("egress_queue_list")
			}
			for _, q := range c.List(list) {
				db.nosRED(port, q, groupName(g), red)
			}
		}
	}
	var notJudged []Value
	for _, e := range c.Entries {
		k := e.Key.Text
		last := k[strings.LastIndex(k, ".")+1:]
		fam := trafficconf.Family(k)
		if fam == "link_pause" || fam == "shaping" || fam == "egr_queue_" || fam == "priority_group" && last == "weight" ||
			fam == "pfc" && (last == "port_buffer_bytes" || last == "xoff_size" || last == "xon_delta" || last == "cable_length") ||
			k == "traffic.port_default_priority" || strings.HasPrefix(k, "traffic.remark") {
			name := fam + " " + last
			if !slices.ContainsFunc(notJudged, func(v Value) bool { return v.Text == name }) {
				at := e.Key
				at.Text = name
				notJudged = append(notJudged, at)
			}
		}
	}
	db.nosDone(notJudged)
	return db
}

// confGroups are the port groups of a family (pfc, ecn_red) its
// port_group_list names, plus for ecn_red the default configuration;
// groups whose keys the file sets but the list leaves out are named as
// ignored.
func confGroups(c *trafficconf.Config, db *ConfigDB, fam string) []confGroup {
	names, at := c.Names(fam + ".port_group_list")
	if !at.Given() {
		// A cut of the file without the list (NVIDIA's documentation
		// elides it): the groups are those whose keys it sets.
		for _, e := range c.Entries {
			rest, _ := strings.CutPrefix(e.Key.Text, fam+".")
			if g, _, ok := strings.Cut(rest, "."); ok && rest != e.Key.Text && !slices.Contains(names, g) {
				names = append(names, g)
			}
		}
		if len(names) > 0 {
			db.Skipped = append(db.Skipped, Value{Text: fam + ".port_group_list (not in the input: its groups taken from their keys)"})
		}
	}
	var out []confGroup
	for _, n := range names {
		out = append(out, confGroup{name: fam + "." + n, at: at, field: func(f string) (Value, bool) {
			if v, ok := c.Get(fam + "." + n + "." + f); ok {
				return v, true
			}
			return c.Get(n + "." + f) // qos_features.conf's "my-red-profile.ecn_enable"
		}})
	}
	if fam == "ecn_red" {
		for _, d := range []string{"default_ecn_red_conf", "default_ecn_conf"} {
			if _, ok := c.Get(d + ".ecn_enable"); ok {
				out = append(out, confGroup{name: "", at: Value{Text: d}, field: func(f string) (Value, bool) { return c.Get(d + "." + f) }})
			}
		}
	}
	seen := map[string]bool{}
	for _, e := range c.Entries {
		rest, ok := strings.CutPrefix(e.Key.Text, fam+".")
		g, _, ok2 := strings.Cut(rest, ".")
		if !ok || !ok2 || slices.Contains(names, g) || seen[g] {
			continue
		}
		seen[g] = true
		v := e.Key
		v.Text = fam + "." + g + " (not in " + fam + ".port_group_list: switchd ignores it)"
		db.Skipped = append(db.Skipped, v)
	}
	return out
}

// groupName names an ECN group as the file does.
func groupName(g confGroup) string {
	if g.name == "" {
		return g.at.Text
	}
	return g.name
}

// confRED is an ECN group's marking (ecn_enable) or dropping (red_enable
// alone) as a random-detect line; nil when it does neither.
func confRED(g confGroup) *swcfg.RED {
	ecn, _ := g.field("ecn_enable")
	red, _ := g.field("red_enable")
	lo, ok1 := g.field("min_threshold_bytes")
	hi, ok2 := g.field("max_threshold_bytes")
	if !ok1 || !ok2 || ecn.Text != "true" && red.Text != "true" {
		return nil
	}
	prob, _ := g.field("probability")
	at := ecn
	at.Text = "drop"
	if ecn.Text == "true" {
		at.Text = "ecn"
	} else {
		at = red
		at.Text = "drop"
	}
	return &swcfg.RED{At: at, Min: lo, Max: hi, Prob: prob}
}
