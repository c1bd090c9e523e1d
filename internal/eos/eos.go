// Package eos reads the QoS an Arista EOS running-config (`show
// running-config`, a startup-config, or the interface and qos blocks cut
// from one) sets for RoCE: the DSCP, CoS and traffic-class maps, each
// interface's trust, PFC and transmit-queue ECN or WRED, the `qos profile`
// blocks interfaces take with `service-profile`, and the link speed and
// MTU. Every value keeps its line and column. What it says is judged by
// lint's SONiC rules after sonic.FromEOS writes it as CONFIG_DB rows.
package eos

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/pos"
	"rocelab/internal/swcfg"
)

// A Value is one setting with where it is written (Line 0: a default).
type Value = swcfg.Value

// RED is a transmit queue's `random-detect ecn` or `random-detect drop`
// line, as the shared row builder takes it.
type RED = swcfg.RED

// Queue is a `tx-queue N` (or `uc-tx-queue N`) block.
type Queue struct {
	At        Value
	ECN, WRED *RED
}

// Settings are what an interface or a qos profile sets.
type Settings struct {
	// Trust is "dscp", "cos" or "none" (`no qos trust`).
	Trust Value
	// DefaultCoS is `qos cos N`: the CoS of untagged or untrusted frames.
	DefaultCoS Value
	// PFC is "on" or "off" (`priority-flow-control on`, `no
	// priority-flow-control`); Prios the `priority-flow-control priority N
	// no-drop` lines by priority (a later `drop` removes one).
	PFC   Value
	Prios map[int]Value
	// Queues are the unicast transmit queues by number.
	Queues map[int]*Queue
	// Policy is a `service-policy type qos input` that can set the traffic
	// class by ACL, ahead of the maps.
	Policy Value
}

// Profile is a `qos profile NAME` block: At is its NAME.
type Profile struct {
	At Value
	Settings
}

// Interface is an `interface` block.
type Interface struct {
	Name string
	At   Value
	Settings
	// Profile is `service-profile NAME`; Speed the link speed in Mb/s,
	// MTU `mtu N`; Routed is `no switchport` (EOS trusts DSCP on a routed
	// port and CoS on a switched one when no `qos trust` is written).
	Profile, Speed, MTU Value
	Routed              bool
	// Channel is `channel-group N mode …`: the interface is a member of
	// Port-ChannelN. ChannelMissing is set when Port-ChannelN is not in
	// the input (a cut of the config): the classification it gives its
	// members is not known. PortChannel is, on a member, its
	// Port-Channel in the input; Members are, on a Port-Channel, its
	// member interfaces in the input.
	Channel        Value
	ChannelMissing bool
	PortChannel    *Interface
	Members        []string
}

// Config is what a running-config says of QoS.
type Config struct {
	File  string
	Lines []string
	// DSCP, CoS and TCQueue are the global `qos map dscp D to
	// traffic-class T`, `qos map cos C to traffic-class T` and `qos map
	// traffic-class T to tx-queue Q` entries.
	DSCP, CoS, TCQueue map[int]Value
	Profiles           map[string]*Profile
	Interfaces         []*Interface
	// PFCAllOff is the global `priority-flow-control all off`, which
	// turns PFC off on every interface whatever the interface or its
	// qos profile says (AVD's eos_cli_config_gen schema:
	// priority_flow_control.all_off, "Disable PFC on all interfaces").
	PFCAllOff Value
	// NotJudged are QoS settings read but weighed by no rule (the
	// watchdog, shapers, policies), each at its first place.
	NotJudged []Value
}

// DefaultDSCPTC is EOS's DSCP → traffic class map where no `qos map dscp`
// changes it: a DSCP takes the class of the CoS its top three bits give
// (DSCP 26, CS3 → CoS 3 → class 3).
func DefaultDSCPTC(dscp int) int { return DefaultCoSTC(dscp >> 3) }

// DefaultCoSTC is EOS's CoS → traffic class map: IEEE 802.1Q's
// (swcfg.CoSTC).
func DefaultCoSTC(cos int) int { return swcfg.CoSTC(cos) }

