package ingest

import "strings"

// The slot lines of `lspci -vvv`, which it prints only for a root or
// downstream port whose Slot Implemented bit is set (ls-caps.c
// cap_express_slot):
//
//	SltCap:	AttnBtn+ PwrCtrl+ MRL- AttnInd+ PwrInd+ HotPlug+ Surprise+
//		Slot #14, PowerLimit 75.000W; Interlock+ NoCompl-
//	SltCtl:	Enable: AttnBtn+ PwrFlt- MRL- PresDet- CmdCplt+ HPIrq+ LinkChg+
//		Control: AttnInd Off, PwrInd On, Power- Interlock-
//	SltSta:	Status: AttnBtn- PowerFlt- MRL- CmdCplt- PresDet+ Interlock-

// SlotStatus is the SltSta line of a port that has a slot:
// "SltSta: Status: AttnBtn- PowerFlt- MRL- CmdCplt- PresDet- Interlock-".
type SlotStatus struct {
	// Present is PresDet, the slot's Presence Detect State: a card is in
	// the slot.
	Present  bool
	Evidence Evidence
}

// SlotPower is what a port's SltCap and SltCtl say of its slot's power.
type SlotPower struct {
	// Controller is SltCap's PwrCtrl: the slot has a power controller,
	// so software can turn it on and off.
	Controller bool
	// Number is the slot's physical number ("14" of "Slot #14"), which
	// pciehp names its sysfs slot by (/sys/bus/pci/slots/14); "" when
	// not printed.
	Number string
	// Off is SltCtl's "Power+": the Power Controller Control bit set,
	// which asks the controller to turn the slot's power off
	// (PCI_EXP_SLTCTL_PCC, 0x0400 = PCI_EXP_SLTCTL_PWR_OFF in the
	// kernel's pci_regs.h; lspci prints the bit as it is). It says
	// nothing without a Controller.
	Off bool
	// Indicator is the power indicator SltCtl names ("On", "Off",
	// "Blink", "Unknown"), "" when not printed.
	Indicator string
	// ControlSet is set once SltCtl's Control line was read; Evidence
	// is that line.
	ControlSet bool
	Evidence   Evidence
}

// PoweredOff reports a slot whose power controller software turned off.
func (d PCIDevice) PoweredOff() bool {
	return d.SlotPower != nil && d.SlotPower.Controller && d.SlotPower.ControlSet && d.SlotPower.Off
}

// slot reads "SltSta: Status: AttnBtn- PowerFlt- MRL- CmdCplt- PresDet-
// Interlock-": whether a card is in the port's slot.
func (p *lspciParser) slot(rest string, l Line) {
	present, seen := false, false
	for _, f := range strings.Fields(rest) {
		if f == "PresDet+" || f == "PresDet-" {
			present, seen = f == "PresDet+", true
			break
		}
	}
	if !seen {
		p.garble(l, "SltSta", len(rest)-len(strings.TrimLeft(rest, " \t")), "'Status: ... PresDet+' or 'PresDet-' after SltSta:")
		return
	}
	p.out.lines.add(l)
	p.block = "SltSta"
	d := p.device(func(d *PCIDevice) bool { return d.Slot != nil })
	if d == nil {
		return
	}
	d.Slot = &SlotStatus{Present: present, Evidence: At(p.out.src, l)}
	if d.Evidence.Line == 0 {
		d.Evidence = d.Slot.Evidence
	}
}

// slotPower returns the open device's slot power, made on first use; nil
// outside a device.
func (p *lspciParser) slotPower() *SlotPower {
	if p.cur == nil {
		return nil
	}
	if p.cur.SlotPower == nil {
		p.cur.SlotPower = &SlotPower{}
	}
	return p.cur.SlotPower
}

// slotCap reads SltCap's PwrCtrl flag: whether the slot has a power
// controller. A line without it is not read (its other flags say
// nothing rocelab judges). The slot number of SltCap's second line is
// read here too when that line was rejoined to it (a paste that lost
// every indent puts it at column 0).
func (p *lspciParser) slotCap(rest string, l Line) {
	p.block = "SltCap"
	if i := strings.Index(rest, "Slot #"); i >= 0 {
		p.slotNumber(rest[i:], l)
	}
	for _, f := range strings.Fields(rest) {
		if f == "PwrCtrl+" || f == "PwrCtrl-" {
			if sp := p.slotPower(); sp != nil {
				p.out.lines.add(l)
				sp.Controller = f == "PwrCtrl+"
			}
			return
		}
	}
}

// slotNumber reads the physical slot number of SltCap's second line,
// "Slot #14, PowerLimit 75.000W; Interlock+ NoCompl-".
func (p *lspciParser) slotNumber(t string, l Line) {
	n, ok := strings.CutPrefix(t, "Slot #")
	if !ok {
		return
	}
	n = strings.TrimSpace(n)
	i := 0
	for i < len(n) && n[i] >= '0' && n[i] <= '9' {
		i++
	}
	if i == 0 {
		return
	}
	if sp := p.slotPower(); sp != nil {
		p.out.lines.add(l)
		sp.Number = strings.Clone(n[:i])
	}
}

// slotControl reads SltCtl's second line, "Control: AttnInd Off, PwrInd
// On, Power- Interlock-": the power indicator and the Power Controller
// Control bit. A line without the Power flag (cut, or wrapped with the
// rest to come) is not read.
func (p *lspciParser) slotControl(rest string, l Line) {
	p.block = "SltCtl"
	sp := p.slotPower()
	if sp == nil {
		return
	}
	ind := ""
	if _, after, ok := strings.Cut(rest, "PwrInd "); ok {
		ind, _, _ = strings.Cut(after, ",")
		ind = strings.TrimSpace(ind)
	}
	for _, f := range strings.Fields(rest) {
		if f == "Power+" || f == "Power-" {
			p.out.lines.add(l)
			sp.Off, sp.Indicator, sp.ControlSet = f == "Power+", strings.Clone(ind), true
			sp.Evidence = At(p.out.src, l)
			return
		}
	}
}
