package collective

import (
	"fmt"
	"io"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/gpu"
)

// The NCCL_DEBUG=INFO log of a communicator's initialisation and
// connection setup, line for line in the formats NCCL 2.19-2.30 prints
// (init.cc, bootstrap.cc, transport/net_ib.cc, transport/net.cc,
// transport/p2p.cc, graph/connect.cc, graph/paths.cc): the prefix
// `host:pid:tid [cudaDev] NCCL INFO`, the NIC list, the chosen network,
// the environment NCCL echoes, GPUDirect RDMA per GPU and NIC, the ring
// order and trees per channel, one line per connection with its transport,
// and the ring summary with GDR. docs/nccl.md shows an excerpt.

// LogHost names one server of a communicator as a log shows it: its
// hostname and, per NIC (index as in the server), the netdev and the IPv4
// address.
type LogHost struct {
	Name    string
	Netdevs []string
	IPs     []netip.Addr
}

// RDMADevice is the RDMA device name of a server's NIC n, as the twin
// names it everywhere (hw_counters, ibv_devinfo, NCCL logs, sysfs trees).
func RDMADevice(n int) string { return "mlx5_" + strconv.Itoa(n) }

// Netdev is the netdev behind a server's NIC n.
func Netdev(n int) string { return "eth" + strconv.Itoa(n) }

// LogPID is the process id the log and nccl-tests' device list give the
// process of node node: one process per server, as `-g` runs it.
func LogPID(node int) int { return 10000 + node }

// infoLogger writes one process's lines of the enabled subsystems.
type infoLogger struct {
	w    io.Writer
	host string
	pid  int
	sub  map[string]bool
	err  error
}

// line writes an INIT line (every line of the writer but the TUNING ones).
func (l *infoLogger) line(tid, dev int, format string, args ...any) {
	if l.sub != nil && !l.sub["INIT"] {
		return
	}
	l.write(tid, dev, fmt.Sprintf(format, args...))
}

// tuning writes a TUNING line.
func (l *infoLogger) tuning(tid, dev int, s string) {
	if l.sub["TUNING"] {
		l.write(tid, dev, s)
	}
}

func (l *infoLogger) write(tid, dev int, s string) {
	if l.err != nil {
		return
	}
	_, l.err = fmt.Fprintf(l.w, "%s:%d:%d [%d] NCCL INFO %s\n", l.host, l.pid, tid, dev, s)
}

// WriteInfoLog writes the NCCL_DEBUG=INFO lines every rank of c prints
// from ncclCommInitRank to its connections, process by process; hosts
// names each server of the communicator in node order. It does not run
// anything: channels, trees, NICs and GPUDirect RDMA are the
// communicator's own.
//
// NCCL_DEBUG_SUBSYS chooses the subsystems as NCCL does (a comma list,
// ALL, or ^ to exclude; unset is INIT,BOOTSTRAP,ENV): the lines above
// print unless INIT is left out; with TUNING, rank 0 also prints the
// model's table at init (Tuning.TuningTable) and, for each of calls in
// order, the line its release prints for it (CallTuningLine).
func (c *Comm) WriteInfoLog(w io.Writer, hosts []LogHost, calls ...Call) error {
	if len(hosts) < c.NNodes() {
		return fmt.Errorf("NCCL log: %d host names for %d servers", len(hosts), c.NNodes())
	}
	commID := c.logID()
	sub := debugSubsys(c.Cfg.Env["NCCL_DEBUG_SUBSYS"])
	for node := 0; node < c.NNodes(); node++ {
		h := hosts[node]
		l := &infoLogger{w: w, host: h.Name, pid: LogPID(node), sub: sub}
		c.logProcess(l, node, h, commID)
		if node == 0 && sub["TUNING"] {
			for _, call := range calls {
				if line := c.CallTuningLine(call); line != "" {
					l.tuning(l.mainTID(), c.GPUs[0], line)
				}
			}
		}
		if l.err != nil {
			return l.err
		}
	}
	return nil
}

