package scenario

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/cc"
	"rocelab/internal/fabric"
	"rocelab/internal/nic"
	"rocelab/internal/packet"
	"rocelab/internal/topo"
	"rocelab/internal/unit"
)

// dcqcnConfig returns the DCQCN configuration host.dcqcn and host.firmware
// describe, or nil when host.cc is none. Knob errors are reported at the
// knob's position.
func (c *conv) dcqcnConfig(n *NICSpec) *cc.DCQCNConfig {
	if n.CC != "dcqcn" {
		return nil
	}
	cfg, err := cc.Preset(n.DCQCN.Preset)
	if err != nil {
		c.errs = append(c.errs, &Error{File: c.file, Path: "host.dcqcn.preset", Msg: err.Error()})
		return nil
	}
	set := func(s Setting, path, name string) {
		v, err := s.Int()
		if err == nil {
			err = cfg.Set(name, v)
		} else {
			err = fmt.Errorf("expected an integer, got %s", quote(s.Value))
		}
		if err != nil {
			c.errs = append(c.errs, &Error{File: c.file, Line: s.Line, Col: s.Col, Path: path, Msg: err.Error()})
		}
	}
	for _, s := range n.DCQCN.Knobs {
		if _, ok := cc.LookupKnob(s.Name); !ok {
			c.errs = append(c.errs, &Error{File: c.file, Line: s.Line, Col: s.Col, Path: "host.dcqcn." + s.Name,
				Msg: "unknown DCQCN knob; expected preset or one of: " + strings.Join(cc.Names(), ", ") + hint(s.Name, cc.Names())})
			continue
		}
		set(s, "host.dcqcn."+s.Name, s.Name)
	}
	for _, s := range n.Firmware {
		if strings.TrimSuffix(strings.TrimSuffix(s.Name, "_P1"), "_P2") == "ROCE_CC_PRIO_MASK" {
			set(s, "host.firmware."+s.Name, "roce_cc_prio_mask")
		}
	}
	return &cfg
}

// rttCC fills the TIMELY, HPCC, HPCC-PINT or DCTCP configuration when
// host.cc selects it,
// and the priority mask (ROCE_CC_PRIO_MASK, 0xFF unless host.firmware
// sets it) it acts on.
func (c *conv) rttCC(n *NICSpec) {
	switch n.CC {
	case "timely":
		n.Timely.Config = ccConfig(c, n.Timely, "host.timely", cc.TimelyPreset, (*cc.TimelyConfig).Set, cc.TimelyKnobs.Names())
	case "hpcc":
		n.HPCC.Config = ccConfig(c, n.HPCC, "host.hpcc", cc.HPCCPreset, (*cc.HPCCConfig).Set, cc.HPCCKnobs.Names())
	case "dctcp":
		n.DCTCP.Config = ccConfig(c, n.DCTCP, "host.dctcp", cc.DCTCPPreset, (*cc.DCTCPConfig).Set, cc.DCTCPKnobs.Names())
	case "hpcc-pint":
		n.PINT.Config = ccConfig(c, n.PINT, "host.hpcc_pint", cc.PINTPreset, (*cc.PINTConfig).Set, cc.PINTKnobs.Names())
	default:
		return
	}
	n.CCPrioMask = 0xFF
	for _, s := range n.Firmware {
		if strings.TrimSuffix(strings.TrimSuffix(s.Name, "_P1"), "_P2") != "ROCE_CC_PRIO_MASK" {
			continue
		}
		if v, err := s.Int(); err != nil || v < 0 || v > 0xFF {
			c.errs = append(c.errs, &Error{File: c.file, Line: s.Line, Col: s.Col, Path: "host.firmware." + s.Name, Msg: fmt.Sprintf("expected a priority mask 0..0xFF, got %s", quote(s.Value))})
		} else {
			n.CCPrioMask = uint8(v)
		}
	}
}

