package collective

import "rocelab/internal/gpu"

// Graph is what NCCL's topology search (src/graph/search.cc) finds for one
// pattern: how many channels, at what bandwidth per channel inside the
// node and across the network, over which path types.
type Graph struct {
	NChannels        int
	BWIntra, BWInter float32
	TypeIntra        gpu.Path
	TypeInter        gpu.Path
	// SameChannels says every channel visits the GPUs in the same order.
	SameChannels bool
}

// NCCL's per-channel speed ladders (search.cc), GB/s.
var (
	speedIntra      = []float32{40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3}
	speedInter      = []float32{48, 30, 28, 24, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3, 2.4, 1.2, 0.24, 0.12}
	speedIntraSM90  = []float32{60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3}
	speedInterSM90  = []float32{48, 45, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12}
	speedIntraSM100 = []float32{90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 18}
	speedInterSM100 = []float32{96, 86, 80, 48, 45.1, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12}
)

// maxGraphChannels is MAXCHANNELS/2, the ring search's limit.
const maxGraphChannels = 32

// node is the part of the system the search looks at: one server, the
// NICs NCCL may use on it, and whether the communicator spans servers.
type node struct {
	srv   gpu.Server
	nics  int  // usable NICs
	inter bool // more than one server
	ppn   int  // GPUs of this server in the communicator
	// noGDR says, by GPU of the server, which reach their NIC without
	// GPUDirect RDMA (none when nil), so that NCCL routes their paths
	// through their CPU: the module or the NIC does not allow it (the
	// socket transport never does), or the path is farther than
	// NCCL_NET_GDR_LEVEL.
	noGDR []bool
	// ver is the NCCL release, whose topology gives the link between CPU
	// sockets its bandwidth.
	ver Version
}

// netPaths returns the types NCCL's topology gives the paths from the
// server's GPUs to their NICs, each GPU's as pathOf types it: the nearest
// GPU's, which the search can always give a channel (ncclTopoSearchInit:
// maxBw is the best GPU-NIC path's bandwidth), and the farthest GPU's,
// the graph's typeInter.
func (n node) netPaths() (near, far gpu.Path) {
	near, far = n.pathOf(0), n.pathOf(0)
	for g := 1; g < n.srv.GPUs; g++ {
		p := n.pathOf(g)
		near, far = min(near, p), max(far, p)
	}
	return near, far
}

// nearPath is the nearest GPU's path to its NIC (netPaths).
func (n node) nearPath() gpu.Path {
	near, _ := n.netPaths()
	return near
}

// pathOf is the type of GPU g's path to its NIC: a PIX or PXB path of a
// GPU without GPUDirect RDMA goes through the GPU's CPU and is PHB, GPU by
// GPU (v2.25.1-1 src/graph/paths.cc ncclTopoComputePaths: for each NIC
// and GPU whose path is nearer than PHB and ncclTopoCheckGdr refuses,
// "divert all traffic through the CPU local to the GPU", addInterStep
// taking the larger of the two legs' types; a SYS path stays SYS).
func (n node) pathOf(g int) gpu.Path {
	p := n.srv.PathOf(g)
	if g < len(n.noGDR) && n.noGDR[g] && p < gpu.PHB {
		return gpu.PHB
	}
	return p
}

// socketBW is the bandwidth NCCL's topology gives the link between CPU
// sockets, GB/s: its belief, from the CPU's vendor and CPUID model by
// release (src/graph/topo.cc ncclTopoGetInterCpuBw, topo.h; v2.25.1-1:
// every Intel model from 0x55, Skylake, SKL_QPI_BW 10, older QPI_BW 6;
// from v2.26.2-1 model 0xCF on, Emerald Rapids, ERP_QPI_BW 40, 0x8F on,
// Sapphire Rapids, SRP_QPI_BW 22, then SKL_QPI_BW 10 and BDW_QPI_BW 6;
// AMD_BW 16 and ARM_BW 6 in both; gpu.CPUGen.Model). It is the search's
// figure, not the link's rate: the simulated socket link moves at
// gpu.Server.SocketBW, the hardware's, which the search never reads.
func (n node) socketBW() float32 {
	switch n.srv.CPU {
	case gpu.AMD:
		return 16
	case gpu.ARM:
		return 6
	}
	m := n.srv.CPUGen.Model()
	switch {
	case n.ver.AtLeast(2, 26, 0) && m >= 0xCF:
		return 40
	case n.ver.AtLeast(2, 26, 0) && m >= 0x8F:
		return 22
	case m >= 0x55:
		return 10
	}
	return 6
}

// pciCost is how many GB/s a channel of one GB/s takes from each PCI link
// of a path of type p from a GPU to its NIC: INTEL_P2P_OVERHEAD's 6/5 when the
// path goes up to an Intel CPU's root complex and down again (PHB), 1
// otherwise (v2.25.1-1 src/graph/search.cc followPath: "Account for P2P
// inefficiency through Intel CPU RC", for a path of type PATH_PHB that
// starts at a GPU, on LINK_PCI links only).
func (n node) pciCost(p gpu.Path) float32 {
	if p == gpu.PHB && n.srv.CPU == gpu.Intel {
		return 1.2
	}
	return 1
}

