// Package onyx reads the QoS an NVIDIA (Mellanox) Onyx / MLNX-OS
// configuration sets for RoCE: `show running-config` or the commands an
// engineer types (with or without the `switch (config) #` prompt): global
// PFC (`dcb priority-flow-control enable`, `dcb priority-flow-control
// priority 3 enable`), and per interface range the PFC mode, `qos trust`,
// each traffic class's `congestion-control ecn minimum-absolute KB
// maximum-absolute KB`, and the MTU and speed. `show running-config`
// prints each as a flat line (`interface ethernet 1/1 qos trust L3`); a
// session types them also inside the interface's mode, after `interface
// ethernet 1/1` on a line of its own (the prompt then names the mode,
// `switch (config interface ethernet 1/1) #`, or, without prompts, the
// mode's commands are indented below it). Every value keeps its line and
// column; sonic.FromOnyx writes it as CONFIG_DB rows for lint's rules.
package onyx

import (
	"fmt"
	"strconv"
	"strings"

	"rocelab/internal/pos"
	"rocelab/internal/swcfg"
)

// Value is a setting with where it is written.
type Value = swcfg.Value

// ECN is a traffic class's `congestion-control ecn|red` line: thresholds
// in bytes (Onyx writes KB of 1024 bytes).
type ECN struct {
	At       Value // "ecn" or "red"
	Min, Max Value
}

// Interface is what the input sets for one port.
type Interface struct {
	Name string
	At   Value
	// PFC is `dcb priority-flow-control mode on|off|auto` (auto when not
	// written); Trust `qos trust L2|L3|both` (L2 when not written).
	PFC, Trust, MTU, Speed Value
	ECN                    map[int]*ECN
}

// Config is what an Onyx configuration says of QoS.
type Config struct {
	File  string
	Lines []string
	// PFCOn is `dcb priority-flow-control enable`; Prios the priorities
	// `dcb priority-flow-control priority N enable` turns on.
	PFCOn Value
	Prios map[int]Value
	// RoCE is Onyx's one-command RoCE setup (`roce [lossless|
	// semi-lossless|lossy]`, 3.8.2000 on), Text its mode: lossless when
	// not written. `no roce` clears it.
	RoCE       Value
	Interfaces []*Interface
	NotJudged  []Value
	byName     map[string]*Interface
}

// InfiniBand returns the first line (1-based) of an InfiniBand switch's
// MLNX-OS configuration (SB7800, QM8700): `interface ib 1/1 …` or the
// subnet manager's `ib sm …`. It prints the same `## Running database`
// header as Onyx on Ethernet, but carries no RoCE. A configuration with
// Ethernet ports too (a gateway's) is none.
func InfiniBand(data []byte) (int, string, bool) {
	line, text := 0, ""
	for i, raw := range strings.Split(string(data), "\n") {
		t := command(raw)
		if strings.HasPrefix(t, "interface ethernet ") {
			return 0, "", false
		}
		if line == 0 && (strings.HasPrefix(t, "interface ib ") || t == "ib sm" || strings.HasPrefix(t, "ib sm ")) {
			line, text = i+1, t
		}
	}
	return line, text, line > 0
}

// IsConfig reports whether text holds Onyx's QoS commands, on an
// Ethernet switch (not InfiniBand's MLNX-OS).
func IsConfig(data []byte) bool {
	if _, _, ib := InfiniBand(data); ib {
		return false
	}
	for _, raw := range strings.Split(string(data), "\n") {
		t := command(raw)
		if strings.HasPrefix(t, "dcb priority-flow-control ") || strings.HasPrefix(t, "interface ethernet ") && (strings.Contains(t, " traffic-class ") || strings.Contains(t, " dcb priority-flow-control ") || strings.Contains(t, " qos trust ")) {
			return true
		}
		// `show running-config`'s header, or `roce` typed at a prompt.
		if strings.HasPrefix(t, "## Running database ") || strings.HasPrefix(t, "## Active saved database ") {
			return true
		}
		if _, mode := prompted(raw); mode != "" && (t == "roce" || strings.HasPrefix(t, "roce ")) {
			return true
		}
		// Typed in an interface's mode: `traffic-class 3
		// congestion-control ecn …` is Onyx's alone.
		if f := strings.Fields(t); len(f) >= 4 && f[0] == "traffic-class" && f[2] == "congestion-control" {
			return true
		}
	}
	return false
}