// debugSubsys returns the subsystems NCCL_DEBUG_SUBSYS enables (debug.cc).
func debugSubsys(v string) map[string]bool {
	all := []string{"INIT", "COLL", "P2P", "SHM", "NET", "GRAPH", "TUNING", "ENV", "ALLOC", "CALL", "PROXY", "NVLS", "BOOTSTRAP", "REG", "PROFILE", "RAS"}
	on := map[string]bool{}
	if strings.TrimSpace(v) == "" {
		v = "INIT,BOOTSTRAP,ENV"
	}
	invert := strings.HasPrefix(v, "^")
	if invert {
		v = v[1:]
		for _, s := range all {
			on[s] = true
		}
	}
	for _, s := range strings.Split(v, ",") {
		s = strings.ToUpper(strings.TrimSpace(s))
		if s == "ALL" {
			for _, x := range all {
				on[x] = !invert
			}
			continue
		}
		on[s] = !invert
	}
	return on
}

// logID is a commId that tells communicators over different servers or
// GPUs apart (FNV-1a over both lists).
func (c *Comm) logID() uint64 {
	h := uint64(14695981039346656037)
	for _, x := range append(append([]int{c.NRanks}, c.Servers...), c.GPUs...) {
		h = (h ^ uint64(x)) * 1099511628211
	}
	return h
}

// Thread ids: the main thread, then per local rank an init thread and a
// proxy thread that connects.
func (l *infoLogger) mainTID() int         { return l.pid }
func (l *infoLogger) initTID(i int) int    { return l.pid + 20 + i }
func (l *infoLogger) connectTID(i int) int { return l.pid + 60 + i }

func (c *Comm) logProcess(l *infoLogger, node int, h LogHost, commID uint64) {
	v := c.Cfg.Version
	oob := "lo"
	var oobIP netip.Addr
	if len(h.Netdevs) > 0 {
		oob = h.Netdevs[0]
	}
	if len(h.IPs) > 0 {
		oobIP = h.IPs[0]
	}
	mt := l.mainTID()
	bootstrap := "Bootstrap : Using"
	if v.AtLeast(2, 23, 0) {
		bootstrap = "Bootstrap: Using"
	}
	l.line(mt, c.GPUs[0], "%s %s:%s<0>", bootstrap, oob, oobIP)
	if node == 0 {
		l.line(mt, c.GPUs[0], "NCCL version %s+cuda12.4", v)
	}
	for i, g := range c.GPUs {
		t := l.initTID(i)
		if i == 0 {
			c.logNet(l, t, g, h, oob, oobIP)
		}
		l.line(t, g, "Using network %s", c.netName())
	}
	for i, g := range c.GPUs {
		r := node*c.PPN + i
		l.line(l.initTID(i), g, "ncclCommInitRank comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %x000 commId 0x%x - Init START",
			commAddr(node, i), r, c.NRanks, g, g, BusID(g), commID)
	}
	for i, g := range c.GPUs {
		r := node*c.PPN + i
		t := l.initTID(i)
		l.line(t, g, "comm 0x%x rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0", commAddr(node, i), r, c.NRanks, c.NNodes(), c.PPN, i)
		if r == 0 {
			c.logRings(l, t, g)
		}
		c.logTrees(l, t, g, r)
		if c.Net == NetIB {
			c.logGDR(l, t, g)
		}
		if r == 0 {
			for _, s := range c.Tuning.TuningTable() {
				l.tuning(t, g, s)
			}
		}
		l.line(t, g, "%s", c.channelCounts())
		l.line(t, g, "ncclCommInitRank comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %x000 commId 0x%x - Init COMPLETE",
			commAddr(node, i), r, c.NRanks, g, g, BusID(g), commID)
	}
	for i, g := range c.GPUs {
		c.logConnections(l, l.connectTID(i), node*c.PPN+i, g)
	}
}

// channelCounts is NCCL's INIT line of a rank's channel counts as its
// release prints it: "collnet channels" from 2.20 (v2.20.3 init.cc 1254),
// "nvls channels" from 2.17 (v2.17.1 init.cc 940), neither up to 2.16
// (v2.16.5 paths.cc 737).
func (c *Comm) channelCounts() string {
	nch, v := c.Tuning.NChannels, c.Cfg.Version
	p2p := fmt.Sprintf("%d p2p channels, %d p2p channels per peer", c.p2pChannels(), c.p2pPerPeer())
	switch {
	case v.AtLeast(2, 20, 0):
		return fmt.Sprintf("%d coll channels, %d collnet channels, %d nvls channels, %s", nch, nch, c.Tuning.NVLSChannels(), p2p)
	case v.AtLeast(2, 17, 0):
		return fmt.Sprintf("%d coll channels, %d nvls channels, %s", nch, c.Tuning.NVLSChannels(), p2p)
	}
	return fmt.Sprintf("%d coll channels, %s", nch, p2p)
}

