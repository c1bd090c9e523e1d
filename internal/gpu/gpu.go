// Package gpu models the inside of a GPU server as NCCL sees it: the GPU
// models and their NVLink, the PCIe generations, the NICs, the distance
// class between a GPU and a NIC (PIX, PXB, PHB, SYS, as nvidia-smi topo -m
// prints them) and whether GPUDirect RDMA is used at that distance.
//
// Bandwidths are in GB/s (1e9 bytes per second), the unit NCCL's topology
// code uses; Rate converts them to a unit.BitRate.
package gpu

import (
	"fmt"
	"strings"

	"rocelab/internal/unit"
)

// Rate converts a bandwidth in GB/s to a bit rate.
func Rate(gbs float64) unit.BitRate { return unit.BitRate(gbs * 8e9) }

// GBps converts a bit rate to GB/s.
func GBps(r unit.BitRate) float64 { return float64(r) / 8e9 }

// Path is NCCL's path type between two devices (src/include/graph.h), from
// closest to farthest. The order matters: NCCL_NET_GDR_LEVEL and the
// LL128 rule compare paths by it.
type Path uint8

// Path types in NCCL's order.
const (
	// LOC is the device itself.
	LOC Path = iota
	// NVL is a direct NVLink.
	NVL
	// NVB is NVLink through one intermediate GPU.
	NVB
	// C2C is a chip-to-chip link (Grace).
	C2C
	// PIX is at most one PCIe bridge.
	PIX
	// PXB is several PCIe bridges, not through the CPU.
	PXB
	// P2C is a GPU to NIC path through C2C then PCIe.
	P2C
	// PXN is a NIC reached through another GPU over NVLink.
	PXN
	// PHB is through a PCIe host bridge (the CPU's root complex).
	PHB
	// SYS is across the SMP interconnect between CPU sockets.
	SYS
	// NET is across the network.
	NET
)

var pathNames = [...]string{"LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS", "NET"}

// String returns the path's name as NCCL prints it.
func (p Path) String() string {
	if int(p) < len(pathNames) {
		return pathNames[p]
	}
	return fmt.Sprintf("Path(%d)", uint8(p))
}

// ParsePath reads a path name (case-insensitive) or NCCL's legacy numeric
// level: 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 SYS, 5 SYS (NCCL_NET_GDR_LEVEL and
// NCCL_P2P_LEVEL accept both forms).
func ParsePath(s string) (Path, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	for i, n := range pathNames {
		if t == n {
			return Path(i), nil
		}
	}
	legacy := map[string]Path{"0": LOC, "1": PIX, "2": PXB, "3": PHB, "4": SYS, "5": SYS}
	if p, ok := legacy[t]; ok {
		return p, nil
	}
	return 0, fmt.Errorf("%q is not a path level: want LOC, PIX, PXB, PHB or SYS (or 0-5)", s)
}