// command is a line without its prompt ("switch (config) # ") and
// indent.
func command(raw string) string {
	t, _ := prompted(raw)
	return t
}

// prompted splits a line into its command and the mode its prompt names:
// "interface ethernet 1/1" for `switch (config interface ethernet 1/1) #`,
// "config" for `switch (config) #`, "" when the line has no prompt.
func prompted(raw string) (cmd, mode string) {
	t := strings.TrimSpace(raw)
	i := strings.Index(t, "# ")
	if i <= 0 {
		return t, ""
	}
	open := strings.Index(t[:i], "(config")
	end := strings.LastIndex(t[:i], ")")
	if open < 0 || end < open {
		return t, ""
	}
	mode = t[open+1 : end]
	if m, ok := strings.CutPrefix(mode, "config "); ok {
		mode = strings.TrimSpace(m)
	}
	return strings.TrimSpace(t[i+2:]), mode
}

// portMode reports whether w opens the mode of a port Onyx sets QoS on:
// `interface ethernet 1/1`, `port-channel 1`, `mlag-port-channel 1`.
func portMode(w []Value) bool {
	return len(w) == 3 && w[0].Text == "interface" && (w[1].Text == "ethernet" || w[1].Text == "port-channel" || w[1].Text == "mlag-port-channel")
}

// global reports whether w is a command of the configuration mode that a
// session may type inside an interface's mode: Onyx keeps one list of
// PFC priorities for the switch, none per port.
func global(w []Value) bool {
	return len(w) >= 3 && w[0].Text == "dcb" && w[1].Text == "priority-flow-control" && (w[2].Text == "enable" || w[2].Text == "priority")
}

