package sonic

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"rocelab/internal/pos"
	"rocelab/internal/swcfg"
)

// ftosDot1pQueue is FTOS's default 802.1p priority to queue map with DCB
// on, as `show qos dot1p-queue-mapping` prints it (Dot1p Priority 0-7,
// Queue 0 0 0 1 2 3 3 3): the Dell Networking OS 9 guides' "Data Center
// Bridging: Default Configuration" (S4810, S4820T and S5000 run four data
// queues, 0-3; the S4048-ON and Z9100-ON guides print the same map).
// RoCE's priority 3 leaves by queue 1.
var ftosDot1pQueue = [8]int{0, 0, 0, 1, 2, 3, 3, 3}

// ftosDot1pMapName names the map as the rows write it.
const ftosDot1pMapName = "dot1p-queue-mapping (DCB default)"

// ftosOutQoS is FTOS's egress QoS: `wred-profile NAME` blocks (`threshold
// min KB max KB [max-drop-rate P]`), `qos-policy-output NAME` blocks
// (`wred green PROFILE`, `wred ecn`), and `policy-map-output NAME` blocks
// (`service-queue N qos-policy NAME`), which an interface applies with
// `service-policy output NAME`.
type ftosOutQoS struct {
	wred   map[string]*swcfg.RED
	qos    map[string]*ftosQoSOut
	pmap   map[string]map[int]Value // service-queue → qos-policy-output
	remap  Value                    // `service-class dot1p-mapping`: the queue map is not the default
	block  string                   // the block a line belongs to: "wred", "qos" or "pmap"
	name   string
	others []Value // settings of the blocks no rule weighs
	used   map[string]bool
}

// ftosQoSOut is a qos-policy-output's green WRED profile and whether it
// marks (`wred ecn`) instead of dropping.
type ftosQoSOut struct {
	green, ecn Value
}

func newFTOSOutQoS() *ftosOutQoS {
	return &ftosOutQoS{wred: map[string]*swcfg.RED{}, qos: map[string]*ftosQoSOut{}, pmap: map[string]map[int]Value{}, used: map[string]bool{}}
}

// line reads one line of the egress QoS blocks; handled is false for a
// line that is none of theirs. A block ends where ParseFTOS ends one
// (end()).
func (o *ftosOutQoS) line(file string, w []Value) (handled bool, err error) {
	t := func(i int) string {
		if i < len(w) {
			return w[i].Text
		}
		return ""
	}
	switch {
	case t(0) == "service-class" && t(1) == "dot1p-mapping":
		o.remap = w[0]
		o.remap.Text = "service-class dot1p-mapping (the 802.1p-to-queue map is not the default: queue ECN not judged)"
		return true, nil
	case len(w) == 2 && (t(0) == "wred-profile" || t(0) == "qos-policy-output" || t(0) == "policy-map-output") ||
		len(w) == 3 && t(0) == "qos-policy-output" && t(2) == "ets":
		// `qos-policy-output NAME ets` is a DCB output policy's ETS share.
		o.block, o.name = map[string]string{"wred-profile": "wred", "qos-policy-output": "qos", "policy-map-output": "pmap"}[t(0)], t(1)
		switch o.block {
		case "wred":
			at := w[1]
			at.Text = "drop"
			o.wred[t(1)] = &swcfg.RED{At: at}
		case "qos":
			o.qos[t(1)] = &ftosQoSOut{}
		default:
			o.pmap[t(1)] = map[int]Value{}
		}
		return true, nil
	case o.block == "wred" && t(0) == "threshold":
		// threshold min KB max KB [max-drop-rate P]
		if len(w) != 5 && len(w) != 7 || t(1) != "min" || t(3) != "max" || len(w) == 7 && t(5) != "max-drop-rate" {
			return true, &pos.Error{File: file, Line: w[0].Line, Col: w[0].Col, Msg: "expected threshold min KB max KB [max-drop-rate P]"}
		}
		r := o.wred[o.name]
		for _, p := range []struct {
			v   Value
			dst *Value
		}{{w[2], &r.Min}, {w[4], &r.Max}} {
			n, err := swcfg.Num(file, p.v, 12000000, "a threshold in KB")
			if err != nil {
				return true, err
			}
			*p.dst = p.v
			p.dst.Text = strconv.Itoa(n * 1024)
		}
		if len(w) == 7 {
			if _, err := swcfg.Num(file, w[6], 100, "a drop rate of 0-100 %"); err != nil {
				return true, err
			}
			r.Prob = w[6]
		}
		return true, nil
	case o.block == "qos" && t(0) == "wred" && (t(1) == "green" || t(1) == "yellow") && len(w) == 3:
		if t(1) == "green" {
			o.qos[o.name].green = w[2]
		}
		return true, nil
	case o.block == "qos" && t(0) == "wred" && t(1) == "ecn":
		o.qos[o.name].ecn = w[1]
		return true, nil
	case o.block == "qos" && (t(0) == "bandwidth-percentage" || t(0) == "bandwidth-weight" || t(0) == "rate" || t(0) == "wred" || t(0) == "scheduler"):
		o.others = swcfg.AddNotJudged(o.others, append([]Value{{Text: "qos-policy-output", Line: w[0].Line, Col: w[0].Col}}, w...), 2)
		return true, nil
	case o.block == "pmap" && t(0) == "service-queue" && t(2) == "qos-policy" && len(w) == 4:
		q, err := swcfg.Num(file, w[1], 7, "a queue 0-7")
		if err != nil {
			return true, err
		}
		o.pmap[o.name][q] = w[3]
		return true, nil
	}
	return false, nil
}