// headPaths returns, for NVLS heads 0 to heads-1 (the GPU local to each
// NIC, ncclTopoGetLocalGpu; the twin's gpu.Server.FirstGPU), the farthest
// head's path to its NIC as pathOf types it, the graph's typeInter (NCCL
// raises typeInter from the nearest GPU-NIC type until every head's path
// is within it, and those paths are paths.cc's, the GDR-off re-route
// through the CPU included: v2.25.1-1 src/graph/search.cc
// ncclTopoSearchRecNet, ncclTopoSearchTryGpu from the NET), and the most
// a channel can take on the slowest head's path (pathBW).
func (n node) headPaths(heads int) (typ gpu.Path, bw float32) {
	typ, bw = gpu.PIX, float32(n.srv.NICBW())
	for k := range heads {
		p := n.pathOf(n.srv.FirstGPU(k))
		typ, bw = max(typ, p), min(bw, n.pathBW(p))
	}
	return typ, bw
}

// pathBW is the most bandwidth followPath lets one channel take between a
// GPU and its NIC over a path of type p: the port; the GPU's link towards
// its CPU and the NIC's PCIe link, each charged pciCost's 6/5 through an
// Intel root complex (PHB; followPath charges PCI links only); and the
// socket link NCCL's topology believes when the NIC is on the other
// socket (SYS).
func (n node) pathBW(p gpu.Path) float32 {
	bw := min(float32(min(n.srv.GPUCPUBW(), n.srv.NICPCIeBW()))/n.pciCost(p), float32(n.srv.NICBW()))
	if p == gpu.SYS {
		bw = min(bw, n.socketBW())
	}
	return bw
}

func (n node) speeds() []float32 {
	cc := n.srv.GPU.CompCap
	switch {
	case cc >= 100 && n.inter:
		return speedInterSM100
	case cc >= 100:
		return speedIntraSM100
	case cc >= 90 && n.inter:
		return speedInterSM90
	case cc >= 90:
		return speedIntraSM90
	case n.inter:
		return speedInter
	}
	return speedIntra
}

// maxBW is system->maxBw: the best path bandwidth from a GPU to a NIC
// (multi-node) or to another GPU.
func (n node) maxBW() float32 {
	if n.inter {
		bw := float32(min(n.srv.GPUCPUBW(), n.srv.NICPCIeBW(), n.srv.NICBW()))
		if n.nearPath() == gpu.SYS {
			bw = min(bw, n.socketBW())
		}
		return bw
	}
	if n.ppn == 1 {
		return 5000 // LOC_BW
	}
	return float32(n.srv.IntraBW())
}

// totalBW is system->totalBw: a GPU's NVLink or PCI link bandwidth (a
// C2C link not counted; gpu.Server.TotalBW).
func (n node) totalBW() float32 {
	return float32(n.srv.TotalBW())
}

// channels returns how many channels of bw per channel inside the node
// and bwNet across the network the node can carry: every channel crosses
// each GPU's NVLink (or PCIe) once per direction, and, across servers,
// enters and leaves through a NIC whose port and PCIe link bound it, and,
// with one GPU a server, through the GPU's link towards its CPU (C2C or
// PCIe, gpu.Server.GPUCPUBW); a PCI link gives a channel leaving through
// the CPU's root complex pciCost times its bandwidth, and a path to a NIC
// on the other socket takes the socket link's (followPath subtracts each
// channel from every link of its path).
func (n node) channels(bw, bwNet float32) int {
	c := maxGraphChannels
	if n.ppn > 1 {
		c = min(c, int(float32(n.srv.IntraBW())/bw+1e-4))
	}
	if n.inter {
		pci := n.pciCost(n.nearPath()) * bwNet
		c = min(c, n.nics*min(int(float32(n.srv.NICBW())/bwNet+1e-4), int(float32(n.srv.NICPCIeBW())/pci+1e-4)))
		if n.ppn == 1 {
			c = min(c, int(float32(n.srv.GPUCPUBW())/pci+1e-4))
		}
		if n.nearPath() == gpu.SYS {
			c = min(c, int(n.socketBW()/bwNet+1e-4))
		}
	}
	return c
}