// Model is a GPU model's data as NCCL's tuning and topology code use them.
type Model struct {
	Name string
	// CompCap is the CUDA compute capability times ten (80 for A100).
	CompCap int
	// NVLinks is the number of NVLink links and LinkBW the bandwidth NCCL
	// assigns one link (SM80_NVLINK_BW and its siblings in
	// src/graph/topo.h): their product is the GPU's usable NVLink
	// bandwidth per direction.
	NVLinks int
	LinkBW  float64
	// NVLinkNominal is the marketed bidirectional NVLink bandwidth, GB/s.
	NVLinkNominal float64
	// ChannelBW is the most one channel (one SM running NCCL's kernel)
	// moves, GB/s: the top of NCCL's intra-node speed array for the
	// architecture (search.cc speedArrayIntra, sm90SpeedArrayIntra,
	// sm100SpeedArrayIntra).
	ChannelBW float64
	// PCIe is the GPU's host interface generation (x16).
	PCIe int
	// C2C is the bandwidth, GB/s, of an NVLink-C2C link between the GPU
	// and its CPU as NCCL's topology counts it (topo.cc ncclTopoAddC2c:
	// the c2c element's bw × count / 1000), 0 for a GPU without one. NCCL
	// sends a C2C GPU's traffic to a NIC on its CPU over it (paths.cc: the
	// P2C path), but its search's total GPU bandwidth counts only NVLink
	// and PCI links (search.cc getTotalBw), so the PCI link the GPU's
	// sysfs reports (PCIeRead) sets where the search starts.
	C2C float64
	// PCIeRead is the generation of the x16 PCI link NCCL reads for the
	// GPU when it is not its host interface's (a C2C GPU's sysfs link),
	// 0 for PCIe's.
	PCIeRead int
	// NVLinkLat is the time of one NVLink step relative to NCCL's
	// constants for it (tuning.cc hwLat NVLINK, one table for every GPU
	// generation), 1 when zero. B200: 1.3, the ratio of the 8-byte
	// all_reduce within one server of 8 B200 (about 3 µs) to 8 H200 or
	// H800 (about 2.3 µs) measured with the same kernels and tuning
	// (NVIDIA/nccl#1940, NCCL 2.27's symmetric memory).
	NVLinkLat float64
	// NoGDR says the GPU cannot do GPUDirect RDMA whatever the host
	// loads: CUDA reports cudaDevAttrGPUDirectRDMASupported 0, which
	// NCCL takes as the GPU's gdr attribute (v2.28.9 plugin/net.cc
	// ncclGpuGdrSupport; graph/paths.cc ncclTopoCheckGdr returns
	// "disabled" for such a GPU), so its network data bounces through
	// host memory. GB10: the DGX Spark's unified memory, which "cannot be
	// coherently accessed ... by I/O peripherals like PCI Express
	// devices. Hence the GPUDirect RDMA technology is not supported"
	// (NVIDIA's answer in https://forums.developer.nvidia.com/t/dgx-spark-gpudirect-rdma/348787/6);
	// the Spark's NCCL 2.28.9 log prints "GPU Direct RDMA Disabled" for
	// both of its NIC's functions (testdata/corpus/nccl-log,
	// nccl-2.28.9-dgx-spark-gb10-roce-200g-port-lines-gid0-allgather.txt).
	NoGDR bool
}

// NVLinkLatScale returns the model's NVLink step time relative to NCCL's
// constants (NVLinkLat, 1 when unset).
func (m Model) NVLinkLatScale() float64 {
	if m.NVLinkLat == 0 {
		return 1
	}
	return m.NVLinkLat
}

// NVLinkBW returns the GPU's usable NVLink bandwidth per direction, GB/s.
func (m Model) NVLinkBW() float64 { return float64(m.NVLinks) * m.LinkBW }

// Models are the GPU models the twin knows. NVLink figures: NVIDIA's data
// sheets give 300, 600, 900 and 1800 GB/s bidirectional for V100, A100,
// H100 and B200; NCCL counts 6, 12, 18 and 18 links at 20, 20, 20.6 and
// 40.1 GB/s. The H100 figure, 370.8 GB/s, matches the ~370 GB/s busbw the
// maintainers quote for H100 NVLink (nccl-tests #212).
var Models = map[string]Model{
	"V100": {Name: "V100", CompCap: 70, NVLinks: 6, LinkBW: 20, NVLinkNominal: 300, ChannelBW: 40, PCIe: 3},
	"A100": {Name: "A100", CompCap: 80, NVLinks: 12, LinkBW: 20, NVLinkNominal: 600, ChannelBW: 40, PCIe: 4},
	"H100": {Name: "H100", CompCap: 90, NVLinks: 18, LinkBW: 20.6, NVLinkNominal: 900, ChannelBW: 60, PCIe: 5},
	"B200": {Name: "B200", CompCap: 100, NVLinks: 18, LinkBW: 40.1, NVLinkNominal: 1800, ChannelBW: 90, PCIe: 5, NVLinkLat: 1.3},
	// GB10 (DGX Spark): one Blackwell GPU per node, no NVLink; its
	// channel speed is assumed equal to an A100's. A GB10's NCCL
	// topology dump (NVIDIA/nccl pull request #2202, a comment's
	// NCCL_TOPO_DUMP_FILE of 2026-06-03) gives the GPU <c2c bw="43125"
	// count="8"/>, 345 GB/s to the CPU, and a PCI link of "2.5 GT/s PCIe"
	// × 16, which NCCL counts as 3 GB/s.
	"GB10": {Name: "GB10", CompCap: 121, ChannelBW: 40, PCIe: 5, C2C: 345, PCIeRead: 1, NoGDR: true},
}

// LookupModel returns a known model by name (case-insensitive).
func LookupModel(name string) (Model, error) {
	m, ok := Models[strings.ToUpper(strings.TrimSpace(name))]
	if !ok {
		return Model{}, fmt.Errorf("unknown GPU model %q: want V100, A100, H100, B200 or GB10", name)
	}
	return m, nil
}