// end closes the block a line belonged to.
func (o *ftosOutQoS) end() { o.block, o.name = "", "" }

// writePort writes the egress QoS a port takes from its `service-policy
// output` (pm): the default 802.1p-to-queue map, and on each queue whose
// qos-policy-output sets a green WRED profile the input defines, that
// profile (marking with `wred ecn`, dropping without). A predefined
// profile (wred_teng_g, …: their thresholds differ by platform) or one the
// input does not hold is returned as not judged.
func (o *ftosOutQoS) writePort(db *ConfigDB, port string, pm Value, row map[string]Value) []Value {
	if o.remap.Given() {
		return []Value{o.remap}
	}
	row["tc_to_queue_map"] = Value{Text: ftosDot1pMapName, Line: row["pfc_enable"].Line, Col: row["pfc_enable"].Col}
	if db.table("TC_TO_QUEUE_MAP")[ftosDot1pMapName] == nil {
		m := map[string]Value{}
		for p, q := range ftosDot1pQueue {
			m[strconv.Itoa(p)] = Value{Text: strconv.Itoa(q)}
		}
		db.table("TC_TO_QUEUE_MAP")[ftosDot1pMapName] = m
	}
	var skipped []Value
	for q := range 8 {
		qp, ok := o.pmap[pm.Text][q]
		if !ok {
			continue
		}
		pol := o.qos[qp.Text]
		if pol == nil || !pol.green.Given() {
			continue
		}
		r := o.wred[pol.green.Text]
		if r == nil || !r.Min.Given() {
			v := pol.green
			v.Text = fmt.Sprintf("wred green %s (a predefined profile or one not in the input)", pol.green.Text)
			skipped = append(skipped, v)
			continue
		}
		o.used[pol.green.Text] = true
		red := *r
		red.At = pol.green
		red.At.Text = "drop"
		if pol.ecn.Given() {
			red.At.Text = "ecn"
		}
		db.nosRED(port, q, "wred-profile "+pol.green.Text, &red)
	}
	return skipped
}

// unused names the wred-profiles no applied queue takes: they mark
// nothing. With the queue map moved no queue was judged, and none is
// named.
func (o *ftosOutQoS) unused() []Value {
	if o.remap.Given() {
		return nil
	}
	var out []Value
	for _, name := range slices.Sorted(maps.Keys(o.wred)) {
		if r := o.wred[name]; !o.used[name] {
			v := r.At
			v.Text = "wred-profile " + name + " (on no applied queue: marks nothing)"
			out = append(out, v)
		}
	}
	return out
}

// An ftosRef is a block a line names: a "policy-map-output" an
// interface's `service-policy output` applies, or a "qos-policy-output" a
// `service-queue` line puts on a queue; name is the name where it is
// written.
type ftosRef struct {
	kind string
	name Value
}

// queueRefs are the qos-policy-outputs the policy maps' service-queue
// lines name.
func (o *ftosOutQoS) queueRefs() []ftosRef {
	var out []ftosRef
	for _, pm := range slices.Sorted(maps.Keys(o.pmap)) {
		for _, q := range slices.Sorted(maps.Keys(o.pmap[pm])) {
			out = append(out, ftosRef{kind: "qos-policy-output", name: o.pmap[pm][q]})
		}
	}
	return out
}

// defines reports whether the input holds the block r names.
func (o *ftosOutQoS) defines(r ftosRef) bool {
	if r.kind == "policy-map-output" {
		_, ok := o.pmap[r.name.Text]
		return ok
	}
	_, ok := o.qos[r.name.Text]
	return ok
}
