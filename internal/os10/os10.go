// Package os10 reads the QoS a Dell EMC SmartFabric OS10 configuration
// (`show running-configuration`, or its QoS blocks) sets for RoCE: the
// trust maps (`trust dot1p-map`, `trust dscp-map`) that give a frame its
// qos-group, `qos-map traffic-class` (qos-group to queue), the
// network-qos classes that pause (`pause` and `pfc-cos N` under a class
// matching a qos-group), the WRED profiles (`wred NAME` with `random-detect
// color green …` and `random-detect ecn`) the queuing classes attach, what
// `system qos` and each interface apply, and each interface's
// `priority-flow-control mode`, MTU and speed. Every value keeps its line
// and column; sonic.FromOS10 writes it as CONFIG_DB rows for lint's rules.
package os10

import (
	"fmt"
	"strconv"
	"strings"

	"rocelab/internal/pos"
	"rocelab/internal/swcfg"
)

// Value is a setting with where it is written.
type Value = swcfg.Value

// A WRED is a `wred NAME` profile: its green thresholds in bytes (OS10
// writes KB), drop probability and whether `random-detect ecn` marks.
type WRED struct {
	At             Value
	Min, Max, Prob Value
	ECN            Value
}

// A Pause is a network-qos policy class with `pause`: the CoS values of
// its `pfc-cos` line, at that line.
type Pause struct {
	At  Value
	CoS []int
	Set Value
}

// Applied are the maps and policies `system qos` or an interface applies.
type Applied struct {
	// Trust is "dot1p" or "dscp" (`trust-map dot1p|dscp NAME`), TrustMap
	// the map's name ("default": OS10's own).
	Trust, TrustMap Value
	// TCQueue is `qos-map traffic-class NAME`; NetQoS and Queuing the
	// `service-policy input type network-qos` and `service-policy output
	// type queuing` policies.
	TCQueue, NetQoS, Queuing Value
}

// Interface is an `interface` block (one of `interface range`).
type Interface struct {
	Name string
	At   Value
	Applied
	// PFC is `priority-flow-control mode on|off` (off when not written).
	PFC, MTU, Speed Value
	// Channel is `channel-group N [mode …]`: the interface is a member of
	// port-channelN. ChannelMissing is set when port-channelN is not in
	// the input (a cut of the config). Members are, on a port-channel,
	// its member interfaces in the input.
	Channel        Value
	ChannelMissing bool
	Members        []string
}

// Config is what an OS10 configuration says of QoS.
type Config struct {
	File  string
	Lines []string
	// DSCPMaps and Dot1pMaps are the trust maps: each DSCP or CoS value's
	// qos-group at the line that sets it.
	DSCPMaps, Dot1pMaps map[string]map[int]Value
	// TCQueue are the `qos-map traffic-class` maps: each qos-group's
	// queue at its line.
	TCQueue map[string]map[int]Value
	// Groups are the qos-groups each `class-map type network-qos`
	// matches; Queues the queue each `class-map type queuing` matches.
	Groups map[string][]int
	Queues map[string]int
	// Pauses are, per network-qos policy, its classes with `pause`.
	Pauses map[string]map[string]*Pause
	// RED are, per queuing policy, each class's `random-detect` profile.
	RED  map[string]map[string]Value
	WRED map[string]*WRED
	// System is what `system qos` applies.
	System     Applied
	Policies   map[string]bool
	Interfaces []*Interface
	NotJudged  []Value
}

// IsConfig reports whether text looks like an OS10 QoS configuration: a
// trust map, a `qos-map traffic-class`, a `wred` profile or a `trust-map`
// line, `pfc-cos` on a line of its own (NX-OS writes `pause pfc-cos N`),
// an interface's `service-policy input|output type …` (NX-OS writes
// `service-policy type … input`), or the header OS10's `show
// running-configuration` prints (`! Version 10.…`).
func IsConfig(data []byte) bool {
	for _, raw := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(raw)
		f := strings.Fields(t)
		switch {
		case len(f) == 3 && f[0] == "trust" && (f[1] == "dot1p-map" || f[1] == "dscp-map") && raw[0] == 't',
			len(f) == 3 && f[0] == "qos-map" && f[1] == "traffic-class",
			len(f) == 3 && f[0] == "trust-map" && (f[1] == "dot1p" || f[1] == "dscp"),
			len(f) >= 2 && f[0] == "pfc-cos",
			len(f) == 2 && f[0] == "wred" && raw[0] == 'w',
			// OS10's word order (NX-OS writes `service-policy type
			// queuing output`): an interface cut from the config.
			len(f) == 5 && f[0] == "service-policy" && (f[1] == "input" || f[1] == "output") && f[2] == "type",
			strings.HasPrefix(t, "! Version 10."):
			return true
		}
	}
	return false
}