// PCIeBW returns the bandwidth NCCL assigns a PCIe x16 link of generation
// gen, GB/s: width × per-lane rate / 80 with NCCL's per-lane table
// (topo.cc kvDictPciGen), so Gen3 12, Gen4 24, Gen5 48, Gen6 96.
func PCIeBW(gen int) float64 {
	perLane := map[int]float64{1: 15, 2: 30, 3: 60, 4: 120, 5: 240, 6: 480}[gen]
	if perLane == 0 {
		perLane = 60 // NCCL's fallback
	}
	return 16 * perLane / 80
}

// CPU is the host CPU vendor, which changes NCCL's network overhead and LL
// bandwidth limits.
type CPU uint8

// CPU vendors. NCCL's constants tell only AMD x86 hosts apart (a larger
// network overhead, lower LL limits); ARM hosts get Intel's.
const (
	Intel CPU = iota
	AMD
	ARM
)

// String returns the vendor's name.
func (c CPU) String() string {
	return [...]string{"Intel", "AMD", "ARM"}[c]
}

// Interconnect is how the GPUs of one server reach each other.
type Interconnect uint8

// Interconnects.
const (
	// NVSwitch connects every GPU pair over NVLink.
	NVSwitch Interconnect = iota
	// PCIeOnly leaves GPU-to-GPU traffic on PCIe.
	PCIeOnly
)

// GID is one entry of a RoCE port's GID table.
type GID struct {
	// V2 is RoCE v2 (UDP/IP); false is RoCE v1 (Ethernet only).
	V2 bool
	// Routable is an IPv4 or global IPv6 address; false is a link-local
	// fe80:: entry, which does not cross a router (NVIDIA/nccl#769).
	Routable bool
}

// StandardGIDs is the GID table of a ConnectX port with one IPv4 address:
// 0 and 1 link-local v1 and v2, 2 and 3 IPv4 v1 and v2 (as show_gids
// prints in NVIDIA/nccl#1131).
var StandardGIDs = []GID{{V2: false}, {V2: true}, {V2: false, Routable: true}, {V2: true, Routable: true}}

// Server is one GPU server model; a cluster's servers are alike.
type Server struct {
	GPU  Model
	GPUs int
	NICs int
	// NICRate is one NIC port's line rate.
	NICRate unit.BitRate
	// NICPCIe is the NIC's PCIe generation (x16).
	NICPCIe int
	// Intra is how GPUs reach each other.
	Intra Interconnect
	// GPUNIC is the path from a GPU to its nearest NIC.
	GPUNIC Path
	// CPU is the host CPU vendor.
	CPU CPU
	// PeerMem says the GPUDirect RDMA kernel module (nvidia_peermem) is
	// loaded; without it GDR is off whatever NCCL_NET_GDR_LEVEL says.
	PeerMem bool
	// GIDs is each NIC port's GID table.
	GIDs []GID
	// Host holds the server's host-side details (host.go).
	Host
}

// Validate reports the first field that does not fit.
func (s Server) Validate() error {
	switch {
	case s.GPUs < 1 || s.GPUs > 64:
		return fmt.Errorf("gpus: want 1 to 64 GPUs per server, got %d", s.GPUs)
	case s.NICs < 1 || s.NICs > 32:
		return fmt.Errorf("nics: want 1 to 32 NICs per server, got %d", s.NICs)
	case s.NICRate <= 0:
		return fmt.Errorf("nic rate: must be positive")
	case s.TopoNICRate < 0:
		return fmt.Errorf("topology nic rate: must be positive, or 0 for the NIC's own")
	case s.GPU.CompCap == 0:
		return fmt.Errorf("gpu: model not set")
	case s.GPUNIC < PIX || s.GPUNIC > SYS || s.GPUNIC == P2C || s.GPUNIC == PXN:
		return fmt.Errorf("gpu_nic: want PIX, PXB, PHB or SYS, got %s", s.GPUNIC)
	case len(s.GPUNICPaths) != 0 && len(s.GPUNICPaths) != s.GPUs:
		return fmt.Errorf("gpu_nic: %d paths for %d GPUs", len(s.GPUNICPaths), s.GPUs)
	case s.Bond > 1 && s.NICs%s.Bond != 0:
		return fmt.Errorf("nic_bond: %d ports per bond do not divide %d NIC ports", s.Bond, s.NICs)
	case s.CardPorts > 1 && s.NICs%s.CardPorts != 0:
		return fmt.Errorf("nic_ports: %d ports per card do not divide %d NIC ports", s.CardPorts, s.NICs)
	case s.CardPorts > 1 && s.Bond > 1:
		return fmt.Errorf("nic_ports and nic_bond: a bond of a card's ports is one port to NCCL; give one of them")
	}
	return nil
}

