// Package nxos reads the QoS a Cisco NX-OS configuration (`show
// running-config`, or its QoS blocks) sets for RoCE on a Nexus 9000: the
// `class-map type qos` DSCP matches and the `policy-map type qos` that set
// a qos-group from them, the network-qos classes that pause (`pause
// pfc-cos N`, or `pause no-drop` as the Nexus 3000 and 5000 write it), the queuing classes' `random-detect … ecn`, the policies
// `system qos` and each interface apply, and each interface's
// `priority-flow-control mode`, MTU and speed. Every value keeps its line
// and column; sonic.FromNXOS writes it as CONFIG_DB rows for lint's rules.
package nxos

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/pos"
	"rocelab/internal/swcfg"
)

// Value is a setting with where it is written.
type Value = swcfg.Value

// A QoSClass is a class of a `policy-map type qos`: the class-map it
// names and the qos-group it sets.
type QoSClass struct {
	Name  string
	Group Value
}

// Queue is a queuing policy class's `random-detect` line: At.Text "ecn"
// with the ecn keyword, "drop" without; thresholds in bytes; Prob the
// drop-probability in percent, if written.
type Queue struct {
	At, Min, Max, Prob Value
}

// Interface is an `interface` block.
type Interface struct {
	Name string
	At   Value
	// PFC is `priority-flow-control mode on|off|auto` (auto, DCBX's
	// choice, when not written); QoSInput the `service-policy type qos
	// input` policy.
	PFC, QoSInput, MTU, Speed Value
	// Channel is the `channel-group N` number: the interface is a member
	// of port-channelN.
	Channel Value
	// ChannelMissing is set when port-channelN is not in the input (a
	// cut of the config): the member takes that port channel's
	// classification, which the input does not show.
	ChannelMissing bool
}

// Config is what an NX-OS configuration says of QoS.
type Config struct {
	File  string
	Lines []string
	// ClassDSCP are the DSCPs each `class-map type qos` matches; Groups
	// the qos-group each `class-map type network-qos` or `type queuing`
	// matches.
	ClassDSCP map[string]map[int]Value
	// ClassCoS are the CoS values each `class-map type qos` matches
	// (`match cos 3`: classification by the frame's 802.1p priority).
	ClassCoS map[string]map[int]Value
	Groups   map[string]int
	// QoS are the `policy-map type qos` policies' classes in order.
	QoS map[string][]QoSClass
	// Pause are, per network-qos policy, the qos-groups whose class has
	// `pause pfc-cos N` (the value is N at its place).
	Pause map[string]map[int]Value
	// PauseUnknown are, per network-qos policy, the classes with `pause
	// pfc-cos` whose qos-group the input does not give (a class-map type
	// network-qos it names but does not define), at their pause lines:
	// which qos-groups the policy pauses is then not known.
	PauseUnknown map[string][]Value
	// Queuing are, per queuing policy, each qos-group's RED line.
	Queuing map[string]map[int]*Queue
	// System are the policies `system qos` applies: "network-qos",
	// "queuing", "qos".
	System map[string]Value
	// Policies are the policy-maps the input defines, by name.
	Policies   map[string]bool
	Interfaces []*Interface
	NotJudged  []Value
	// Excerpt is the `!Command: show running-config interface …` header
	// of a part of the configuration, or the first interface of interface
	// blocks given alone (cutOnly): what it does not print (`system qos`,
	// the policies) is not known. Line 0: the whole configuration.
	Excerpt Value
}

// IsConfig reports whether text looks like an NX-OS QoS configuration: a
// `policy-map type network-qos` or `system qos` block at the left margin;
// the `!Command: show running-config …` header NX-OS prints above a part
// of it with an interface's `priority-flow-control mode` or
// `service-policy type qos` line; or interface blocks alone with such a
// line and a command only NX-OS takes (nxosOnly: `priority-flow-control
// mode on send-tlv`, `spanning-tree port type edge trunk`), not one Dell
// OS10 or Arista EOS print as well (`spanning-tree port type edge`); or
// a whole running-config without QoS, by the header NX-OS prints above it
// (`!Command: show running-config` with nothing after it) and its
// `version 10.2(3)` line (EOS writes `! Command:` with a space).
func IsConfig(data []byte) bool {
	if _, _, fc := MDS(data); fc {
		return false
	}
	header, qos, block, own, whole, version := false, false, false, false, false, false
	for _, raw := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(raw, "policy-map type network-qos ") || strings.TrimRight(raw, " \t\r") == "system qos" {
			return true
		}
		t := strings.TrimSpace(raw)
		header = header || strings.HasPrefix(t, "!Command: show running-config")
		whole = whole || t == "!Command: show running-config"
		version = version || strings.HasPrefix(raw, "version ") && strings.Contains(raw, "(")
		if whole && version {
			return true
		}
		qos = qos || strings.HasPrefix(t, "priority-flow-control mode ") || strings.HasPrefix(t, "service-policy type qos input ")
		block = block || strings.HasPrefix(raw, "interface ")
		own = own || slices.ContainsFunc(nxosOnly, func(p string) bool { return strings.HasPrefix(t, p) })
	}
	return header && qos || block && qos && own
}

