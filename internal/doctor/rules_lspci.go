package doctor

import (
	"fmt"
	"strconv"
	"strings"

	"rocelab/internal/ingest"
	"rocelab/internal/pcie"
)

// Rules over `lspci -vvv`: the host-side causes of slow collectives the
// twin models as topology.servers knobs (a NIC's or GPU's PCIe link below
// what it can do, ACS sending peer-to-peer traffic through the root
// complex), and the lines of such a dump that could not be read.

func lspciRules() []Rule {
	return []Rule{
		{IDs: []string{"host.pcie.degraded"}, Check: checkLspciLinks},
		{IDs: []string{"host.pcie.acs"}, Check: checkLspciACS},
		{IDs: []string{"host.pcie.slot"}, Check: checkLspciSlots},
		{IDs: []string{"host.pcie.ok"}, Check: checkLspciOK},
		{IDs: []string{"host.pcie.unread"}, Check: checkLspciDenied},
		{IDs: []string{"input.garbled"}, Check: checkLspciGarbled},
		{IDs: []string{"input.garbled"}, Check: checkPCISysfsGarbled},
	}
}

// checkLspciLinks reports NICs and GPUs whose LnkSta is below their
// LnkCap, and the one link of a paste that is LnkCap and LnkSta alone;
// and, from sysfs link files, every device whose current link is below
// its max, unless its class file names it as none of a NIC, a GPU or a
// port (without that file sysfs does not say what a device at an address
// is).
func checkLspciLinks(inc *Incident) []Finding {
	var fs []Finding
	for _, p := range All[*ingest.Lspci](inc) {
		if f, ok := unnamedLinkFinding(p); ok {
			fs = append(fs, f)
			continue
		}
		for _, d := range p.Devices {
			if d.Role != ingest.RoleNIC && d.Role != ingest.RoleGPU || !d.Downgraded() {
				continue
			}
			fs = append(fs, linkFinding(inc, p, d))
		}
	}
	for _, p := range All[*ingest.PCISysfs](inc) {
		for _, d := range p.Devices {
			// A device named only by its address whose link trained no
			// lanes is most often a root or switch downstream port with an
			// empty slot below it; without its class file sysfs does not
			// say which, and a bridge's class says it is a port. An
			// endpoint the class names (a NIC, a GPU) enumerated, so its
			// link at x0 went down after. A device its class file names as
			// none of a NIC, a GPU or a port (an NVMe drive) is left alone,
			// as lspci's are.
			if d.Role == ingest.RoleOther && d.Class != "" && d.Class != "PCI bridge" {
				continue
			}
			if d.Downgraded() && !(d.Sta.Down && d.Role == ingest.RoleOther) {
				fs = append(fs, linkFinding(inc, p, d))
			}
		}
	}
	return fs
}

// A pciListing is an input's PCI devices: lspci's, or sysfs's link files.
type pciListing interface {
	ingest.Artifact
	Above(ingest.PCIDevice) (ingest.PCIDevice, bool)
}