// Parse reads an Onyx configuration. A QoS command it knows with a value
// Onyx would not accept is an error at its place.
func Parse(name string, data []byte) (*Config, error) {
	c := &Config{File: name, Lines: strings.Split(string(data), "\n"), Prios: map[int]Value{}, byName: map[string]*Interface{}}
	// in is the `interface …` words of the port mode the session is in,
	// nil in the configuration mode; depth the indent of the bare
	// interface line that opened it (-1: its prompt names it).
	var in []Value
	depth := -1
	for i, raw := range c.Lines {
		t, mode := prompted(raw)
		if t == "" || t[0] == '#' {
			continue
		}
		off := strings.Index(raw, t)
		w := swcfg.Words(raw[off:], i+1)
		for j := range w {
			w[j].Col += off
		}
		indent := len(raw) - len(strings.TrimLeft(raw, " \t"))
		switch {
		case mode != "":
			in, depth = nil, -1
			if at := strings.Index(raw, mode); strings.HasPrefix(mode, "interface ") {
				if m := swcfg.Words(raw[at:at+len(mode)], i+1); portMode(m) {
					for j := range m {
						m[j].Col += at
					}
					in = m
				}
			}
		case depth >= 0 && indent <= depth:
			in, depth = nil, -1
		}
		switch {
		case portMode(w):
			in, depth = w, indent
			if mode != "" {
				depth = -1
			}
			continue
		case t == "exit" || t == "end":
			in, depth = nil, -1
			continue
		case in != nil && w[0].Text != "interface" && !global(w):
			w = append(append([]Value{}, in...), w...)
		}
		if err := c.line(w); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *Config) line(w []Value) error {
	text := strings.Join(swcfg.Texts(w), " ")
	switch {
	case strings.HasPrefix(text, "dcb priority-flow-control enable"):
		c.PFCOn = w[2]
	case len(w) == 5 && strings.HasPrefix(text, "dcb priority-flow-control priority ") && (w[4].Text == "enable" || w[4].Text == "disable"):
		p, err := swcfg.Num(c.File, w[3], 7, "a priority 0-7")
		if err != nil {
			return err
		}
		if w[4].Text == "enable" {
			c.Prios[p] = w[3]
		} else {
			delete(c.Prios, p)
		}
	case w[0].Text == "roce" && len(w) <= 2:
		c.RoCE = w[0]
		c.RoCE.Text = "lossless"
		if len(w) == 2 {
			if m := w[1].Text; m != "lossless" && m != "semi-lossless" && m != "lossy" {
				return &pos.Error{File: c.File, Line: w[1].Line, Col: w[1].Col, Msg: fmt.Sprintf("%q: expected a RoCE mode (lossless, semi-lossless or lossy)", m)}
			}
			c.RoCE.Text = w[1].Text
		}
	case len(w) == 2 && w[0].Text == "no" && w[1].Text == "roce":
		c.RoCE = Value{}
	case len(w) >= 4 && w[0].Text == "interface" && (w[1].Text == "ethernet" || w[1].Text == "port-channel" || w[1].Text == "mlag-port-channel"):
		return c.iface(w)
	case len(w) >= 2 && (w[0].Text == "advanced" || w[0].Text == "qos" || w[0].Text == "dcb"):
		c.notJudged(w, 2)
	case len(w) >= 2 && w[0].Text == "pool":
		c.notJudged(w, 1)
	}
	return nil
}

// iface reads `interface ethernet 1/1-1/4 SETTING`.
func (c *Config) iface(w []Value) error {
	prefix := map[string]string{"ethernet": "Eth", "port-channel": "Po", "mlag-port-channel": "Mpo"}[w[1].Text]
	var its []*Interface
	for _, n := range swcfg.ExpandNames(prefix + w[2].Text) {
		it := c.byName[n]
		if it == nil {
			it = &Interface{Name: n, At: w[0], ECN: map[int]*ECN{}}
			c.byName[n] = it
			c.Interfaces = append(c.Interfaces, it)
		}
		its = append(its, it)
	}
	s := w[3:]
	text := strings.Join(swcfg.Texts(s), " ")
	for _, it := range its {
		switch {
		case len(s) >= 4 && strings.HasPrefix(text, "dcb priority-flow-control mode "):
			it.PFC = s[3]
		case len(s) == 3 && s[0].Text == "qos" && s[1].Text == "trust":
			it.Trust = s[2]
		case len(s) >= 2 && s[0].Text == "mtu":
			it.MTU = s[1]
		case len(s) >= 2 && s[0].Text == "speed":
			if v, ok := speed(s[1]); ok {
				it.Speed = v
			}
		case len(s) >= 3 && s[0].Text == "traffic-class" && s[2].Text == "congestion-control":
			if err := c.ecn(it, s); err != nil {
				return err
			}
		case len(s) >= 1 && (s[0].Text == "pfc-wd" || s[0].Text == "ingress-buffer" || s[0].Text == "egress-buffer"):
			c.notJudged(s, 1)
		case len(s) >= 1 && (s[0].Text == "traffic-class" || s[0].Text == "qos" || s[0].Text == "dcb"):
			c.notJudged(s, 3)
		}
	}
	return nil
}

// ecn reads `traffic-class T congestion-control ecn|red minimum-absolute
// KB maximum-absolute KB`; relative thresholds (a share of the buffer)
// are not judged.
func (c *Config) ecn(it *Interface, s []Value) error {
	tc, err := swcfg.Num(c.File, s[1], 7, "a traffic class 0-7")
	if err != nil {
		return err
	}
	if len(s) == 4 || len(s) >= 4 && s[3].Text == "none" {
		delete(it.ECN, tc)
		return nil
	}
	if len(s) != 8 || s[4].Text != "minimum-absolute" || s[6].Text != "maximum-absolute" || (s[3].Text != "ecn" && s[3].Text != "red") {
		c.notJudged(s, 5)
		return nil
	}
	e := &ECN{At: s[3]}
	for i, v := range []Value{s[5], s[7]} {
		n, err := swcfg.Num(c.File, v, 1<<24, "a threshold in KB")
		if err != nil {
			return err
		}
		v.Text = strconv.Itoa(n * 1024)
		if i == 0 {
			e.Min = v
		} else {
			e.Max = v
		}
	}
	it.ECN[tc] = e
	return nil
}

// speed reads `speed 100G` (or 100000) into Mb/s.
func speed(v Value) (Value, bool) {
	s := strings.ToUpper(strings.TrimSuffix(v.Text, "full"))
	mult := 1
	if strings.HasSuffix(s, "G") {
		s, mult = strings.TrimSuffix(s, "G"), 1000
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return Value{}, false
	}
	v.Text = strconv.Itoa(n * mult)
	return v, true
}

func (c *Config) notJudged(w []Value, n int) {
	c.NotJudged = swcfg.AddNotJudged(c.NotJudged, w, n)
}