// MDS returns the first line (1-based) of a Cisco MDS Fibre Channel
// switch's configuration, which prints NX-OS's `!Command: show
// running-config` header: its VSANs, fc interfaces, zones and FC domain,
// and no Ethernet interface (a Nexus with unified FC ports has them).
func MDS(data []byte) (int, string, bool) {
	line, text := 0, ""
	for i, raw := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(raw)
		if strings.HasPrefix(t, "interface Ethernet") {
			return 0, "", false
		}
		if line == 0 && (t == "vsan database" || strings.HasPrefix(t, "interface fc") || strings.HasPrefix(t, "zoneset ") || strings.HasPrefix(t, "fcdomain ")) {
			line, text = i+1, t
		}
	}
	return line, text, line > 0
}

// nxosOnly are interface commands NX-OS takes and Arista EOS and Dell
// OS10, whose interface syntax is alike, do not: with an interface's PFC
// or qos policy line they mark interface blocks cut from an NX-OS
// configuration (Microsoft's Azure Local TOR references print them so).
// `spanning-tree port type edge` without `trunk` is not one: OS10 prints
// it beside `priority-flow-control mode on` (Azure Stack's S5248F TOR).
var nxosOnly = []string{"priority-flow-control mode on send-tlv", "priority-flow-control watch-dog-interval ", "spanning-tree port type edge trunk"}

// cutOnly returns the first interface line of a configuration that holds
// interface blocks and neither `system qos`, a policy-map, nor the lines
// a whole running-config opens with (`version`, `hostname`, `feature`): a
// cut of the interfaces, whose QoS policies and system classes are not
// known.
func cutOnly(c *Config) (Value, bool) {
	if len(c.System) > 0 || len(c.Policies) > 0 || len(c.Interfaces) == 0 {
		return Value{}, false
	}
	for _, l := range c.Lines {
		if strings.HasPrefix(l, "version ") || strings.HasPrefix(l, "hostname ") || strings.HasPrefix(l, "feature ") {
			return Value{}, false
		}
	}
	at := c.Interfaces[0].At
	at.Text = "interface blocks alone, without system qos or a policy-map"
	return at, true
}

// Group reads the qos-group of one of NX-OS's system class names
// (c-8q-nq3, c-nq-default, c-out-8q-q3, c-out-q-default) or of a
// class-map of the config.
func (c *Config) Group(class string) (int, bool) {
	if g, ok := c.Groups[class]; ok {
		return g, true
	}
	for _, p := range []string{"c-8q-nq", "c-nq", "c-out-8q-q", "c-out-q"} {
		rest, ok := strings.CutPrefix(class, p)
		if !ok {
			continue
		}
		if rest == "-default" {
			return 0, true
		}
		if n, err := strconv.Atoi(rest); err == nil && n >= 0 && n <= 7 {
			return n, true
		}
	}
	return 0, false
}

// queuingName reports whether class is one of NX-OS's system queuing
// class names (c-out-8q-q3, c-out-q-default, c-in-q1), which only a
// queuing policy can name.
func queuingName(class string) bool {
	for _, p := range []string{"c-out-8q-q", "c-out-q", "c-in-8q-q", "c-in-q"} {
		if strings.HasPrefix(class, p) {
			return true
		}
	}
	return false
}