// search models ncclTopoCompute for the ring pattern, then the tree
// pattern with the ring's channel count, as NCCL runs them at init
// (init.cc): start at the fastest speed the paths allow, keep the
// solution with the most channels × bandwidth while the next speed is
// more than .49 of the best, double channels above 25 GB/s
// (ncclTopoDupChannels), and for trees raise the intra-node bandwidth up
// to twice the network bandwidth. It does not search GPU orders: every
// GPU of an NVSwitch server is one NVLink hop from the others.
func search(n node) (ring, tree Graph) {
	speeds := n.speeds()
	maxBw, totalBw := n.maxBW(), n.totalBW()
	typeIntra := n.srv.IntraPath()
	typeInter := gpu.PIX
	if n.inter {
		_, typeInter = n.netPaths()
	}
	ring = Graph{TypeIntra: typeIntra, TypeInter: typeInter, SameChannels: n.nics <= 1 || !n.inter}
	tree = ring

	start := 0
	for start < len(speeds)-1 && (speeds[start] > maxBw || speeds[start] > totalBw) {
		start++
	}
	for i := start; i < len(speeds); i++ {
		s := speeds[i]
		if ring.NChannels > 0 && s/ring.BWInter <= .49 {
			break
		}
		c := n.channels(s, s)
		if c >= 1 && float32(c)*s > float32(ring.NChannels)*ring.BWInter {
			ring.NChannels, ring.BWIntra, ring.BWInter = c, s, s
		}
		if ring.NChannels == maxGraphChannels || float32(ring.NChannels)*ring.BWInter >= totalBw {
			break
		}
	}
	if ring.NChannels == 0 {
		// NCCL's fallback: one channel at a token bandwidth.
		ring.NChannels, ring.BWIntra, ring.BWInter = 1, 0.1, 0.1
	}
	dupChannels(&ring, n.srv.GPU.CompCap, maxGraphChannels)

	// Tree: the same channel count, at the best network speed that fits.
	tree.NChannels = ring.NChannels
	treeTotal := totalBw
	if n.srv.GPUs > 1 {
		treeTotal *= float32(n.srv.GPUs) / float32(n.srv.GPUs-1)
	}
	idx := -1
	for i := 0; i < len(speeds); i++ {
		s := speeds[i]
		if s > maxBw || s > treeTotal {
			continue
		}
		if n.channels(s, s) >= tree.NChannels {
			idx = i
			break
		}
	}
	if idx < 0 {
		tree.BWIntra, tree.BWInter = ring.BWIntra, ring.BWInter
		return ring, tree
	}
	tree.BWIntra, tree.BWInter = speeds[idx], speeds[idx]
	// Pass 2: raise bwIntra while below twice bwInter and still carried.
	for j := idx - 1; j >= 0 && tree.BWIntra < 2*tree.BWInter; j-- {
		if n.channels(speeds[j], tree.BWInter) < tree.NChannels {
			break
		}
		tree.BWIntra = speeds[j]
	}
	dupChannels(&tree, n.srv.GPU.CompCap, ring.NChannels)
	return ring, tree
}

// dupChannels is ncclTopoDupChannels: above 25 GB/s per channel, split
// each channel in two at half the bandwidth (not on Hopper and later
// when under 50 GB/s with more than 4 channels).
func dupChannels(g *Graph, cc, maxCh int) {
	if g.BWIntra < 25 || (cc > 80 && g.BWIntra < 50 && g.NChannels > 4) {
		return
	}
	dup := min(2*g.NChannels, maxCh)
	div := float32((dup + g.NChannels - 1) / g.NChannels)
	g.BWIntra /= div
	g.BWInter /= div
	g.NChannels = dup
}

// maxNVLSArity is NCCL_MAX_NVLS_ARITY, the most NVLS heads.
const maxNVLSArity = 32

// nvlsSearch models ncclTopoCompute for the NVLS pattern (search.cc): on
// an NVSwitch server of Hopper or later GPUs, one channel per head. On
// one server every GPU is a head; across servers a head is a GPU with a
// NIC of its own (ncclTopoSearchTryNet: one per NIC, no GPU twice). Each
// channel pulls bwIntra over the NVLink of every GPU and twice over its
// head's, so the speed is the fastest of the ladder at which (heads + 1)
// × speed fits a GPU's NVLink; pass 2 then raises bwInter up to twice
// bwIntra while the heads' paths to their NICs (headPaths; on one
// server, the ladder) allow.
// A system without NVLS gets a graph of no channels.
func nvlsSearch(n node) Graph {
	g := Graph{TypeIntra: gpu.NVL, TypeInter: gpu.PIX}
	srv := n.srv
	if srv.Intra != gpu.NVSwitch || srv.GPU.CompCap < 90 || n.ppn < 2 {
		return g
	}
	heads := min(maxNVLSArity, n.ppn)
	speeds := n.speeds()
	limit := speeds[0]
	if n.inter {
		heads = min(heads, n.nics)
		g.TypeInter, limit = n.headPaths(heads)
	}
	nvl := float32(srv.IntraBW())
	idx := -1
	for i, s := range speeds {
		if s <= n.maxBW() && float32(heads+1)*s <= nvl+1e-4 {
			idx = i
			break
		}
	}
	if idx < 0 || heads < 1 {
		return g
	}
	g.NChannels, g.BWIntra, g.BWInter = heads, speeds[idx], speeds[idx]
	for j := idx - 1; j >= 0 && g.BWInter < 2*g.BWIntra; j-- {
		if speeds[j] > limit {
			break
		}
		g.BWInter = speeds[j]
	}
	return g
}
