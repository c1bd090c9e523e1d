package doctor

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/ingest"
)

// Rules over what only NCCL's topology XML says (NCCL_TOPO_DUMP_FILE):
// each NIC's PCIe link against its port speed, and whether NCCL found a
// way for the NIC to reach GPU memory. The GPU-to-NIC distances are
// judged by the nvidia-smi topo rules, which read the XML's tree too.

func ncclTopoRules() []Rule {
	return []Rule{
		{IDs: []string{"topo.nic.pcie"}, Check: checkTopoNICPCIe},
		{IDs: []string{"topo.nic.gdr_off"}, Check: checkTopoNICGDR},
	}
}

// vmNote explains a dump whose GPUs hang straight from a CPU of unknown
// NUMA node.
const vmNote = " This dump has one CPU of unknown NUMA node (numaid=\"-1\") with every GPU and NIC straight under it and no PCIe switch: a VM's passthrough devices on its virtual root complex. NCCL sees neither which NIC shares a switch with which GPU on the host nor the host's NUMA layout, and a VM's virtual root ports report link speeds of their own."

// checkTopoNICPCIe reports NICs whose PCIe link carries less than their
// port: the NIC cannot send or receive at line rate.
func checkTopoNICPCIe(inc *Incident) []Finding {
	var fs []Finding
	for _, t := range All[*ingest.GPUTopo](inc) {
		var slow []string
		var ev []Evidence
		for _, card := range topoCards(t.NICInfo) {
			n := card[0]
			pcie, port := n.PCIeGbps(), 0.0
			var names []string
			for _, p := range card {
				port += float64(p.SpeedMbps) / 1000
				names = append(names, p.Name)
			}
			if pcie <= 0 || port <= 0 || pcie >= 0.9*port {
				continue
			}
			what := fmt.Sprintf("a %.0f Gb/s port", port)
			if len(card) > 1 {
				what = fmt.Sprintf("%d ports of %.0f Gb/s together", len(card), port)
			}
			slow = append(slow, fmt.Sprintf("%s (PCIe %g GT/s x%d, %.0f Gb/s, for %s)", strings.Join(names, "+"), n.LinkGTs, n.LinkWidth, pcie, what))
			for _, p := range card {
				ev = append(ev, p.Evidence)
			}
		}
		if len(slow) == 0 {
			continue
		}
		why := "NCCL's dump gives each NIC's PCI device its link (link_speed per lane, link_width lanes: the lower of the NIC's and its slot's maximum, sysfs max_link_speed and max_link_width of the device and of the port above it) and each port its speed in Mb/s. After line coding a PCIe lane carries 2 Gb/s at 2.5 GT/s, 4 at 5, 7.9 at 8, 15.8 at 16 and 31.5 at 32 GT/s: a link under the port's rate (or, for a card with two ports, under both ports' rates when both carry traffic) caps what the NIC moves between the wire and memory, and NCCL's topology search also rates the path by the link, so fewer channels go through that NIC."
		fix := "On the host: `lspci -vv -s <bus id> | grep -E 'LnkCap|LnkSta'` for the NIC and the switch or root port above it: the dump's figure is the lower of their capabilities (LnkCap), so a slot, riser or BIOS PCIe-generation setting below the card's, or a card of an older generation. Put a 400G NIC in a Gen5 x16 (or Gen4 x32 with both halves) slot; a dual-port card whose link carries less than both ports runs one port per card at line rate, or two below it."
		if t.VMFlat {
			why += vmNote
			fix += " In a VM, compare with the host's lspci: when only the VM reports the lower speed, it is the virtual root port's (QEMU's pcie-root-port x-speed/x-width), which NCCL still uses to rate the path; give NCCL a topology file with the host's link speeds (NCCL_TOPO_FILE)."
		}
		fs = append(fs, Finding{
			ID: "topo.nic.pcie", Severity: Warn, Layer: LayerNCCL,
			Title:     fmt.Sprintf("%s: %s: %s", t.Source(), pcieSlowWhat(len(slow)), list(slow, 3)),
			Evidence:  ev,
			Mechanism: why,
			Fix:       fix,
		})
	}
	return fs
}

// pcieSlowWhat heads the title of NICs slower over PCIe than on the wire.
func pcieSlowWhat(n int) string {
	if n == 1 {
		return "a NIC's PCIe link carries less than its port"
	}
	return fmt.Sprintf("%d NICs' PCIe links carry less than their ports", n)
}

// topoCards groups the nets by the PCI device they are ports of, in
// input order; nets of no known device stand alone. A net NCCL fused
// from ports the dump lists too ("mlx5_0+mlx5_1", NCCL_NET_MERGE_LEVEL:
// under a copy of the first port's device) is left out: its ports are
// judged on their card.
func topoCards(nics []ingest.TopoNIC) [][]ingest.TopoNIC {
	var cards [][]ingest.TopoNIC
	at := map[string]int{}
	listed := map[string]bool{}
	for _, n := range nics {
		listed[n.Name] = true
	}
	for _, n := range nics {
		if parts := strings.Split(n.Name, "+"); len(parts) > 1 && !slices.ContainsFunc(parts, func(p string) bool { return !listed[p] }) {
			continue
		}
		if i, ok := at[n.PCI]; ok && n.PCI != "" {
			cards[i] = append(cards[i], n)
			continue
		}
		at[n.PCI] = len(cards)
		cards = append(cards, []ingest.TopoNIC{n})
	}
	return cards
}

// checkTopoNICGDR reports RDMA NICs NCCL marked gdr="0": it found no way
// (nvidia-peermem, DMA-BUF) for them to reach GPU memory. A dump whose
// GPUs all say gdr="0" themselves is left alone: no module on the NIC's
// side would change what NCCL does.
func checkTopoNICGDR(inc *Incident) []Finding {
	var fs []Finding
	for _, t := range All[*ingest.GPUTopo](inc) {
		if len(t.GPUs) == 0 || t.GPUsNoGDR == len(t.GPUs) {
			continue
		}
		var off []string
		var ev []Evidence
		for _, n := range t.NICInfo {
			if n.GDR == 0 && n.RDMA {
				off = append(off, n.Name)
				ev = append(ev, n.Evidence)
			}
		}
		if len(off) == 0 {
			continue
		}
		fs = append(fs, Finding{
			ID: "topo.nic.gdr_off", Severity: Warn, Layer: LayerNCCL,
			Title:     fmt.Sprintf("%s: NCCL found no GPUDirect RDMA support on %s (gdr=\"0\"), so %s staged through host memory", t.Source(), list(off, 4), map[bool]string{true: "its traffic is", false: "their traffic is"}[len(off) == 1]),
			Evidence:  ev,
			Mechanism: "A <net> element's gdr attribute is the net plugin's answer to whether the NIC can read and write GPU memory: NCCL's IB transport says yes when the nvidia-peermem (nv_peer_mem) module is loaded or the kernel, driver and NIC support DMA-BUF. With gdr=\"0\" every message to or from these NICs is copied through a host buffer whatever the PCIe distance, costing bandwidth and host memory traffic.",
			Fix:       "Load the peer-memory module (`modprobe nvidia-peermem`; `lsmod | grep peermem`) or use DMA-BUF (NVIDIA open kernel modules, Linux 5.12+, rdma-core 34+); in a container the host's module is what counts. Confirm with NCCL_DEBUG=INFO: `GPU Direct RDMA Enabled for HCA` and /GDRDMA on the NET channels.",
		})
	}
	return fs
}