// Parse reads an NX-OS configuration. A QoS command it knows with a value
// NX-OS would not accept is an error at its place.
func Parse(name string, data []byte) (*Config, error) {
	c := &Config{File: name, Lines: strings.Split(string(data), "\n"), ClassDSCP: map[string]map[int]Value{}, ClassCoS: map[string]map[int]Value{}, Groups: map[string]int{},
		QoS: map[string][]QoSClass{}, Pause: map[string]map[int]Value{}, PauseUnknown: map[string][]Value{}, Queuing: map[string]map[int]*Queue{}, System: map[string]Value{}, Policies: map[string]bool{}}
	for i, l := range c.Lines {
		if v, ok := swcfg.CommandHeader(l, i+1); ok && !c.Excerpt.Given() {
			c.Excerpt = v
		}
	}
	p := &parser{c: c, nqOther: map[string]Value{}}
	if err := swcfg.EachLine(c.Lines, "!#", p.line); err != nil {
		return nil, err
	}
	// A class-map may be defined after the policy that names it: the
	// pauses are placed once the whole input is read.
	for _, q := range p.pauses {
		if _, own := c.Groups[q.class]; !own && queuingName(q.class) {
			// NX-OS refuses `class type network-qos c-out-8q-q3`: the
			// name is an egress queuing class's, and no network-qos
			// class of that name exists, so the pause is not configured.
			at := q.at
			at.Text = fmt.Sprintf("class type network-qos %s (a queuing class's name, not a network-qos class: NX-OS refuses the class, and its pause pfc-cos %s pauses nothing; the network-qos class of qos-group N is c-8q-nqN)", q.class, q.cos.Text)
			c.NotJudged = append(c.NotJudged, at)
			continue
		}
		g, ok := c.Group(q.class)
		if !ok {
			at := q.at
			at.Text = fmt.Sprintf("class type network-qos %s (no class-map type network-qos %s in the input gives its qos-group)", q.class, q.class)
			if m, ok := p.nqOther[q.class]; ok {
				at.Text = fmt.Sprintf("class type network-qos %s (its class-map matches `%s` at line %d, not a qos-group (NX-OS's network-qos class-maps match the qos-groups a type qos policy sets), so which traffic it pauses is not known)", q.class, m.Text, m.Line)
			}
			c.PauseUnknown[q.policy] = append(c.PauseUnknown[q.policy], at)
			continue
		}
		if c.Pause[q.policy] == nil {
			c.Pause[q.policy] = map[int]Value{}
		}
		c.Pause[q.policy][g] = q.cos
	}
	if at, ok := cutOnly(c); ok && !c.Excerpt.Given() {
		c.Excerpt = at
	}
	inheritChannel(c)
	return c, nil
}

// inheritChannel gives a port channel's members its classification
// policy, none when it has none: "A QoS policy attached to a port channel
// takes effect even when policies are attached to member ports", and a
// physical port's own policy takes effect only when the port is no member
// (Cisco Nexus 9000 NX-OS Quality of Service Configuration Guide). A
// member's own `service-policy type qos input` is named as not judged;
// a member whose port channel the input does not hold is marked
// ChannelMissing and named too. Microsoft's Azure Local switch generator
// writes its P2P and MLAG links so: `service-policy type qos input` on
// port-channel50, `channel-group 50` alone on Ethernet1/41-42.
func inheritChannel(c *Config) {
	swcfg.Members(c.Interfaces, func(it *Interface) string { return it.Name }, func(it *Interface) Value { return it.Channel },
		"port-channel", "the member takes its service-policy type qos input, which is not known",
		&c.NotJudged, func(it *Interface) { it.ChannelMissing = true },
		func(it, pc *Interface, pcName string) {
			if it.QoSInput.Given() && it.QoSInput.Text != pc.QoSInput.Text {
				at := it.QoSInput
				at.Text = fmt.Sprintf("service-policy type qos input %s on %s (a member of %s: NX-OS applies the port channel's policy, not the member's", it.QoSInput.Text, it.Name, pcName)
				if !pc.QoSInput.Given() {
					at.Text += ", and " + pcName + " has none"
				}
				at.Text += ")"
				c.NotJudged = append(c.NotJudged, at)
			}
			it.QoSInput = pc.QoSInput
		})
}

// pause is a network-qos class's `pause pfc-cos` line, placed at the end.
type pause struct {
	policy, class string
	at, cos       Value
}

// parser follows blocks by indent: head (the line at the left margin),
// class (a policy's `class` line) and the lines under them.
type parser struct {
	c           *Config
	head        []Value
	iface       []*Interface
	class       string
	classIndent int
	pauses      []pause
	// nqOther is, by network-qos class-map, a match line that names no
	// qos-group (`match cos 3`): such a class-map gives no qos-group.
	nqOther map[string]Value
}