// unnamedLinkFinding is an info for a paste that is one device's LnkCap
// and LnkSta and nothing more (`lspci -vvv -s BUS | grep Lnk`, the lines
// copied out of its block), the link below its capability: the device is
// the one the reader asked about, but what it is the paste does not say,
// so the finding says what each kind would mean. A grep over every
// device, bridges with nothing below them among them, is left alone.
func unnamedLinkFinding(p *ingest.Lspci) (Finding, bool) {
	if len(p.Devices) != 1 {
		return Finding{}, false
	}
	d := p.Devices[0]
	if d.BDF != "" || d.Role != ingest.RoleOther || !d.Downgraded() || d.Slot != nil && d.Sta.Down {
		return Finding{}, false // a port's slot status tells a link down (host.pcie.slot)
	}
	title := fmt.Sprintf("%s: a PCIe link the paste does not name trained at %s of its %s", p.Source(), d.Sta, capText(d))
	if d.Sta.GTs > 0 && d.Cap.GTs > 0 && !d.Sta.Down {
		got, could := d.Sta.Rate(), d.Capable().Rate()
		title += fmt.Sprintf(": %s of %s", rateText(got), rateText(could))
	}
	switch {
	case d.WidthLost():
		title += "; fewer lanes than the device has"
	case d.Cap.Set() || d.Sta.SpeedMarked:
		title += "; a GPU lowers its speed when idle, a NIC does not"
	}
	return Finding{
		ID: "host.pcie.degraded", Severity: Info, Layer: LayerNCCL,
		Title:    title,
		Evidence: evidenceInOrder([]Evidence{d.Cap.Evidence, d.Sta.Evidence}),
		Mechanism: "LnkCap is the link the device can train, LnkSta the one it trained with the port above it. The paste holds these two lines alone, so which device they are is not in it. " +
			"An NVIDIA GPU lowers its link speed when idle and raises it under load, so a GPU's lower speed read while idle is no fault; a NIC, or any device with fewer lanes than it has, moves no more than LnkSta allows: a slot wired narrower, a riser, retimer or BIOS setting of an older generation, or a link that fell back on signal errors.",
		Fix: "Read the device's whole block, `lspci -vvv -s <bus>` as root (its header names the device), and for a GPU read it under load (`nvidia-smi -q -d PCIE` beside a running job): LnkSta must then match LnkCap.",
	}.per(d.Label(), "device", "PCIe link narrower or slower than the device", d.BDF, "<bdf>"), true
}

