package doctor

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/ingest"
)

// Rules over `nvidia-smi topo -m`: how far each GPU is from its nearest
// NIC. NCCL lets a NIC read and write GPU memory directly (GPUDirect RDMA)
// only when the NIC is at most NCCL_NET_GDR_LEVEL from the GPU, PXB by
// default (one PCIe switch between them); farther, every transfer is
// staged through host memory.

// topoRank orders nvidia-smi's links, nearest first; -1 for none. P2C
// is NCCL's: a GPU joined to its CPU by C2C (Grace) with the NIC on that
// CPU's host bridge.
func topoRank(link string) int {
	switch link {
	case "X":
		return 0
	case "PIX":
		return 1
	case "PXB":
		return 2
	case "P2C":
		return 3
	case "PHB":
		return 4
	case "NODE":
		return 5
	case "SYS", "SOC":
		return 6
	}
	return -1
}

func gpuTopoRules() []Rule {
	return []Rule{
		{IDs: []string{"topo.gpu_nic.far", "topo.gpu_nic.ok"}, Check: checkGPUNICDistance},
		{IDs: []string{"topo.gpu_gpu.host"}, Check: checkGPUPeerLinks},
		{IDs: []string{"input.garbled"}, Check: checkTopoGarbled},
	}
}

// checkTopoGarbled reports the cells of topo matrix rows that are no link
// type; the rows are judged on their other cells.
func checkTopoGarbled(inc *Incident) []Finding {
	var fs []Finding
	for _, t := range All[*ingest.GPUTopo](inc) {
		what, why, fix := "nvidia-smi topo -m",
			"These rows of the matrix have a cell that is no link type nvidia-smi prints (two cells run together where the paste lost a tab, or an edit), so that GPU's link to that NIC or GPU is unknown; the rows' other cells are read.",
			"Pass nvidia-smi's unedited output: `nvidia-smi topo -m > topo.txt`."
		if t.Kind() == ingest.KindNCCLTopo {
			what, why, fix = "NCCL's topology XML",
				"These elements of the topology XML have attributes that are not key=\"value\" pairs (a paste that lost a quote, an edit), so the element was left out of the tree: a GPU or NIC in it is missing from the distances.",
				"Pass the file NCCL wrote unedited (NCCL_TOPO_DUMP_FILE=<file>)."
		}
		if f, ok := garbledLines(t.Source(), what, t.Garbled, why, fix); ok {
			fs = append(fs, f)
		}
	}
	return fs
}

