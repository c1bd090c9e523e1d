package nvue

import "strconv"

// Defaults NVUE applies where the configuration is silent. Without RoCE
// (Cumulus Linux 5.14 user guide, CumulusNetworks/docs content/cumulus-
// linux-514/Layer-1-and-Switch-Ports/Quality-of-Service/_index.md, commit
// 0d142afe, and its default qos_features.conf; the applied tree of a 5.5.1
// switch agrees): trust l2 (802.1p), DSCP d to switch priority d>>3 when
// DSCP is trusted, switch priority n to traffic class n, ECN on traffic
// class 0 from 150000 to 1500000 bytes at 100 % with RED off, no PFC.
// With `qos roce` (5.15 user guide, RDMA-over-Converged-Ethernet-RoCE.md,
// commit 48a436d5: its "Default RoCE Configuration" table and `nv show qos
// roce`): trust pcp and dscp, switch priority 3 to class 3 and 6 to 6 and
// the rest to 0, class 6 strict and 3 and 0 DWRR 50 %, ECN on classes 0
// and 3 (150000 to 1500000 bytes, 100 %), PFC on switch priority 3 in the
// lossless modes, 100 m of cable.
const (
	defaultKmin = "150000"
	defaultKmax = "1500000"
	defaultProb = "100"
	// DefaultProfile is the profile that applies to every port without
	// one of its own.
	DefaultProfile = "default-global"
)

// The ECN profile mode lossy-multi-tc sets on traffic classes 1, 2 and 3
// (163.00 KB and 234.00 KB at 5 %, as `nv show qos roce` prints them on
// NVIDIA's RoCE page, 5.15): shallow on purpose, beside packet trimming.
const (
	MultiTCKmin = 166912
	MultiTCKmax = 239616
	MultiTCProb = 5
)

// RoCE reports whether `qos roce` is on, its mode (lossless unless set)
// and the value that says so.
func (c *Config) RoCE() (on bool, mode string, at Value) {
	on = c.RoCEEnable.Text == "on" || c.RoCEMode.Given() && c.RoCEEnable.Text != "off"
	at = c.RoCEEnable
	if c.RoCEMode.Given() {
		at = c.RoCEMode
	}
	if !on {
		return false, "", at
	}
	mode = "lossless"
	if c.RoCEMode.Text != "" {
		mode = c.RoCEMode.Text
	}
	return on, mode, at
}

// Lossless reports whether the RoCE mode keeps PFC.
func Lossless(mode string) bool { return mode == "lossless" || mode == "lossless-single-ipool" }

// multiTCDSCP is lossy-multi-tc's DSCP → switch priority map, as `nv show
// qos roce` prints it on NVIDIA's RoCE page (5.15).
var multiTCDSCP = func() (m [64]int) {
	for d := range m {
		switch {
		case d == 1 || d == 2:
			m[d] = 1
		case d == 3 || d == 4:
			m[d] = 2
		case d == 5 || d == 6:
			m[d] = 3
		case d >= 11 && d <= 40:
			m[d] = 4
		}
	}
	return m
}()

// Resolve fills what the configuration leaves to NVUE's defaults into
// its default-global profiles. A default RoCE sets is placed where `qos
// roce` is written; a default that holds without RoCE has no position.
func (c *Config) Resolve() {
	on, mode, at := c.RoCE()
	def := func(text string) Value {
		if on {
			return Value{Text: text, Line: at.Line, Col: at.Col}
		}
		return Value{Text: text}
	}
	m := c.mapping(DefaultProfile)
	if m.Trust.Text == "" {
		m.Trust = def("l2")
		if on {
			m.Trust.Text = "both"
		}
	}
	for d := range m.DSCP {
		if m.DSCP[d].Text == "" {
			sp := d >> 3
			if mode == "lossy-multi-tc" {
				sp = multiTCDSCP[d]
			}
			m.DSCP[d] = def(strconv.Itoa(sp))
		}
	}
	for p := range m.PCP {
		if m.PCP[p].Text == "" {
			m.PCP[p] = def(strconv.Itoa(p))
		}
	}
	for _, mp := range c.Mapping {
		if mp.DefaultSP.Text == "" {
			mp.DefaultSP = Value{Text: "0"}
		}
	}
	for sp := range c.EgressMap {
		if c.EgressMap[sp].Text != "" {
			continue
		}
		tc := sp
		if on && mode != "lossy-multi-tc" && sp != 3 && sp != 6 {
			tc = 0
		}
		c.EgressMap[sp] = def(strconv.Itoa(tc))
	}
	f := c.pfc(DefaultProfile)
	if !f.PriosAt.Given() && len(f.Prios) == 0 && on && Lossless(mode) {
		f.Prios, f.PriosAt = []int{3}, def("3")
	}
	for _, p := range c.PFC {
		if p.Tx.Text == "" {
			p.Tx = Value{Text: "enable", Line: p.PriosAt.Line, Col: p.PriosAt.Col}
		}
		if p.Rx.Text == "" {
			p.Rx = Value{Text: "enable", Line: p.PriosAt.Line, Col: p.PriosAt.Col}
		}
	}
	if !c.ecnStated {
		tcs := []int{0}
		switch {
		case mode == "lossy-multi-tc":
			tcs = []int{1, 2, 3}
		case on:
			tcs = []int{0, 3}
		}
		for _, tc := range tcs {
			e := c.ecn(DefaultProfile, tc)
			e.ECN, e.RED = def("enable"), def("disable")
			if mode == "lossy-multi-tc" {
				e.Min, e.Max, e.Prob = def(strconv.Itoa(MultiTCKmin)), def(strconv.Itoa(MultiTCKmax)), def(strconv.Itoa(MultiTCProb))
			}
		}
	}
	for _, prof := range c.CC {
		for _, e := range prof {
			fill := func(v *Value, text string) {
				if v.Text == "" {
					*v = Value{Text: text}
				}
			}
			fill(&e.ECN, "enable")
			fill(&e.RED, "disable")
			fill(&e.Min, defaultKmin)
			fill(&e.Max, defaultKmax)
			fill(&e.Prob, defaultProb)
		}
	}
	if len(c.Sched[DefaultProfile]) == 0 {
		for tc := range 8 {
			s := c.sched(DefaultProfile, tc)
			switch {
			case on && mode != "lossy-multi-tc" && tc == 6:
				s.Mode = def("strict")
			case on && mode != "lossy-multi-tc" && (tc == 3 || tc == 0):
				s.Mode, s.BW = def("dwrr"), def("50")
			case !on:
				s.Mode = def("dwrr")
			}
		}
	}
}
