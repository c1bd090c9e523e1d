package scenario

import (
	"fmt"
	"strings"

	"rocelab/internal/cc"
	"rocelab/internal/nic"
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
				Msg: "unknown DCQCN knob; expected preset or one of: " + strings.Join(cc.Names(), ", ")})
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

// applyCC gives the NIC its congestion control.
func (s *Scenario) applyCC(c *nic.Config) error {
	c.DCQCN = s.Host.NIC.DCQCN.Config
	return nil
}