// Parse reads an OS10 configuration. A QoS command it knows with a value
// OS10 would not accept is an error at its place.
func Parse(name string, data []byte) (*Config, error) {
	c := &Config{File: name, Lines: strings.Split(string(data), "\n"), DSCPMaps: map[string]map[int]Value{}, Dot1pMaps: map[string]map[int]Value{},
		TCQueue: map[string]map[int]Value{}, Groups: map[string][]int{}, Queues: map[string]int{}, Pauses: map[string]map[string]*Pause{},
		RED: map[string]map[string]Value{}, WRED: map[string]*WRED{}, Policies: map[string]bool{}}
	p := &parser{c: c}
	if err := swcfg.EachLine(c.Lines, "!", p.line); err != nil {
		return nil, err
	}
	inheritChannel(c)
	return c, nil
}

// inheritChannel gives a port-channel's members what it writes: "When you
// add a port interface to a port-channel, the port-channel configuration
// and administrative status are applied to member interfaces" (Dell
// SmartFabric OS10 User Guide, Port-channel interfaces): its policies,
// trust map and qos-map. PFC is not among them: the guide (Add port
// member) says flow control cannot be enabled on a port-channel, so a
// port-channel's `priority-flow-control mode` is named not judged when
// it has members in the input (one without is judged as a port, as
// Microsoft's renders write PFC on a VLT peer link). Where the
// port-channel writes no policy or map, the member's own stays:
// Microsoft's Azure Local OS10 renders write PFC and the service policies
// on the members of port-channel50 and none on it. A member's own setting
// that differs is named not judged; a member whose port-channel the input
// does not hold is marked ChannelMissing and named.
func inheritChannel(c *Config) {
	swcfg.Members(c.Interfaces, func(it *Interface) string { return it.Name }, func(it *Interface) Value { return it.Channel },
		"port-channel", "the QoS it gives its members is not known",
		&c.NotJudged, func(it *Interface) { it.ChannelMissing = true },
		func(it, pc *Interface, pcName string) {
			pc.Members = append(pc.Members, it.Name)
			if pc.PFC.Given() && len(pc.Members) == 1 {
				at := pc.PFC
				at.Text = "priority-flow-control mode " + pc.PFC.Text + " under " + pcName + " (OS10 runs PFC on a port-channel's physical members: not given to them)"
				c.NotJudged = append(c.NotJudged, at)
			}
			c.NotJudged = swcfg.FromChannel([]swcfg.Setting{
				{What: "qos-map traffic-class", Own: &it.TCQueue, Set: pc.TCQueue},
				{What: "service-policy input type network-qos", Own: &it.NetQoS, Set: pc.NetQoS},
				{What: "service-policy output type queuing", Own: &it.Queuing, Set: pc.Queuing}, {What: "mtu", Own: &it.MTU, Set: pc.MTU},
			}, it.Name, pcName, c.NotJudged)
			if pc.TrustMap.Given() {
				// Named as one setting: `trust-map dscp NAME`.
				own, set := it.TrustMap, pc.TrustMap
				own.Text, set.Text = it.Trust.Text+" "+it.TrustMap.Text, pc.Trust.Text+" "+pc.TrustMap.Text
				c.NotJudged = swcfg.FromChannel([]swcfg.Setting{{What: "trust-map", Own: &own, Set: set}}, it.Name, pcName, c.NotJudged)
				it.Trust, it.TrustMap = pc.Trust, pc.TrustMap
			}
		})
}

// parser follows blocks by indent: head (the line at the left margin),
// class (a policy's `class` line).
type parser struct {
	c     *Config
	head  []string
	iface []*Interface
	class string
}

