package gpu

import (
	"rocelab/internal/pcie"
	"rocelab/internal/unit"
)

// Host is what a GPU server adds around its GPUs and NICs that NCCL's
// performance depends on: where each GPU's NIC sits, the PCIe links, ACS,
// bonding and per-step host cost. The zero value is a well-built server:
// every GPU's NIC at the server's GPUNIC distance, x16 links, ACS off, no
// bonds, no extra cost.
type Host struct {
	// GPUNICPaths, when set, is each GPU's path to its nearest NIC (one
	// per GPU; SYS is a NIC on the other CPU socket), overriding GPUNIC.
	GPUNICPaths []Path
	// SocketLink is the bandwidth the link between CPU sockets carries
	// each way, GB/s (0: CPUGen's, else NCCL's figure for the vendor). It
	// is the hardware's: NCCL's search never reads it.
	SocketLink float64
	// CPUGen is the CPU's generation (CPUAnyGen: the vendor alone).
	CPUGen CPUGen
	// GPUPCIe overrides the GPU model's PCIe generation (0: the model's).
	GPUPCIe int
	// NICPCIeWidth is the NIC's PCIe lane count (0: 16).
	NICPCIeWidth int
	// ACS says PCIe Access Control Services are on in the switches
	// between GPUs and NICs: peer-to-peer traffic, GPUDirect RDMA
	// included, goes up to the root complex and back down.
	ACS bool
	// Bond is the number of NIC ports bonded into one device (RoCE LAG;
	// 0 or 1: none). NCCL sees NICs/Bond devices of Bond × the port
	// speed; each queue pair runs on one port of its bond.
	Bond int
	// CardPorts is the number of ports of each NIC card (0 or 1: single
	// port cards): ports n·CardPorts to (n+1)·CardPorts−1 are one PCI
	// device, which NCCL from 2.20 merges into one net device
	// (NCCL_IB_MERGE_NICS).
	CardPorts int
	// TopoNICRate is the speed a topology file (NCCL_TOPO_FILE) gives each
	// device, its net element's speed attribute in Mb/s, which NCCL reads
	// in place of the speed the device reports (src/graph/topo.cc
	// ncclTopoAddNet: bw = speed / 8000 GB/s); 0 when NCCL reads the
	// device. OCI's H100-topology.xml (oracle-quickstart/oci-hpc
	// samples/gpu, NCCL_TOPO_FILE in its H100 NCCL scripts before NCCL
	// 2.20.3) gives each 200G port 180000. It names ports: NCCL from
	// 2.20 merging a card's ports (CardPorts) adds the merged device at
	// its plugin's summed speed instead.
	TopoNICRate unit.BitRate
	// StepOverhead is host time added to every network operation of
	// NCCL's proxy thread: a hypervisor's exits, a slow driver stack.
	StepOverhead unit.Time
}

// PathOf returns GPU g's path to its nearest NIC.
func (s Server) PathOf(g int) Path {
	if g >= 0 && g < len(s.GPUNICPaths) {
		return s.GPUNICPaths[g]
	}
	return s.GPUNIC
}

// WorstPath returns the farthest of the GPUs' paths to their NICs (NCCL's
// graph takes the farthest path its channels use).
func (s Server) WorstPath() Path {
	w := s.GPUNIC
	if len(s.GPUNICPaths) > 0 {
		w = s.GPUNICPaths[0]
		for _, p := range s.GPUNICPaths {
			w = max(w, p)
		}
	}
	return w
}

// SocketBW returns the bandwidth the link between CPU sockets carries each
// way, GB/s, the rate the data moves at: SocketLink, else the CPU
// generation's UPI links (CPUGen.LinkBW), else, the generation unknown,
// NCCL's figure for the vendor (topo.h: Intel Sapphire Rapids 22, AMD 16,
// ARM 6).
func (s Server) SocketBW() float64 {
	switch {
	case s.SocketLink > 0:
		return s.SocketLink
	case s.CPUGen != CPUAnyGen:
		return s.CPUGen.LinkBW()
	}
	return [...]float64{22, 16, 6}[s.CPU]
}

func (s Server) gpuPCIe() int {
	if s.GPUPCIe > 0 {
		return s.GPUPCIe
	}
	return s.GPU.PCIe
}

// Devices returns the NIC devices NCCL sees: the ports, or one per bond.
func (s Server) Devices() int {
	if s.Bond > 1 {
		return s.NICs / s.Bond
	}
	return s.NICs
}

// DeviceRate returns a device's speed: a port's, times the ports bonded.
func (s Server) DeviceRate() unit.BitRate {
	if s.Bond > 1 {
		return s.NICRate * unit.BitRate(s.Bond)
	}
	return s.NICRate
}

// NICPCIeBW returns the bandwidth of the NIC's PCIe link as NCCL's
// topology counts it, GB/s (its per-lane table).
func (s Server) NICPCIeBW() float64 {
	return PCIeBW(s.NICPCIe) * float64(s.nicWidth()) / 16
}

func (s Server) nicWidth() int {
	if s.NICPCIeWidth <= 0 {
		return 16
	}
	return s.NICPCIeWidth
}

// PCIeTLPEfficiency is the share of a PCIe link's raw rate left for DMA
// payload after transaction-layer headers (256-byte payloads and read
// completions): about 0.86.
const PCIeTLPEfficiency = 0.86

// NICDMABW returns what the NIC's PCIe link carries in DMA payload, GB/s:
// lanes × lane rate after line coding (pcie.Gen.LaneGBps) × PCIeTLPEfficiency (Gen3 x8: 6.8 GB/s, 54 Gb/s,
// below a 100G port; Gen4 x16: 27 GB/s, above a 200G port).
func (s Server) NICDMABW() float64 {
	g, ok := pcie.Generation(s.NICPCIe)
	if !ok {
		g, _ = pcie.Generation(3)
	}
	return g.LaneGBps() * float64(s.nicWidth()) * PCIeTLPEfficiency
}
