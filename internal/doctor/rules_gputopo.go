package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
)

// Rules over `nvidia-smi topo -m`: how far each GPU is from its nearest
// NIC. NCCL lets a NIC read and write GPU memory directly (GPUDirect RDMA)
// only when the NIC is at most NCCL_NET_GDR_LEVEL from the GPU, PXB by
// default (one PCIe switch between them); farther, every transfer is
// staged through host memory.

// topoRank orders nvidia-smi's links, nearest first; -1 for none.
func topoRank(link string) int {
	switch link {
	case "X":
		return 0
	case "PIX":
		return 1
	case "PXB":
		return 2
	case "PHB":
		return 3
	case "NODE":
		return 4
	case "SYS", "SOC":
		return 5
	}
	return -1
}

func gpuTopoRules() []Rule {
	return []Rule{{IDs: []string{"topo.gpu_nic.far", "topo.gpu_nic.ok"}, Check: checkGPUNICDistance}}
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
		for _, g := range t.GPUs {
			best, nic := -1, ""
			for i, link := range g.ToNIC {
				if r := topoRank(link); r >= 0 && (best < 0 || r < best) && i < len(t.NICs) {
					best, nic = r, fmt.Sprintf("%s (%s)", link, t.NICs[i])
				}
			}
			switch {
			case best < 0:
			case best > topoRank("PXB"):
				far = append(far, g.Name+" "+nic)
				ev = append(ev, g.Evidence)
			default:
				near = append(near, g.Name+" "+nic)
			}
		}
		if len(far) == 0 {
			if len(near) > 0 {
				fs = append(fs, Finding{
					ID: "topo.gpu_nic.ok", Severity: Info, Layer: LayerNCCL,
					Title:     fmt.Sprintf("%s: every GPU has a NIC within one PCIe switch (nearest: %s)", t.Source(), list(near, 4)),
					Evidence:  []Evidence{t.GPUs[0].Evidence},
					Mechanism: "NCCL uses GPUDirect RDMA (the NIC reading and writing GPU memory) when the NIC is at most NCCL_NET_GDR_LEVEL from the GPU, PXB by default; every GPU here has one that close.",
				})
			}
			continue
		}
		fs = append(fs, Finding{
			ID: "topo.gpu_nic.far", Severity: Warn, Layer: LayerNCCL,
			Title:    fmt.Sprintf("%s: %d of %d GPUs have no NIC within one PCIe switch, so NCCL stages their network traffic through host memory: nearest NIC %s", t.Source(), len(far), len(t.GPUs), strings.Join(far, ", ")),
			Evidence: ev,
			Mechanism: "NCCL lets the NIC read and write GPU memory directly (GPUDirect RDMA) only when it is at most NCCL_NET_GDR_LEVEL from the GPU, PXB by default: through at most PCIe switches, not the CPU. " +
				"PHB crosses the CPU's host bridge, NODE the interconnect between host bridges of one socket, SYS the link between sockets: for these GPUs NCCL copies every message through a host buffer (no /GDRDMA on their NET channels, 'GDR 0'), which costs bandwidth and CPU memory traffic, and across sockets (SYS) also the inter-socket link.",
			Fix: "Put each GPU beside its own NIC (the server's PCIe layout: same PCIe switch, or at least the same socket), and pin each rank to the NIC and CPUs nearest its GPU (NCCL picks the nearest NIC itself). Where the platform allows GPUDirect RDMA across the host bridge, NCCL_NET_GDR_LEVEL=PHB (or SYS) enables it; check that nvidia-peermem or DMA-BUF is available and that NCCL's log then shows /GDRDMA.",
		})
	}
	return fs
}