// IsConfig reports whether text looks like an EOS configuration: an
// `interface` or `qos profile` block at the left margin and an EOS QoS
// command or the header `show running-config` prints (`! device: sw1
// (DCS-7050CX3-32S, EOS-4.28.3M)`), and none of NX-OS's (`system qos`,
// `policy-map type network-qos`), whose interface syntax is alike.
func IsConfig(data []byte) bool {
	block, qos := false, false
	for _, raw := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(raw)
		top := raw != "" && raw[0] != ' ' && raw[0] != '\t'
		switch {
		case top && (strings.HasPrefix(t, "system qos") || strings.HasPrefix(t, "policy-map type network-qos") || strings.HasPrefix(t, "feature ")):
			return false
		case top && (strings.HasPrefix(t, "interface ") && isPort(strings.Join(strings.Fields(t[len("interface "):]), "")) || strings.HasPrefix(t, "qos profile ")):
			block = true
		case strings.HasPrefix(t, "! device: ") && strings.Contains(t, ", EOS-") || strings.HasPrefix(t, "!RANCID-CONTENT-TYPE: arista"):
			// `show running-config`'s header names EOS: a config without
			// QoS is still one (and runs no PFC).
			qos = true
		case strings.HasPrefix(t, "priority-flow-control priority ") || strings.HasPrefix(t, "random-detect ecn minimum-threshold") ||
			strings.HasPrefix(t, "qos trust ") || t == "no qos trust" || strings.HasPrefix(t, "service-profile ") ||
			top && strings.HasPrefix(t, "qos map dscp ") && strings.Contains(t, " to traffic-class "):
			qos = true
		}
	}
	return block && qos
}

// portName writes an interface name as `show running-config` prints it:
// EOS takes the type in any case and short (`interface ethernet1`, as
// AVD renders a structured config's lower-case names, `et1`, `po10`,
// `port-channel10`).
func portName(n string) string {
	return swcfg.Expand(swcfg.Expand(n, "Ethernet"), "Port-Channel")
}

// isPort reports whether an interface name (or the rest of an
// `interface` line) names an Ethernet or Port-Channel interface.
func isPort(n string) bool {
	n = portName(n)
	return strings.HasPrefix(n, "Ethernet") || strings.HasPrefix(n, "Port-Channel")
}

// Parse reads an EOS configuration. A QoS command it knows with a value
// EOS would not accept is an error at its place.
func Parse(name string, data []byte) (*Config, error) {
	c := &Config{File: name, Lines: strings.Split(string(data), "\n"),
		DSCP: map[int]Value{}, CoS: map[int]Value{}, TCQueue: map[int]Value{}, Profiles: map[string]*Profile{}}
	p := parser{c: c}
	if err := swcfg.EachLine(c.Lines, "!", p.line); err != nil {
		return nil, err
	}
	inheritChannel(c)
	return c, nil
}

// inheritChannel gives a Port-Channel's members what it writes: EOS
// applies a port channel's QoS classification (trust, default CoS,
// service-policy, service-profile) and its routed or switched mode to its
// members, and Arista's AVD writes them on the Port-Channel alone (`qos
// trust`, `service-profile`, `service-policy type qos input` with
// `channel-group N mode active` on the members). PFC and transmit queues
// are not among them: AVD writes those on Ethernet interfaces only, and a
// Port-Channel's PFC or tx-queue line is named not judged by the parser;
// a qos profile the Port-Channel's service-profile names is how PFC
// reaches its members. A member's own setting that differs is named not judged;
// a member whose Port-Channel the input does not hold is marked
// ChannelMissing and named.
func inheritChannel(c *Config) {
	swcfg.Members(c.Interfaces, func(it *Interface) string { return it.Name }, func(it *Interface) Value { return it.Channel },
		"Port-Channel", "the QoS trust it gives its members is not known",
		&c.NotJudged, func(it *Interface) { it.ChannelMissing = true },
		func(it, pc *Interface, pcName string) {
			it.PortChannel = pc
			pc.Members = append(pc.Members, it.Name)
			c.NotJudged = swcfg.FromChannel([]swcfg.Setting{
				{What: "qos trust", Own: &it.Trust, Set: pc.Trust}, {What: "qos cos", Own: &it.DefaultCoS, Set: pc.DefaultCoS},
				{What: "service-policy type qos input", Own: &it.Policy, Set: pc.Policy},
				{What: "service-profile", Own: &it.Profile, Set: pc.Profile}, {What: "mtu", Own: &it.MTU, Set: pc.MTU},
			}, it.Name, pcName, c.NotJudged)
			it.Routed = it.Routed || pc.Routed
		})
}