func (p *parser) line(w []Value, indent int) error {
	if indent == 0 {
		p.head, p.iface, p.class = swcfg.Texts(w), nil, ""
		if len(w) == 4 && w[0].Text == "policy-map" && w[1].Text == "type" {
			p.c.Policies[w[3].Text] = true
		}
		if len(w) == 2 && w[0].Text == "wred" {
			p.c.WRED[w[1].Text] = &WRED{At: w[1]}
		}
		if len(w) >= 2 && w[0].Text == "interface" {
			p.interfaces(w)
		}
		return nil
	}
	if len(p.head) < 2 {
		return nil
	}
	head, text := p.head, strings.Join(swcfg.Texts(w), " ")
	name := head[len(head)-1]
	kind := head[0] + " " + head[1]
	if len(head) == 4 && head[1] == "type" {
		kind = head[0] + " " + head[2]
	}
	if w[0].Text == "class" && len(w) == 2 && strings.HasPrefix(kind, "policy-map") {
		p.class = w[1].Text
		return nil
	}
	switch {
	case kind == "trust dot1p-map" || kind == "trust dscp-map":
		return p.trustMap(kind, name, w)
	case kind == "qos-map traffic-class" && len(w) == 4 && w[0].Text == "queue" && w[2].Text == "qos-group":
		q, err := swcfg.Num(p.c.File, w[1], 7, "a queue 0-7")
		if err != nil {
			return err
		}
		groups, err := swcfg.List(p.c.File, w[3], 7, "qos-groups 0-7")
		if err != nil {
			return err
		}
		if p.c.TCQueue[name] == nil {
			p.c.TCQueue[name] = map[int]Value{}
		}
		for _, g := range groups {
			v := w[1]
			v.Text = strconv.Itoa(q)
			p.c.TCQueue[name][g] = v
		}
	case kind == "class-map network-qos" && len(w) == 3 && w[0].Text == "match" && w[1].Text == "qos-group":
		groups, err := swcfg.List(p.c.File, w[2], 7, "qos-groups 0-7")
		if err != nil {
			return err
		}
		p.c.Groups[name] = groups
	case kind == "class-map queuing" && len(w) == 3 && w[0].Text == "match" && w[1].Text == "queue":
		q, err := swcfg.Num(p.c.File, w[2], 7, "a queue 0-7")
		if err != nil {
			return err
		}
		p.c.Queues[name] = q
	case kind == "policy-map network-qos" && p.class != "" && (w[0].Text == "pause" || w[0].Text == "pfc-cos"):
		return p.pause(name, w)
	case kind == "policy-map queuing" && p.class != "" && len(w) == 2 && w[0].Text == "random-detect":
		if p.c.RED[name] == nil {
			p.c.RED[name] = map[string]Value{}
		}
		p.c.RED[name][p.class] = w[1]
	case kind == "policy-map queuing" && p.class != "" && (w[0].Text == "bandwidth" || w[0].Text == "priority" || w[0].Text == "shape"):
		p.notJudged(w, 2)
	case len(head) == 2 && head[0] == "wred":
		return p.wred(p.c.WRED[name], w)
	case len(head) == 2 && head[0] == "system" && head[1] == "qos":
		p.apply(&p.c.System, w, text)
	case len(p.iface) > 0:
		for _, it := range p.iface {
			switch {
			case len(w) == 3 && w[0].Text == "priority-flow-control" && w[1].Text == "mode":
				it.PFC = w[2]
			case len(w) == 2 && w[0].Text == "mtu":
				it.MTU = w[1]
			case len(w) >= 2 && w[0].Text == "channel-group" && strings.HasPrefix(it.Name, "ethernet"):
				if _, err := swcfg.Num(p.c.File, w[1], 4096, "a port-channel number"); err != nil {
					return err
				}
				it.Channel = w[1]
			case len(w) == 2 && w[0].Text == "speed":
				if n, err := strconv.Atoi(w[1].Text); err == nil && n > 0 {
					it.Speed = w[1] // OS10 writes speed in Mb/s
				}
			default:
				p.apply(&it.Applied, w, text)
			}
		}
	}
	return nil
}

// interfaces starts an `interface NAME` or `interface range LIST` block.
func (p *parser) interfaces(w []Value) {
	spec := strings.Join(swcfg.Texts(w[1:]), "")
	spec = strings.TrimPrefix(spec, "range")
	for _, n := range expand(spec) {
		if !strings.HasPrefix(n, "ethernet") && !strings.HasPrefix(n, "port-channel") {
			continue
		}
		p.iface = append(p.iface, swcfg.Entered(&p.c.Interfaces, n, func(it *Interface) string { return it.Name }, func() *Interface {
			return &Interface{Name: n, At: w[0]}
		}))
	}
}

// expand reads OS10's interface names: "ethernet1/1/1", "Ethernet
// 1/1/1" (joined), and ranges "ethernet1/1/1-1/1/4,1/1/6".
func expand(spec string) []string {
	return swcfg.ExpandNames(strings.ToLower(spec))
}

// apply reads what `system qos` or an interface applies; other QoS
// settings there are named as not judged.
func (p *parser) apply(a *Applied, w []Value, text string) {
	switch {
	case len(w) == 3 && w[0].Text == "trust-map" && (w[1].Text == "dot1p" || w[1].Text == "dscp"):
		a.Trust, a.TrustMap = w[1], w[2]
	case len(w) == 3 && w[0].Text == "qos-map" && w[1].Text == "traffic-class":
		a.TCQueue = w[2]
	case len(w) == 5 && text == "service-policy input type network-qos "+w[4].Text:
		a.NetQoS = w[4]
	case len(w) == 5 && text == "service-policy output type queuing "+w[4].Text:
		a.Queuing = w[4]
	case len(w) == 5 && text == "service-policy input type qos "+w[4].Text:
		p.notJudged(w, 4) // classification by ACL, ahead of the trust map
	case w[0].Text == "ets" || w[0].Text == "random-detect" || w[0].Text == "pfc-max-buffer-size" || w[0].Text == "pfc-shared-buffer-size",
		strings.HasPrefix(text, "priority-flow-control watchdog"), strings.HasPrefix(text, "pfc-"):
		p.notJudged(w, 2)
	}
}

