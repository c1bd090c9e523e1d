package doctor

import (
	"strings"
	"testing"
)

// lspci's own link marks, real: a PLX PEX 8725 port's LnkSta "Width x4
// (downgraded)" with its LnkCap cut from the paste (HeyMeco/Rockchip-
// pcie-devices#6), a ConnectX-7 whose LnkCap speed the lspci could not
// name beside a LnkSta of 16GT/s (MrBr-github/lshca#51: the card is
// Gen5, the link trained Gen4), and a Coral TPU's "Width x0
// (downgraded)", a link that trained no lanes (google-coral/edgetpu#742),
// each read as the downgrade lspci says it is.
func TestLspciOwnMarks(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/lspci/lspci-vvv-plx-pex8725-port-lnksta-x4-downgraded-lnkcap-cut-heymeco6.txt")
	f := nicMustFind(t, fs, "host.pcie.degraded", Info, "trained at 8GT/s x4 of its LnkCap (cut from the paste; lspci marks LnkSta downgraded against it); fewer lanes than the device has")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 4 {
		t.Errorf("evidence %v", f.Evidence)
	}

	fs = diagnoseFiles(t, Options{}, "corpus/lspci/lspci-grep-lnk-cx7-lnkcap-speed-unknown-lnksta-16gts-lshca51.txt")
	nicMustFind(t, fs, "host.pcie.degraded", Info, "trained at 16GT/s x16 of its speed unknown x16: a LnkCap speed this lspci cannot name, so above its LnkSta's 16 GT/s")

	fs = diagnoseFiles(t, Options{}, "corpus/lspci/lspci-vvv-coral-lnksta-speed-unknown-x0-link-down-edgetpu742.txt")
	nicMustNot(t, fs, "input.garbled")
	nicMustFind(t, fs, "host.pcie.degraded", Info, "trained at no lanes (x0: the link is down) of its 2.5GT/s x4; fewer lanes than the device has")

	// A PLX port's ACSCtl whose header is above the cut still warns, and
	// the ConnectX-5's two "Speed unknown" lines (pciutils#128) stay
	// unjudged: nothing says one is below the other.
	fs = diagnoseFiles(t, Options{}, "corpus/lspci/lspci-vvv-plx-pex8725-acsctl-redirect-cut-heymeco6.txt")
	f = nicMustFind(t, fs, "host.pcie.acs", Warn, "ACS redirects peer-to-peer traffic on 1 bridge")
	if !strings.Contains(f.Mechanism, "topology.servers acs") {
		t.Errorf("mechanism does not name the twin's key: %s", f.Mechanism)
	}
	// An Intel root port at 8GT/s x8 of x16 from an lspci that prints no
	// marks (openucx/ucx#9520): the numbers alone say it.
	fs = diagnoseFiles(t, Options{}, "corpus/lspci/lspci-vvv-rootport-8gts-x8-of-x16-cut-ucx9520.txt")
	nicMustFind(t, fs, "host.pcie.degraded", Info, "trained at 8GT/s x8 of its 8GT/s x16: 63.0 Gb/s of 126.0 Gb/s; fewer lanes than the device has")
	// A named device's fix names the twin's keys for its link, where the
	// twin has them: its gpu_pcie is a link of 16 lanes, so the RTX 3090
	// at 8GT/s x4 is not gpu_pcie: 3 (that would be four times its link).
	fs = diagnoseFiles(t, Options{}, "corpus/lspci/lspci-vvvv-rtx3090-gpu-8gts-x4-downgraded-rockchip.txt")
	f = nicMustFind(t, fs, "host.pcie.degraded", Warn, "GPU 0000:01:00.0")
	if strings.Contains(f.Fix, "gpu_pcie: ") || !strings.Contains(f.Fix, "The twin's gpu_pcie is a link of 16 lanes, so it does not model this x4 one.") {
		t.Errorf("fix names a twin key that is not this link: %s", f.Fix)
	}
	// And a NIC's, nic_pcie and nic_pcie_width: the synthetic ConnectX-7
	// at 16GT/s x16 is Gen4 x16.
	fs = diagnoseFiles(t, Options{}, "synthetic/lspci-vvv-switch-acs-cx7-gen4-synthetic.txt")
	f = nicMustFind(t, fs, "host.pcie.degraded", Warn, "ConnectX-7")
	if !strings.Contains(f.Fix, "topology.servers nic_pcie: 4, nic_pcie_width: 16 ") {
		t.Errorf("fix does not name the twin's keys: %s", f.Fix)
	}
	if fs := diagnoseFiles(t, Options{}, "corpus/lspci/lspci-grep-width-connectx5-socketdirect-speed-unknown-pciutils128.txt"); len(fs) != 0 {
		t.Errorf("speed unknown on both: %s", nicTitles(fs))
	}
}

