package sonic

import (
	"fmt"
	"strconv"
	"strings"

	"rocelab/internal/pos"
	"rocelab/internal/swcfg"
)

// VendorKLISH marks a ConfigDB read from the running-configuration of
// SONiC's management framework CLI (KLISH: Enterprise SONiC, Dell's
// sonic-cli), which writes CONFIG_DB's own tables.
const VendorKLISH = "sonic-klish"

// IsKLISH reports whether text holds the QoS of a KLISH running
// configuration: a `qos map dscp-tc`, `qos wred-policy` or `qos
// scheduler-policy` block, or an interface's `qos-map dscp-tc`.
func IsKLISH(data []byte) bool {
	for _, raw := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(raw)
		for _, p := range []string{"qos map dscp-tc ", "qos wred-policy ", "qos scheduler-policy ", "qos-map dscp-tc "} {
			if strings.HasPrefix(t, p) {
				return true
			}
		}
	}
	return false
}

// ParseKLISH reads a KLISH running configuration (`show
// running-configuration`, or its QoS and interface blocks) into the
// CONFIG_DB rows it stands for, at their lines:
//
//   - `qos map dscp-tc|tc-queue|tc-pg|pfc-priority-queue NAME` blocks
//     (`dscp 24,26 traffic-class 3`, `traffic-class 3 queue 3`) are
//     DSCP_TO_TC_MAP, TC_TO_QUEUE_MAP, TC_TO_PRIORITY_GROUP_MAP and
//     MAP_PFC_PRIORITY_TO_QUEUE rows;
//   - `qos wred-policy NAME` is a WRED_PROFILE: `green minimum-threshold
//     KB maximum-threshold KB drop-probability P` (KB of 1000 bytes, as
//     the management framework converts them) with wred_green_enable,
//     and `ecn green|all|none…` as ecn_<mode>;
//   - `qos scheduler-policy NAME` queues (`queue N`, `type dwrr|strict`,
//     `weight W`) are SCHEDULER rows NAME@N;
//   - an interface's `qos-map …`, `priority-flow-control priority N`
//     lines (pfc_enable), `queue N wred-policy NAME`, `scheduler-policy`,
//     `priority-flow-control watchdog … detect-time|restore-time`, `mtu`
//     and `speed` are its PORT_QOS_MAP, QUEUE, PFC_WD and PORT rows.
//
// Blocks are told by their head, not by indent: documents print them
// flat. A value the CLI would refuse is an error at its place.
func ParseKLISH(name string, data []byte) (*ConfigDB, error) {
	db := newDB(name, "")
	db.lines, db.Vendor = strings.Split(string(data), "\n"), VendorKLISH
	k := &klish{db: db, pfc: map[string]Value{}, heads: map[string]Value{}}
	for i, raw := range db.lines {
		w := swcfg.Words(strings.TrimRight(raw, "\r"), i+1)
		if len(w) == 0 || w[0].Text[0] == '!' {
			continue
		}
		if err := k.line(w); err != nil {
			return nil, err
		}
	}
	for port, row := range db.Tables["PORT_QOS_MAP"] {
		// A port without a priority-flow-control priority line pauses
		// none: said at its interface line.
		v, ok := k.pfc[port]
		if !ok {
			v = k.heads[port]
			v.Text = ""
		}
		row["pfc_enable"] = v
	}
	db.nosDone(nil)
	return db, nil
}

// klish follows the block a line belongs to.
type klish struct {
	db *ConfigDB
	// block is the head's kind (dscp-tc, wred-policy, interface, …) and
	// name its name; queue the scheduler-policy queue being written.
	block, name string
	queue       string
	// pfc are each port's lossless priorities, gathered from its lines;
	// heads each interface's line.
	pfc, heads map[string]Value
}

