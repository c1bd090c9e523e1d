package sonic

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"rocelab/internal/aoscx"
	"rocelab/internal/swcfg"
	"rocelab/internal/textout"
)

// VendorAOSCX marks a ConfigDB made from an HPE Aruba Networking CX
// (AOS-CX) configuration.
const VendorAOSCX = "aruba-aoscx"

// aoscxAll is the port an AOS-CX configuration's global QoS is written
// for when no interface sets its own.
const aoscxAll = "all interfaces"

// FromAOSCX writes what an AOS-CX configuration says of QoS as the
// CONFIG_DB rows lint judges a SONiC switch by, each value at its place in
// the AOS-CX text. A local priority is SONiC's traffic class; an
// interface's own `qos trust` and threshold profile win over the global
// ones:
//
//   - A port that trusts DSCP has the dscp-map as DSCP_TO_TC_MAP (AOS-CX's
//     factory map, the IEEE class of DSCP >> 3, where no `qos dscp-map`
//     moves a code point). A port that trusts CoS has no DSCP map: its
//     class is the frame's priority, judged by the NICs'. `qos trust none`,
//     the default, ignores markings: named as not judged.
//   - pfc_enable is the priorities whose `flow-control priority` sends
//     pause (tx or rxtx); rx alone only honours pause and is named.
//   - TC_TO_QUEUE_MAP is the applied queue profile (local priority N in
//     queue N for factory-default).
//   - Each `queue Q action ecn` line of the threshold profile a port takes
//     is a WRED_PROFILE on queue Q marking from min- to max-threshold.
//
// A profile applied but not defined in the input is named as not judged,
// as is a threshold profile that neither `apply qos threshold-profile`
// line applies. Ports are the interfaces that set trust, PFC or a
// threshold profile; when none does, the global settings, which every
// interface takes, are written for one port named "all interfaces" (not
// "global": that is SONiC's own PORT_QOS_MAP key for switch-wide maps,
// which no per-port rule judges).
func FromAOSCX(c *aoscx.Config) *ConfigDB {
	db := newDB(c.File, "")
	db.lines, db.Vendor = c.Lines, VendorAOSCX
	ports := slices.DeleteFunc(slices.Clone(c.Interfaces), func(it *aoscx.Interface) bool {
		return !it.Trust.Given() && len(it.PFC) == 0 && !it.Threshold.Given()
	})
	if len(ports) == 0 && (c.Trust.Given() || c.Threshold.Given() || c.QueueProfile.Given()) {
		ports = []*aoscx.Interface{{Name: aoscxAll}}
	}
	cut := false
	skip := func(v Value, text string) {
		v.Text = text
		if !slices.ContainsFunc(db.Skipped, func(s Value) bool { return s.Text == v.Text }) {
			db.Skipped = append(db.Skipped, v)
		}
	}
	queues, qname := c.Queues[c.QueueProfile.Text], "queue-profile factory-default"
	if c.QueueProfile.Given() {
		qname = "queue-profile " + c.QueueProfile.Text
		if queues == nil {
			skip(c.QueueProfile, qname+" (not in the input)")
		}
	}
	applied := map[string]bool{c.Threshold.Text: true}
	for _, it := range ports {
		row := map[string]Value{}
		trust := it.Trust
		if !trust.Given() {
			trust = c.Trust
		}
		switch trust.Text {
		case "dscp":
			name := "qos dscp-map"
			if db.table("DSCP_TO_TC_MAP")[name] == nil {
				m := map[string]Value{}
				for d := range 64 {
					v, ok := c.DSCP[d]
					if !ok {
						v = Value{Text: strconv.Itoa(aoscx.DefaultLocalPriority(d >> 3))}
					}
					m[strconv.Itoa(d)] = v
				}
				db.table("DSCP_TO_TC_MAP")[name] = m
			}
			row["dscp_to_tc_map"] = Value{Text: name, Line: trust.Line, Col: trust.Col}
		case "none", "":
			at := trust
			if !at.Given() {
				at = it.At
			}
			skip(at, "qos trust none (markings ignored: the class RoCE takes is not judged)")
		}
		pfc := it.At
		pfc.Text = ""
		if ps := slices.Sorted(maps.Keys(it.PFC)); len(ps) > 0 {
			pfc = it.PFC[ps[0]]
			pfc.Text = textout.Ints(ps)
		}
		row["pfc_enable"] = pfc
		if queues != nil || !c.QueueProfile.Given() {
			m := map[string]Value{}
			for lp := range 8 {
				v, ok := queues[lp]
				if !ok {
					v = Value{Text: strconv.Itoa(lp)}
				}
				m[strconv.Itoa(lp)] = v
			}
			db.table("TC_TO_QUEUE_MAP")[qname] = m
			row["tc_to_queue_map"] = Value{Text: qname, Line: c.QueueProfile.Line, Col: c.QueueProfile.Col}
		}
		db.table("PORT_QOS_MAP")[it.Name] = row
		th := it.Threshold
		if !th.Given() {
			th = c.Threshold
		}
		applied[th.Text] = true
		if prof, ok := c.Thresholds[th.Text]; ok {
			for _, q := range slices.Sorted(maps.Keys(prof)) {
				e := prof[q]
				db.nosRED(it.Name, q, fmt.Sprintf("threshold-profile %s queue %d action ecn", th.Text, q), &swcfg.RED{At: e.At, Min: e.Min, Max: e.Max})
			}
		} else if th.Given() {
			cut = true
			skip(th, "threshold-profile "+th.Text+" (not in the input)")
		}
		db.nosPort(it.Name, Value{}, it.MTU)
	}
	for _, it := range c.Interfaces {
		applied[it.Threshold.Text] = true
	}
	for _, name := range slices.Sorted(maps.Keys(c.Thresholds)) {
		for _, q := range slices.Sorted(maps.Keys(c.Thresholds[name])) {
			if !applied[name] {
				skip(c.Thresholds[name][q].At, fmt.Sprintf("threshold-profile %s queue %d action ecn (applied neither globally nor by any interface: marks nothing)", name, q))
			}
		}
	}
	db.nosECN(cut, ecnWords...)
	db.nosPFC(cut, "flow-control", "lossless")
	db.nosDone(c.NotJudged)
	return db
}