// The twin keys a fix names are ones scenario accepts for the link read:
// gpu_pcie for a GPU's 16 lanes, nic_pcie 3 to 6 and nic_pcie_width a
// power of two to 16 for an RDMA NIC, none for a management port or a
// generation the twin does not model. And lspci's mark on the width alone,
// LnkCap cut, is lanes lost: a GPU's is a warning, not an idle speed.
func TestLspciTwinKeysInRange(t *testing.T) {
	const gpu = "0000:01:00.0 VGA compatible controller: NVIDIA Corporation GA102 [GeForce RTX 3090] (rev a1)\n"
	const cx7 = "0000:17:00.0 Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n"
	const i350 = "0000:05:00.0 Ethernet controller: Intel Corporation I350 Gigabit Network Connection (rev 01)\n"
	const x710 = "0000:06:00.0 Ethernet controller: Intel Corporation Ethernet Controller X710 for 10GbE SFP+ (rev 02)\n"
	for _, c := range []struct {
		name, text string
		sev        Severity
		want, not  string
	}{
		{"gpu gen3 x16", gpu + "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16\n\t\tLnkSta:\tSpeed 8GT/s (downgraded), Width x16\n", Info, "topology.servers gpu_pcie: 3 ", "nic_pcie"},
		{"gpu width marked, cap cut", gpu + "\t\tLnkSta:\tSpeed 16GT/s, Width x8 (downgraded)\n", Warn, "does not model this x8 one", "gpu_pcie: "},
		{"nic gen1", cx7 + "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16\n\t\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x16\n", Warn, "LnkSta must match LnkCap", "nic_pcie"},
		{"nic gen4 x8", cx7 + "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16\n\t\tLnkSta:\tSpeed 16GT/s (downgraded), Width x8 (downgraded)\n", Warn, "topology.servers nic_pcie: 4, nic_pcie_width: 8 ", "gpu_pcie"},
		{"management nic gen3", x710 + "\t\tLnkCap:\tPort #0, Speed 8GT/s, Width x8\n\t\tLnkSta:\tSpeed 8GT/s, Width x4 (downgraded)\n", Info, "LnkSta must match LnkCap", "nic_pcie"},
		{"nic x12", cx7 + "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16\n\t\tLnkSta:\tSpeed 16GT/s, Width x12 (downgraded)\n", Warn, "LnkSta must match LnkCap", "nic_pcie"},
		{"management nic", i350 + "\t\tLnkCap:\tPort #0, Speed 5GT/s, Width x4\n\t\tLnkSta:\tSpeed 5GT/s, Width x1 (downgraded)\n", Info, "LnkSta must match LnkCap", "nic_pcie"},
	} {
		fs := diagnoseText(t, c.text).Findings
		got := nicFind(fs, "host.pcie.degraded")
		if len(got) != 1 {
			t.Errorf("%s: %s", c.name, nicTitles(fs))
			continue
		}
		if f := got[0]; f.Severity != c.sev || !strings.Contains(f.Fix, c.want) || strings.Contains(f.Fix, c.not) {
			t.Errorf("%s: %v %s\nfix: %s", c.name, f.Severity, f.Title, f.Fix)
		}
	}
}