// commAddr is a stable comm pointer per rank.
func commAddr(node, i int) uint64 { return 0x7f3a_0000_0000 + uint64(node)<<24 + uint64(i)<<16 }

// BusID is the PCI bus of GPU g, in a DGX's layout (as nccl-tests' device
// list and NCCL's busId print it).
func BusID(g int) int {
	bus := []int{0x07, 0x0f, 0x47, 0x4e, 0x87, 0x90, 0xb7, 0xbd}
	if g < len(bus) {
		return bus[g]
	}
	return 0x10 + g
}

func (c *Comm) netName() string {
	if c.Net == NetSocket {
		return "Socket"
	}
	return "IB"
}

// logNet writes the environment echo, the plugin line and the device list
// the net transport prints once per process.
func (c *Comm) logNet(l *infoLogger, t, g int, h LogHost, oob string, oobIP netip.Addr) {
	keys := make([]string, 0, len(c.Cfg.Env))
	for k := range c.Cfg.Env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k == "NCCL_IB_HCA" {
			l.line(t, g, "%s set to %s", k, c.Cfg.Env[k])
			continue
		}
		l.line(t, g, "%s set by environment to %s.", k, c.Cfg.Env[k])
	}
	l.line(t, g, "NET/Plugin: Could not find: libnccl-net.so. Using internal net plugin.")
	if c.Net == NetSocket {
		if !c.Cfg.IBDisable {
			l.line(t, g, "NET/IB : No device found.")
		}
		var devs []string
		for i, n := range c.NICs {
			devs = append(devs, fmt.Sprintf("[%d]%s:%s<0>", i, nameOr(h.Netdevs, n, Netdev(n)), ipOr(h.IPs, n)))
		}
		l.line(t, g, "NET/Socket : Using %s", strings.Join(devs, " "))
		return
	}
	l.line(t, g, "NET/IB : Using %s [RO]; OOB %s:%s<0>", strings.Join(c.ibDevices(), " "), oob, oobIP)
}

// ibDevices lists the IB transport's devices as NCCL prints them:
// "[0]mlx5_0:1/RoCE" each, or, with a card's ports merged (2.20 on,
// net_ib.cc), each device's ports in braces: "[0]={[0] mlx5_0:1/RoCE,
// [1] mlx5_1:1/RoCE}", device d holding the card's ports d·P to d·P+P-1.
func (c *Comm) ibDevices() []string {
	var devs []string
	port := 0
	for i, n := range c.NICs {
		if !c.merged {
			devs = append(devs, fmt.Sprintf("[%d]%s:1/RoCE", i, RDMADevice(n)))
			continue
		}
		ports := make([]string, c.ports)
		for k := range ports {
			ports[k] = fmt.Sprintf("[%d] %s:1/RoCE", port, RDMADevice(n*c.ports+k))
			port++
		}
		devs = append(devs, fmt.Sprintf("[%d]={%s}", i, strings.Join(ports, ", ")))
	}
	return devs
}

func nameOr(names []string, i int, def string) string {
	if i < len(names) && names[i] != "" {
		return names[i]
	}
	return def
}

func ipOr(ips []netip.Addr, i int) netip.Addr {
	if i < len(ips) {
		return ips[i]
	}
	return netip.Addr{}
}

// logRings writes the ring order of every channel (rank 0 prints them).
func (c *Comm) logRings(l *infoLogger, t, g int) {
	nch := c.Tuning.NChannels
	for ch := 0; ch < nch; ch++ {
		var b strings.Builder
		for _, r := range c.ringOrder(ch) {
			fmt.Fprintf(&b, " %3d", r)
		}
		l.line(t, g, "Channel %02d/%02d :%s", ch, nch, b.String())
	}
}

// ringOrder is the ranks of channel ch's ring in order, as buildRing lays
// it out.
func (c *Comm) ringOrder(ch int) []int {
	order := c.localOrder(ch)
	ring := make([]int, 0, c.NRanks)
	for node := 0; node < c.NNodes(); node++ {
		for _, i := range order {
			ring = append(ring, node*c.PPN+i)
		}
	}
	return ring
}

