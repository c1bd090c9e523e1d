// Package aoscx reads the QoS an HPE Aruba Networking CX (AOS-CX)
// configuration (`show running-config`, as the 8325, 9300 and 10000
// print it) sets for lossless RoCE: the trust mode (`qos trust
// cos|dscp|none`, global or per interface), the `qos dscp-map` and `qos
// cos-map` entries that move a code point to another local priority, the
// queue profile that maps local priorities to queues and the one `apply
// qos queue-profile` applies, the threshold profiles whose `queue Q action
// ecn` lines mark and the one applied globally or per interface, and each
// interface's `flow-control priority` (PFC) and MTU. The syntax follows
// HPE's AOS-CX Quality of Service Guide for the 832x, 9300 and 10000
// series. Every value keeps its line and column; sonic.FromAOSCX writes
// it as CONFIG_DB rows for lint's rules.
package aoscx

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/pos"
	"rocelab/internal/swcfg"
)

// Value is a setting with where it is written.
type Value = swcfg.Value

// ECN is a threshold profile's `queue Q action ecn` line: its minimum and
// maximum thresholds in bytes (the single `threshold N` form marks every
// packet past N: both are N).
type ECN struct {
	At, Min, Max Value
}

// Interface is an `interface` block.
type Interface struct {
	Name string
	At   Value
	// Trust is the interface's own `qos trust`; PFC the priorities whose
	// `flow-control priority` sends pause (tx or rxtx), each at its
	// line; Threshold its own `apply qos threshold-profile`.
	Trust, Threshold, MTU Value
	PFC                   map[int]Value
}

// Config is what an AOS-CX configuration says of QoS.
type Config struct {
	File  string
	Lines []string
	// Trust is the global `qos trust` (none when not written).
	Trust Value
	// DSCP and CoS are the `qos dscp-map` and `qos cos-map` entries: a
	// code point's local priority at its line.
	DSCP, CoS map[int]Value
	// Queues are each queue profile's local priority → queue, QueueProfile
	// the one `apply qos queue-profile` applies (factory-default when not
	// written: local priority N in queue N).
	Queues       map[string]map[int]Value
	QueueProfile Value
	// Thresholds are each threshold profile's ECN lines by queue,
	// Threshold the profile applied globally.
	Thresholds map[string]map[int]*ECN
	Threshold  Value
	Interfaces []*Interface
	NotJudged  []Value
}

// IsConfig reports whether text looks like an AOS-CX configuration: the
// `!Version ArubaOS-CX` header `show running-config` prints, or a QoS
// command only AOS-CX writes (`qos queue-profile`, `qos
// threshold-profile`, `qos dscp-map … local-priority`, `flow-control
// priority`).
func IsConfig(data []byte) bool {
	for _, raw := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(raw)
		switch {
		case strings.HasPrefix(t, "!Version ArubaOS-CX "),
			strings.HasPrefix(t, "qos queue-profile "), strings.HasPrefix(t, "qos threshold-profile "),
			strings.HasPrefix(t, "apply qos "),
			(strings.HasPrefix(t, "qos dscp-map ") || strings.HasPrefix(t, "qos cos-map ")) && strings.Contains(t, " local-priority "),
			strings.HasPrefix(t, "flow-control priority "):
			return true
		}
	}
	return false
}

// Parse reads an AOS-CX configuration. A QoS command it knows with a
// value AOS-CX would not accept is an error at its place.
func Parse(name string, data []byte) (*Config, error) {
	c := &Config{File: name, Lines: strings.Split(string(data), "\n"), DSCP: map[int]Value{}, CoS: map[int]Value{},
		Queues: map[string]map[int]Value{}, Thresholds: map[string]map[int]*ECN{}}
	p := &parser{c: c}
	if err := swcfg.EachLine(c.Lines, "!", p.line); err != nil {
		return nil, err
	}
	return c, nil
}

// parser follows blocks by indent: head is the line at the left margin.
type parser struct {
	c     *Config
	head  []string
	iface []*Interface
}

func (p *parser) line(w []Value, indent int) error {
	if indent == 0 {
		p.head, p.iface = swcfg.Texts(w), nil
		return p.top(w)
	}
	switch {
	case len(p.head) == 3 && p.head[0] == "qos" && p.head[1] == "queue-profile":
		return p.mapQueue(p.head[2], w)
	case len(p.head) == 3 && p.head[0] == "qos" && p.head[1] == "threshold-profile":
		return p.threshold(p.head[2], w)
	case len(p.head) == 3 && p.head[0] == "qos" && p.head[1] == "schedule-profile":
		p.notJudged(w, 2) // dwrr, strict, wfq: ETS
	case len(p.iface) > 0:
		return p.ifaceLine(w)
	}
	return nil
}

