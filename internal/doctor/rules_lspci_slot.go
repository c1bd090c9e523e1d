package doctor

import (
	"fmt"

	"rocelab/internal/ingest"
)

// checkLspciSlots reports the ports whose link trained no lanes (LnkSta
// Width x0) by what their slot's presence detect says: a card in the slot
// (SltSta PresDet+) whose link did not train is a card the host does not
// see, a warning, unless software turned the slot's power off (SltCap
// PwrCtrl+, SltCtl Power+), which is said as an info; an empty slot (PresDet-) is no fault, said only when the
// paste is that port alone (the reader asked about it: the card they look
// for is not detected in its slot).
func checkLspciSlots(inc *Incident) []Finding {
	var fs []Finding
	for _, p := range All[*ingest.Lspci](inc) {
		for _, d := range p.Devices {
			if d.Slot == nil || !d.Sta.Down {
				continue
			}
			if f, ok := slotFinding(p, d); ok {
				fs = append(fs, f)
			}
		}
	}
	return fs
}

// slotFinding is host.pcie.slot for one port at x0 with a slot status.
func slotFinding(p *ingest.Lspci, d ingest.PCIDevice) (Finding, bool) {
	port := "PCIe port " + d.Label()
	if d.BDF == "" {
		port = "a PCIe port the paste does not name"
	}
	ev := evidenceInOrder([]Evidence{d.Evidence, d.Cap.Evidence, d.Sta.Evidence, d.Slot.Evidence})
	mech := "SltSta's PresDet is the slot's Presence Detect State: a card is in the slot (PresDet+) or none is (PresDet-); lspci prints the slot lines only for a port whose slot is implemented. LnkSta Width x0 is a link that trained no lanes."
	bdf := nameOr(d.BDF, "<port bdf>")
	f := Finding{ID: "host.pcie.slot", Layer: LayerNCCL, Evidence: ev}
	group := "Empty PCIe slots"
	below, enumerated := deviceBelow(p, d)
	switch {
	case d.Slot.Present && d.PoweredOff():
		sp := d.SlotPower
		f.Severity = Info
		f.Evidence = evidenceInOrder(append(ev, sp.Evidence))
		ind := ""
		if sp.Indicator != "" {
			ind = ", PwrInd " + sp.Indicator
		}
		f.Title = fmt.Sprintf("%s: %s has a card in its slot (SltSta PresDet+) whose power is off (SltCap PwrCtrl+, SltCtl Power+%s), so its link is down (LnkSta Width x0): the host turned the slot off, by command or by pciehp after the card trained no link (dmesg tells which)", p.Source(), port, ind)
		f.Mechanism = mech + " A slot with a power controller (SltCap PwrCtrl+) is powered by the port's command: SltCtl's Power Controller Control bit set asks for power off (the kernel's pci_regs.h names it PCI_EXP_SLTCTL_PWR_OFF; lspci prints the bit, so Power+ is off). pciehp sets it when told to (`echo 0 > /sys/bus/pci/slots/<n>/power`), when the card was removed or its attention button pressed, or when it found no link after powering the slot. A card without power trains no link and is not on the bus: a NIC or GPU there is missing for NCCL. The slot's power alone does not say why it is off: pciehp powers off a slot whose card did not train after power-on (board_added, pciehp_ctrl.c) exactly as it does on command."
		slot := "<n>"
		if sp.Number != "" {
			slot = sp.Number
		}
		f.Fix = fmt.Sprintf("If the card is meant to be off, nothing is wrong. Otherwise power the slot on as root, `echo 1 > /sys/bus/pci/slots/%s/power` (pciehp; the slot's number is SltCap's 'Slot #'), and read dmesg for pciehp's 'Slot(%s)' lines: 'Card present' then 'No link' is a card that does not train (reseat it, check its power and riser). Then `lspci -vvv -s %s` must show Power- in SltCtl, a LnkSta width above x0 and the card below the port.", slot, slot, bdf)
		group = "PCIe slots powered off with a card"
	case d.Slot.Present && enumerated:
		f.Severity = Warn
		f.Evidence = evidenceInOrder(append(ev, below.Evidence))
		f.Title = fmt.Sprintf("%s: %s has a card in its slot (SltSta PresDet+) and %s below it, but its link is down (LnkSta Width x0): the device went off the bus after it was enumerated, or is powered off (D3cold)", p.Source(), port, below.Label())
		f.Mechanism = mech + " A device the listing shows on the port's secondary bus was enumerated, so its link trained once; a link at x0 under it dropped later: a device that fell off the bus (lspci then reads its config space as all ones: rev ff, 'Unknown header type 7f'), or one that runtime power management put in D3cold with its link off. A NIC or GPU off the bus is gone for NCCL until the host resets it."
		f.Fix = fmt.Sprintf("Read `cat /sys/bus/pci/devices/%s/power_state` (D3cold is power management, not a fault) and dmesg for the link going down (pciehp 'Link Down', AER errors, NVIDIA's Xid 79 'GPU has fallen off the bus'); a device that fell off needs a reset or reboot, and reseating, power and riser checks if it recurs. Then `lspci -vvv -s %s` must show a LnkSta width above x0.", nameOr(below.BDF, "<device bdf>"), bdf)
		group = "PCIe slots whose device went off the bus"
	case d.Slot.Present:
		f.Severity = Warn
		f.Title = fmt.Sprintf("%s: %s has a card in its slot (SltSta PresDet+) but its link trained no lanes (LnkSta Width x0): the card is not on the bus", p.Source(), port)
		f.Mechanism = mech + " A card that is present but whose link never trained is not enumerated: no device appears below the port, no driver binds, and a NIC or GPU in that slot is missing from the host (ibv_devices, nvidia-smi), so NCCL runs without it or on fewer ranks."
		f.Fix = fmt.Sprintf("Reseat the card and check its power cables, riser and retimer; read `dmesg | grep -i -E 'pcie|link'` for training errors and the port's LnkCtl (LnkDisable+ keeps the link down) and SltCtl (the slot's power); then `lspci -vvv -s %s` must show a LnkSta width above x0 and the card must appear below the port.", bdf)
		group = "PCIe slots with a card whose link is down"
	case len(p.Devices) != 1:
		return Finding{}, false // an empty slot among a whole listing is no news
	default:
		f.Severity = Info
		f.Title = fmt.Sprintf("%s: %s has an empty slot (SltSta PresDet-), so its link trained no lanes (LnkSta Width x0): no link fault, and no card detected there", p.Source(), port)
		f.Mechanism = mech + " With no card detected in the slot, a port's link has nothing to train with, so x0 is what an empty slot shows (lspci 3.8 and later leave a root or downstream port's LnkSta unmarked for it)."
		f.Fix = fmt.Sprintf("If a card is fitted in the slot of %s, the slot does not detect it: reseat it (fully into the connector), check the riser and that the slot is enabled in the BIOS; otherwise the card you are looking for is in another slot (`lspci -tv` shows which ports have devices below them).", bdf)
	}
	return f.per(d.Label(), "port", group, d.BDF, "<bdf>"), true
}

// deviceBelow returns a device the listing shows on port d's secondary bus.
func deviceBelow(p *ingest.Lspci, d ingest.PCIDevice) (ingest.PCIDevice, bool) {
	for _, c := range p.Devices {
		if a, ok := p.Above(c); ok && a.BDF == d.BDF && a.Host == d.Host {
			return c, true
		}
	}
	return ingest.PCIDevice{}, false
}
