package sonic

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"rocelab/internal/nxos"
	"rocelab/internal/swcfg"
	"rocelab/internal/textout"
)

// VendorNXOS marks a ConfigDB made from a Cisco NX-OS configuration.
const VendorNXOS = "cisco-nxos"

// FromNXOS writes what an NX-OS configuration says of QoS as the CONFIG_DB
// rows lint judges a SONiC switch by, each value at its place in the NX-OS
// text. A qos-group is SONiC's traffic class (a Nexus 9000 queues
// qos-group N in queue N and pauses it in network-qos class N):
//
//   - DSCP_TO_TC_MAP is the classification policy an interface applies
//     (`service-policy type qos input`, else the one `system qos` applies):
//     each DSCP takes the qos-group of the first class whose class-map
//     matches it, else class-default's; without a policy every DSCP is in
//     qos-group 0, NX-OS's default. A policy whose class-maps match CoS
//     (`match cos 3`, as Azure Local's does) gives no DSCP map: the class
//     is the frame's priority, judged by the NICs' priority.
//   - pfc_enable is the qos-groups whose class in the network-qos policy
//     of `system qos` has `pause pfc-cos`, on ports whose
//     `priority-flow-control mode` is not off (auto, the default, leaves
//     PFC to DCBX, and is taken as on: whether the peer agrees is not in
//     the config; it is named as not judged, as Microsoft's Azure Local
//     troubleshooting guide found auto not converging with ConnectX NICs
//     and forces PFC on).
//   - Each qos-group's `random-detect` in the queuing policy of `system
//     qos` is a WRED_PROFILE on its queue (ecn_all with the ecn keyword,
//     ecn_none without).
//
// A policy applied but not defined in the input (a cut of the config) is
// named as not judged, and neither is what it would set; so is a pausing
// class of the applied network-qos policy whose class-map the input does
// not define (PFC is then not judged).
// A network-qos policy that pauses, or a queuing policy with random-detect,
// that the input defines but `system qos` does not apply acts on no port:
// named too.
//
// Ports are the interfaces that set PFC or a classification policy; when
// none does, the system policies are written for one port named "system
// qos".
func FromNXOS(c *nxos.Config) *ConfigDB {
	db := newDB(c.File, "")
	db.lines, db.Vendor = c.Lines, VendorNXOS
	ports := slices.DeleteFunc(slices.Clone(c.Interfaces), func(it *nxos.Interface) bool { return !it.PFC.Given() && !it.QoSInput.Given() })
	if len(ports) == 0 && len(c.System) > 0 {
		ports = []*nxos.Interface{{Name: "system qos", At: c.System[slices.Sorted(maps.Keys(c.System))[0]]}}
	}
	pauses := c.Pause[c.System["network-qos"].Text]
	// A policy the input applies but does not define (a cut of the
	// config) says nothing: named, and what it sets is not judged.
	missing := func(v nxos.Value) bool {
		if !v.Given() || c.Policies[v.Text] {
			return false
		}
		at := v
		at.Text = "policy-map " + v.Text + " (not in the input)"
		if !slices.ContainsFunc(db.Skipped, func(s Value) bool { return s.Text == at.Text }) {
			db.Skipped = append(db.Skipped, at)
		}
		return true
	}
	nqMissing := missing(c.System["network-qos"])
	if c.Excerpt.Given() && len(c.System) == 0 {
		// A part of the configuration (`show running-config interface
		// …`) without `system qos`: which classes pause, and the
		// classification of ports without their own policy, are not known.
		db.MarkExcerpt(c.Excerpt, "system qos not in the input")
		nqMissing = true
	}
	db.MarkExcerpt(c.Excerpt, "")
	// A pausing class whose qos-group the input does not give leaves
	// which groups pause unknown: named, and PFC not judged.
	for _, at := range c.PauseUnknown[c.System["network-qos"].Text] {
		db.Skipped = append(db.Skipped, at)
		nqMissing = true
	}
	qMissing := missing(c.System["queuing"])
	queues := c.Queuing[c.System["queuing"].Text]
	if !c.Excerpt.Given() {
		db.Skipped = append(db.Skipped, nxosUnapplied(c)...)
	}
	var auto []Value
	for _, it := range ports {
		row := map[string]Value{}
		policy := it.QoSInput
		if !policy.Given() {
			policy = c.System["qos"]
		}
		name := "no qos policy (qos-group 0)"
		if policy.Given() {
			name = "policy-map type qos " + policy.Text
		}
		// A policy that sorts by CoS has no DSCP map: the class is the
		// frame's 802.1p priority, judged against the NICs' priority.
		// A member of a port channel the input does not hold takes that
		// port channel's policy, which is not known (named by nxos).
		if !it.ChannelMissing && !c.ByCoS(policy.Text) && !missing(policy) && (policy.Given() || !c.Excerpt.Given()) {
			if db.table("DSCP_TO_TC_MAP")[name] == nil {
				m := map[string]Value{}
				for d := range 64 {
					m[strconv.Itoa(d)] = nxosClass(c, policy.Text, d)
				}
				db.table("DSCP_TO_TC_MAP")[name] = m
			}
			row["dscp_to_tc_map"] = Value{Text: name, Line: policy.Line, Col: policy.Col}
		}
		groups := slices.Sorted(maps.Keys(pauses))
		// No class paused is an empty pfc_enable, as SONiC writes it:
		// what the lossy-by-design check reads.
		pfc := it.At
		pfc.Text = ""
		if len(groups) > 0 {
			pfc = pauses[groups[0]]
			pfc.Text = textout.Ints(groups)
		}
		switch it.PFC.Text {
		case "off":
			pfc = it.PFC
			pfc.Text = ""
		case "auto", "":
			// Taken as on, but left to DCBX: Microsoft found auto failing
			// to converge with ConnectX NICs and forces PFC on instead.
			if len(groups) > 0 && it.Name != "system qos" {
				at := it.At
				at.Text = "priority-flow-control mode auto (PFC left to DCBX negotiation)"
				auto = append(auto, at)
			}
		}
		if !nqMissing {
			row["pfc_enable"] = pfc
		}
		db.table("PORT_QOS_MAP")[it.Name] = row
		for _, g := range slices.Sorted(maps.Keys(queues)) {
			q := queues[g]
			db.nosRED(it.Name, g, fmt.Sprintf("policy-map type queuing %s qos-group %d random-detect", c.System["queuing"].Text, g), &swcfg.RED{At: q.At, Min: q.Min, Max: q.Max, Prob: q.Prob})
		}
		db.nosPort(it.Name, it.Speed, it.MTU)
	}
	db.nosECN(qMissing, ecnWords...)
	db.nosPFC(nqMissing)
	db.nosDone(c.NotJudged)
	if len(auto) > 0 {
		db.Skipped = append(db.Skipped, auto[0]) // once: the first such port
	}
	return db
}

