package doctor

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/ingest"
)

// ATS and ACS together. NCCL's troubleshooting guide: on bare metal turn
// ACS off; in a VM, where ACS isolates the passed-through devices, keep
// it and enable ATS on the NIC, so that its requests carry addresses the
// IOMMU translated ahead and PCIe switch ports with ACS Direct Translated
// P2P (DirectTrans+) forward them straight to the GPU while untranslated
// ones still take the detour through the root complex.

// acsDirectTrans is the DirectTrans bit of the ACS control register.
const acsDirectTrans = 1 << 6

func atsRules() []Rule {
	return []Rule{{IDs: []string{"host.pcie.ats"}, Check: checkATS}}
}

// atsOn returns the RDMA NICs of p whose ATSCtl says Enable+, and the
// devices a grep of ATSCtl lines leaves without their header: ATS on a
// drive or a GPU is no NIC's translated DMA.
func atsOn(p *ingest.Lspci) []ingest.PCIDevice {
	var on []ingest.PCIDevice
	for _, d := range p.Devices {
		if d.ATS != nil && d.ATS.Enable && (d.RDMA() || d.BDF == "" && d.Class == "") {
			on = append(on, d)
		}
	}
	return on
}

// atsBridges sorts p's bridges other than CPU root ports (a switch's
// ports, or ACS lines a grep leaves without their device) whose ACS
// redirects peer-to-peer traffic by whether they let translated requests
// go direct. Root ports are host.pcie.acs's: what a GPU and its NIC
// under one switch exchange never reaches them.
func atsBridges(p *ingest.Lspci) (blocked, direct []ingest.PCIDevice) {
	for _, d := range p.Devices {
		switch {
		case d.ACS == nil || !d.ACS.Redirects() || d.Role == ingest.RoleRoot:
		case d.ACS.DirectTrans:
			direct = append(direct, d)
		default:
			blocked = append(blocked, d)
		}
	}
	return blocked, direct
}

// atsDirect reports whether p enables ATS on an RDMA NIC and every switch
// port that redirects peer-to-peer traffic lets translated requests go
// direct: the VM setup NCCL advises, which host.pcie.ats reports in
// host.pcie.acs's place.
func atsDirect(p *ingest.Lspci) bool {
	if len(atsOn(p)) == 0 {
		return false
	}
	blocked, _ := atsBridges(p)
	return len(blocked) == 0
}

// checkATS reports lspci's ATS settings against its ACS redirection.
func checkATS(inc *Incident) []Finding {
	var fs []Finding
	for _, p := range All[*ingest.Lspci](inc) {
		on := atsOn(p)
		if len(on) == 0 {
			continue
		}
		blocked, direct := atsBridges(p)
		ev := []Evidence{on[0].ATS.Evidence}
		for _, d := range append(blocked, direct...) {
			if len(ev) < 6 {
				ev = append(ev, d.ACS.Evidence)
			}
		}
		what := fmt.Sprintf("%s: ATS enabled on %s%s", p.Source(), atsDevices(on), labels(on))
		f := Finding{ID: "host.pcie.ats", Severity: Info, Layer: LayerNCCL, Evidence: evidenceInOrder(ev),
			Mechanism: "With ATS (Address Translation Service) on, a NIC asks the IOMMU to translate its DMA addresses ahead and marks its requests translated. PCIe ACS redirects peer-to-peer requests up to the root complex (ReqRedir+, CmpltRedir+), which a VM's host needs to keep its passed-through devices isolated; a switch port with ACS Direct Translated P2P (DirectTrans+) still forwards the translated ones straight to the peer, so GPUDirect RDMA between a GPU and the NIC under one switch crosses the switch, not the root complex. This is the setup NCCL's guide asks for in VMs (ACS on, ATS on the NIC); there PCIe relaxed ordering matters too (NCCL_IB_PCI_RELAXED_ORDERING, on by default where the NIC and kernel support it).",
		}
		switch {
		case len(blocked) > 0:
			f.Severity = Warn
			f.Title = fmt.Sprintf("%s, but %s redirect peer-to-peer traffic without Direct Translated P2P (DirectTrans-)%s: the NIC's translated requests take the root complex detour anyway", what, plural(len(blocked), "bridge", "bridges"), labels(blocked))
			f.Mechanism += " Here the redirecting bridges have DirectTrans-, so translated requests are redirected like any other: ATS costs IOMMU translation requests and buys nothing."
			f.Fix = directTransFix(blocked)
		case len(direct) > 0:
			f.Title = fmt.Sprintf("%s, and the %s that redirect peer-to-peer traffic let translated requests go direct (DirectTrans+)%s: the ACS+ATS setup NCCL advises in VMs", what, plural(len(direct), "bridge", "bridges"), labels(direct))
			f.Fix = "Nothing to change in PCIe; check NCCL's log for /GDRDMA on the NET channels and that NCCL_IB_PCI_RELAXED_ORDERING is not 0."
		default:
			f.Title = what + "; the input has no ACSCtl line, so whether translated peer requests go direct is not known"
			f.Fix = "Read ACS beside it: `sudo lspci -vvv | grep -E 'ACSCtl|ATSCtl'` on the host (a VM's virtual ports often have no ACS): every switch port between a GPU and its NIC should show DirectTrans+ if it shows ReqRedir+."
		}
		fs = append(fs, f.per(p.Source(), "input", "ATS on with ACS"))
	}
	return fs
}

// atsDevices counts the devices atsOn returns: RDMA NICs, or devices
// when a grep left them unnamed.
func atsDevices(on []ingest.PCIDevice) string {
	if unnamed(on) {
		return plural(len(on), "device", "devices")
	}
	return plural(len(on), "RDMA NIC", "RDMA NICs")
}

// directTransFix gives the setpci commands that set DirectTrans on each
// bridge whose ACSCap has it, keeping its other ACS controls; a bridge
// whose ACSCap lacks it cannot take bit 6.
func directTransFix(ds []ingest.PCIDevice) string {
	var can, cannot []ingest.PCIDevice
	for _, d := range ds {
		if d.ACSCap != nil && !d.ACSCap.DirectTrans {
			cannot = append(cannot, d)
		} else {
			can = append(can, d)
		}
	}
	cmds := setpciACS(can, func(a ingest.ACSControl) int { return a.Register() | acsDirectTrans })
	var fix string
	if len(can) > 0 {
		fix = "Enable ACS Direct Translated P2P on the redirecting switch ports (the hypervisor host's BIOS or kernel ACS setting, or as root until reboot"
		if len(cmds) > 0 && !slices.ContainsFunc(can, func(d ingest.PCIDevice) bool { return d.ACSCap == nil }) {
			fix += ": `" + strings.Join(cmds, "; ") + "`"
		} else {
			fix += ": `setpci -s <bdf> ECAP_ACS+0x6.w=<ACSCtl with bit 6 set>` per bridge whose `lspci -vvv -s <bdf>` shows ACSCap with DirectTrans+"
		}
		fix += "). "
	}
	if len(cannot) > 0 {
		fix += fmt.Sprintf("The ACSCap of %s%s has no DirectTrans: there translated requests cannot go direct, so turn ACS's redirection off on those ports (if the host's isolation allows) or place the GPU and NIC under ports that have it. ", plural(len(cannot), "bridge", "bridges"), labels(cannot))
	}
	return fix + "Keep ATS on the NIC (mlxconfig -d <dev> set ATS_ENABLED=true); on bare metal, turn ACS off instead. Check with `lspci -vvv | grep -E 'ACSCap|ACSCtl|ATSCtl'`."
}