func linkFinding(inc *Incident, p pciListing, d ingest.PCIDevice) Finding {
	what := "Device"
	switch d.Role {
	case ingest.RoleNIC:
		what = "NIC"
	case ingest.RoleOther:
	default:
		what = strings.ToUpper(d.Role[:1]) + d.Role[1:]
	}
	title := fmt.Sprintf("%s %s: PCIe link trained at %s of its %s", what, d.Label(), d.Sta, capText(d))
	if d.Sta.GTs > 0 && d.Cap.GTs > 0 && !d.Sta.Down {
		got, could := d.Sta.Rate(), d.Capable().Rate()
		title += fmt.Sprintf(": %s of %s (%.0f%% lost)", rateText(got), rateText(could), 100*(1-got.Gbps()/could.Gbps()))
	}
	ev := []Evidence{d.Evidence, d.Cap.Evidence, d.Sta.Evidence}
	sev := Warn
	widthLost := d.WidthLost()
	crosses := "Every byte the NIC sends or receives crosses this link, so it moves no more than LnkSta allows (less after TLP overhead, 80-90% of it) whatever its port can do. "
	if d.Role == ingest.RoleOther {
		crosses = "If the device carries collective traffic (a NIC, a GPU, or a PCIe switch port above them), every byte of it crosses this link, so it moves no more than the link allows (less after TLP overhead, 80-90% of it). "
	}
	if d.Role == ingest.RoleGPU {
		crosses = "Every byte between the GPU's memory and the host or a NIC (GPUDirect RDMA reads and writes, NCCL's host-staged copies, PCIe peer-to-peer between GPUs without NVLink) crosses this link, so the GPU moves no more than LnkSta allows (less after TLP overhead, 80-90% of it). "
	}
	mech := "LnkCap is the link the device can train (its generation's GT/s and its lanes), LnkSta the link it trained with the port above it, each lane's rate after line coding (8b/10b to 5 GT/s, 128b/130b from 8 GT/s). " +
		crosses +
		"A narrower link is a slot with fewer electrical lanes, a riser or bifurcation split, or lanes that failed to train (a badly seated card); a slower one a slot, riser or BIOS setting of an older generation, or signal problems that made the link fall back."
	if d.RDMA() {
		if rate, rateEv, known := nicPortRate(inc, p.Scope(), "", d.BDF); known && d.Sta.GTs > 0 && d.Sta.Rate() < rate {
			sev = Error
			title += fmt.Sprintf(": below the %s port", rateText(rate))
			if rateEv.File != "" {
				ev = append(ev, rateEv)
			}
		}
	} else if d.Role == ingest.RoleNIC {
		sev = Info
		title += " (not an RDMA NIC family rocelab knows: a management port?)"
	} else if d.Role == ingest.RoleOther && d.Class == "PCI bridge" {
		sev = Info
		title += " (a PCI bridge, its class file says: a root or switch port, whose devices below share this link; read them with lspci -vvv)"
	} else if d.Role == ingest.RoleOther {
		sev = Info
		title += " (the input does not say what the device is: a NIC's or a GPU's lost lanes cost bandwidth, an idle GPU's lower speed does not; read it with lspci -vvv)"
		mech += " The sysfs link files do not name the device's class (its class file does), so whether this link carries collective traffic is not in the input."
	} else if !widthLost {
		sev = Info
		title += " (GPUs lower their link speed when idle: read it again under load)"
		mech += " NVIDIA GPUs lower their PCIe speed when idle to save power and raise it again under load, so a GPU's speed alone, read while it was idle, is no fault; its width is."
	}
	if _, ok := p.(*ingest.PCISysfs); ok {
		mech += " In sysfs, current_link_speed and current_link_width are LnkSta, max_link_speed and max_link_width LnkCap."
	}
	slot := ""
	if b, ok := p.Above(d); ok && b.Cap.Set() {
		ev = append(ev, b.Cap.Evidence)
		if b.Cap.Width < d.Cap.Width || b.Cap.GTs > 0 && d.Cap.GTs > 0 && b.Cap.GTs < d.Cap.GTs {
			slot = fmt.Sprintf("the port above it (%s) can do only %s: the slot is the limit", b.Label(), b.Cap)
		} else {
			slot = fmt.Sprintf("the port above it (%s) can do %s: the card, its seating, riser or the link's signal trained lower", b.Label(), b.Cap)
		}
		title += "; " + slot
	}
	if uses, uev := ncclUses(inc, p.Scope(), d.BDF); uses != "" {
		title += "; " + uses
		ev = append(ev, uev...)
	}
	bdf := nameOr(d.BDF, "<bdf>")
	fix := fmt.Sprintf("Reseat the card or move it to a slot wired x%d of its generation (%s), check the riser or retimer and the BIOS slot settings (link speed Auto or Gen%d, bifurcation x%d), then confirm with `lspci -vvv -s %s | grep -E 'LnkCap|LnkSta'` (LnkSta must match LnkCap; if the port above the card shows the same LnkSta, the slot is the limit).",
		d.Cap.Width, gtsText(d.Cap.GTs), pcieGen(d.Cap.GTs), d.Cap.Width, bdf)
	if strings.HasSuffix(slot, "the slot is the limit") {
		fix = fmt.Sprintf("Move the card to a slot wired x%d of its generation (%s): this one's port cannot train more (check the server's slot map, and the BIOS bifurcation of the slot's lanes); confirm with `lspci -vvv -s %s | grep -E 'LnkCap|LnkSta'`.", d.Cap.Width, gtsText(d.Cap.GTs), bdf)
	}
	if !d.Cap.Set() {
		fix = fmt.Sprintf("Read what the card can train, `lspci -vvv -s %s | grep -E 'LnkCap|LnkSta'` as root, then reseat it or move it to a slot wired as wide as LnkCap of its generation, and check the riser or retimer and the BIOS slot settings (link speed Auto, bifurcation); LnkSta must match LnkCap.", bdf)
	}
	if d.Role == ingest.RoleGPU {
		fix += fmt.Sprintf(" Under load, `nvidia-smi -q -d PCIE -i %s` shows the current against the maximum link generation and width.", bdf)
	}
	if d.Role == ingest.RoleGPU || d.RDMA() {
		fix += twinLinkKeys(d)
	}
	return Finding{
		ID: "host.pcie.degraded", Severity: sev, Layer: LayerNCCL,
		Title:     p.Source() + ": " + title,
		Evidence:  evidenceInOrder(ev),
		Mechanism: mech,
		Fix:       fix,
	}.per(d.Label(), "device", "PCIe link narrower or slower than the device", d.BDF, "<bdf>")
}