// NXOSUnapplied ends the text of a not-judged setting that names a
// network-qos or queuing policy the configuration defines but `system qos`
// does not apply: its pauses or ECN act on no port.
const NXOSUnapplied = " (system qos does not apply it: "

// nxosUnapplied names each network-qos policy that pauses and each queuing
// policy with random-detect that `system qos` does not apply (NX-OS
// applies both there alone), at the first such line: what they say acts
// on no port.
func nxosUnapplied(c *nxos.Config) []Value {
	var out []Value
	for _, name := range slices.Sorted(maps.Keys(c.Pause)) {
		if name == c.System["network-qos"].Text || len(c.Pause[name]) == 0 {
			continue
		}
		at := c.Pause[name][slices.Sorted(maps.Keys(c.Pause[name]))[0]]
		at.Text = "policy-map type network-qos " + name + NXOSUnapplied + "pauses nothing)"
		out = append(out, at)
	}
	for _, name := range slices.Sorted(maps.Keys(c.Queuing)) {
		if name == c.System["queuing"].Text || len(c.Queuing[name]) == 0 {
			continue
		}
		at := c.Queuing[name][slices.Sorted(maps.Keys(c.Queuing[name]))[0]].At
		at.Text = "policy-map type queuing " + name + NXOSUnapplied + "marks nothing)"
		out = append(out, at)
	}
	return out
}

// nxosClass is the qos-group a classification policy puts a DSCP in, at
// the class-map line that matches it (or the set line of class-default).
func nxosClass(c *nxos.Config, policy string, dscp int) Value {
	for _, cl := range c.QoS[policy] {
		at, ok := c.ClassDSCP[cl.Name][dscp]
		if cl.Name == "class-default" {
			ok, at = true, cl.Group
		}
		if !ok {
			continue
		}
		if !cl.Group.Given() {
			return Value{Text: "0", Line: at.Line, Col: at.Col}
		}
		v := at
		v.Text = cl.Group.Text
		return v
	}
	return Value{Text: "0"}
}
