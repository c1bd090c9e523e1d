package sonic

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"rocelab/internal/os10"
	"rocelab/internal/swcfg"
	"rocelab/internal/textout"
)

// VendorOS10 marks a ConfigDB made from a Dell EMC SmartFabric OS10
// configuration.
const VendorOS10 = "dell-os10"

// FromOS10 writes what an OS10 configuration says of QoS as the CONFIG_DB
// rows lint judges a SONiC switch by, each value at its place in the OS10
// text. A qos-group is SONiC's traffic class; an interface's own
// `trust-map`, `qos-map traffic-class` and service policies win over
// `system qos`'s:
//
//   - DSCP_TO_TC_MAP is the `trust dscp-map` a port trusts (OS10's
//     default map, DSCP >> 3, for `trust-map dscp default`; a DSCP the map
//     leaves out is qos-group 0). A port that trusts dot1p has no DSCP
//     map: its class is the frame's priority, judged by the NICs'
//     priority. A port with no trust map puts everything in qos-group 0,
//     as OS10 honours no marking by default.
//   - pfc_enable is the `pfc-cos` values of the paused classes of the
//     network-qos policy a port applies, on ports with
//     `priority-flow-control mode on` (OS10 runs no PFC without it).
//   - TC_TO_QUEUE_MAP is the `qos-map traffic-class` (qos-group N to queue
//     N where none is applied).
//   - Each queuing class's `random-detect PROFILE` is that `wred`
//     profile's green thresholds (KB of 1024 bytes) on the class's queue,
//     marking when the profile has `random-detect ecn`.
//
// A policy or map applied but not defined in the input (a cut of the
// config) is named as not judged, and what it would set is not judged. A
// queuing class's `random-detect` in a policy that no interface or
// `system qos` applies, and a `wred` profile no queuing class attaches,
// mark nothing and are named so (Azure Stack's and Azure Local's
// generated configs define `wred ecn` and attach it only so).
// Ports are the interfaces that apply QoS; when none does, `system qos`
// is written for one port named "system qos". A port-channel's members
// take what it writes and are the ports, not the port-channel.
func FromOS10(c *os10.Config) *ConfigDB {
	db := newDB(c.File, "")
	db.lines, db.Vendor = c.Lines, VendorOS10
	ports := slices.DeleteFunc(slices.Clone(c.Interfaces), func(it *os10.Interface) bool {
		// A port-channel with members in the input is judged on them,
		// which take what it writes (os10 reads so).
		return len(it.Members) > 0 || !it.PFC.Given() && it.Applied == (os10.Applied{})
	})
	if len(ports) == 0 && (c.System != (os10.Applied{}) || len(c.Pauses) > 0) {
		// A cut of the QoS blocks without interfaces: PFC is taken as on
		// with the network-qos policy (system qos's, else the only one).
		sys := &os10.Interface{Name: "system qos", Applied: c.System}
		if !sys.NetQoS.Given() && len(c.Pauses) == 1 {
			for name := range c.Pauses {
				sys.NetQoS = Value{Text: name}
			}
		}
		if sys.NetQoS.Given() {
			sys.PFC = Value{Text: "on"}
			db.Skipped = append(db.Skipped, Value{Text: "priority-flow-control mode (no interface in the input: taken as on)"})
		}
		ports = []*os10.Interface{sys}
	}
	// cut: a policy or port-channel the input does not hold may pause or
	// mark ECN.
	cut := slices.ContainsFunc(c.Interfaces, func(it *os10.Interface) bool { return it.ChannelMissing })
	missing := func(v Value, what string, defined bool) bool {
		if !v.Given() || defined {
			return false
		}
		cut = true
		at := v
		at.Text = what + " " + v.Text + " (not in the input)"
		if !slices.ContainsFunc(db.Skipped, func(s Value) bool { return s.Text == at.Text }) {
			db.Skipped = append(db.Skipped, at)
		}
		return true
	}
	or := func(own, sys Value) Value {
		if own.Given() {
			return own
		}
		return sys
	}
	for _, it := range ports {
		row := map[string]Value{}
		trust, tmap := it.Trust, it.TrustMap
		if !trust.Given() {
			trust, tmap = c.System.Trust, c.System.TrustMap
		}
		switch {
		case it.ChannelMissing:
			// A member of a port-channel the input does not hold: the
			// trust map it takes (the port-channel's replaces its own)
			// is not known (named by os10).
		case trust.Text == "dscp" && (tmap.Text == "default" || !missing(tmap, "trust dscp-map", c.DSCPMaps[tmap.Text] != nil)):
			name := "trust dscp-map " + tmap.Text
			if db.table("DSCP_TO_TC_MAP")[name] == nil {
				m := map[string]Value{}
				for d := range 64 {
					v := tmap // a DSCP the map leaves out: qos-group 0
					v.Text = "0"
					if tmap.Text == "default" {
						v.Text = strconv.Itoa(os10.DefaultDSCP(d))
					} else if g, ok := c.DSCPMaps[tmap.Text][d]; ok {
						v = g
					}
					m[strconv.Itoa(d)] = v
				}
				db.table("DSCP_TO_TC_MAP")[name] = m
			}
			row["dscp_to_tc_map"] = Value{Text: name, Line: tmap.Line, Col: tmap.Col}
		case !trust.Given():
			// OS10 honours no marking by default: every frame in qos-group 0.
			name := "no trust-map (qos-group 0)"
			if db.table("DSCP_TO_TC_MAP")[name] == nil {
				m := map[string]Value{}
				for d := range 64 {
					m[strconv.Itoa(d)] = Value{Text: "0"}
				}
				db.table("DSCP_TO_TC_MAP")[name] = m
			}
			row["dscp_to_tc_map"] = Value{Text: name, Line: it.At.Line, Col: it.At.Col}
		}
		if tq := or(it.TCQueue, c.System.TCQueue); tq.Given() && !missing(tq, "qos-map traffic-class", c.TCQueue[tq.Text] != nil) {
			name := "qos-map traffic-class " + tq.Text
			if db.table("TC_TO_QUEUE_MAP")[name] == nil {
				m := map[string]Value{}
				for g := range 8 {
					v := Value{Text: strconv.Itoa(g)}
					if q, ok := c.TCQueue[tq.Text][g]; ok {
						v = q
					}
					m[strconv.Itoa(g)] = v
				}
				db.table("TC_TO_QUEUE_MAP")[name] = m
			}
			row["tc_to_queue_map"] = Value{Text: name, Line: tq.Line, Col: tq.Col}
		}
		nq := or(it.NetQoS, c.System.NetQoS)
		pfc := it.PFC
		if !pfc.Given() {
			pfc = it.At
		}
		pfc.Text = ""
		if it.PFC.Text == "on" {
			var cos []int
			for _, cl := range slices.Sorted(maps.Keys(c.Pauses[nq.Text])) {
				pa := c.Pauses[nq.Text][cl]
				if pa.At.Given() && pa.Set.Given() {
					cos = append(cos, pa.CoS...)
					pfc = pa.Set
				}
			}
			slices.Sort(cos)
			pfc.Text = textout.Ints(slices.Compact(cos))
		}
		// Without `priority-flow-control mode on` no class pauses, whatever
		// the policy; with it, a policy not in the input says nothing.
		if undefined := missing(nq, "policy-map type network-qos", c.Policies[nq.Text]); it.PFC.Text != "on" || !undefined {
			row["pfc_enable"] = pfc
		}
		db.table("PORT_QOS_MAP")[it.Name] = row
		qp := or(it.Queuing, c.System.Queuing)
		if !missing(qp, "policy-map type queuing", c.Policies[qp.Text]) {
			for _, cl := range slices.Sorted(maps.Keys(c.RED[qp.Text])) {
				prof := c.RED[qp.Text][cl]
				q, ok := c.Queues[cl]
				w := c.WRED[prof.Text]
				if !ok || missing(prof, "wred", w != nil) || !w.Min.Given() {
					continue
				}
				r := &swcfg.RED{At: prof, Min: w.Min, Max: w.Max, Prob: w.Prob}
				r.At.Text = "drop"
				if w.ECN.Given() {
					r.At.Text = "ecn"
				}
				db.nosRED(it.Name, q, "wred "+prof.Text, r)
			}
		}
		db.nosPort(it.Name, it.Speed, it.MTU)
	}
	os10Unapplied(db, c)
	db.nosECN(cut, ecnWords...)
	db.nosPFC(cut)
	db.nosDone(c.NotJudged)
	return db
}