// parser follows the block a line belongs to by its indent.
type parser struct {
	c *Config
	// set is the interface's or profile's settings the block's lines
	// write (nil outside such a block), iface the interface, queue the
	// transmit queue block; child is the indent of the block's lines.
	set    *Settings
	iface  []*Interface
	queues []*Queue
	child  int
}

func (p *parser) line(w []Value, indent int) error {
	if indent == 0 {
		p.set, p.iface, p.queues, p.child = nil, nil, nil, 0
		return p.top(w)
	}
	if p.set == nil {
		if len(w) > 1 && w[0].Text == "random-detect" && w[1].Text == "ecn" {
			// ECN written under a block EOS takes none in (a policy-map
			// class, as guides write it): it marks no queue.
			at := w[0]
			at.Text = "random-detect ecn outside an interface's or qos profile's tx-queue (marks no queue)"
			p.c.NotJudged = swcfg.AddNotJudged(p.c.NotJudged, []Value{at}, 1)
		}
		return nil
	}
	if p.child == 0 {
		p.child = indent
	}
	if indent > p.child && len(p.queues) > 0 {
		return p.queueLine(w)
	}
	p.queues = nil
	return p.setting(w)
}

// top reads a line at the left margin: a block's head or a global map.
func (p *parser) top(w []Value) error {
	text := join(w)
	switch {
	case len(w) >= 2 && w[0].Text == "interface":
		for _, n := range swcfg.ExpandNames(strings.Join(swcfg.Texts(w[1:]), "")) {
			if n = portName(n); !isPort(n) {
				continue
			}
			p.iface = append(p.iface, swcfg.Entered(&p.c.Interfaces, n, func(it *Interface) string { return it.Name }, func() *Interface {
				return &Interface{Name: n, At: w[0], Settings: newSettings()}
			}))
		}
		if len(p.iface) > 0 {
			p.set = &p.iface[0].Settings
		}
	case len(w) == 3 && w[0].Text == "qos" && w[1].Text == "profile":
		pr := &Profile{At: w[2], Settings: newSettings()}
		p.c.Profiles[w[2].Text] = pr
		p.set = &pr.Settings
	case strings.HasPrefix(text, "qos map dscp ") || strings.HasPrefix(text, "qos map cos "):
		to := index(w, "to")
		if to < 0 || to+2 >= len(w) || w[to+1].Text != "traffic-class" {
			return nil // a map to something else (dscp rewrite)
		}
		limit, dst := 63, p.c.DSCP
		if w[2].Text == "cos" {
			limit, dst = 7, p.c.CoS
		}
		tc, err := swcfg.Num(p.c.File, w[to+2], 7, "a traffic class 0-7")
		if err != nil {
			return err
		}
		for _, f := range w[3:to] {
			n, err := swcfg.Num(p.c.File, f, limit, fmt.Sprintf("a %s value 0-%d", w[2].Text, limit))
			if err != nil {
				return err
			}
			v := w[to+2]
			v.Text = strconv.Itoa(tc)
			dst[n] = v
		}
	case strings.HasPrefix(text, "qos map traffic-class ") && index(w, "tx-queue") == len(w)-2 && index(w, "to") >= 3:
		to := index(w, "to")
		q, err := swcfg.Num(p.c.File, w[len(w)-1], 7, "a transmit queue 0-7")
		if err != nil {
			return err
		}
		for _, f := range w[3:to] {
			tc, err := swcfg.Num(p.c.File, f, 7, "a traffic class 0-7")
			if err != nil {
				return err
			}
			v := w[len(w)-1]
			v.Text = strconv.Itoa(q)
			p.c.TCQueue[tc] = v
		}
	case text == "priority-flow-control all off":
		p.c.PFCAllOff = w[0]
	case strings.HasPrefix(text, "priority-flow-control ") || strings.HasPrefix(text, "qos random-detect "):
		p.notJudged(w, 3)
	}
	return nil
}

func newSettings() Settings {
	return Settings{Prios: map[int]Value{}, Queues: map[int]*Queue{}}
}