// ncclUses says how NCCL logs (of the host of at, or of no stated host)
// use the device at bdf: for a GPU, which they name by busId, the ranks
// whose communicator runs on it and GPUDirect RDMA decisions about it; for
// a NIC, the IB device whose port line (NCCL 2.27+) ends in its PCI path.
func ncclUses(inc *Incident, at ingest.Scope, bdf string) (string, []Evidence) {
	if bdf == "" {
		return "", nil
	}
	bdf = fullBDF(bdf)
	var ranks, devs []string
	var ev []Evidence
	gdr := ""
	for _, l := range All[*ingest.NCCLLog](inc) {
		if reachOf(at, l.Scope()) == otherHost {
			continue
		}
		for _, g := range l.RankGPUs {
			if strings.EqualFold(busIDToBDF(g.BusID), bdf) {
				ranks = append(ranks, fmt.Sprintf("rank %d (cudaDev %d)", g.Rank, g.CudaDev))
				if len(ev) < 2 {
					ev = append(ev, g.Evidence)
				}
			}
		}
		for _, p := range l.IBPorts {
			// NCCL prints the NIC's path with the function set to 0: the
			// ports of one NIC share it.
			if a := p.PCIAddr(); len(a) == len(bdf) && strings.EqualFold(a[:len(a)-1], bdf[:len(bdf)-1]) {
				devs = append(devs, p.Device)
				if len(ev) < 2 {
					ev = append(ev, p.Evidence)
				}
			}
		}
		for _, d := range l.GDR {
			if gdr == "" && strings.EqualFold(busIDToBDF(d.GPU), bdf) {
				gdr = "GPUDirect RDMA disabled for it"
				if d.Enabled {
					gdr = "GPUDirect RDMA enabled for it"
				}
				ev = append(ev, d.Evidence)
			}
		}
	}
	var parts []string
	if len(ranks) > 0 {
		parts = append(parts, "NCCL "+list(distinct(ranks), 3)+" runs on it")
	}
	if len(devs) > 0 {
		parts = append(parts, "NCCL uses it as "+list(distinct(devs), 3))
	}
	if gdr != "" {
		parts = append(parts, "NCCL has "+gdr)
	}
	return strings.Join(parts, ", "), ev
}

// gtsText names a speed as lspci prints it.
func gtsText(gts float64) string {
	if gts == 0 {
		return "its generation"
	}
	return strconv.FormatFloat(gts, 'f', -1, 64) + " GT/s"
}

// twinLinkKeys names the topology.servers keys that give the twin's
// servers this link, so the cost to a collective can be measured there:
// nic_pcie (3 to 6) and nic_pcie_width (1 to 16 lanes, a power of two) for
// a NIC, gpu_pcie (3 to 6, a link of 16 lanes) for a GPU. "" when the
// link is down, its generation unknown, or the twin has no key that
// gives it.
func twinLinkKeys(d ingest.PCIDevice) string {
	gen := pcieGen(d.Sta.GTs)
	w := d.Sta.Width
	switch {
	case gen < 3 || gen > 6 || d.Sta.Down:
		return ""
	case d.Role == ingest.RoleGPU && w == 16:
		return fmt.Sprintf(" To see what the link costs a collective, run the twin with topology.servers gpu_pcie: %d (`rocelab run`, docs/nccl.md 'Host-side causes').", gen)
	case d.Role == ingest.RoleGPU:
		return fmt.Sprintf(" The twin's gpu_pcie is a link of 16 lanes, so it does not model this x%d one.", w)
	case w > 16 || w&(w-1) != 0:
		return ""
	}
	return fmt.Sprintf(" To see what the link costs a collective, run the twin with topology.servers nic_pcie: %d, nic_pcie_width: %d (`rocelab run`, docs/nccl.md 'Host-side causes').", gen, w)
}

// capText formats the link a device can train for a title: LnkCap as
// lspci prints it, what a speed it could not name means, or the mark
// standing in for a LnkCap the paste cut.
func capText(d ingest.PCIDevice) string {
	switch {
	case !d.Cap.Set():
		return "LnkCap (cut from the paste; lspci marks LnkSta downgraded against it)"
	case d.Sta.SpeedOver || d.Sta.WidthOver:
		return fmt.Sprintf("%s LnkCap, below the link it trained (lspci marks LnkSta overdriven), so at least %s", d.Cap, d.Capable())
	case d.CapBeyondLspci():
		return fmt.Sprintf("%s: a LnkCap speed this lspci cannot name, so above its LnkSta's %s (an lspci older than the device's PCIe generation)", d.Cap, gtsText(d.Sta.GTs))
	}
	return d.Cap.String()
}