// checkGPUNICDistance reports the GPUs whose nearest NIC is beyond PXB.
func checkGPUNICDistance(inc *Incident) []Finding {
	var fs []Finding
	for _, t := range All[*ingest.GPUTopo](inc) {
		if len(t.NICs) == 0 {
			continue
		}
		var far, near []string
		var ev []Evidence
		c2c := false
		for _, g := range t.GPUs {
			best, nic := -1, ""
			for i, link := range g.ToNIC {
				if r := topoRank(link); r >= 0 && (best < 0 || r < best) && i < len(t.NICs) {
					best, nic = r, fmt.Sprintf("%s (%s)", link, t.NICs[i])
				}
			}
			switch {
			case best < 0:
			case best == topoRank("P2C"):
				// NCCL 2.27 uses GPUDirect RDMA over C2C by default,
				// 2.26 with NCCL_NET_GDR_C2C=1, earlier versions not:
				// the XML does not say which NCCL wrote it.
				c2c = true
			case best > topoRank("PXB"):
				far = append(far, g.Name+" "+nic)
				ev = append(ev, g.Evidence)
			default:
				near = append(near, g.Name+" "+nic)
			}
		}
		if len(far) == 0 {
			if len(near) > 0 && !c2c {
				every, cut := "every GPU", topoCut(t)
				if cut != "" {
					every, cut = "every GPU shown", "; "+cut
				}
				fs = append(fs, Finding{
					ID: "topo.gpu_nic.ok", Severity: Info, Layer: LayerNCCL,
					Title:     fmt.Sprintf("%s: %s has a NIC within one PCIe switch (nearest: %s%s)", t.Source(), every, list(near, 4), cut),
					Evidence:  []Evidence{t.GPUs[0].Evidence},
					Mechanism: "NCCL uses GPUDirect RDMA (the NIC reading and writing GPU memory) when the NIC is at most NCCL_NET_GDR_LEVEL from the GPU, PXB by default; every GPU here has one that close.",
				})
			}
			continue
		}
		f := Finding{
			ID: "topo.gpu_nic.far", Severity: Warn, Layer: LayerNCCL,
			Title:    fmt.Sprintf("%s: %d of %d GPUs%s have no NIC within one PCIe switch, so NCCL stages their network traffic through host memory: nearest NIC %s", t.Source(), len(far), len(t.GPUs), parenthesised(topoCut(t)), strings.Join(far, ", ")),
			Evidence: ev,
			Mechanism: "NCCL lets the NIC read and write GPU memory directly (GPUDirect RDMA) only when it is at most NCCL_NET_GDR_LEVEL from the GPU, PXB by default: through at most PCIe switches, not the CPU. " +
				"PHB crosses the CPU's host bridge, NODE the interconnect between host bridges of one socket, SYS the link between sockets: for these GPUs NCCL copies every message through a host buffer (no /GDRDMA on their NET channels, 'GDR 0'), which costs bandwidth and CPU memory traffic, and across sockets (SYS) also the inter-socket link.",
			Fix: "Put each GPU beside its own NIC (the server's PCIe layout: same PCIe switch, or at least the same socket), and pin each rank to the NIC and CPUs nearest its GPU (NCCL picks the nearest NIC itself). Where the platform allows GPUDirect RDMA across the host bridge, NCCL_NET_GDR_LEVEL=PHB (or SYS) enables it; check that nvidia-peermem or DMA-BUF is available and that NCCL's log then shows /GDRDMA.",
		}
		if t.VMFlat {
			f.Mechanism += vmNote
			f.Fix = "Give NCCL the host's layout: dump the topology on the bare-metal host (NCCL_TOPO_DUMP_FILE), replace the GPUs' and NICs' bus IDs with the VM's, and pass it with NCCL_TOPO_FILE (the switches' IDs only have to be unused); or build the VM with PCIe switches (libvirt pcie-switch-upstream/downstream ports, pxb-pcie per NUMA node) so each GPU and its NIC share one. Then check that ATS/ACS on the host let peer-to-peer traffic through (ACS off on the switch ports, or ATS on the NICs) and that NCCL's channels show /GDRDMA."
		}
		fs = append(fs, f)
	}
	return fs
}

// topoCut says that the matrix ends before the GPUs its header names
// ("6 of the 8 GPUs in the header: the paste ends at GPU5"), "" when every
// GPU has its row.
func topoCut(t *ingest.GPUTopo) string {
	if t.Unclosed && len(t.GPUs) > 0 {
		return "the XML ends before </system>: the paste is cut after " + t.GPUs[len(t.GPUs)-1].Name
	}
	if len(t.GPUs) == 0 || len(t.GPUs) >= t.HeaderGPUs {
		return ""
	}
	return fmt.Sprintf("%d of the %d GPUs in the header: the paste ends at %s", len(t.GPUs), t.HeaderGPUs, t.GPUs[len(t.GPUs)-1].Name)
}