// top reads a line at the left margin.
func (p *parser) top(w []Value) error {
	text := strings.Join(swcfg.Texts(w), " ")
	switch {
	case len(w) == 3 && text == "qos trust "+w[2].Text:
		return p.trust(&p.c.Trust, w[2])
	case len(w) >= 5 && (w[1].Text == "dscp-map" || w[1].Text == "cos-map") && w[0].Text == "qos" && w[3].Text == "local-priority":
		limit, dst := 63, p.c.DSCP
		if w[1].Text == "cos-map" {
			limit, dst = 7, p.c.CoS
		}
		codes, err := swcfg.List(p.c.File, w[2], limit, fmt.Sprintf("%s code points 0-%d", strings.TrimSuffix(w[1].Text, "-map"), limit))
		if err != nil {
			return err
		}
		if _, err := swcfg.Num(p.c.File, w[4], 7, "a local priority 0-7"); err != nil {
			return err
		}
		for _, d := range codes {
			dst[d] = w[4]
		}
	case len(w) >= 3 && w[0].Text == "qos" && w[1].Text == "queue-profile":
		p.c.Queues[w[2].Text] = map[int]Value{}
	case len(w) >= 3 && w[0].Text == "qos" && w[1].Text == "threshold-profile":
		p.c.Thresholds[w[2].Text] = map[int]*ECN{}
	case len(w) >= 4 && strings.HasPrefix(text, "apply qos queue-profile "):
		p.c.QueueProfile = w[3]
		if len(w) == 6 && w[4].Text == "schedule-profile" {
			p.notJudged(w[4:], 2) // ETS
		}
	case len(w) == 4 && strings.HasPrefix(text, "apply qos threshold-profile "):
		p.c.Threshold = w[3]
	case len(w) >= 2 && w[0].Text == "interface":
		p.interfaces(w)
	case len(w) >= 2 && w[0].Text == "qos" && (w[1].Text == "pool" || w[1].Text == "shape"),
		len(w) >= 2 && w[0].Text == "dcbx" && w[1].Text == "application",
		len(w) >= 2 && w[0].Text == "lldp" && w[1].Text == "dcbx":
		p.notJudged(w, 2)
	}
	return nil
}

// interfaces starts an `interface 1/1/1` or `interface lag 1` block;
// VLAN, loopback and management interfaces carry no port QoS.
func (p *parser) interfaces(w []Value) {
	var names []string
	switch {
	case len(w) >= 3 && w[1].Text == "lag":
		names = []string{"lag" + w[2].Text}
	case len(w) == 2 && strings.ContainsRune(w[1].Text, '/'):
		// The CLI enters a range as 1/1/1-1/1/4 (the running-config
		// writes each port): expanded as a name with a prefix.
		for _, n := range swcfg.ExpandNames("port" + w[1].Text) {
			names = append(names, strings.TrimPrefix(n, "port"))
		}
	}
	for _, n := range names {
		p.iface = append(p.iface, swcfg.Entered(&p.c.Interfaces, n, func(it *Interface) string { return it.Name }, func() *Interface {
			return &Interface{Name: n, At: w[0], PFC: map[int]Value{}}
		}))
	}
}

// ifaceLine reads a line of an interface block.
func (p *parser) ifaceLine(w []Value) error {
	text := strings.Join(swcfg.Texts(w), " ")
	for _, it := range p.iface {
		switch {
		case len(w) == 3 && text == "qos trust "+w[2].Text:
			if err := p.trust(&it.Trust, w[2]); err != nil {
				return err
			}
		case len(w) >= 3 && w[0].Text == "flow-control" && w[1].Text == "priority":
			if err := p.pfc(it, w); err != nil {
				return err
			}
		case len(w) == 4 && strings.HasPrefix(text, "apply qos threshold-profile "):
			it.Threshold = w[3]
		case len(w) == 2 && w[0].Text == "mtu":
			if _, err := swcfg.Num(p.c.File, w[1], 65535, "an MTU in bytes"); err != nil {
				return err
			}
			it.MTU = w[1]
		case strings.HasPrefix(text, "apply qos schedule-profile "), strings.HasPrefix(text, "flow-control buffer "),
			len(w) == 2 && w[0].Text == "flow-control", strings.HasPrefix(text, "lldp dcbx"), strings.HasPrefix(text, "qos cos "),
			strings.HasPrefix(text, "qos dscp "), strings.HasPrefix(text, "qos shape "):
			p.notJudged(w, 2)
		}
	}
	return nil
}

