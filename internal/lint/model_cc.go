package lint

import (
	"fmt"

	"rocelab/internal/ingest"
)

// Congestion control in the model: the DSCP and priority the NICs mark
// CNPs with, and the priority masks DCQCN acts on.

func (m *Model) cnpMarking() cnpMarking {
	c := cnpMarking{DSCP: 48, Prio: 6}
	if d := m.Desc; d != nil && d.Host.NIC.DCQCN.Config != nil {
		cfg := d.Host.NIC.DCQCN.Config
		c.DSCP, c.Prio = int(cfg.CnpDscp), int(cfg.Cnp802pPrio)
		knobs := d.Host.NIC.DCQCN.Knobs
		if _, ev, ok := m.descSetting(knobs, "cnp_dscp"); ok {
			c.DSCPEv, c.Given = ev, true
		}
		if _, ev, ok := m.descSetting(knobs, "cnp_802p_prio"); ok {
			c.PrioEv, c.Given = ev, true
		}
	}
	for _, a := range m.Artifacts {
		switch v := a.(type) {
		case *ingest.DCQCNSysfs:
			for _, f := range v.Interfaces {
				if x, ok := f.Params["cnp_dscp"]; ok {
					if n, ok := x.Int(); ok {
						c.DSCP, c.DSCPEv, c.Given = int(n), x.Evidence, true
					}
				}
				if x, ok := f.Params["cnp_802p_prio"]; ok {
					if n, ok := x.Int(); ok {
						c.Prio, c.PrioEv, c.Given = int(n), x.Evidence, true
					}
				}
			}
		case *ingest.MlxConfig:
			for i := range v.Devices {
				for _, p := range v.Devices[i].Params {
					n, ok := p.Int()
					switch {
					case !ok:
					case p.Name == "CNP_DSCP":
						c.DSCP, c.DSCPEv, c.Given = int(n), p.Evidence, true
					case p.Name == "CNP_802P_PRIO":
						c.Prio, c.PrioEv, c.Given = int(n), p.Evidence, true
					}
				}
			}
		}
	}
	return c
}

func (m *Model) ccMasks() []ccMask {
	var out []ccMask
	if d := m.Desc; d != nil && d.Host.NIC.CC == "dcqcn" {
		// Only a mask the description sets: left out, it models the
		// firmware default 0xFF, which real NICs may not have.
		nic := &d.Host.NIC
		_, ev, ok := m.descSetting(nic.Firmware, "ROCE_CC_PRIO_MASK", "ROCE_CC_PRIO_MASK_P1", "ROCE_CC_PRIO_MASK_P2")
		if !ok {
			_, ev, ok = m.descSetting(nic.DCQCN.Knobs, "roce_cc_prio_mask")
		}
		if ok {
			out = append(out, ccMask{Name: "hosts (" + d.File + ")", Mask: nic.CCPrioMask, Evidence: ev, What: "ROCE_CC_PRIO_MASK"})
		}
	}
	for _, a := range m.Artifacts {
		switch v := a.(type) {
		case *ingest.MlxConfig:
			for i := range v.Devices {
				dev := &v.Devices[i]
				for _, p := range dev.Params {
					if p.Name != "ROCE_CC_PRIO_MASK" {
						continue
					}
					if n, ok := p.Int(); ok && n >= 0 && n <= 255 {
						name := dev.Device
						if name == "" {
							name = "mlxconfig"
						}
						if p.Port > 0 {
							name += fmt.Sprintf(" port %d", p.Port)
						}
						out = append(out, ccMask{Name: name, Mask: uint8(n), Evidence: p.Evidence, What: "ROCE_CC_PRIO_MASK", Device: dev.Device})
					}
				}
			}
		case *ingest.DCQCNSysfs:
			for _, f := range v.Interfaces {
				if mask, ok := ingest.EnabledMask(f.RPEnable); ok {
					out = append(out, ccMask{Name: f.Name, Mask: mask, Evidence: firstEnableEvidence(f.RPEnable), What: "ecn/roce_rp/enable"})
				}
			}
		}
	}
	return out
}

func firstEnableEvidence(m map[int]ingest.SysfsValue) Evidence {
	best := Evidence{}
	for _, v := range m {
		if best.Line == 0 || v.Evidence.Line < best.Line {
			best = v.Evidence
		}
	}
	return best
}