// NICOf returns the NIC nearest to GPU g: NICs are spread evenly over the
// GPUs, NIC n serving GPUs n·G/N to (n+1)·G/N−1 (with more NICs than GPUs,
// GPU g's first NIC).
func (s Server) NICOf(g int) int { return g * s.NICs / s.GPUs }

// FirstGPU returns the first GPU NIC n serves.
func (s Server) FirstGPU(n int) int {
	g := (n*s.GPUs + s.NICs - 1) / s.NICs
	if g >= s.GPUs {
		g = s.GPUs - 1
	}
	return g
}

// NICBW returns the NIC bandwidth NCCL's topology assigns: the port speed
// in Mb/s divided by 8000 (topo.cc), so 12.5 GB/s for 100G.
func (s Server) NICBW() float64 { return GBps(s.NICRate) }

// GPUCPUBW returns the bandwidth of the GPU's link towards its CPU on
// NCCL's path to a NIC, GB/s: its NVLink-C2C link when it has one, else
// its PCIe link.
func (s Server) GPUCPUBW() float64 {
	if s.GPU.C2C > 0 {
		return s.GPU.C2C
	}
	return PCIeBW(s.gpuPCIe())
}

// TotalBW returns NCCL's total bandwidth of one GPU (search.cc
// getTotalBw: the larger of its NVLink links' sum and its PCI link, a C2C
// link not counted), GB/s.
func (s Server) TotalBW() float64 {
	if s.GPU.PCIeRead > 0 {
		return max(s.GPU.NVLinkBW(), PCIeBW(s.GPU.PCIeRead))
	}
	return max(s.IntraBW(), PCIeBW(s.GPU.PCIe))
}

// IntraBW returns the bandwidth one GPU has towards the others, GB/s:
// its NVLink bandwidth on an NVSwitch server, its PCIe link otherwise.
func (s Server) IntraBW() float64 {
	if s.Intra == NVSwitch {
		return s.GPU.NVLinkBW()
	}
	return PCIeBW(s.gpuPCIe())
}

// IntraPath returns the path type between two GPUs of the server.
func (s Server) IntraPath() Path {
	if s.Intra == NVSwitch {
		return NVL
	}
	return s.WorstPath()
}

// GDR reports whether NCCL uses GPUDirect RDMA between GPU g and its NIC
// with NCCL_NET_GDR_LEVEL at level: the module must be loaded, the GPU
// able to (Model.NoGDR) and the path no farther than the level
// (graph/paths.cc ncclTopoCheckGdr: distance <= level).
func (s Server) GDR(g int, level Path) bool {
	return s.PeerMem && !s.GPU.NoGDR && s.PathOf(g) <= level
}

// Preset returns a named server: "dgx-a100" (8 A100, 8×200G, NVSwitch,
// PXB, AMD), "hgx-h100" (8 H100, 8×400G Gen5, NVSwitch, PXB, Intel), or
// "a100-1nic" (8 A100 sharing one 100G NIC).
func Preset(name string) (Server, error) {
	a100, h100 := Models["A100"], Models["H100"]
	switch strings.ToLower(name) {
	case "dgx-a100":
		return Server{GPU: a100, GPUs: 8, NICs: 8, NICRate: 200 * unit.Gbps, NICPCIe: 4, Intra: NVSwitch, GPUNIC: PXB, CPU: AMD, PeerMem: true, GIDs: StandardGIDs}, nil
	case "hgx-h100":
		return Server{GPU: h100, GPUs: 8, NICs: 8, NICRate: 400 * unit.Gbps, NICPCIe: 5, Intra: NVSwitch, GPUNIC: PXB, CPU: Intel, PeerMem: true, GIDs: StandardGIDs}, nil
	case "a100-1nic":
		return Server{GPU: a100, GPUs: 8, NICs: 1, NICRate: 100 * unit.Gbps, NICPCIe: 4, Intra: NVSwitch, GPUNIC: PXB, CPU: AMD, PeerMem: true, GIDs: StandardGIDs}, nil
	}
	return Server{}, fmt.Errorf("unknown server preset %q: want dgx-a100, hgx-h100 or a100-1nic", name)
}