// trust reads `qos trust cos|dscp|none`.
func (p *parser) trust(dst *Value, v Value) error {
	if v.Text != "cos" && v.Text != "dscp" && v.Text != "none" {
		return &pos.Error{File: p.c.File, Line: v.Line, Col: v.Col, Msg: fmt.Sprintf("%q: expected cos, dscp or none", v.Text)}
	}
	*dst = v
	return nil
}

// pfc reads `flow-control priority rxtx 3` (the running-config's order)
// or `flow-control priority 3 rxtx`: tx and rxtx send pause, rx only
// honours it.
func (p *parser) pfc(it *Interface, w []Value) error {
	var mode, prios Value
	for _, v := range w[2:] {
		if v.Text == "rx" || v.Text == "tx" || v.Text == "rxtx" {
			mode = v
		} else {
			prios = v
		}
	}
	if !mode.Given() || !prios.Given() || len(w) != 4 {
		return &pos.Error{File: p.c.File, Line: w[1].Line, Col: w[1].Col, Msg: "expected flow-control priority rx|tx|rxtx PRIORITIES"}
	}
	list, err := swcfg.List(p.c.File, prios, 7, "priorities 0-7")
	if err != nil {
		return err
	}
	if mode.Text == "rx" {
		p.notJudged(w, 3) // honours pause but never sends it
		return nil
	}
	for _, n := range list {
		it.PFC[n] = prios
	}
	return nil
}

// mapQueue reads a queue profile's `map queue Q local-priority 1,2`.
func (p *parser) mapQueue(profile string, w []Value) error {
	if len(w) != 5 || w[0].Text != "map" || w[1].Text != "queue" || w[3].Text != "local-priority" {
		return nil // `name queue Q NAME`
	}
	if _, err := swcfg.Num(p.c.File, w[2], 7, "a queue 0-7"); err != nil {
		return err
	}
	lps, err := swcfg.List(p.c.File, w[4], 7, "local priorities 0-7")
	if err != nil {
		return err
	}
	for _, lp := range lps {
		p.c.Queues[profile][lp] = w[2]
	}
	return nil
}

// threshold reads a threshold profile's `queue Q action ecn [all]
// min-threshold N kbytes max-threshold N kbytes` or `… threshold N
// kbytes`; WRED actions are not judged.
func (p *parser) threshold(profile string, w []Value) error {
	if len(w) < 4 || w[0].Text != "queue" || w[2].Text != "action" {
		return nil
	}
	q, err := swcfg.Num(p.c.File, w[1], 7, "a queue 0-7")
	if err != nil {
		return err
	}
	if w[3].Text != "ecn" {
		p.notJudged(w, 4)
		return nil
	}
	at := func(k string) int { return slices.IndexFunc(w, func(v Value) bool { return v.Text == k }) }
	e := &ECN{At: w[3]}
	switch lo, hi, one := at("min-threshold"), at("max-threshold"), at("threshold"); {
	case lo > 0 && hi > 0 && lo+2 < len(w) && hi+2 < len(w):
		if e.Min, err = swcfg.Bytes(p.c.File, w[lo+1], w[lo+2]); err != nil {
			return err
		}
		if e.Max, err = swcfg.Bytes(p.c.File, w[hi+1], w[hi+2]); err != nil {
			return err
		}
	case one > 0 && one+2 < len(w):
		if e.Min, err = swcfg.Bytes(p.c.File, w[one+1], w[one+2]); err != nil {
			return err
		}
		e.Max = e.Min
	default:
		return &pos.Error{File: p.c.File, Line: w[3].Line, Col: w[3].Col, Msg: "expected min-threshold N kbytes max-threshold N kbytes, or threshold N kbytes"}
	}
	p.c.Thresholds[profile][q] = e
	return nil
}

// notJudged names a QoS setting no rule weighs by its first n words, once.
func (p *parser) notJudged(w []Value, n int) {
	p.c.NotJudged = swcfg.AddNotJudged(p.c.NotJudged, w, n)
}

// DefaultLocalPriority is AOS-CX's factory cos-map and dscp-map: a code
// point's local priority is IEEE 802.1Q's class of its CoS (a DSCP's top
// three bits): CoS 0 in local priority 1, CoS 1 in 0, the rest their own.
func DefaultLocalPriority(cos int) int { return swcfg.CoSTC(cos) }
