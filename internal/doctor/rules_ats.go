package doctor

import (
	"fmt"
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

// atsOn returns the devices of p whose ATSCtl says Enable+.
func atsOn(p *ingest.Lspci) []ingest.PCIDevice {
	var on []ingest.PCIDevice
	for _, d := range p.Devices {
		if d.ATS != nil && d.ATS.Enable {
			on = append(on, d)
		}
	}
	return on
}

// atsDirect reports whether p enables ATS on some device and every
// bridge that redirects peer-to-peer traffic lets translated requests go
// direct: the VM setup NCCL advises, which host.pcie.ats reports in
// host.pcie.acs's place.
func atsDirect(p *ingest.Lspci) bool {
	if len(atsOn(p)) == 0 {
		return false
	}
	for _, d := range p.Devices {
		if d.ACS != nil && d.ACS.Redirects() && !d.ACS.DirectTrans {
			return false
		}
	}
	return true
}

// checkATS reports lspci's ATS settings against its ACS redirection.
func checkATS(inc *Incident) []Finding {
	var fs []Finding
	for _, p := range All[*ingest.Lspci](inc) {
		on := atsOn(p)
		if len(on) == 0 {
			continue
		}
		var blocked, direct []ingest.PCIDevice
		for _, d := range p.Devices {
			switch {
			case d.ACS == nil || !d.ACS.Redirects():
			case d.ACS.DirectTrans:
				direct = append(direct, d)
			default:
				blocked = append(blocked, d)
			}
		}
		ev := []Evidence{on[0].ATS.Evidence}
		for _, d := range append(blocked, direct...) {
			if len(ev) < 6 {
				ev = append(ev, d.ACS.Evidence)
			}
		}
		what := fmt.Sprintf("%s: ATS enabled on %s%s", p.Source(), plural(len(on), "device", "devices"), labels(on))
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

// directTransFix gives the setpci commands that set DirectTrans on each
// bridge, keeping its other ACS controls.
func directTransFix(ds []ingest.PCIDevice) string {
	cmds := setpciACS(ds, func(a ingest.ACSControl) int {
		v := 0
		for i, b := range []bool{a.SrcValid, a.TransBlk, a.ReqRedir, a.CmpltRedir, a.UpstreamFwd, a.EgressCtrl, a.DirectTrans} {
			if b {
				v |= 1 << i
			}
		}
		return v | acsDirectTrans
	})
	fix := "Enable ACS Direct Translated P2P on the redirecting switch ports (the hypervisor host's BIOS or kernel ACS setting, or as root until reboot"
	if len(cmds) > 0 {
		fix += ": `" + strings.Join(cmds, "; ") + "`"
	} else {
		fix += ": `setpci -s <bdf> ECAP_ACS+0x6.w=<ACSCtl with bit 6 set>` per bridge"
	}
	return fix + "), keeping ATS on the NIC (mlxconfig -d <dev> set ATS_ENABLED=true); on bare metal, turn ACS off instead. Check with `lspci -vvv | grep -E 'ACSCtl|ATSCtl'`."
}
