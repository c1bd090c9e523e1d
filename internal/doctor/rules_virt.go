package doctor

import (
	"fmt"
	"slices"

	"rocelab/internal/ingest"
)

// Rules over a host that is a virtual machine: its GPUs and NICs are
// passed through, so ACS, ATS, the guest's view of the PCIe tree and
// NUMA, and the hypervisor's per-step overhead decide what NCCL gets.

func virtRules() []Rule {
	return []Rule{{IDs: []string{"host.virt.vm"}, Check: checkVM}}
}

// vmSign is one input's word that its host is a VM.
type vmSign struct {
	what  string // "lscpu: Hypervisor vendor KVM"
	ev    Evidence
	scope ingest.Scope
}

// vmSigns are the incident's statements that a host is a VM: lscpu's
// Hypervisor vendor (not a container's), systemd-detect-virt naming a
// hypervisor.
func vmSigns(inc *Incident) []vmSign {
	var out []vmSign
	for _, c := range All[*ingest.Lscpu](inc) {
		if c.Hypervisor != "" && c.VirtType != "container" {
			out = append(out, vmSign{"lscpu's Hypervisor vendor " + c.Hypervisor, c.Hypervised, c.Scope()})
		}
	}
	for _, v := range All[*ingest.Virt](inc) {
		if v.VM() {
			out = append(out, vmSign{"systemd-detect-virt's " + v.Tech, v.Evidence, v.Scope()})
		}
	}
	return out
}

// checkVM reports each host an input says is a VM, once, with what the
// same host's lspci shows of ATS and ACS.
func checkVM(inc *Incident) []Finding {
	var fs []Finding
	var done []ingest.Scope
	for _, s := range vmSigns(inc) {
		if slices.ContainsFunc(done, func(d ingest.Scope) bool { return reachOf(s.scope, d) >= sameHost }) {
			continue
		}
		done = append(done, s.scope)
		who := s.scope.Host.Name
		if who == "" {
			who = s.scope.Source
		}
		ev := []Evidence{s.ev}
		ats := "no lspci of it says whether ATS is on"
		for _, p := range All[*ingest.Lspci](inc) {
			if reachOf(s.scope, p.Scope()) < sameHost {
				continue
			}
			on := atsOn(p)
			switch {
			case len(on) > 0:
				ats = "lspci shows ATS enabled on " + atsDevices(on)
				ev = append(ev, on[0].ATS.Evidence)
			case slices.ContainsFunc(p.Devices, func(d ingest.PCIDevice) bool { return d.ATS != nil && d.RDMA() }):
				ats = "lspci shows ATS disabled on the RDMA NICs (ATSCtl Enable-)"
			}
		}
		fs = append(fs, Finding{
			ID: "host.virt.vm", Severity: Info, Layer: LayerNCCL,
			Title:    fmt.Sprintf("%s is a virtual machine (%s); %s", who, s.what, ats),
			Evidence: evidenceInOrder(ev),
			Mechanism: "In a VM the GPUs and NICs are passed through to a virtual PCIe tree: the guest sees neither the host's PCIe switches nor its NUMA layout unless the VM is built to show them, so NCCL cannot pair each GPU with the NIC beside it (nvidia-smi topo -m and NCCL's topology look flat). " +
				"The host keeps PCIe ACS on to isolate the passed-through devices, which sends GPU-NIC peer traffic (GPUDirect RDMA) through the root complex and IOMMU unless the NIC has ATS on and the switch ports forward translated requests directly; PCIe relaxed ordering matters there. " +
				"Each collective step also pays the hypervisor: the NCCL proxy thread and the NIC's interrupts run on vCPUs the host may deschedule or place on the other socket, and IOMMU translation misses add latency, which shows as lower busbw at small and medium sizes and as run-to-run variance.",
			Fix: "Check, on the hypervisor host and in the guest: ATS on the NICs (mlxconfig ATS_ENABLED=true, lspci ATSCtl Enable+) and ACS Direct Translated P2P on the switch ports (ACSCtl DirectTrans+), or ACS off if isolation is not needed; " +
				"NCCL_IB_PCI_RELAXED_ORDERING not 0; the host's topology given to NCCL (NCCL_TOPO_FILE from a bare-metal NCCL_TOPO_DUMP_FILE with the guest's bus IDs) or the VM built with PCIe switches and guest NUMA nodes matching the host's; vCPUs pinned to host cores of each GPU's NUMA node, guest memory on hugepages from the same node; then compare nccl-tests busbw with bare metal's.",
		}.per(who, "host", "virtual machine"))
	}
	return fs
}