// os10Unapplied names the queuing classes' `random-detect` lines of the
// policies that neither an interface nor `system qos` applies, and the
// `wred` profiles no class attaches: none of them marks a packet. A cut
// without interfaces cannot say what its ports apply; its lines are named
// as not judged.
func os10Unapplied(db *ConfigDB, c *os10.Config) {
	applied := map[string]bool{c.System.Queuing.Text: true}
	for _, it := range c.Interfaces {
		applied[it.Queuing.Text] = true
	}
	why := "applied by no interface or system qos: marks nothing"
	if len(c.Interfaces) == 0 {
		why = "no interface in the input"
	}
	attached := map[string]bool{}
	for _, qp := range slices.Sorted(maps.Keys(c.RED)) {
		for _, cl := range slices.Sorted(maps.Keys(c.RED[qp])) {
			at := c.RED[qp][cl]
			attached[at.Text] = true
			if !applied[qp] {
				at.Text = fmt.Sprintf("random-detect %s in policy-map type queuing %s (%s)", at.Text, qp, why)
				db.Skipped = append(db.Skipped, at)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.WRED)) {
		if !attached[name] {
			at := c.WRED[name].At
			at.Text = fmt.Sprintf("wred %s (attached by no queuing class: marks nothing)", name)
			db.Skipped = append(db.Skipped, at)
		}
	}
}
