package collective

import (
	"fmt"
	"strings"

	"rocelab/internal/gpu"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// System is the cluster a communicator runs on: identical GPU servers and
// the transport host of every NIC.
type System struct {
	Server gpu.Server
	// Hosts[s][n] is the transport host (topology host id) of NIC n on
	// server s.
	Hosts [][]int
	// Models, when set, is each server's GPU model (a job that mixes
	// GPU generations); otherwise every server has Server.GPU.
	Models []gpu.Model
}

// ModelOf returns the GPU model of server s.
func (s System) ModelOf(srv int) gpu.Model {
	if srv >= 0 && srv < len(s.Models) && s.Models[srv].CompCap != 0 {
		return s.Models[srv]
	}
	return s.Server.GPU
}

// Net is the network transport NCCL selected.
type Net uint8

// Network transports.
const (
	// NetIB is NCCL's IB verbs transport over RoCE.
	NetIB Net = iota
	// NetSocket is NCCL's socket transport over kernel TCP.
	NetSocket
)

// String returns the transport as NCCL's log names it.
func (n Net) String() string {
	if n == NetSocket {
		return "NET/Socket"
	}
	return "NET/IB"
}

// Comm is an NCCL communicator over the same GPUs of some servers: its
// ranks, the NICs and transport it uses, its tuning model and the
// connections it opens on first use. Ranks are numbered server by server:
// rank = node·PPN + i, on GPU GPUs[i] of server Servers[node].
type Comm struct {
	Cfg     *Config
	Sys     System
	Servers []int // the System servers that take part, in node order
	GPUs    []int // the GPUs of each server that take part
	PPN     int   // len(GPUs)
	NRanks  int
	Net     Net
	// NICs are the NIC indices NCCL uses on every server (NCCL_IB_HCA).
	NICs []int
	// GID is the GID index the IB transport uses.
	GID int
	// GDR says GPUDirect RDMA is used between every GPU and its NIC;
	// gdr is each GPU's (by index into GPUs).
	GDR bool
	gdr []bool
	// flush is each rank's need to flush GPUDirect receives (needFlush).
	flush  []bool
	Tuning *Tuning
	// Notes explain the transport and GDR decisions, as NCCL's INFO lines
	// would.
	Notes []string
	// ThreadGPUs is how many consecutive ranks one host thread drives
	// (nccl-tests -g; 0 or 1: a thread per GPU). The thread enqueues each
	// call on its GPUs one after the other (HostLaunch).
	ThreadGPUs int

	graphCh int
	// dev is the server as NCCL sees it: one NIC device per bond of
	// ports, or per card when NCCL merges a card's ports (Sys.Server when
	// nothing is bonded or merged).
	dev gpu.Server
	// ports is the number of NIC ports behind each of dev's devices;
	// merged says they are a card's ports that NCCL merged (its queue
	// pairs alternate between them), not a bond (each queue pair hashed
	// to one).
	ports  int
	merged bool
	eng    engine
}

// NewComm builds the communicator over GPUs gpus of each server in
// servers (AllGPUs(n) for the first n). It picks the network transport (IB unless NCCL_IB_DISABLE=1,
// no NIC passes NCCL_IB_HCA, or no RoCE v2 GID with an address exists),
// the GID, GPUDirect RDMA from NCCL_NET_GDR_LEVEL, runs the topology
// search and builds the tuning model. A GID index that points at an entry
// RoCE cannot route over an IP fabric is an error, as the connection
// would time out in NCCL (NVIDIA/nccl#769).
func NewComm(cfg *Config, sys System, servers []int, gpus []int) (*Comm, error) {
	srv := sys.Server
	if err := srv.Validate(); err != nil {
		return nil, err
	}
	if len(servers) == 0 {
		return nil, fmt.Errorf("communicator: no servers")
	}
	ppn := len(gpus)
	if ppn < 1 || ppn > srv.GPUs {
		return nil, fmt.Errorf("communicator: %d GPUs per server, the servers have %d", ppn, srv.GPUs)
	}
	seen := map[int]bool{}
	for _, g := range gpus {
		if g < 0 || g >= srv.GPUs || seen[g] {
			return nil, fmt.Errorf("communicator: GPU list %v: each must be distinct, 0..%d", gpus, srv.GPUs-1)
		}
		seen[g] = true
	}
	for _, s := range servers {
		if s < 0 || s >= len(sys.Hosts) || len(sys.Hosts[s]) != srv.NICs {
			return nil, fmt.Errorf("communicator: server %d has no host for each of its %d NICs", s, srv.NICs)
		}
	}
	c := &Comm{Cfg: cfg, Sys: sys, Servers: servers, GPUs: gpus, PPN: ppn, NRanks: len(servers) * ppn, GID: -1}
	c.dev = srv
	c.dev.NICs, c.dev.NICRate, c.dev.Bond = srv.Devices(), srv.DeviceRate(), 0
	c.ports = max(srv.Bond, 1)
	switch {
	case srv.CardPorts > 1 && cfg.MergeNICs:
		// NCCL from 2.20 merges the ports of one PCI device (the same
		// path but for the function, the same system GUID and link
		// layer) into one net device of their summed speed (net_ib.cc
		// ncclIbGetPciPath, ncclIbFindMatchingDev; NCCL_IB_MERGE_NICS).
		// The merged device is named mlx5_0+mlx5_1, a name a topology
		// file of ports does not carry: NCCL adds it with the speed its
		// plugin reports (topo.cc ncclTopoFillNet finds nets by name).
		c.ports, c.merged = srv.CardPorts, true
		c.dev.NICs /= srv.CardPorts
		c.dev.NICRate *= unit.BitRate(srv.CardPorts)
		if srv.TopoNICRate > 0 {
			c.Notes = append(c.Notes, fmt.Sprintf("the topology file's NIC speed (%v) names ports NCCL merges into one device per card: NCCL searches with the merged devices' %v", srv.TopoNICRate, c.dev.NICRate))
		}
	case srv.TopoNICRate > 0:
		// A topology file's speed is what NCCL's search and tuning see
		// (topo.cc: the probed speed only fills a net the file leaves
		// without one, xmlInitAttrInt); the wire keeps the port's rate
		// (Sys).
		c.dev.NICRate = srv.TopoNICRate
	}
	c.dev.GPUNIC = srv.WorstPath()
	c.Notes = append(c.Notes, cfg.Notes...)
	c.pickNet()
	if c.Net == NetIB {
		if err := c.pickGID(); err != nil {
			return nil, err
		}
	}
	c.gdr = make([]bool, ppn)
	if c.Net == NetIB {
		c.pickGDR()
	}
	c.flush = make([]bool, c.NRanks)
	for r := range c.flush {
		c.flush[r] = c.needFlush(r)
	}
	n := node{srv: c.dev, nics: len(c.graphNICs()), inter: len(servers) > 1, ppn: ppn, noGDR: c.noGDR(), ver: cfg.Version}
	ring, tree := search(n)
	in := tuneIn{srv: c.dev, nRanks: c.NRanks, nNodes: len(servers), ring: ring, tree: tree}
	in.minCC, in.maxCC = c.compCaps()
	if cfg.NVLSEnable != 0 && in.minCC >= 90 && ppn >= nvlsMinGPUs(cfg.Version) {
		in.nvls = nvlsSearch(n)
		if in.nvls.NChannels > 0 {
			in.nvlsTune = nvlsTuning(cfg, n, in.nvls, in.minCC, len(servers))
		}
	}
	c.Tuning = newTuning(cfg, in)
	c.graphCh = c.Tuning.Ring.NChannels
	return c, nil
}

// netPeerChannels returns the channels of a point-to-point operation with
// a peer on another server (src/graph/paths.cc ncclTopoGetNchannels):
// NCCL_NCHANNELS_PER_NET_PEER when set; from 2.29.2 enough channels of
// P2PChannelNetBW for the GPU's NIC, and at least one (max(netCount,
// divUp(netBw, 14)), the twin's GPU using its one nearest NIC); from 2.20
// two, halved while two per rank would load the p2p channels with more
// than four operations each (nChannelsMax*nRanks > p2pnChannels*4: "avoid
// overloading channels with 8+ operations"); 2 before.
func (c *Comm) netPeerChannels() int {
	if _, set := c.Cfg.Env["NCCL_NCHANNELS_PER_NET_PEER"]; set || !c.Cfg.Version.AtLeast(2, 20, 0) {
		return c.Cfg.ChannelsPerNetPeer
	}
	if c.Cfg.Version.AtLeast(2, 29, 2) {
		netBw := int(gpu.GBps(c.dev.NICRate))
		return max(1, (netBw+P2PChannelNetBW-1)/P2PChannelNetBW)
	}
	n := 2
	for n*c.NRanks > c.p2pChannels()*4 && n > 1 {
		n /= 2
	}
	return n
}

// p2pChannels is NCCL's p2pnChannels: the communicator's channels (at
// most NCCL_MAX_NCHANNELS) rounded up to a power of two, over which
// point-to-point operations are spread (paths.cc
// ncclTopoComputeP2pChannels).
func (c *Comm) p2pChannels() int {
	return pow2Up(max(1, min(c.Tuning.NChannels, c.Cfg.MaxChannels)))
}

// p2pPerPeer is NCCL's p2pnChannelsPerPeer: the fewest channels any peer
// gets (a network peer's netPeerChannels; a peer over NVLink or PCIe gets
// at least 2), a power of two, at most p2pChannels (paths.cc
// ncclTopoComputeP2pChannels).
func (c *Comm) p2pPerPeer() int {
	n := c.p2pChannels()
	if c.NNodes() > 1 {
		n = min(n, c.netPeerChannels())
	}
	if c.PPN > 1 {
		// A peer over NVSwitch: two per NVLink of the path; over PCIe: 2.
		links := 1
		if c.dev.Intra == gpu.NVSwitch {
			links = max(1, c.dev.GPU.NVLinks)
		}
		n = min(n, 2*links)
	}
	return min(pow2Up(n), c.p2pChannels())
}

// pow2Up returns the least power of two at least n (n ≥ 1).
func pow2Up(n int) int {
	p := 1
	for p < n {
		p *= 2
	}
	return p
}

// compCaps returns the lowest and highest compute capability of the
// communicator's GPUs.
func (c *Comm) compCaps() (lo, hi int) {
	for i := range c.Servers {
		cc := c.model(i).CompCap
		if i == 0 || cc < lo {
			lo = cc
		}
		hi = max(hi, cc)
	}
	return lo, hi
}

// model returns the GPU model of the communicator's node i.
func (c *Comm) model(node int) gpu.Model {
	return c.Sys.ModelOf(c.Servers[node])
}

// pickGDR decides GPUDirect RDMA per GPU (graph/paths.cc
// ncclTopoCheckGdr): the GPU must support it (gpu.Model.NoGDR), the
// module be loaded and the GPU's path to its NIC no farther than
// NCCL_NET_GDR_LEVEL.
func (c *Comm) pickGDR() {
	srv, level := c.Sys.Server, c.Cfg.GDRLevel
	c.GDR = true
	var off []string
	for i, g := range c.GPUs {
		c.gdr[i] = srv.GDR(g, level)
		c.GDR = c.GDR && c.gdr[i]
		if !c.gdr[i] {
			off = append(off, fmt.Sprintf("GPU %d (%s)", g, srv.PathOf(g)))
		}
	}
	switch {
	case srv.GPU.NoGDR:
		c.Notes = append(c.Notes, fmt.Sprintf("GPU Direct RDMA Disabled: the %s does not support it (its memory is not reachable by a PCIe device); data bounces through host memory", srv.GPU.Name))
	case !srv.PeerMem:
		c.Notes = append(c.Notes, "GPU Direct RDMA Disabled: no nvidia_peermem module; data bounces through host memory")
	case len(off) > 0:
		c.Notes = append(c.Notes, fmt.Sprintf("GPU Direct RDMA Disabled for %s: the GPU-NIC path is farther than NCCL_NET_GDR_LEVEL=%s; its data bounces through host memory", strings.Join(off, ", "), level))
	default:
		c.Notes = append(c.Notes, fmt.Sprintf("GPU Direct RDMA Enabled (path %s <= NCCL_NET_GDR_LEVEL=%s)", srv.WorstPath(), level))
	}
}

// needFlush reports whether rank r's proxy flushes each Simple receive
// before the GPU may read it (a loopback RDMA read through the NIC, which
// PCIe orders behind the received writes): with GPUDirect RDMA, unless
// NCCL_GDR_FLUSH_DISABLE=1 (net_ib.cc), and from 2.15 only on Ampere and
// earlier or with NCCL_NET_FORCE_FLUSH=1 (paths.cc ncclTopoNeedFlush:
// "Flush is required on Ampere and earlier").
func (c *Comm) needFlush(r int) bool {
	if !c.gdrOf(r) || c.Cfg.GDRFlushDisable {
		return false
	}
	return !c.Cfg.Version.AtLeast(2, 15, 0) || c.model(r/c.PPN).CompCap < 90 || c.Cfg.NetForceFlush
}

// noGDR says, by GPU of the server, which reach their NIC without
// GPUDirect RDMA: on the socket transport all (its ptrSupport is host
// memory alone, so NCCL's NET nodes have gdr 0), else those pickGDR
// refuses.
func (c *Comm) noGDR() []bool {
	off := make([]bool, c.dev.GPUs)
	for g := range off {
		off[g] = c.Net != NetIB || !c.Sys.Server.GDR(g, c.Cfg.GDRLevel)
	}
	return off
}

// pcieBounce reports whether rank r's network data crosses its GPU's PCIe
// link to and from host memory (HostChannelBW, HostBounceLatency): on the
// socket transport, and without GPUDirect RDMA on a GPU whose host
// interface is PCIe. A C2C GPU without it (GB10) bounces through host
// memory too (NCCL puts the network buffers there), over its NVLink-C2C
// link, which crosses no PCIe and which a GB10 pair's runs do not find at
// the PCIe figure: with HostChannelBW its two-function ring gives 21.8
// GB/s where three runs move 22.9-23.7 at 8-16 GiB.
func (c *Comm) pcieBounce(r int) bool {
	return c.Net == NetSocket || !c.gdrOf(r) && c.model(r/c.PPN).C2C == 0
}

// gdrOf reports whether rank r's GPU uses GPUDirect RDMA.
func (c *Comm) gdrOf(r int) bool { return c.Net == NetIB && c.gdr[r%c.PPN] }

func (c *Comm) pickNet() {
	cfg, srv := c.Cfg, c.dev
	for n := 0; n < srv.NICs; n++ {
		if cfg.HCA.Match(fmt.Sprintf("mlx5_%d", n), 1) {
			c.NICs = append(c.NICs, n)
		}
	}
	switch {
	case cfg.IBDisable:
		c.Net = NetSocket
		c.Notes = append(c.Notes, "NCCL_IB_DISABLE=1: NET/Socket over kernel TCP")
	case len(c.NICs) == 0:
		c.Net = NetSocket
		c.Notes = append(c.Notes, fmt.Sprintf("NET/IB : No device found (NCCL_IB_HCA=%q matches no NIC): NET/Socket over kernel TCP", cfg.Env["NCCL_IB_HCA"]))
	}
	if len(c.NICs) == 0 {
		for n := 0; n < srv.NICs; n++ {
			c.NICs = append(c.NICs, n)
		}
	}
}

func (c *Comm) pickGID() error {
	gids := c.Sys.Server.GIDs
	idx := c.Cfg.GIDIndex
	if idx < 0 {
		for i, g := range gids {
			if g.V2 && g.Routable {
				c.GID = i
				c.Notes = append(c.Notes, fmt.Sprintf("NET/IB: GID index %d selected automatically (RoCE v2, IPv4)", i))
				return nil
			}
		}
		c.Net = NetSocket
		c.Notes = append(c.Notes, "NET/IB: no RoCE v2 GID with an IP address on any NIC: NET/Socket over kernel TCP")
		return nil
	}
	if idx >= len(gids) {
		return fmt.Errorf("NCCL_IB_GID_INDEX=%d: the NICs have %d GIDs (0-%d); ibv_query_gid fails and NCCL aborts", idx, len(gids), len(gids)-1)
	}
	switch g := gids[idx]; {
	case !g.V2:
		return fmt.Errorf("NCCL_IB_GID_INDEX=%d is a RoCE v1 GID, which an IP-routed fabric does not carry: the QPs never connect (use the RoCE v2 IPv4 GID, usually index 3)", idx)
	case !g.Routable:
		return fmt.Errorf("NCCL_IB_GID_INDEX=%d is a link-local fe80:: GID, which does not cross a router: ibv_modify_qp times out as in NVIDIA/nccl#769 (use the RoCE v2 IPv4 GID, usually index 3)", idx)
	}
	c.GID = idx
	return nil
}

// graphNICs returns the NICs the topology search sees for the GPUs in
// the communicator: all usable NICs, or with fewer GPUs than the server
// has, the usable NICs nearest to those GPUs.
func (c *Comm) graphNICs() []int {
	srv := c.dev
	if c.PPN == srv.GPUs {
		return c.NICs
	}
	var out []int
	for _, n := range c.NICs {
		for _, g := range c.GPUs {
			if srv.NICOf(g) == n {
				out = append(out, n)
				break
			}
		}
	}
	if len(out) == 0 {
		out = c.NICs[:1]
	}
	return out
}

// NNodes returns the number of servers.
func (c *Comm) NNodes() int { return len(c.Servers) }

// Rank returns the node (index into Servers) and GPU of rank r.
func (c *Comm) Rank(r int) (node, gpu int) { return r / c.PPN, c.GPUs[r%c.PPN] }

// AllGPUs returns the GPU list 0..n-1.
func AllGPUs(n int) []int {
	g := make([]int, n)
	for i := range g {
		g[i] = i
	}
	return g
}

// channelNIC returns the NIC channel ch uses on every server.
func (c *Comm) channelNIC(ch int) int {
	nics := c.graphNICs()
	return nics[(ch%c.graphCh)%len(nics)]
}

// localOrder returns the order (indices into GPUs) channel ch visits a
// server's GPUs: from the first GPU its NIC serves, onwards.
func (c *Comm) localOrder(ch int) []int {
	start := 0
	first := c.dev.FirstGPU(c.channelNIC(ch))
	for i, g := range c.GPUs {
		if g == first {
			start = i
		}
	}
	order := make([]int, c.PPN)
	for i := range order {
		order[i] = (start + i) % c.PPN
	}
	return order
}

// port returns the NIC port a queue pair on NIC device dev uses: the
// device's own, or the lane-th of its bond (the bond hashes each queue
// pair to one port) or of its merged card (NCCL alternates a
// connection's queue pairs between the card's ports).
func (c *Comm) port(dev, lane int) int {
	return dev*c.ports + lane%c.ports
}

// qpsPerConn returns the data queue pairs of a network connection:
// NCCL_IB_QPS_PER_CONNECTION on each port of a merged card (net_ib.cc
// from 2.20: nqps = qpsPerConn × ndevs, "at least 1 qp per-device").
func (c *Comm) qpsPerConn() int {
	if c.merged {
		return c.Cfg.QPsPerConn * c.ports
	}
	return c.Cfg.QPsPerConn
}

// msgParts returns the messages a slice is posted as: one on one queue
// pair in turn; split over every queue pair with
// NCCL_IB_SPLIT_DATA_ON_QPS=1; else over the ports of a merged card, one
// part on each (net_ib.cc ncclIbMultiSend: nqps = ndevs).
func (c *Comm) msgParts() int {
	switch {
	case c.Cfg.SplitData:
		return c.qpsPerConn()
	case c.merged:
		return c.ports
	}
	return 1
}

// host returns the transport host of NIC port port on rank r's server.
func (c *Comm) host(r, port int) int {
	node, _ := c.Rank(r)
	return c.Sys.Hosts[c.Servers[node]][port]
}

// Describe returns a few lines on the communicator as NCCL's INFO output
// would give them: transport, channels, graph bandwidths.
func (c *Comm) Describe() string {
	var b strings.Builder
	t := c.Tuning
	fmt.Fprintf(&b, "NCCL %s: %d ranks on %d servers (%d GPUs each), %s via %d NIC(s)", c.Cfg.Version, c.NRanks, c.NNodes(), c.PPN, c.Net, len(c.NICs))
	if c.Net == NetIB {
		fmt.Fprintf(&b, ", GID %d, GDR %v", c.GID, c.GDR)
	}
	fmt.Fprintf(&b, "\nring graph: %d channels x %.1f/%.1f GB/s (%s/%s); tree graph: %d x %.1f/%.1f GB/s; %d coll channels\n",
		t.Ring.NChannels, t.Ring.BWIntra, t.Ring.BWInter, t.Ring.TypeIntra, t.Ring.TypeInter,
		t.Tree.NChannels, t.Tree.BWIntra, t.Tree.BWInter, t.NChannels)
	for _, n := range c.Notes {
		b.WriteString(n + "\n")
	}
	return b.String()
}

// Open binds the communicator to transport t, forgetting any earlier
// run; l hears of every finished batch. Connections are opened on first
// use, as NCCL does.
func (c *Comm) Open(t workload.Transport, l Listener) {
	c.eng.init(c)
	c.eng.t = t
	c.eng.listener = l
	if g, ok := t.(workload.Grouper); ok {
		c.eng.on = g
		for _, s := range c.Servers {
			g.Group(&c.eng, c.Sys.Hosts[s])
		}
	}
}

// DenseHosts returns the host layout where NIC n of server s is host
// s·nics+n, as topo's builders number GPU servers' NICs.
func DenseHosts(servers, nics int) [][]int {
	h := make([][]int, servers)
	for s := range h {
		h[s] = make([]int, nics)
		for n := range h[s] {
			h[s][n] = s*nics + n
		}
	}
	return h
}