// logTrees writes rank r's parent and children in every channel's tree:
// "[ch] d0/d1/d2->r->up".
func (c *Comm) logTrees(l *infoLogger, t, g, r int) {
	var b strings.Builder
	b.WriteString("Trees")
	for ch := 0; ch < c.Tuning.NChannels; ch++ {
		up, down := c.treeShape(ch, r)
		d := [3]int{-1, -1, -1}
		copy(d[:], down)
		fmt.Fprintf(&b, " [%d] %d/%d/%d->%d->%d", ch, d[0], d[1], d[2], r, up)
	}
	l.line(t, g, "%s", b.String())
}

// logGDR writes NCCL's GPUDirect RDMA decision for the GPU and each NIC
// it uses (graph/paths.cc ncclTopoCheckGdr; net_ib.cc when the peer-memory
// module is missing; topo.cc's line for every NIC when neither it nor
// dma-buf can reach the GPU's memory, as on a GB10).
func (c *Comm) logGDR(l *infoLogger, t, g int) {
	srv := c.Sys.Server
	for i, n := range c.NICs {
		switch {
		case srv.GPU.NoGDR:
			l.line(t, g, "NET/IB : GPU Direct RDMA Disabled for HCA %d '%s'", i, RDMADevice(n))
		case !srv.PeerMem:
			l.line(t, g, "NET/IB : GPU Direct RDMA Disabled for HCA %d '%s' (no module)", i, RDMADevice(n))
		case c.GDR:
			l.line(t, g, "GPU Direct RDMA Enabled for GPU %d / HCA %d (distance %d <= %d), read 0", g, i, int(srv.GPUNIC), int(c.Cfg.GDRLevel))
		default:
			l.line(t, g, "GPU Direct RDMA Disabled for GPU %d / HCA %d (distance %d > %d)", g, i, int(srv.GPUNIC), int(c.Cfg.GDRLevel))
		}
	}
}

// via names the transport of a connection from rank a to rank b on NIC
// index nic of the device list.
func (c *Comm) via(a, b, nic int) string {
	na, _ := c.Rank(a)
	nb, _ := c.Rank(b)
	if na == nb {
		if c.Sys.Server.Intra == gpu.PCIeOnly {
			return "SHM/direct/direct"
		}
		return "P2P/CUMEM"
	}
	if c.Net == NetSocket {
		return fmt.Sprintf("NET/Socket/%d", nic)
	}
	s := fmt.Sprintf("NET/IB/%d", nic)
	if c.GDR {
		s += "/GDRDMA"
	}
	return s
}

// nicIndex is the position of server NIC n in the device list.
func (c *Comm) nicIndex(n int) int {
	if i := slices.Index(c.NICs, n); i >= 0 {
		return i
	}
	return 0
}

// logConnections writes rank r's ring and tree connections: each peer on
// another server as a [receive] and a [send] line, a peer on the same
// server once, on the sending side; then the ring summary.
func (c *Comm) logConnections(l *infoLogger, t, r, g int) {
	nch := c.Tuning.NChannels
	conn := func(ch, a, b int) {
		_, ga := c.Rank(a)
		_, gb := c.Rank(b)
		via := c.via(a, b, c.nicIndex(c.channelNIC(ch)))
		if strings.HasPrefix(via, "NET/") {
			if b == r {
				l.line(t, g, "Channel %02d/0 : %d[%d] -> %d[%d] [receive] via %s", ch, a, ga, b, gb, via)
			} else {
				l.line(t, g, "Channel %02d/0 : %d[%d] -> %d[%d] [send] via %s", ch, a, ga, b, gb, via)
			}
			return
		}
		if a == r {
			l.line(t, g, "Channel %02d/0 : %d[%d] -> %d[%d] via %s", ch, a, ga, b, gb, via)
		}
	}
	for ch := 0; ch < nch; ch++ {
		ring := c.ringOrder(ch)
		pos := slices.Index(ring, r)
		n := len(ring)
		if n > 1 {
			conn(ch, ring[(pos-1+n)%n], r)
			conn(ch, r, ring[(pos+1)%n])
		}
	}
	gdr := 0
	if c.GDR && c.Net == NetIB {
		gdr = 1
	}
	l.line(t, g, "Connected all rings, use ring PXN 0 GDR %d", gdr)
	for ch := 0; ch < nch; ch++ {
		up, down := c.treeShape(ch, r)
		for _, d := range down {
			conn(ch, d, r)
			conn(ch, r, d)
		}
		if up >= 0 {
			conn(ch, up, r)
			conn(ch, r, up)
		}
	}
	l.line(t, g, "Connected all trees")
}