var klishMaps = map[string]string{"dscp-tc": "DSCP_TO_TC_MAP", "tc-queue": "TC_TO_QUEUE_MAP", "tc-pg": "TC_TO_PRIORITY_GROUP_MAP",
	"pfc-priority-queue": "MAP_PFC_PRIORITY_TO_QUEUE", "pfc-priority-pg": "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "dot1p-tc": "DOT1P_TO_TC_MAP"}

func (k *klish) line(w []swcfg.Value) error {
	t := func(i int) string {
		if i < len(w) {
			return w[i].Text
		}
		return ""
	}
	switch {
	case t(0) == "qos" && t(1) == "map" && len(w) == 4:
		k.block, k.name = t(2), t(3)
		if table := klishMaps[k.block]; table != "" {
			k.head(table, w)
		}
		return nil
	case t(0) == "qos" && (t(1) == "wred-policy" || t(1) == "scheduler-policy") && len(w) == 3:
		k.block, k.name, k.queue = t(1), t(2), ""
		if t(1) == "wred-policy" {
			k.db.table("WRED_PROFILE")[k.name] = map[string]Value{}
			k.head("WRED_PROFILE", w)
		} else {
			k.head("SCHEDULER", w)
		}
		return nil
	case t(0) == "interface" && len(w) >= 2:
		k.block, k.name = "interface", strings.Join(texts(w[1:]), "")
		if !strings.HasPrefix(k.name, "Eth") {
			k.block = ""
		}
		k.heads[k.name] = w[0]
		return nil
	}
	switch k.block {
	case "dscp-tc", "tc-queue", "tc-pg", "pfc-priority-queue", "pfc-priority-pg", "dot1p-tc":
		return k.mapEntry(w)
	case "wred-policy":
		return k.wred(w)
	case "scheduler-policy":
		return k.scheduler(w)
	case "interface":
		return k.iface(w)
	}
	return nil
}

// head keeps where a map or policy is defined, under its table and name
// ("SCHEDULER|NAME" for a scheduler-policy, whose rows are NAME@queue),
// with the command as its text: what a finding on a map no interface
// binds names.
func (k *klish) head(table string, w []swcfg.Value) {
	v := w[0]
	v.Text = strings.Join(texts(w), " ")
	k.db.keyPos[table+"|"+k.name] = v
}

// mapEntry reads `dscp 0-3,5 traffic-class 0`, `traffic-class 3 queue 3`,
// `traffic-class 0-2 priority-group 7`, `pfc-priority 3 queue 3`.
func (k *klish) mapEntry(w []swcfg.Value) error {
	if len(w) != 4 {
		return nil
	}
	from, ok := swcfg.IDs(w[1].Text, 63)
	if !ok {
		return &pos.Error{File: k.db.Path, Line: w[1].Line, Col: w[1].Col, Msg: fmt.Sprintf("%q: expected a list of numbers (0-3,5)", w[1].Text)}
	}
	if _, err := strconv.Atoi(w[3].Text); err != nil {
		return &pos.Error{File: k.db.Path, Line: w[3].Line, Col: w[3].Col, Msg: fmt.Sprintf("%q: expected a number", w[3].Text)}
	}
	tab := k.db.table(klishMaps[k.block])
	if tab[k.name] == nil {
		tab[k.name] = map[string]Value{}
	}
	for _, f := range from {
		tab[k.name][strconv.Itoa(f)] = w[3]
	}
	return nil
}

// wred reads a wred-policy's green thresholds and ECN mode.
func (k *klish) wred(w []swcfg.Value) error {
	row := k.db.table("WRED_PROFILE")[k.name]
	switch {
	case w[0].Text == "ecn" && len(w) == 2:
		v := w[1]
		v.Text = "ecn_" + w[1].Text
		row["ecn"] = v
	case w[0].Text == "green" && len(w) == 7 && w[1].Text == "minimum-threshold" && w[3].Text == "maximum-threshold" && w[5].Text == "drop-probability":
		for i, f := range map[int]string{2: "green_min_threshold", 4: "green_max_threshold"} {
			kb, err := strconv.ParseInt(w[i].Text, 10, 64)
			if err != nil || kb < 0 {
				return &pos.Error{File: k.db.Path, Line: w[i].Line, Col: w[i].Col, Msg: fmt.Sprintf("%q: expected a threshold in KB", w[i].Text)}
			}
			v := w[i]
			v.Text = strconv.FormatInt(kb*1000, 10)
			row[f] = v
		}
		row["green_drop_probability"] = w[6]
		on := w[0]
		on.Text = "true"
		row["wred_green_enable"] = on
	}
	return nil
}

// scheduler reads a scheduler-policy's queues.
func (k *klish) scheduler(w []swcfg.Value) error {
	if w[0].Text == "queue" && len(w) == 2 {
		k.queue = k.name + "@" + w[1].Text
		k.db.table("SCHEDULER")[k.queue] = map[string]Value{}
		return nil
	}
	if k.queue == "" || len(w) != 2 {
		return nil
	}
	switch w[0].Text {
	case "type":
		v := w[1]
		v.Text = strings.ToUpper(w[1].Text)
		k.db.table("SCHEDULER")[k.queue]["type"] = v
	case "weight":
		k.db.table("SCHEDULER")[k.queue]["weight"] = w[1]
	}
	return nil
}

// iface reads an interface's QoS lines.
func (k *klish) iface(w []swcfg.Value) error {
	port := k.name
	row := func(table, key string) map[string]Value {
		tab := k.db.table(table)
		if tab[key] == nil {
			tab[key] = map[string]Value{}
		}
		return tab[key]
	}
	text := strings.Join(texts(w), " ")
	switch {
	case w[0].Text == "qos-map" && len(w) == 3 && klishMaps[w[1].Text] != "":
		field := map[string]string{"dscp-tc": "dscp_to_tc_map", "tc-queue": "tc_to_queue_map", "tc-pg": "tc_to_pg_map",
			"pfc-priority-queue": "pfc_to_queue_map", "pfc-priority-pg": "pfc_to_pg_map", "dot1p-tc": "dot1p_to_tc_map"}[w[1].Text]
		row("PORT_QOS_MAP", port)[field] = w[2]
	case len(w) == 3 && w[0].Text == "priority-flow-control" && w[1].Text == "priority":
		n, err := strconv.Atoi(w[2].Text)
		if err != nil || n < 0 || n > 7 {
			return &pos.Error{File: k.db.Path, Line: w[2].Line, Col: w[2].Col, Msg: fmt.Sprintf("%q: expected a priority 0-7", w[2].Text)}
		}
		row("PORT_QOS_MAP", port)
		v, ok := k.pfc[port]
		if !ok {
			v = w[2]
			v.Text = ""
		}
		if v.Text != "" {
			v.Text += ","
		}
		v.Text += w[2].Text
		k.pfc[port] = v
	case len(w) == 4 && w[0].Text == "queue" && w[2].Text == "wred-policy":
		row("QUEUE", port+"|"+w[1].Text)["wred_profile"] = w[3]
	case len(w) == 2 && w[0].Text == "scheduler-policy":
		for q := range 8 {
			name := w[1].Text + "@" + strconv.Itoa(q)
			if _, ok := k.db.Tables["SCHEDULER"][name]; ok {
				v := w[1]
				v.Text = name
				row("QUEUE", port+"|"+strconv.Itoa(q))["scheduler"] = v
			}
		}
	case strings.HasPrefix(text, "priority-flow-control watchdog "):
		for i := 2; i+1 < len(w); i++ {
			if f, ok := map[string]string{"detect-time": "detection_time", "restore-time": "restoration_time", "action": "action"}[w[i].Text]; ok {
				row("PFC_WD", port)[f] = w[i+1]
			}
		}
	case len(w) == 2 && (w[0].Text == "mtu" || w[0].Text == "speed"):
		if n, err := strconv.Atoi(w[1].Text); err == nil && n > 0 {
			row("PORT", port)[w[0].Text] = w[1]
		}
	}
	return nil
}

func texts(w []swcfg.Value) []string {
	out := make([]string, len(w))
	for i, v := range w {
		out[i] = v.Text
	}
	return out
}