// An unmarked "Width x0", as lspci prints it before pciutils 3.6 and on a
// root port from 3.8 on, is a link down and no garble: a Xeon E5's root
// ports that trained nothing (jrgp/linfo#114) raise nothing, and an empty
// hot-plug slot's root port pasted alone (batocera.linux#8041, SltSta
// PresDet-) is an empty slot, not a degraded link: host.pcie.slot's info
// says no card is detected there (the reader's Wi-Fi card was not).
func TestLspciUnmarkedX0(t *testing.T) {
	if fs := diagnoseFiles(t, Options{}, "corpus/lspci/lspci-grep-lnksta-xeon-e5-rootports-x0-unmarked-linfo114.txt"); len(fs) != 0 {
		t.Errorf("root ports down: %s", nicTitles(fs))
	}
	fs := diagnoseFiles(t, Options{}, "corpus/lspci/lspci-vvv-rootport-lnksta-x0-unmarked-hotplug-empty-batocera8041.txt")
	nicMustNot(t, fs, "input.garbled")
	nicMustNot(t, fs, "host.pcie.degraded")
	f := nicMustFind(t, fs, "host.pcie.slot", Info, "a PCIe port the paste does not name has an empty slot (SltSta PresDet-), so its link trained no lanes (LnkSta Width x0)")
	if n := len(f.Evidence); n != 3 || f.Evidence[n-1].Line != 12 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// Synthetic, in lspci's forms: a root port whose slot has a card
// (PresDet+) and whose link trained no lanes warns that the card is not on
// the bus; the same port with an empty slot among a listing of more
// devices, and a port with a card whose link is up, raise nothing.
func TestLspciSlotPresent(t *testing.T) {
	const port = "0000:00:1c.0 PCI bridge: Intel Corporation Device a33c (rev f0)\n\t\tLnkCap:\tPort #5, Speed 8GT/s, Width x4\n"
	const nic = "0000:01:00.0 Ethernet controller: Mellanox Technologies MT2892 Family [ConnectX-6 Dx]\n\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16\n\t\tLnkSta:\tSpeed 16GT/s, Width x16\n"
	const down = "\t\tLnkSta:\tSpeed 2.5GT/s, Width x0\n"
	const present = "\t\tSltSta:\tStatus: AttnBtn- PowerFlt- MRL- CmdCplt- PresDet+ Interlock-\n"
	const empty = "\t\tSltSta:\tStatus: AttnBtn- PowerFlt- MRL- CmdCplt- PresDet- Interlock-\n"
	fs := diagnoseText(t, port+down+present+nic).Findings
	f := nicMustFind(t, fs, "host.pcie.slot", Warn, "PCIe port 0000:00:1c.0 Intel Corporation Device a33c has a card in its slot (SltSta PresDet+) but its link trained no lanes")
	if !strings.Contains(f.Fix, "lspci -vvv -s 0000:00:1c.0") {
		t.Errorf("fix: %s", f.Fix)
	}
	for name, text := range map[string]string{"empty in a listing": port + down + empty + nic, "link up": port + "\t\tLnkSta:\tSpeed 8GT/s, Width x4\n" + present + nic} {
		if got := nicFind(diagnoseText(t, text).Findings, "host.pcie.slot"); len(got) != 0 {
			t.Errorf("%s: %s", name, nicTitles(got))
		}
	}
}

// Synthetic, in pciutils' forms: lspci's "(overdriven)" (3.8 on) or
// "(strange)" (3.6, 3.7) on a LnkSta speed beside a LnkCap "Speed unknown"
// says LnkCap's speed field is below the link's, so the NIC is not told it
// can train faster than lspci can name.
func TestLspciOverdrivenNotBeyond(t *testing.T) {
	const hdr = "0000:17:00.0 Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n\t\tLnkCap:\tPort #0, Speed unknown, Width x16\n"
	for _, mark := range []string{"(overdriven)", "(strange)"} {
		fs := diagnoseText(t, hdr+"\t\tLnkSta:\tSpeed 16GT/s "+mark+", Width x16\n").Findings
		if got := nicFind(fs, "host.pcie.degraded"); len(got) != 0 {
			t.Errorf("%s: %s", mark, nicTitles(got))
		}
	}
}

// Synthetic: a LnkSta speed marked "(overdriven)" above a LnkCap of 8GT/s
// beside a width marked "(downgraded)": the device trained 16 GT/s, so it
// can do 16 GT/s x16 (252.1 Gb/s after 128b/130b), and x8 loses half of
// it, not none of LnkCap's 126.0 Gb/s.
func TestLspciOverdrivenSpeedRate(t *testing.T) {
	const text = "0000:17:00.0 Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n\t\tLnkCap:\tPort #0, Speed 8GT/s, Width x16\n\t\tLnkSta:\tSpeed 16GT/s (overdriven), Width x8 (downgraded)\n"
	nicMustFind(t, diagnoseText(t, text).Findings, "host.pcie.degraded", Warn, "trained at 16GT/s x8 of its 8GT/s x16 LnkCap, below the link it trained (lspci marks LnkSta overdriven), so at least 16GT/s x16: 126.0 Gb/s of 252.1 Gb/s (50% lost)")
}

// Synthetic, in lspci's forms: a port at x0 with a card in its slot and a
// device the listing shows on its secondary bus (read back as all ones, as
// a GPU that fell off the bus is) says the device went off the bus after
// it was enumerated, not that it never appeared; it still warns.
func TestLspciSlotPresentEnumerated(t *testing.T) {
	const text = "0000:00:1c.0 PCI bridge: Intel Corporation Device a33c (rev f0)\n\tBus: primary=00, secondary=02, subordinate=02, sec-latency=0\n\t\tLnkCap:\tPort #5, Speed 8GT/s, Width x4\n\t\tLnkSta:\tSpeed 2.5GT/s, Width x0\n\t\tSltSta:\tStatus: AttnBtn- PowerFlt- MRL- CmdCplt- PresDet+ Interlock-\n0000:02:00.0 3D controller: NVIDIA Corporation GA107M [GeForce RTX 3050 Mobile] (rev ff) (prog-if ff)\n\t!!! Unknown header type 7f\n"
	fs := diagnoseText(t, text).Findings
	f := nicMustFind(t, fs, "host.pcie.slot", Warn, "PCIe port 0000:00:1c.0 Intel Corporation Device a33c has a card in its slot (SltSta PresDet+) and 0000:02:00.0 NVIDIA Corporation GA107M [GeForce RTX 3050 Mobile] below it, but its link is down (LnkSta Width x0): the device went off the bus after it was enumerated")
	if strings.Contains(f.Title, "not on the bus") || f.Evidence[len(f.Evidence)-1].Line != 6 {
		t.Errorf("%s: evidence %+v", f.Title, f.Evidence)
	}
}

// A real lspci -vvv a mail client wrapped at about 80 columns (linux-pci,
// 2023: SltSta's PresDet+ on a line of its own) reads whole: no garble,
// and the root port's ACS is judged.
func TestLspciMailWrappedNoGarble(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/lspci/lspci-vvv-mail-wrapped-80col-rootport-sltsta-presdet-wrapped-acs-linuxpci-hotinsert.txt")
	nicMustNot(t, fs, "input.garbled")
	nicMustNot(t, fs, "host.pcie.slot")
	a := nicMustFind(t, fs, "host.pcie.acs", Info, "80:03.2")
	if len(a.Evidence) != 1 || a.Evidence[0].Line != 47 {
		t.Errorf("a root port's ACSCtl is cited once: %+v", a.Evidence)
	}
}

// Synthetic, in ls-caps.c's slot forms (the SltCtl Control line wrapped
// as a mail client wraps it): a card in a slot whose power controller
// software turned off (SltCap PwrCtrl+, SltCtl Power+: the kernel's
// PCI_EXP_SLTCTL_PWR_OFF bit) has its link down by the host's command, an
// info that names the slot's sysfs power file; before it warned that the
// card was not on the bus. Power+ without a power controller (PwrCtrl-)
// says nothing, and the warning stays.
func TestLspciSlotPoweredOff(t *testing.T) {
	const port = "0000:80:03.2 PCI bridge: Advanced Micro Devices, Inc. [AMD] Starship/Matisse GPP Bridge\n\t\tLnkCap:\tPort #2, Speed 16GT/s, Width x4\n\t\tLnkSta:\tSpeed 2.5GT/s, Width x0\n"
	const slot = "\t\t\tSlot #14, PowerLimit 75.000W; Interlock+ NoCompl-\n\t\tSltCtl:\tEnable: AttnBtn+ PwrFlt- MRL- PresDet- CmdCplt+ HPIrq+ LinkChg+\n\t\t\tControl: AttnInd Off, PwrInd Off,\nPower+ Interlock-\n\t\tSltSta:\tStatus: AttnBtn- PowerFlt- MRL- CmdCplt- PresDet+ Interlock-\n"
	fs := diagnoseText(t, port+"\t\tSltCap:\tAttnBtn+ PwrCtrl+ MRL- AttnInd+ PwrInd+ HotPlug+ Surprise+\n"+slot).Findings
	f := nicMustFind(t, fs, "host.pcie.slot", Info, "has a card in its slot (SltSta PresDet+) whose power is off (SltCap PwrCtrl+, SltCtl Power+, PwrInd Off)")
	// pciehp also powers off a slot whose card trained no link: the title
	// does not call it no fault.
	if !strings.Contains(f.Title, "by command or by pciehp after the card trained no link") || strings.Contains(f.Title, "no link fault") {
		t.Errorf("title %s", f.Title)
	}
	if !strings.Contains(f.Fix, "echo 1 > /sys/bus/pci/slots/14/power") || !evidenceHas(f, "Control: AttnInd Off, PwrInd Off,") {
		t.Errorf("fix %s\nevidence %+v", f.Fix, f.Evidence)
	}
	nicMustNot(t, fs, "input.garbled")
	fs = diagnoseText(t, port+"\t\tSltCap:\tAttnBtn- PwrCtrl- MRL- AttnInd- PwrInd- HotPlug- Surprise-\n"+slot).Findings
	nicMustFind(t, fs, "host.pcie.slot", Warn, "but its link trained no lanes")
}

// Synthetic, in ls-caps.c's slot forms pasted without any indent: SltCap's
// second line, "Slot #14, ...", at column 0 is read with SltCap, and the
// fix still names the slot's sysfs power file.
func TestLspciSlotPoweredOffFlat(t *testing.T) {
	const flat = "0000:80:03.2 PCI bridge: Advanced Micro Devices, Inc. [AMD] Starship/Matisse GPP Bridge\nLnkCap: Port #2, Speed 16GT/s, Width x4\nLnkSta: Speed 2.5GT/s, Width x0\nSltCap: AttnBtn+ PwrCtrl+ MRL- AttnInd+ PwrInd+ HotPlug+ Surprise+\nSlot #14, PowerLimit 75.000W; Interlock+ NoCompl-\nSltCtl: Enable: AttnBtn+ PwrFlt- MRL- PresDet- CmdCplt+ HPIrq+ LinkChg+\nControl: AttnInd Off, PwrInd Off, Power+ Interlock-\nSltSta: Status: AttnBtn- PowerFlt- MRL- CmdCplt- PresDet+ Interlock-\n"
	fs := diagnoseText(t, flat).Findings
	f := nicMustFind(t, fs, "host.pcie.slot", Info, "whose power is off (SltCap PwrCtrl+, SltCtl Power+, PwrInd Off)")
	if !strings.Contains(f.Fix, "echo 1 > /sys/bus/pci/slots/14/power") {
		t.Errorf("fix %s", f.Fix)
	}
	nicMustNot(t, fs, "input.garbled")
}