// pcieGen returns the PCIe generation of a lane rate, 0 when unknown.
func pcieGen(gts float64) int {
	g, _ := pcie.OfRate(gts)
	return g.N
}

// checkLspciACS reports bridges whose ACS redirects peer-to-peer traffic.
func checkLspciACS(inc *Incident) []Finding {
	var fs []Finding
	for _, p := range All[*ingest.Lspci](inc) {
		var sw, root, srcOnly []ingest.PCIDevice
		for _, d := range p.Devices {
			switch {
			case d.ACS == nil:
			case d.ACS.Redirects() && d.Role == ingest.RoleRoot:
				root = append(root, d)
			case d.ACS.Redirects():
				sw = append(sw, d)
			case d.ACS.SrcValid:
				srcOnly = append(srcOnly, d)
			}
		}
		if len(sw)+len(root) == 0 || atsDirect(p) {
			continue // atsDirect: host.pcie.ats tells the VM setup
		}
		sev, on := Warn, sw
		where := fmt.Sprintf("%s of PCIe switches or bridges", plural(len(sw), "port", "ports"))
		if len(sw) == 0 {
			sev, on = Info, root
			where = fmt.Sprintf("CPU root %s only", plural(len(root), "port", "ports"))
		}
		if unnamed(on) {
			where = plural(len(on), "bridge", "bridges") + " (lspci lines without their device)"
		}
		// on is root when no switch port redirects: each is cited once.
		var ev []Evidence
		for _, d := range append(sw, root...) {
			if len(ev) < 8 {
				ev = append(ev, d.ACS.Evidence)
			}
		}
		title := fmt.Sprintf("%s: ACS redirects peer-to-peer traffic on %s%s", p.Source(), where, labels(on))
		if len(sw) > 0 && len(root) > 0 {
			title += fmt.Sprintf(", and on %s", plural(len(root), "CPU root port", "CPU root ports"))
		}
		if len(srcOnly) > 0 {
			title += fmt.Sprintf("; %d more validate sources only", len(srcOnly))
		}
		mech := "Access Control Services on a PCIe bridge with ReqRedir+/CmpltRedir+ (or EgressCtrl+) send every peer-to-peer request and completion between devices below it up to the root complex (and its IOMMU) and back, instead of across the switch. " +
			"GPUDirect RDMA is peer-to-peer: the NIC reading and writing GPU memory. With ACS on between a GPU and its NIC, that traffic takes the detour: NCCL's bandwidth drops (the twin's topology.servers acs halves the NIC's DMA), and on some platforms peer transfers hang or fail (NCCL completion errors). " +
			"NCCL's troubleshooting guide asks for ACS off on bare metal; in a VM with devices passed through, ACS is what isolates them (IOMMU groups) and must stay, and ATS on the NIC lets its translated peer requests go direct."
		if sev == Info {
			mech += " Here only root ports redirect: traffic between devices under different root ports crosses the root complex anyway, so only devices directly below one root port with peers are affected."
		}
		if gdr := ncclGDRNote(inc, p.Scope()); gdr != "" {
			mech += " " + gdr
		}
		fs = append(fs, Finding{
			ID: "host.pcie.acs", Severity: sev, Layer: LayerNCCL,
			Title:     title,
			Evidence:  ev,
			Mechanism: mech,
			Fix:       acsFix(on),
		}.per(p.Source(), "input", "ACS redirecting peer-to-peer traffic"))
	}
	return fs
}

// unnamed reports devices read from grepped lines, without an address.
func unnamed(ds []ingest.PCIDevice) bool {
	for _, d := range ds {
		if d.BDF != "" {
			return false
		}
	}
	return true
}