// ccConfig builds an algorithm's configuration from its preset and knobs,
// reporting each bad knob at its position.
func ccConfig[C any](c *conv, spec CCSpec[C], path string, preset func(string) (C, error), set func(*C, string, int64) error, names []string) *C {
	cfg, err := preset(spec.Preset)
	if err != nil {
		c.errs = append(c.errs, &Error{File: c.file, Path: path + ".preset", Msg: err.Error()})
		return nil
	}
	for _, k := range spec.Knobs {
		v, err := k.Int()
		if err != nil {
			err = fmt.Errorf("expected an integer, got %s", quote(k.Value))
		} else if err = set(&cfg, k.Name, v); err != nil && !slices.Contains(names, k.Name) {
			err = fmt.Errorf("unknown knob; expected preset or one of: %s%s", strings.Join(names, ", "), hint(k.Name, names))
		}
		if err != nil {
			c.errs = append(c.errs, &Error{File: c.file, Line: k.Line, Col: k.Col, Path: path + "." + k.Name, Msg: err.Error()})
		}
	}
	return &cfg
}

// applyCC gives the NIC its congestion control. HPCC's, HPCC-PINT's and
// DCTCP's base RTT and window, when not set, come from the fabric's
// longest path.
func (s *Scenario) applyCC(c *nic.Config) error {
	n := &s.Host.NIC
	c.DCQCN = n.DCQCN.Config
	c.CCPrio = n.CCPrioMask
	c.Timely = n.Timely.Config
	if h := n.HPCC.Config; h != nil {
		v := *h
		if v.BaseRTT == 0 {
			v.BaseRTT = int64(s.BaseRTT() / unit.Nanosecond)
		}
		c.HPCC = &v
	}
	if d := n.DCTCP.Config; d != nil {
		v := *d
		if v.BaseRTT == 0 {
			v.BaseRTT = int64(s.BaseRTT() / unit.Nanosecond)
		}
		c.DCTCP = &v
	}
	if p := s.pint(); p != nil {
		c.PINT = p
	}
	return nil
}

// pint is the HPCC-PINT configuration with its base RTT set, nil unless
// host.cc selects it.
func (s *Scenario) pint() *cc.PINTConfig {
	p := s.Host.NIC.PINT.Config
	if p == nil {
		return nil
	}
	v := *p
	if v.BaseRTT == 0 {
		v.BaseRTT = int64(s.BaseRTT() / unit.Nanosecond)
	}
	return &v
}

// pintSwitch is what the switches need to write HPCC-PINT's telemetry, nil
// unless host.cc selects it.
func (s *Scenario) pintSwitch() *fabric.PINTConfig {
	p := s.pint()
	if p == nil {
		return nil
	}
	return &fabric.PINTConfig{T: unit.Time(p.BaseRTT) * unit.Nanosecond, Encode: p.Code().Encode}
}

// BaseRTT is the largest unloaded round trip between two hosts, as the
// HPCC ns-3 model computes it for its base RTT T (GLOBAL_T): twice the
// propagation delay of the longest path plus one MTU packet's
// serialisation at each of its hops, and each switch's forwarding latency
// both ways (half of it at each link end a switch holds: a path's switches
// are each the end of two of its links).
func (s *Scenario) BaseRTT() unit.Time {
	frame := unit.Bytes(packet.DataFrame(s.Host.MTU, packet.RETH, s.Host.VLAN) + packet.PreambleIFG)
	delay, tx := s.Topo.WorstPath(func(l topo.Link) (unit.Time, unit.Time) {
		d := l.Cable.Delay()
		if lat := s.Switch.Latency; lat > 0 {
			for _, n := range [2]int{l.A, l.B} {
				if s.Topo.Nodes[n].Kind == topo.Switch {
					d += lat / 2
				}
			}
		}
		return d, l.Rate.TxTime(frame)
	})
	return 2*delay + tx
}
