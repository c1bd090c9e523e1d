package sonic

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/pos"
	"rocelab/internal/swcfg"
	"rocelab/internal/textout"
)

// VendorFTOS marks a ConfigDB read from a Dell Networking OS 9 (FTOS)
// configuration: S4810, S4048, S6000, Z9100.
const VendorFTOS = "dell-ftos"

// IsFTOS reports whether text holds FTOS's data center bridging: a
// `dcb-map NAME` block with its `priority-pgid` or `priority-group … pfc`
// lines, a `dcb-input NAME` PFC profile and its `pfc priority` lines, or
// an interface's `dcb-policy input` or indented `dcb-map`. OS10, its
// successor, has none.
func IsFTOS(data []byte) bool {
	var head, body bool
	for _, raw := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(raw)
		if strings.HasPrefix(t, "dcb-policy input ") || strings.HasPrefix(t, "dcb-map ") && (raw[0] == ' ' || raw[0] == '\t') {
			// An interface applies a DCB policy: FTOS's alone.
			return true
		}
		head = head || strings.HasPrefix(t, "dcb-map ") || strings.HasPrefix(t, "dcb-input ")
		body = body || strings.HasPrefix(t, "priority-pgid ") || strings.HasPrefix(t, "pfc priority ") ||
			(strings.HasPrefix(t, "priority-group ") || strings.HasPrefix(t, "priority group ")) && strings.Contains(t, " pfc ")
	}
	return head && body
}

// ftosPolicy is a `dcb-map` (its priority groups with PFC and each
// priority's group) or a `dcb-input` (its PFC priorities).
type ftosPolicy struct {
	at      Value
	pgPFC   map[int]Value // priority group → its `pfc on|off`
	pgid    []Value       // priority-pgid: eight groups, by priority
	pfcPrio Value         // dcb-input: `pfc priority 3,4`
	input   bool
	off     Value // `no pfc mode on`: no priority paused
}

// lossless are the priorities the policy pauses, and the line saying so.
func (p *ftosPolicy) lossless() ([]int, Value) {
	if p.off.Given() {
		return nil, p.off
	}
	if p.input {
		ps, _ := swcfg.IDs(p.pfcPrio.Text, 7)
		return ps, p.pfcPrio
	}
	var out []int
	for prio, g := range p.pgid {
		n, _ := strconv.Atoi(g.Text)
		if v, ok := p.pgPFC[n]; ok && v.Text == "on" {
			out = append(out, prio)
		}
	}
	if len(out) == 0 {
		return nil, p.at
	}
	return out, p.pgid[0]
}

// ftosPort is an interface (or range) and the DCB policy it applies.
type ftosPort struct {
	name, mtu Value
	policy    Value
	out       Value // service-policy output
}