func (p *parser) line(w []Value, indent int) error {
	// `class` is no global command: at the left margin under a
	// policy-map (typed, or pasted without its indent, as Microsoft's
	// SDN guide prints QOS_MARKING) it is still the policy's class.
	typedClass := w[0].Text == "class" && len(p.head) >= 2 && p.head[0].Text == "policy-map"
	if indent == 0 && !typedClass {
		p.head, p.iface, p.class, p.classIndent = w, nil, "", 0
		if len(w) == 4 && w[0].Text == "policy-map" && w[1].Text == "type" {
			p.c.Policies[w[3].Text] = true
		}
		if len(w) >= 2 && w[0].Text == "interface" {
			for _, n := range swcfg.ExpandNames(strings.Join(swcfg.Texts(w[1:]), "")) {
				if n = swcfg.Expand(n, "Ethernet"); !strings.HasPrefix(n, "Ethernet") {
					n = swcfg.Expand(n, "port-channel")
				}
				if !strings.HasPrefix(n, "Ethernet") && !strings.HasPrefix(n, "port-channel") {
					continue
				}
				p.iface = append(p.iface, swcfg.Entered(&p.c.Interfaces, n, func(it *Interface) string { return it.Name }, func() *Interface {
					return &Interface{Name: n, At: w[0]}
				}))
			}
		}
		return nil
	}
	if len(p.head) < 2 {
		return nil
	}
	head := swcfg.Texts(p.head)
	kind := ""
	if len(head) >= 4 && (head[0] == "policy-map" || head[0] == "class-map") && head[1] == "type" {
		kind = head[0] + " " + head[2]
	}
	name := head[len(head)-1]
	if w[0].Text == "class" && len(w) >= 2 && kind != "" {
		p.class, p.classIndent = w[len(w)-1].Text, indent
		if kind == "policy-map qos" {
			p.c.QoS[name] = append(p.c.QoS[name], QoSClass{Name: p.class})
		}
		return nil
	}
	if p.class != "" && indent <= p.classIndent {
		p.class = ""
	}
	text := strings.Join(swcfg.Texts(w), " ")
	switch {
	case kind == "class-map qos" && len(w) >= 3 && w[0].Text == "match" && w[1].Text == "dscp":
		return p.matchDSCP(name, w[2:])
	case kind == "class-map qos" && len(w) >= 3 && w[0].Text == "match" && w[1].Text == "cos":
		if p.c.ClassCoS[name] == nil {
			p.c.ClassCoS[name] = map[int]Value{}
		}
		for _, v := range w[2:] {
			cos, ok := swcfg.IDs(v.Text, 7)
			if !ok {
				return &pos.Error{File: p.c.File, Line: v.Line, Col: v.Col, Msg: fmt.Sprintf("%q: expected CoS values 0-7", v.Text)}
			}
			for _, n := range cos {
				p.c.ClassCoS[name][n] = v
			}
		}
	case (kind == "class-map network-qos" || kind == "class-map queuing") && len(w) == 3 && w[0].Text == "match" && w[1].Text == "qos-group":
		g, err := swcfg.Num(p.c.File, w[2], 7, "a qos-group 0-7")
		if err != nil {
			return err
		}
		p.c.Groups[name] = g
	case kind == "class-map network-qos" && len(w) >= 2 && w[0].Text == "match" && w[1].Text != "qos-group":
		m := w[0]
		m.Text = strings.Join(swcfg.Texts(w), " ")
		p.nqOther[name] = m
	case kind == "policy-map qos" && p.class != "" && len(w) == 3 && w[0].Text == "set" && w[1].Text == "qos-group":
		if _, err := swcfg.Num(p.c.File, w[2], 7, "a qos-group 0-7"); err != nil {
			return err
		}
		cl := p.c.QoS[name]
		cl[len(cl)-1].Group = w[2]
	case kind == "policy-map network-qos" && p.class != "" && len(w) >= 3 && w[0].Text == "pause" && w[1].Text == "pfc-cos":
		if _, err := swcfg.Num(p.c.File, w[2], 7, "a CoS 0-7"); err != nil {
			return err
		}
		p.pauses = append(p.pauses, pause{policy: name, class: p.class, at: w[0], cos: w[2]})
	case kind == "policy-map network-qos" && p.class != "" && len(w) >= 2 && w[0].Text == "pause" && w[1].Text == "no-drop":
		// The Nexus 3000/5000/6000/7000 form: the class is no-drop, on
		// the CoS its traffic carries (`pause no-drop pfc-cos 3` names it).
		cos := w[1]
		if len(w) >= 4 && w[2].Text == "pfc-cos" {
			if _, err := swcfg.Num(p.c.File, w[3], 7, "a CoS 0-7"); err != nil {
				return err
			}
			cos = w[3]
		}
		p.pauses = append(p.pauses, pause{policy: name, class: p.class, at: w[0], cos: cos})
	case kind == "policy-map queuing" && p.class != "" && len(w) >= 2 && w[0].Text == "random-detect":
		return p.randomDetect(name, w)
	case head[0] == "system" && head[1] == "qos" && len(w) >= 4 && w[0].Text == "service-policy" && w[1].Text == "type":
		p.c.System[w[2].Text] = w[len(w)-1]
	case len(p.iface) > 0:
		for _, it := range p.iface {
			switch {
			case len(w) >= 3 && w[0].Text == "priority-flow-control" && w[1].Text == "mode":
				// `mode on send-tlv` also advertises the PFC TLV.
				it.PFC = w[2]
			case len(w) == 5 && text == "service-policy type qos input "+w[4].Text:
				it.QoSInput = w[4]
			case len(w) >= 2 && w[0].Text == "channel-group":
				if _, err := swcfg.Num(p.c.File, w[1], 4096, "a port-channel number"); err != nil {
					return err
				}
				it.Channel = w[1]
			case len(w) == 2 && w[0].Text == "mtu":
				it.MTU = w[1]
			case len(w) == 2 && w[0].Text == "speed":
				if n, err := strconv.Atoi(w[1].Text); err == nil && n > 0 {
					it.Speed = w[1] // NX-OS writes speed in Mb/s
				}
			case strings.HasPrefix(text, "priority-flow-control watch-dog"):
				p.notJudged(w, 2)
			}
		}
	case kind == "policy-map queuing" && p.class != "" && (w[0].Text == "bandwidth" || w[0].Text == "priority"):
		p.notJudged(w, 2)
	}
	return nil
}