// setting reads a line of an interface or qos profile block; for a block
// of several interfaces (`interface Ethernet1-4`) it is applied to each.
func (p *parser) setting(w []Value) error {
	text := join(w)
	for i := range max(1, len(p.iface)) {
		s := p.set
		if len(p.iface) > 0 {
			s = &p.iface[i].Settings
		}
		if err := p.apply(s, w, text, i); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) apply(s *Settings, w []Value, text string, i int) error {
	var it *Interface
	if len(p.iface) > 0 {
		it = p.iface[i]
	}
	switch {
	case it != nil && strings.HasPrefix(it.Name, "Port-Channel") && memberOnly(w, text):
		// EOS takes PFC and transmit queues on Ethernet interfaces (AVD
		// renders them in ethernet-interfaces, never on a Port-Channel):
		// no source says a Port-Channel passes them to its members.
		// Named once for the block's Port-Channels (`interface
		// Ethernet1/6-7, Port-Channel40-41` reads each line per interface).
		at := w[0]
		if slices.ContainsFunc(p.c.NotJudged, func(v Value) bool { return v.Line == at.Line && v.Col == at.Col }) {
			break
		}
		var pcs []string
		for _, o := range p.iface {
			if strings.HasPrefix(o.Name, "Port-Channel") {
				pcs = append(pcs, o.Name)
			}
		}
		at.Text = join(w[:min(3, len(w))]) + " under " + strings.Join(pcs, ", ") + " (EOS sets PFC and transmit queues on its Ethernet members, not on a Port-Channel: not applied to them)"
		p.c.NotJudged = append(p.c.NotJudged, at)
	case text == "qos trust dscp" || text == "qos trust cos":
		s.Trust = w[2]
	case text == "no qos trust":
		s.Trust = w[0]
		s.Trust.Text = "none"
	case len(w) == 3 && w[0].Text == "qos" && w[1].Text == "cos":
		if _, err := swcfg.Num(p.c.File, w[2], 7, "a CoS 0-7"); err != nil {
			return err
		}
		s.DefaultCoS = w[2]
	case text == "priority-flow-control on" || text == "priority-flow-control mode on":
		s.PFC = w[len(w)-1]
	case text == "no priority-flow-control" || text == "priority-flow-control off" || text == "priority-flow-control mode off":
		s.PFC = w[0]
		s.PFC.Text = "off"
	case len(w) == 4 && w[0].Text == "priority-flow-control" && w[1].Text == "priority":
		n, err := swcfg.Num(p.c.File, w[2], 7, "a priority 0-7")
		if err != nil {
			return err
		}
		switch w[3].Text {
		case "no-drop":
			s.Prios[n] = w[2]
		case "drop":
			delete(s.Prios, n)
		default:
			return &pos.Error{File: p.c.File, Line: w[3].Line, Col: w[3].Col, Msg: fmt.Sprintf("%q: expected no-drop or drop", w[3].Text)}
		}
	case len(w) == 2 && (w[0].Text == "tx-queue" || w[0].Text == "uc-tx-queue"):
		n, err := swcfg.Num(p.c.File, w[1], 7, "a transmit queue 0-7")
		if err != nil {
			return err
		}
		if s.Queues[n] == nil {
			s.Queues[n] = &Queue{At: w[0]}
		}
		p.queues = append(p.queues, s.Queues[n])
	case len(w) >= 4 && w[0].Text == "service-policy" && w[2].Text == "qos" && w[3].Text == "input":
		s.Policy = w[len(w)-1]
		p.notJudged(w, 4)
	case it != nil && len(w) == 2 && w[0].Text == "service-profile":
		it.Profile = w[1]
	case it != nil && len(w) == 2 && w[0].Text == "mtu":
		if _, err := swcfg.Num(p.c.File, w[1], 65535, "an MTU in bytes"); err != nil {
			return err
		}
		it.MTU = w[1]
	case it != nil && len(w) >= 2 && w[0].Text == "speed":
		if v, ok := speed(w[1:]); ok {
			it.Speed = v
		}
	case it != nil && len(w) >= 2 && w[0].Text == "channel-group" && strings.HasPrefix(it.Name, "Ethernet"):
		if _, err := swcfg.Num(p.c.File, w[1], 2000, "a port-channel number"); err != nil {
			return err
		}
		it.Channel = w[1]
	case it != nil && text == "no switchport":
		it.Routed = true
	case strings.HasPrefix(text, "priority-flow-control pause watchdog"):
		p.notJudged(w, 3)
	case strings.HasPrefix(text, "shape rate"):
		p.notJudged(w, 2)
	case it != nil && len(w) >= 2 && w[0].Text == "ip" && w[1].Text == "address":
		it.Routed = true // an address is only taken by a routed port
	}
	return nil
}

// memberOnly reports whether an interface line sets PFC, a no-drop
// priority or a transmit queue, which EOS takes on an Ethernet port.
func memberOnly(w []Value, text string) bool {
	return text == "no priority-flow-control" || len(w) == 2 && (w[0].Text == "tx-queue" || w[0].Text == "uc-tx-queue") ||
		w[0].Text == "priority-flow-control" && !strings.HasPrefix(text, "priority-flow-control pause watchdog")
}

// queueLine reads a line of a transmit queue block.
func (p *parser) queueLine(w []Value) error {
	if len(w) < 2 || w[0].Text != "random-detect" || w[1].Text != "ecn" && w[1].Text != "drop" {
		if len(w) > 0 && (w[0].Text == "priority" || w[0].Text == "no" || w[0].Text == "bandwidth" || w[0].Text == "shape") {
			p.notJudged(w, 2)
		}
		return nil
	}
	r := &RED{At: w[1]}
	lo, hi := index(w, "minimum-threshold"), index(w, "maximum-threshold")
	if lo < 0 && hi < 0 {
		return nil // `random-detect ecn count`: counters only
	}
	if lo < 0 || hi < 0 || lo+2 >= len(w) || hi+2 >= len(w) {
		return &pos.Error{File: p.c.File, Line: w[1].Line, Col: w[1].Col, Msg: "expected minimum-threshold N UNIT maximum-threshold N UNIT"}
	}
	var err error
	if r.Min, r.Unit, err = p.threshold(w[lo+1], w[lo+2]); err != nil {
		return err
	}
	var unit string
	if r.Max, unit, err = p.threshold(w[hi+1], w[hi+2]); err != nil {
		return err
	}
	if unit != r.Unit {
		r.Unit = r.Unit + "/" + unit
	}
	for _, k := range []string{"max-mark-probability", "drop-probability"} {
		if j := index(w, k); j >= 0 {
			if j+1 >= len(w) {
				return &pos.Error{File: p.c.File, Line: w[j].Line, Col: w[j].Col, Msg: k + ": expected a percentage 1-100"}
			}
			if _, err := swcfg.Num(p.c.File, w[j+1], 100, "a percentage 1-100"); err != nil {
				return err
			}
			r.Prob = w[j+1]
		}
	}
	for _, q := range p.queues {
		if w[1].Text == "ecn" {
			q.ECN = r
		} else {
			q.WRED = r
		}
	}
	return nil
}

// threshold reads a RED threshold into bytes (kbytes and mbytes as
// binary multiples, as switch buffers are sized); segments and time are
// kept as written, with their unit.
func (p *parser) threshold(n, unit Value) (Value, string, error) {
	mult := map[string]int64{"bytes": 1, "kbytes": 1 << 10, "mbytes": 1 << 20}
	f, err := strconv.ParseFloat(n.Text, 64)
	if err != nil || f < 0 {
		return Value{}, "", &pos.Error{File: p.c.File, Line: n.Line, Col: n.Col, Msg: fmt.Sprintf("%q: expected a threshold", n.Text)}
	}
	m, ok := mult[unit.Text]
	switch {
	case ok:
		n.Text = strconv.FormatInt(int64(f*float64(m)), 10)
		return n, "", nil
	case unit.Text == "segments" || unit.Text == "microseconds" || unit.Text == "milliseconds":
		n.Text += " " + unit.Text
		return n, unit.Text, nil
	}
	return Value{}, "", &pos.Error{File: p.c.File, Line: unit.Line, Col: unit.Col, Msg: fmt.Sprintf("%q: expected bytes, kbytes, mbytes, segments, microseconds or milliseconds", unit.Text)}
}

// notJudged names a QoS setting no rule weighs by its first n words, once.
func (p *parser) notJudged(w []Value, n int) {
	p.c.NotJudged = swcfg.AddNotJudged(p.c.NotJudged, w, n)
}

// speed reads `speed [forced|auto] 100g`, `100gfull`, `400g-8` or
// `10000full` into Mb/s.
func speed(w []Value) (Value, bool) {
	for _, v := range w {
		s := strings.TrimSuffix(strings.ToLower(v.Text), "full")
		s, _, _ = strings.Cut(s, "-")
		mult := 1
		if t, ok := strings.CutSuffix(s, "g"); ok {
			s, mult = t, 1000
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f <= 0 {
			continue
		}
		v.Text = strconv.Itoa(int(f * float64(mult)))
		return v, true
	}
	return Value{}, false
}

func index(w []Value, s string) int {
	return slices.IndexFunc(w, func(v Value) bool { return v.Text == s })
}

func join(w []Value) string { return strings.Join(swcfg.Texts(w), " ") }