// trustMap reads `qos-group G dot1p 0-2,4` or `qos-group G dscp 24,26`.
func (p *parser) trustMap(kind, name string, w []Value) error {
	field, limit, maps := "dot1p", 7, p.c.Dot1pMaps
	if kind == "trust dscp-map" {
		field, limit, maps = "dscp", 63, p.c.DSCPMaps
	}
	if len(w) != 4 || w[0].Text != "qos-group" || w[2].Text != field {
		return nil
	}
	if _, err := swcfg.Num(p.c.File, w[1], 7, "a qos-group 0-7"); err != nil {
		return err
	}
	vals, err := swcfg.List(p.c.File, w[3], limit, fmt.Sprintf("%s values 0-%d", field, limit))
	if err != nil {
		return err
	}
	if maps[name] == nil {
		maps[name] = map[int]Value{}
	}
	for _, d := range vals {
		v := w[3]
		v.Text = w[1].Text
		maps[name][d] = v
	}
	return nil
}

// pause reads a network-qos class's `pause [buffer-size …]` and `pfc-cos
// 3` lines.
func (p *parser) pause(policy string, w []Value) error {
	if p.c.Pauses[policy] == nil {
		p.c.Pauses[policy] = map[string]*Pause{}
	}
	pa := p.c.Pauses[policy][p.class]
	if pa == nil {
		pa = &Pause{}
		p.c.Pauses[policy][p.class] = pa
	}
	if w[0].Text == "pause" {
		pa.At = w[0]
		if len(w) > 1 {
			p.notJudged(w, 2) // buffer-size, pause- and resume-threshold
		}
		return nil
	}
	if len(w) != 2 {
		return &pos.Error{File: p.c.File, Line: w[0].Line, Col: w[0].Col, Msg: "expected pfc-cos followed by CoS values (3, 3-4, 3,4)"}
	}
	cos, err := swcfg.List(p.c.File, w[1], 7, "CoS values 0-7")
	if err != nil {
		return err
	}
	pa.CoS, pa.Set = cos, w[1]
	return nil
}

// wred reads a WRED profile's lines: `random-detect color green
// minimum-threshold KB maximum-threshold KB drop-probability P`,
// `random-detect ecn`; other colours and the weight are not judged (RoCE's
// packets are green).
func (p *parser) wred(r *WRED, w []Value) error {
	if r == nil || len(w) < 2 || w[0].Text != "random-detect" {
		return nil
	}
	switch {
	case len(w) == 2 && w[1].Text == "ecn":
		r.ECN = w[1]
	case w[1].Text == "color" && len(w) == 9 && w[3].Text == "minimum-threshold" && w[5].Text == "maximum-threshold" && w[7].Text == "drop-probability":
		if w[2].Text != "green" {
			p.notJudged(w, 3)
			return nil
		}
		for _, v := range []Value{w[4], w[6]} {
			if _, err := swcfg.Num(p.c.File, v, 12480, "a threshold of 1-12480 KB"); err != nil {
				return err
			}
		}
		if _, err := swcfg.Num(p.c.File, w[8], 100, "a drop probability 0-100 (%)"); err != nil {
			return err
		}
		r.Min, r.Max, r.Prob = kb(w[4]), kb(w[6]), w[8]
	case w[1].Text == "color":
		return &pos.Error{File: p.c.File, Line: w[1].Line, Col: w[1].Col, Msg: "expected random-detect color green|yellow|red minimum-threshold KB maximum-threshold KB drop-probability P"}
	default:
		p.notJudged(w, 2)
	}
	return nil
}

// kb writes a threshold in OS10's KB (1024 bytes, as OS10 sizes its
// buffers) as bytes.
func kb(v Value) Value {
	n, _ := strconv.Atoi(v.Text)
	v.Text = strconv.Itoa(n * 1024)
	return v
}

// notJudged names a QoS setting no rule weighs by its first n words, once.
func (p *parser) notJudged(w []Value, n int) {
	p.c.NotJudged = swcfg.AddNotJudged(p.c.NotJudged, w, n)
}

// DefaultDot1p is OS10's default CoS trust map (IEEE 802.1Q's: CoS 0 in
// qos-group 1, CoS 1 in 0, the others their own), which `trust-map dot1p
// default` applies.
func DefaultDot1p(cos int) int { return swcfg.CoSTC(cos) }

// DefaultDSCP is OS10's default DSCP trust map (`trust-map dscp
// default`): a DSCP's qos-group is its top three bits (DSCP 24-31 in 3).
func DefaultDSCP(dscp int) int { return dscp >> 3 }