// parenthesised is " (s)", or "" for an empty s.
func parenthesised(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// checkGPUPeerLinks reports a server whose GPUs reach one another only
// across a CPU host bridge (PHB, NODE, SYS): no NVLink and no shared PCIe
// switch, so NCCL moves intra-node data through host memory.
func checkGPUPeerLinks(inc *Incident) []Finding {
	var fs []Finding
	for _, t := range All[*ingest.GPUTopo](inc) {
		if len(t.GPUs) < 2 {
			continue
		}
		links := map[string]bool{}
		pairs := 0
		for _, g := range t.GPUs {
			for _, l := range g.ToGPU {
				if l == "X" {
					continue
				}
				if r := topoRank(l); r >= 0 && r <= topoRank("PXB") || strings.HasPrefix(l, "NV") || l == "XGMI" {
					links = nil
					break
				}
				links[l] = true
				pairs++
			}
			if links == nil {
				break
			}
		}
		if links == nil || pairs == 0 {
			continue
		}
		var kinds []string
		for _, l := range []string{"PHB", "NODE", "SYS", "SOC", "PCIE"} {
			if links[l] {
				kinds = append(kinds, l)
			}
		}
		fs = append(fs, Finding{
			ID: "topo.gpu_gpu.host", Severity: Info, Layer: LayerNCCL,
			Title:     fmt.Sprintf("%s: no %s between %s: every pair is %s", t.Source(), peerFabric(kinds), gpusShown(t), strings.Join(kinds, " or ")),
			Evidence:  []Evidence{t.GPUs[0].Evidence, t.GPUs[1].Evidence},
			Mechanism: peerMechanism(kinds),
			Fix:       peerFix(kinds),
		})
	}
	return fs
}

// gpusShown is "the 8 GPUs", or "the GPUs shown (6 of the 8 …)" for a cut
// matrix.
func gpusShown(t *ingest.GPUTopo) string {
	if cut := topoCut(t); cut != "" {
		return "the GPUs shown (" + cut + ")"
	}
	return fmt.Sprintf("the %d GPUs", len(t.GPUs))
}

// peerFabric names what a GPU-to-GPU matrix lacks: xGMI for rocm-smi's,
// NVLink and a shared PCIe switch for nvidia-smi's.
func peerFabric(kinds []string) string {
	if slices.Contains(kinds, "PCIE") {
		return "xGMI"
	}
	return "NVLink and no shared PCIe switch"
}

// peerMechanism explains intra-node traffic without a GPU fabric.
func peerMechanism(kinds []string) string {
	if slices.Contains(kinds, "PCIE") {
		return "rocm-smi --showtopo names each GPU pair's link XGMI (AMD Infinity Fabric, within a hive) or PCIE. With PCIE between every pair, RCCL's intra-node transfers cross PCIe and the CPU's root complex instead of xGMI, at a fraction of xGMI's bandwidth. " +
			"An MI300X or MI250 platform shows XGMI between all GPUs of its hive: PCIE there means the xGMI links are not up (driver, firmware or a bridge fault, `rocm-smi --showxgmierr`); boards without xGMI (or an MI100 pair without its bridge card) are built so."
	}
	return "nvidia-smi shows an NVLink pair as NV<n> and GPUs behind one PCIe switch as PIX or PXB; PHB, NODE and SYS cross a CPU host bridge. NCCL uses peer-to-peer copies only up to PXB by default (NCCL_P2P_LEVEL; two GPUs on an AMD host excepted), so intra-node traffic here goes through host memory (SHM), bounded by PCIe and the CPU's memory and socket links rather than NVLink. " +
		"A server built with NVLink that shows this has its fabric down (nvidia-smi nvlink -s, the Fabric Manager on NVSwitch systems); a PCIe-only server (L40S, RTX) is built so, and libraries that need NVLink within the node (DeepEP's intranode kernels, NVLS) cannot run on it."
}

// peerFix is what to check for a matrix without a GPU fabric.
func peerFix(kinds []string) string {
	if slices.Contains(kinds, "PCIE") {
		return "On an xGMI platform: `rocm-smi --showxgmierr` and `amd-smi xgmi` on the node, dmesg for amdgpu xGMI errors, the same amdgpu driver and firmware on every GPU; reboot, and drain the node if the links stay down. Without xGMI: size intra-node bandwidth by PCIe."
	}
	return "On an NVLink server: `nvidia-smi nvlink -s` on every GPU, `systemctl status nvidia-fabricmanager` on NVSwitch systems, and the same driver and Fabric Manager versions. On a PCIe server: size intra-node bandwidth by PCIe and place GPU pairs that talk most under one PCIe switch."
}