// matchDSCP reads `match dscp 26`, `match dscp 24-26,48` or DSCP names
// (af31, cs3, ef).
func (p *parser) matchDSCP(class string, w []Value) error {
	if p.c.ClassDSCP[class] == nil {
		p.c.ClassDSCP[class] = map[int]Value{}
	}
	for _, v := range w {
		for _, part := range strings.Split(v.Text, ",") {
			if part == "" {
				continue
			}
			lo, hi, rng := strings.Cut(part, "-")
			a, ok1 := swcfg.DSCPName(lo)
			b, ok2 := a, true
			if rng {
				b, ok2 = swcfg.DSCPName(hi)
			}
			if !ok1 || !ok2 || b < a {
				return &pos.Error{File: p.c.File, Line: v.Line, Col: v.Col, Msg: fmt.Sprintf("%q: expected DSCP values 0-63 or names (af31, cs3, ef)", v.Text)}
			}
			for d := a; d <= b; d++ {
				p.c.ClassDSCP[class][d] = v
			}
		}
	}
	return nil
}

// randomDetect reads `random-detect minimum-threshold N kbytes
// maximum-threshold N kbytes drop-probability P weight W [ecn]`.
func (p *parser) randomDetect(policy string, w []Value) error {
	g, ok := p.c.Group(p.class)
	if !ok {
		return nil
	}
	idx := func(s string) int {
		for i, v := range w {
			if v.Text == s {
				return i
			}
		}
		return -1
	}
	lo, hi := idx("minimum-threshold"), idx("maximum-threshold")
	if lo < 0 || hi < 0 {
		p.notJudged(w, 3) // `random-detect threshold burst-optimized ecn`: NX-OS's preset
		return nil
	}
	if lo+2 >= len(w) || hi+2 >= len(w) {
		return &pos.Error{File: p.c.File, Line: w[0].Line, Col: w[0].Col, Msg: "expected minimum-threshold N UNIT maximum-threshold N UNIT"}
	}
	r := &Queue{At: w[0]}
	r.At.Text = "drop"
	if idx("ecn") >= 0 {
		r.At.Text = "ecn"
	}
	var err error
	if r.Min, err = swcfg.Bytes(p.c.File, w[lo+1], w[lo+2]); err != nil {
		return err
	}
	if r.Max, err = swcfg.Bytes(p.c.File, w[hi+1], w[hi+2]); err != nil {
		return err
	}
	if j := idx("drop-probability"); j >= 0 && j+1 < len(w) {
		if _, err := swcfg.Num(p.c.File, w[j+1], 100, "a percentage 0-100"); err != nil {
			return err
		}
		r.Prob = w[j+1]
	}
	if p.c.Queuing[policy] == nil {
		p.c.Queuing[policy] = map[int]*Queue{}
	}
	p.c.Queuing[policy][g] = r
	return nil
}

// notJudged names a QoS setting no rule weighs by its first n words, once.
func (p *parser) notJudged(w []Value, n int) {
	p.c.NotJudged = swcfg.AddNotJudged(p.c.NotJudged, w, n)
}

// ByCoS reports whether a classification policy sorts by CoS (a class
// matching `cos`): its class is then the frame's priority.
func (c *Config) ByCoS(policy string) bool {
	for _, cl := range c.QoS[policy] {
		if len(c.ClassCoS[cl.Name]) > 0 {
			return true
		}
	}
	return false
}