// ParseFTOS reads an FTOS configuration (`show running-config`, or the
// DCB blocks a guide prints flat with `exit`) into the CONFIG_DB rows it
// stands for. FTOS classifies a DCB port's frames by their 802.1p
// priority, so there is no DSCP map: a port's class is the frame's
// priority, judged against the NICs'. pfc_enable is each port's policy's
// paused priorities: for a `dcb-map`, the priorities `priority-pgid`
// puts in a `priority-group N … pfc on`; for a `dcb-input` (FTOS 9.0-9.3,
// applied by `dcb-policy input`), its `pfc priority` list. A port's
// `service-policy output` puts the WRED profiles of its queues on them
// (ftosOutQoS); ETS bandwidth is not judged, and a configuration with no
// `wred` or `ecn` line, and no output policy it applies but does not
// hold, writes no ECN (WritesNoECN). A
// cut without interfaces is one port named after its only policy, taken
// as applied and said so. A value FTOS would refuse is an error at its
// place.
func ParseFTOS(name string, data []byte) (*ConfigDB, error) {
	db := newDB(name, "")
	db.lines, db.Vendor = strings.Split(string(data), "\n"), VendorFTOS
	flat := !slices.ContainsFunc(db.lines, func(l string) bool {
		return strings.TrimSpace(l) != "" && (l[0] == ' ' || l[0] == '\t')
	})
	policies := map[string]*ftosPolicy{}
	var order []string
	var ports []*ftosPort
	var cur *ftosPolicy
	var port *ftosPort
	var notJudged []Value
	// The output QoS the ports apply (`service-policy output`, a policy's
	// `service-queue … qos-policy`) and the blocks the input defines: one
	// applied but not defined is a cut, whose WRED and ECN are not known.
	var outRefs []ftosRef
	out := newFTOSOutQoS()
	err := swcfg.EachLine(db.lines, "!", func(w []Value, indent int) error {
		if len(w) > 2 && w[0].Text == "priority" && w[1].Text == "group" {
			// Microsoft's guide prints `priority group 0 … pfc on`.
			w = append([]Value{{Text: "priority-group", Line: w[0].Line, Col: w[0].Col}}, w[2:]...)
		}
		t := func(i int) string {
			if i < len(w) {
				return w[i].Text
			}
			return ""
		}
		if indent == 0 && !flat || t(0) == "exit" || t(0) == "end" || t(0) == "configure" {
			cur, port = nil, nil
			out.end()
		}
		if t(0) == "interface" {
			out.end()
		} else if handled, err := out.line(name, w); handled || err != nil {
			if t(0) != "service-class" {
				cur, port = nil, nil
			}
			return err
		}
		switch {
		case t(0) == "interface" && len(w) >= 2:
			v := w[1]
			v.Text = strings.Join(swcfg.Texts(w[1:]), " ")
			port = &ftosPort{name: v}
			ports = append(ports, port)
			cur = nil
		case port != nil && (t(0) == "dcb-map" || t(0) == "dcb-policy" && t(1) == "input") && len(w) >= 2:
			port.policy = w[len(w)-1]
		case port != nil && t(0) == "mtu" && len(w) == 2:
			if _, err := swcfg.Num(name, w[1], 65535, "an MTU"); err != nil {
				return err
			}
			port.mtu = w[1]
		case (t(0) == "dcb-map" || t(0) == "dcb-input") && len(w) == 2:
			cur = &ftosPolicy{at: w[0], pgPFC: map[int]Value{}, input: t(0) == "dcb-input"}
			cur.at.Text = t(0) + " " + t(1)
			if _, ok := policies[t(1)]; !ok {
				order = append(order, t(1))
			}
			policies[t(1)] = cur
			port = nil
		case cur != nil && t(0) == "priority-pgid":
			if len(w) != 9 {
				return &pos.Error{File: name, Line: w[0].Line, Col: w[0].Col, Msg: fmt.Sprintf("priority-pgid with %d groups: expected eight, one per priority 0-7", len(w)-1)}
			}
			for _, g := range w[1:] {
				if _, err := swcfg.Num(name, g, 15, "a priority group 0-7 (15: strict priority)"); err != nil {
					return err
				}
			}
			cur.pgid = w[1:]
		case cur != nil && t(0) == "priority-group" && len(w) >= 4 && t(len(w)-2) == "pfc":
			n, err := swcfg.Num(name, w[1], 7, "a priority group 0-7")
			if err != nil {
				return err
			}
			if v := w[len(w)-1]; v.Text != "on" && v.Text != "off" {
				return &pos.Error{File: name, Line: v.Line, Col: v.Col, Msg: fmt.Sprintf("%q: expected pfc on or off", v.Text)}
			}
			cur.pgPFC[n] = w[len(w)-1]
			if t(2) == "bandwidth" {
				notJudged = swcfg.AddNotJudged(notJudged, []Value{{Text: "priority-group bandwidth (ETS)", Line: w[2].Line, Col: w[2].Col}}, 1)
			}
		case cur != nil && t(0) == "no" && t(1) == "pfc" && t(2) == "mode":
			cur.off = w[0]
		case cur != nil && cur.input && t(0) == "pfc" && t(1) == "priority" && len(w) == 3:
			if _, err := swcfg.List(name, w[2], 7, "priorities 0-7"); err != nil {
				return err
			}
			cur.pfcPrio = w[2]
		case t(0) == "qos-policy-input" || t(0) == "policy-map-input":
			notJudged = swcfg.AddNotJudged(notJudged, w, 1)
		case port != nil && t(0) == "service-policy" && t(1) == "output" && len(w) == 3:
			port.out = w[2]
			outRefs = append(outRefs, ftosRef{kind: "policy-map-output", name: w[2]})
		case t(0) == "service-queue" && t(2) == "qos-policy" && len(w) == 4:
			outRefs = append(outRefs, ftosRef{kind: "qos-policy-output", name: w[3]})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var applied []*ftosPort
	for _, p := range ports {
		if p.policy.Given() {
			applied = append(applied, p)
		}
	}
	if len(applied) == 0 && len(ports) == 0 && len(order) == 1 {
		// A cut of the DCB blocks: its only policy, taken as applied.
		pol := policies[order[0]]
		applied = []*ftosPort{{name: Value{Text: pol.at.Text}, policy: Value{Text: order[0]}}}
		notJudged = append(notJudged, Value{Text: pol.at.Text + " (no interface in the input: taken as applied)", Line: pol.at.Line, Col: pol.at.Col})
	}
	for _, p := range applied {
		pol, ok := policies[p.policy.Text]
		if !ok {
			v := p.policy
			v.Text = "dcb policy " + v.Text + " (not in the input)"
			notJudged = swcfg.AddNotJudged(notJudged, []Value{v}, 1)
			continue
		}
		if !pol.input && len(pol.pgid) == 0 && !pol.off.Given() {
			return nil, &pos.Error{File: name, Line: pol.at.Line, Col: pol.at.Col, Msg: pol.at.Text + " has no priority-pgid line: expected the priority group of each priority 0-7"}
		}
		ps, at := pol.lossless()
		at.Text = textout.Ints(ps)
		if len(ps) == 0 {
			at = p.name
			at.Text = ""
		}
		row := map[string]Value{"pfc_enable": at}
		db.table("PORT_QOS_MAP")[p.name.Text] = row
		if _, ok := out.pmap[p.out.Text]; ok {
			for _, v := range out.writePort(db, p.name.Text, p.out, row) {
				notJudged = swcfg.AddNotJudged(notJudged, []Value{v}, 1)
			}
		}
		db.nosPort(p.name.Text, ftosSpeed(p.name), p.mtu)
	}
	cut := false
	notJudged = append(notJudged, out.others...)
	notJudged = append(notJudged, out.unused()...)
	outRefs = append(outRefs, out.queueRefs()...)
	for _, r := range outRefs {
		if !out.defines(r) {
			cut = true
			v := r.name
			v.Text = r.kind + " " + r.name.Text + " (not in the input)"
			notJudged = swcfg.AddNotJudged(notJudged, []Value{v}, 1)
		}
	}
	db.nosECN(cut, ecnWords...)
	db.nosPFC(cut, "dcb-map", "dcb-input", "dcb-policy")
	db.nosDone(notJudged)
	return db, nil
}

// ftosTypes are FTOS's interface types and the speed in Mb/s each names:
// FTOS names a port by its speed (Dell Networking OS 9 command
// reference, `interface`: gigabitethernet, tengigabitethernet,
// twentyfivegige, fortygige, fiftygige, hundredgige), and a range or a
// command may give any unique prefix of it (`range ten 0/0-31`, `te 0/1`).
var ftosTypes = []struct {
	name string
	mbps string
}{
	{"gigabitethernet", "1000"}, {"tengigabitethernet", "10000"}, {"twentyfivegige", "25000"},
	{"fortygige", "40000"}, {"fiftygige", "50000"}, {"hundredgige", "100000"},
}

// ftosSpeed returns the speed an interface's name (`TenGigabitEthernet
// 0/1`, `range ten 0/0-31`) gives its port, at the name, or nothing for
// a port-channel, a VLAN or a type it does not name.
func ftosSpeed(name Value) Value {
	w := strings.Fields(strings.ToLower(name.Text))
	if len(w) > 1 && w[0] == "range" {
		w = w[1:]
	}
	if len(w) == 0 || len(w[0]) < 2 {
		return Value{}
	}
	for _, t := range ftosTypes {
		if strings.HasPrefix(t.name, w[0]) {
			v := name
			v.Text = t.mbps
			return v
		}
	}
	return Value{}
}