// labels lists the devices' addresses: " (0000:16:01.0, ...)".
func labels(ds []ingest.PCIDevice) string {
	var names []string
	for _, d := range ds {
		if d.BDF != "" {
			names = append(names, d.BDF)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " (" + list(names, 6) + ")"
}

// acsCtlRegister is where a bridge's ACS control register sits for
// setpci: past the ACS capability's offset when lspci printed it.
func acsCtlRegister(d ingest.PCIDevice) string {
	if off, err := strconv.ParseUint(d.ACSOffset, 16, 16); err == nil {
		return strconv.FormatUint(off+6, 16)
	}
	return "ECAP_ACS+0x6"
}

// setpciACS gives the setpci commands that write value(its ACSCtl) into
// the ACS control register of each bridge lspci names, six at most.
func setpciACS(ds []ingest.PCIDevice, value func(ingest.ACSControl) int) []string {
	var cmds []string
	for _, d := range ds {
		if d.BDF == "" || d.ACS == nil || len(cmds) >= 6 {
			continue
		}
		cmds = append(cmds, fmt.Sprintf("setpci -s %s %s.w=%04x", d.BDF, acsCtlRegister(d), value(*d.ACS)))
	}
	return cmds
}

// acsFix gives the setpci commands that clear ACS control on each bridge,
// at the capability's offset when lspci printed it.
func acsFix(ds []ingest.PCIDevice) string {
	cmds := setpciACS(ds, func(ingest.ACSControl) int { return 0 })
	fix := "On bare metal, turn ACS off: in the BIOS (the PCIe ACS setting, or IO virtualization / VT-d / IOMMU where that is what enables it), or at runtime as root on each bridge, which lasts until reboot: "
	if len(cmds) > 0 {
		fix += "`" + strings.Join(cmds, "; ") + "`"
	} else {
		fix += "`setpci -s <bdf> ECAP_ACS+0x6.w=0000` for every bridge whose `lspci -vvv -s <bdf>` shows ACSCtl with ReqRedir+ or CmpltRedir+"
	}
	return fix + ". Check with `sudo lspci -vvv | grep ACSCtl` (every line SrcValid- ReqRedir- CmpltRedir-) and NCCL's log ('GDR 1', /GDRDMA on NET channels). In a VM keep ACS and enable ATS on the NIC instead (mlxconfig -d <dev> set ATS_ENABLED=true, with the hypervisor's ATS support)."
}

// ncclGDRNote says what an NCCL log of the same host shows about
// GPUDirect RDMA, naming the GPUs by the address lspci prints.
func ncclGDRNote(inc *Incident, at ingest.Scope) string {
	for _, l := range All[*ingest.NCCLLog](inc) {
		if r := reachOf(at, l.Scope()); r == otherHost {
			continue
		}
		g := l.GDRReport()
		switch {
		case len(g.Enabled) > 0 || len(g.RingsOn) > 0 || len(g.ChannelsOn) > 0:
			return fmt.Sprintf("NCCL's log %s uses GPUDirect RDMA (%s), so its NET traffic crosses these bridges peer to peer.", l.Source(), gdrEvidence(g))
		case len(g.Disabled) > 0:
			var gpus []string
			for _, d := range g.Disabled {
				if bdf := busIDToBDF(d.GPU); bdf != "" {
					gpus = append(gpus, bdf)
				}
			}
			if len(gpus) > 0 {
				return fmt.Sprintf("NCCL's log %s has GPUDirect RDMA off for GPU %s (%s): not because of ACS, but turning it on later puts its traffic on these bridges.", l.Source(), list(distinct(gpus), 4), g.Disabled[0].Evidence)
			}
		}
	}
	return ""
}

// gdrEvidence cites the first line that shows GPUDirect RDMA in use.
func gdrEvidence(g ingest.GDRReport) string {
	switch {
	case len(g.Enabled) > 0:
		return g.Enabled[0].Evidence.String()
	case len(g.RingsOn) > 0:
		return g.RingsOn[0].Evidence.String()
	}
	return g.ChannelsOn[0].First.String()
}

// lspciReadsLink reports whether an lspci of the host of at (or of no
// stated host) shows the link state of the device at bdf: it, not the
// kernel's probe-time line in dmesg, judges that link (checkLspciLinks).
func lspciReadsLink(inc *Incident, at ingest.Scope, bdf string) bool {
	for _, p := range All[*ingest.Lspci](inc) {
		if reachOf(at, p.Scope()) == otherHost {
			continue
		}
		for _, d := range p.Devices {
			if d.Sta.Set() && strings.EqualFold(fullBDF(d.BDF), fullBDF(bdf)) {
				return true
			}
		}
	}
	return false
}

// fullBDF gives a PCI address its domain ("b3:00.0" -> "0000:b3:00.0").
func fullBDF(bdf string) string {
	if strings.Count(bdf, ":") == 1 {
		return "0000:" + bdf
	}
	return bdf
}

// busIDToBDF turns NCCL's busId, printed as the hex of domain<<20 |
// bus<<12 | device<<4 | function ("86000"), into lspci's address
// ("0000:86:00.0"); "" when it is not one.
func busIDToBDF(id string) string {
	n, err := strconv.ParseUint(id, 16, 64)
	if err != nil || len(id) < 4 {
		return ""
	}
	return fmt.Sprintf("%04x:%02x:%02x.%x", n>>20, n>>12&0xff, n>>4&0xff, n&0xf)
}

// checkLspciOK reports an lspci dump in which every NIC and GPU runs at
// its full link and no bridge redirects peer-to-peer traffic.
func checkLspciOK(inc *Incident) []Finding {
	var fs []Finding
	for _, p := range All[*ingest.Lspci](inc) {
		full, acsOff := 0, 0
		bad := false
		var ev Evidence
		for _, d := range p.Devices {
			switch {
			case (d.Role == ingest.RoleNIC || d.Role == ingest.RoleGPU) && d.Downgraded(),
				d.ACS != nil && d.ACS.Redirects():
				bad = true
			case (d.Role == ingest.RoleNIC || d.Role == ingest.RoleGPU) && d.Sta.Set():
				full++
				ev = d.Sta.Evidence
			case d.ACS != nil:
				acsOff++
				if ev.File == "" {
					ev = d.ACS.Evidence
				}
			}
		}
		if bad || full+acsOff == 0 {
			continue
		}
		var parts []string
		if full > 0 {
			parts = append(parts, plural(full, "NIC or GPU", "NICs and GPUs")+" at their full PCIe link")
		}
		if acsOff > 0 {
			parts = append(parts, fmt.Sprintf("ACS not redirecting on %s", plural(acsOff, "bridge", "bridges")))
		}
		fs = append(fs, Finding{
			ID: "host.pcie.ok", Severity: Info, Layer: LayerNCCL,
			Title:     fmt.Sprintf("%s: %s", p.Source(), strings.Join(parts, "; ")),
			Evidence:  []Evidence{ev},
			Mechanism: "Each device's LnkSta matches its LnkCap and no bridge's ACSCtl sends peer-to-peer traffic to the root complex, so the PCIe side of this host does not hold collectives back.",
		})
	}
	return fs
}

// checkLspciDenied reports NICs, GPUs and switch ports whose link the
// input does not show: lspci ran without root ("Capabilities: <access
// denied>"), or with -v only, or the paste was cut before LnkSta.
func checkLspciDenied(inc *Incident) []Finding {
	var fs []Finding
	for _, p := range All[*ingest.Lspci](inc) {
		var denied, missing []string
		var ev []Evidence
		for _, d := range p.Devices {
			if d.BDF == "" || d.Role != ingest.RoleNIC && d.Role != ingest.RoleGPU && d.Role != ingest.RoleSwitch || d.Sta.Set() {
				continue
			}
			if d.Denied {
				denied = append(denied, d.Label())
			} else {
				missing = append(missing, d.Label())
			}
			if len(ev) < 4 {
				ev = append(ev, d.Evidence)
			}
		}
		var parts []string
		if len(denied) > 0 {
			parts = append(parts, fmt.Sprintf("lspci ran without root, so the PCIe links and ACS of %s were not printed: %s", plural(len(denied), "NIC, GPU or switch port", "NICs, GPUs and switch ports"), list(denied, 4)))
		}
		if len(missing) > 0 {
			parts = append(parts, fmt.Sprintf("no LnkSta for %s (lspci -v only, or the paste ends before it): %s", plural(len(missing), "NIC, GPU or switch port", "NICs, GPUs and switch ports"), list(missing, 4)))
		}
		if len(parts) == 0 {
			continue
		}
		fs = append(fs, Finding{
			ID: "host.pcie.unread", Severity: Info, Layer: LayerNCCL,
			Title:     fmt.Sprintf("%s: %s", p.Source(), strings.Join(parts, "; ")),
			Evidence:  ev,
			Mechanism: "lspci prints a device's link (LnkCap, LnkSta) and ACS control (ACSCtl) only with -vv or more, and only as root: they sit in configuration space beyond the first 64 bytes, and as another user it prints 'Capabilities: <access denied>'. Without them a downgraded link or ACS on a switch port cannot be seen, so these devices were not judged.",
			Fix:       "Pass the whole output, as root: `sudo lspci -vvv > lspci.txt` (or `sudo lspci -vvv -s <bdf>` for one device).",
		}.per(p.Source(), "input", "lspci without the link lines"))
	}
	return fs
}

// checkLspciGarbled reports lspci lines that could not be read.
func checkLspciGarbled(inc *Incident) []Finding {
	return garbledOf(inc, "lspci output", func(a *ingest.Lspci) []ingest.Garble { return a.Garbled },
		"These lines begin as lspci prints a link (LnkCap/LnkSta) or ACS control line but do not go on as it does (edited, cut, or wrapped in transit), so the devices they belong to were not judged on them.",
		"Pass lspci's unedited output: `sudo lspci -vvv > lspci.txt` (root is needed for the capability lines), or `sudo lspci -vvv -s <bdf>` for one device.")
}

// checkPCISysfsGarbled reports PCI link or NUMA sysfs values that could
// not be read.
func checkPCISysfsGarbled(inc *Incident) []Finding {
	return garbledOf(inc, "PCI sysfs files", func(a *ingest.PCISysfs) []ingest.Garble { return a.Garbled },
		"These lines are the values of a PCI device's link or NUMA sysfs files (current_link_speed, max_link_width, numa_node, ...) but are not what the kernel prints there (edited, cut, or the wrong file), so the device was not judged on them.",
		"Pass the files as the kernel prints them: `grep . /sys/bus/pci/devices/<bdf>/*_link_* /sys/bus/pci/devices/<bdf>/numa_node`.")
}

// garbledOf is the input.garbled finding of each artifact of type T whose
// garbles are not empty.
func garbledOf[T ingest.Artifact](inc *Incident, what string, garbles func(T) []ingest.Garble, mechanism, fix string) []Finding {
	var fs []Finding
	for _, a := range All[T](inc) {
		if f, ok := garbledLines(a.Source(), what, garbles(a), mechanism, fix); ok {
			fs = append(fs, f)
		}
	}
	return fs
}

// garbledLines is the input.garbled finding for the lines of one input
// that began as its format prints them and did not go on as it does; what
// names the format ("lspci output"). The title quotes the first three.
func garbledLines(src, what string, gs []ingest.Garble, mechanism, fix string) (Finding, bool) {
	if len(gs) == 0 {
		return Finding{}, false
	}
	var ev []Evidence
	var msgs []string
	for _, g := range gs {
		// A line with several cells that do not read is one line, cited
		// once; each cell's column is in the title.
		if n := len(ev); n == 0 || ev[n-1].Line != g.Line {
			ev = append(ev, Evidence{File: src, Line: g.Line, Text: g.Text})
		}
		if len(msgs) < 3 {
			msgs = append(msgs, g.Error(src))
		}
	}
	return Finding{
		ID: "input.garbled", Severity: Warn, Layer: LayerInput,
		Title:     fmt.Sprintf("%s: %s of %s could not be read: %s", src, plural(len(ev), "line", "lines"), what, strings.Join(msgs, "; ")),
		Evidence:  ev,
		Mechanism: mechanism,
		Fix:       fix,
	}.per(src, "input", "Inputs with lines that could not be read"), true
}
