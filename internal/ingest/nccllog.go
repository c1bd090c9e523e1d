package ingest

import (
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/unit"
)

// Bounds that keep an NCCL log's artifact small however long the log is:
// every category keeps its first lines and counts the rest.
const (
	// maxKept is how many lines of one category are kept as evidence.
	maxKept = 64
	// maxDistinct caps the distinct values (hosts, env settings, devices,
	// connections) a category remembers.
	maxDistinct = 4096
)

// Values of GDRDecision.Reason.
const (
	// GDRNoModule: the GPU peer-memory kernel module is not loaded
	// ("... (no module)", NCCL 2.6-2.1x).
	GDRNoModule = "no module"
	// GDRDistance: the GPU-NIC PCIe distance exceeds NCCL_NET_GDR_LEVEL
	// ("... (distance 5 > 4)").
	GDRDistance = "distance"
)

// NCCLLog is what an NCCL_DEBUG=INFO or WARN log (NCCL 2.4 to 2.2x) says
// about the transport NCCL chose, GPUDirect RDMA, GIDs and RDMA errors.
// Every slice is in input order and bounded; counts cover all lines.
type NCCLLog struct {
	Scoped
	artifactHead

	// Versions are the distinct NCCL versions printed.
	Versions []Versioned
	// Shapes are the lines whose form dates the NCCL release, one per
	// form (see InferredVersion).
	Shapes []VersionShape
	// Networks are the "Using network X" choices, one per host and name.
	Networks []NetChoice
	// IBDevices are the "NET/IB : Using [0]mlx5_0:1/RoCE" entries, one per
	// host, device and port.
	IBDevices []NetDevice
	// SocketDevices are the "NET/Socket : Using [0]eth0:10.0.0.1<0>" entries.
	SocketDevices []NetDevice
	// PluginDevices are the device lists of net plugins that print their
	// own ("NET/FastSocket : Using [0]enp0s12:10.0.0.6<0> ..."), one per
	// host and plugin: the plugin started with devices and carries the
	// host's data. They are network interfaces, not IB devices.
	PluginDevices []NetChoice
	// NoIBDevice holds "NET/IB : No device found." lines.
	NoIBDevice HostLines
	// VerbsMissing holds "Failed to open libibverbs.so" warnings.
	VerbsMissing HostLines
	// SharedMemOver holds "ncclMaxSharedMem 82240 exceeds device/fn
	// maxSharedMem 79856" (NCCL 2.25 at INFO): the kernels of this NCCL
	// build ask for more shared memory than the GPU gives a block, and
	// their launch fails.
	SharedMemOver HostLines
	// SymmetricOff holds NCCL 2.29's "Symmetric memory is not supported.
	// cuMemEnable 1, globalGinSupport 0, ..." (init.cc, at INFO): why a
	// communicator has no symmetric memory, which the device API and
	// window registration then refuse.
	SymmetricOff HostLines
	// P2PDisabled holds, per host, the lines saying NVML reports CUDA
	// peer-to-peer between two GPUs on a PCIe path as not working (see
	// P2POff).
	P2PDisabled []P2POff
	// Fabric holds each GPU's NVLink fabric registration line (see
	// GPUFabric), once per host, GPU, state and mask.
	Fabric []GPUFabric
	// ConnectRetries holds "Call to connect returned Connection timed
	// out, retrying" (and "... Connection refused, retrying"): NCCL's TCP
	// connect to a peer failed and NCCL tries again; only the last retry's
	// failure is a WARN.
	ConnectRetries HostLines
	// Plugins holds the net plugin lines that show an external plugin
	// ("NET/Plugin: Loaded net plugin FastSocket (v6)", "Plugin Path",
	// "P2P plugin IBext"); not the loader's "No plugin found" and
	// "Using non-device net plugin version 0", which NCCL prints for its
	// own IB and socket transports alike (pluginNone).
	Plugins HostLines
	// NoNetPlugin holds the loader lines that say no external net plugin
	// was found ("NET/Plugin: Could not find: libnccl-net.so. Using
	// internal network plugin."): that host runs NCCL's own transports.
	NoNetPlugin HostLines
	// IBextHosts holds the "P2P plugin IBext" lines: the host loaded a net
	// plugin of the nccl-rdma-sharp-plugins family, which drives the IB
	// verbs devices itself whatever name it gives its network ("Using
	// network NCCL RDMA Plugin v6" in a vendor's build).
	IBextHosts HostLines
	ibextNets  []string // the names those hosts' networks go by
	// PluginFailures holds the plugin lines that say a plugin failed to load.
	PluginFailures HostLines
	// PluginMisses are plugins a setting named that NCCL's loader did not
	// find (nccllog_pluginmiss.go).
	PluginMisses []PluginMiss
	// PluginUnused are tuner and profiler libraries NCCL's loader opened
	// but found no entry point in (nccllog_tuner.go, nccllog_profiler.go).
	PluginUnused []PluginUnused
	// PluginInitFailures holds a loaded net plugin's own WARN lines that
	// say it failed to initialise ("NET/OFI aws-ofi-nccl initialization
	// failed"): NCCL then falls back to its internal transports.
	PluginInitFailures HostLines
	// IBInitWarns holds the WARNs of NCCL's own IB transport that no
	// other field reads ("NET/IB: Error in mlx5dv_get_data_direct_sysfs_path
	// with device mlx5_0"): at init, the reason it did not start.
	IBInitWarns HostLines
	// IBSkipped holds NET/IB's WARNs that it left one device or port out
	// while it opened them ("Unable to open device mlx5_1"; see
	// IBDeviceSkipped).
	IBSkipped HostLines
	// NoNetwork holds NCCL's "Failed to initialize any NET plugin": no
	// network transport started, so the communicator cannot be built.
	NoNetwork HostLines
	// PluginNetLines holds a loaded net plugin's own lines ("NET/OFI
	// Initializing aws-ofi-nccl 1.13.2-aws", "NET/OFI Selected provider is
	// efa"): the job's network is that plugin's, not NCCL's IB or sockets.
	PluginNetLines HostLines
	// PluginGDROff holds a net plugin's own lines that say it turned
	// GPUDirect RDMA off ("NET/OFI Could not disable CUDA API usage for
	// HMEM, disabling GDR").
	PluginGDROff HostLines
	// BootIfaces are the interfaces NCCL's bootstrap uses ("Bootstrap :
	// Using ib0:fe80::1%ib0<0>"), one per host and interface.
	BootIfaces []BootIface
	// IfaceFound holds the lines that show NCCL's interface search found
	// an interface on a host: "Bootstrap : Using" (2.23 on printed only
	// with NCCL_DEBUG_SUBSYS=BOOTSTRAP), "NET/Socket : Using" and NET/IB's
	// "; OOB eth0:10.0.0.1<0>" (NET), NCCL 2.3's "NET : Using interface".
	IfaceFound HostLines
	// Env holds the NCCL_* settings NCCL echoed ("NCCL_IB_GID_INDEX set by
	// environment to 3."), one per host, name and value; How is SetByEcho.
	// Settings made on command lines, in scripts and manifests are read by
	// the NCCLSettings parser.
	Env []NCCLSetting
	// GDR holds the GPUDirect RDMA decisions, one per host, GPU, HCA and
	// outcome.
	GDR []GDRDecision
	// RankGPUs are the GPUs the ranks' init lines name, one per host and
	// busId.
	RankGPUs []RankGPU
	// Channels counts the per-connection transport lines by host and
	// transport.
	Channels []ChannelStat
	// Rings holds the "Connected all rings, use ring PXN n GDR n" summaries,
	// one per host and value.
	Rings []RingSummary
	// Completions holds the work completions with error, in input order.
	Completions []CompletionError
	// CompletionCount counts every completion-with-error line, kept or not.
	CompletionCount int
	// Setup holds failed verbs calls while connecting (ibv_modify_qp, the
	// RoCE GID type lookup).
	Setup []SetupError
	// SetupCount counts every setup failure line, kept or not.
	SetupCount int
	// AsyncEvents holds the verbs async events NCCL's IB transport
	// reported ("NET/IB : Got async event : port error"), one per host,
	// device and event; AsyncEventCount counts every such line.
	AsyncEvents     []AsyncEvent
	AsyncEventCount int
	// AsyncLost holds "Call to ibv_get_async_event failed": NCCL's async
	// thread lost the device's event channel, which follows a device
	// failure; it is no queue-pair setup.
	AsyncLost HostLines
	// Timeouts are the collectives PyTorch's ProcessGroupNCCL watchdog
	// reported as timed out, one per rank, sequence number and operation;
	// TimeoutCount counts every such line.
	Timeouts     []CollectiveTimeout
	TimeoutCount int
	// Progress holds the watchdog's account of each rank's process group
	// after a timeout: the last work it enqueued and completed.
	Progress []WatchdogProgress
	// Stuck holds the heartbeat monitor's lines of ranks whose watchdog
	// thread made no progress, one per rank and duration.
	Stuck []WatchdogStuck
	// InitTimings are the "Init timings" and "Bootstrap timings" lines,
	// the slowest per host and kind (nccllog_timings.go).
	InitTimings []InitTiming
	// LastArrivals are, per host, init call and communicator size, the
	// "Init timings" line of least bootstrap time: every rank waits in the
	// bootstrap until the last one arrives, so the rank that spent least
	// there came last.
	LastArrivals []InitTiming
	// Warnings holds the other WARN lines.
	Warnings []Warning
	// WarningCount counts every other WARN line, kept or not.
	WarningCount int
	// MTUs are the IB MTUs NCCL 2.2x prints per queue pair with
	// NCCL_DEBUG_SUBSYS=NET ("NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 1047
	// mtu 5 ..."), one per host, device and value.
	MTUs []HostMTU
	// IBQPLines holds the IB transport's per-queue-pair lines that name no
	// GID or MTU: NCCL 2.19+'s Enhanced Connection Establishment ("NET/IB:
	// IbDev 4 Port 1 qpn 103534 set_ece={supported=1, ...}", and
	// query_ece), printed as it connects each queue pair under
	// NCCL_DEBUG_SUBSYS=NET: the host's data moves over NET/IB.
	IBQPLines HostLines
	// VirtualDevices holds the "NET/IB : Made virtual device" speeds.
	VirtualDevices []LinkSpeed
	// PlatformSpeeds are the EFA rates per NET device of the instance
	// type aws-ofi-nccl names (see platformLine), one per host.
	PlatformSpeeds []LinkSpeed
	// IBPorts are the ports NCCL's IB transport opened, one line each
	// (NCCL 2.27+: with provider, speed and PCI path), one per host,
	// device, port and speed.
	IBPorts []IBPort
	// Comm is the largest communicator the log describes.
	Comm CommInfo
	// NChannels is the largest ring channel count ("Channel 00/02 : 0 1").
	NChannels int
	// ConnRanks are the ranks whose own connection lines a host prints
	// ("0[0] -> 8[0] [send]" and "8[0] -> 0[0] [receive]" are rank 0's),
	// one per host and rank: how many of a host's ranks the channel lines
	// cover, and so whether the NICs they name are all the host uses.
	ConnRanks []HostRank
	// CommIDs are the distinct "commId 0x..." of the init lines (NCCL
	// 2.19 on): a hash of the communicator's unique id, alike in every
	// rank's log, so per-host logs (NCCL_DEBUG_FILE) of one job share it.
	CommIDs []string

	// QPs are the queue pairs NCCL 2.3 to 2.18 describe with
	// NCCL_DEBUG_SUBSYS=NET (NCCL 2.3: by default), one per host, device
	// and GID index: the GID index in use and the GID it holds.
	QPs []QPInfo

	// ibIdx indexes IBDevices by host, name and port.
	ibIdx map[seenKey]ibRef

	hosts map[string]string
	// procBoot and bootAddrs tell hosts apart by the address each process
	// bootstraps on (see nccllog_hosts.go).
	procBoot  map[procKey]string
	bootAddrs map[string][]string
	// origins caches parsed line prefixes ("host:pid:tid [dev]"): one
	// thread prints many lines with the same prefix.
	origins map[string]cachedOrigin
	// vias caches what a connection line's transport ("NET/IB/0/GDRDMA")
	// and host map to in Channels.
	vias      map[viaKey]int
	hostList  []string
	hostFirst []Evidence
	chanIdx   map[chanKey]int
	seen      map[seenKey]struct{}
	p2pSeen   map[p2pKey]struct{}
	// commRanks holds, while the log shows one host, the ranks of each
	// size of communicator that host printed.
	commRanks map[string]map[int]map[int]bool
	lastWarn  map[string]warnRef
	// tuners holds, per thread, what it printed of its tuner loading until
	// it says which tuner it uses; netLibs the libraries NET/Plugin lines
	// named (nccllog_tuner.go).
	tuners  map[string]*tunerLoad
	netLibs map[string]bool
	// profilers holds, per thread, the library NCCL_PROFILER_PLUGIN
	// named until its loading ends (profilerUnused).
	profilers map[string]*tunerLoad
	// gidReads holds, per thread, a return chain that may be an unwarned
	// GID type read (nccllog_gidread.go).
	gidReads map[string]gidReadStart
	// threadNodes is, per printing thread, the node count of the
	// communicator it last printed a "comm ... nNodes N" line for.
	threadNodes map[string]int
	matrix      bool
	// pending is a PyTorch NCCL error whose last error may follow.
	pending *pendingBackend
}

// Versioned is an NCCL version as printed, with where.
type Versioned struct {
	Host     string
	Version  string // e.g. "2.26.2+cuda12.4"
	Evidence Evidence
}

// NetChoice is one "Using network X" line.
type NetChoice struct {
	Host     string
	Name     string // "IB", "IBext", "IBext_v8", "Socket", or a plugin's name
	Evidence Evidence
}

// NetDevice is one device NCCL's IB or socket transport will use.
type NetDevice struct {
	Host  string
	Index int    // the [i] NCCL gives it; NET/IB/i in channel lines
	Name  string // "mlx5_0", or the interface name for sockets
	Port  int    // IB port, 0 for sockets
	// LinkLayer is "RoCE" or "IB" for IB devices, "" for sockets.
	LinkLayer string
	// Addr is the socket device's address, "" for IB devices.
	Addr string
	// Elided is, for a device list a poster shortened ("[0]mlx5_0:1/RoCE
	// … [7]mlx5_7:1/RoCE"), the number of devices NCCL's indices say it
	// held, the highest index shown plus one; for a list that ends in an
	// ellipsis ("[0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE ...") one more, as at
	// least one device was cut: a lower bound. 0 for a list given whole.
	Elided   int
	Evidence Evidence
}

// HostMTU is the RoCE/IB path MTU a host's port uses.
type HostMTU struct {
	Host, Device string
	MTU          int // bytes, 256 to 4096
	Evidence     Evidence
}

// HostLines counts lines of one kind and keeps the first few, with the
// distinct hosts that printed them.
type HostLines struct {
	Count int
	Hosts []string // distinct, in first-seen order; "" for an unnamed host
	// First is the first line of each host in Hosts.
	First []Evidence
	Lines []Evidence
}

func (h *HostLines) add(host string, e Evidence) {
	h.Count++
	if len(h.Lines) < maxKept {
		h.Lines = append(h.Lines, e)
	}
	for _, x := range h.Hosts {
		if x == host {
			return
		}
	}
	if len(h.Hosts) < maxDistinct {
		h.Hosts = append(h.Hosts, host)
		h.First = append(h.First, e)
	}
}

// GDRDecision is one "GPU Direct RDMA Enabled/Disabled" line.
type GDRDecision struct {
	Host string
	Net  string // "IB", "FastSocket", ... when the line names it
	// GPU is the GPU as printed ("86000", "2[2]"); "" for per-HCA lines.
	GPU string
	// HCA is the NIC index as printed; HCADev its name when given.
	HCA, HCADev string
	Enabled     bool
	DMABuf      bool
	// Reason is GDRNoModule, GDRDistance or "" (none given); Said is the
	// reason in parentheses as printed when it is neither ("no module or
	// not supported by GPU"; cut short when the line was wrapped).
	Reason, Said string
	// Distance and Limit are the PCIe path distance and the
	// NCCL_NET_GDR_LEVEL it was compared with, -1 when not printed.
	Distance, Limit int
	Evidence        Evidence
}

// ChannelStat counts the connection lines of one transport on one host.
type ChannelStat struct {
	Host string
	// Kind is "NET", "COLLNET", "P2P" or "SHM".
	Kind string
	// Net is the network name for NET and COLLNET ("IB", "Socket",
	// "IBext_v8"), else the P2P mode ("IPC", "CUMEM", "direct pointer").
	Net   string
	Count int
	// Recv and Send count the lines by direction; GDR, RecvGDR and
	// SendGDR those with the /GDRDMA suffix.
	Recv, Send, GDR, RecvGDR, SendGDR int
	First                             Evidence
	// FirstNoGDR is the first NET line without /GDRDMA, if any.
	FirstNoGDR Evidence
	// Devs has bit i set for a NET line over device i of NCCL's list
	// ("via NET/IB/1/GDRDMA"); NoDev counts NET lines that name none
	// below 64.
	Devs  uint64
	NoDev int
}

// HostRank is one rank on one host.
type HostRank struct {
	Host string
	Rank int
}

// RingSummary is one "Connected all rings, use ring PXN n GDR n" line.
type RingSummary struct {
	Host     string
	PXN, GDR int
	// Nodes is the node count of the communicator whose rings these are,
	// from the printing thread's last "comm ... nNodes N" line; 0 when
	// not printed. A one-node communicator has no network connection, so
	// its GDR 1 says nothing of GPUDirect RDMA in use; it never prints
	// GDR 0, so that one is a multi-node communicator's whatever Nodes says.
	Nodes    int
	Evidence Evidence
}

// A RankGPU is the GPU a rank runs on, as its communicator's init line
// prints it ("rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 1b000").
type RankGPU struct {
	Host    string
	Rank    int
	CudaDev int
	// BusID is NCCL's busId: the hex of domain<<20 | bus<<12 |
	// device<<4 | function ("1b000" is 0000:1b:00.0).
	BusID    string
	Evidence Evidence
}

// CommInfo is the size of the largest communicator in the log.
type CommInfo struct {
	Ranks, Nodes, LocalRanks int
	// Evidence is the line that gave Nodes (or Ranks when Nodes is unknown).
	Evidence Evidence
	// MNNVL is the first "comm ... MNNVL 1" line (NCCL 2.2x): the
	// communicator spans a multi-node NVLink domain (GB200 NVL72), so
	// its inter-node traffic rides NVLink, not the NICs. Zero when no
	// line says so.
	MNNVL Evidence
	// OneHost is the only host of the log that printed every rank of a
	// communicator of oneN ranks (all of "rank 0 nranks 2" and "rank 1
	// nranks 2"), HostEvidence the line that completed the set; see
	// SingleHost.
	OneHost      string
	HostEvidence Evidence
	oneN         int
}

// noteRank records that host printed rank of a communicator of n ranks,
// and sets Comm.OneHost when the log's only host has printed all of one.
func (l *NCCLLog) noteRank(host string, rank, n int, ev Evidence) {
	c := &l.Comm
	if rank < 0 || n < 2 || n > maxDistinct || l.commRanks == nil {
		return
	}
	if _, ok := l.commRanks[host]; !ok && len(l.commRanks) > 0 || !RealHost(host) {
		// A second host, or an unnamed one: no single host holds the job.
		l.commRanks, c.OneHost, c.HostEvidence, c.oneN = nil, "", Evidence{}, 0
		return
	}
	byN := l.commRanks[host]
	if byN == nil {
		byN = map[int]map[int]bool{}
		l.commRanks[host] = byN
	}
	if byN[n] == nil {
		byN[n] = map[int]bool{}
	}
	byN[n][rank] = true
	if len(byN[n]) == n && n > c.oneN {
		c.OneHost, c.HostEvidence, c.oneN = host, ev, n
	}
}

// SingleHost returns the host that holds every rank of the log's largest
// communicator, when one does.
func (c *CommInfo) SingleHost() (string, Evidence, bool) {
	if c.OneHost == "" || c.oneN != c.Ranks {
		return "", Evidence{}, false
	}
	return c.OneHost, c.HostEvidence, true
}

type warnRef struct {
	kind byte // 'c' completion, 's' setup, 'w' warning
	idx  int
	// line is the input line of the WARN or of the return code attached
	// to it last.
	line int
}

// maxPropagationGap bounds the input lines between a WARN (or a return
// code of it) and the next return code of its thread: NCCL prints the
// codes as the error unwinds, at once; a code far later comes from a
// failure of its own (a main thread returning an async thread's error).
const maxPropagationGap = 16

// NewNCCLLogParser returns a parser for NCCL_DEBUG logs read from src.
func NewNCCLLogParser(src string) Parser {
	return &NCCLLog{
		artifactHead: artifactHead{src: src},
		hosts:        map[string]string{},
		procBoot:     map[procKey]string{},
		bootAddrs:    map[string][]string{},
		seen:         map[seenKey]struct{}{},
		commRanks:    map[string]map[int]map[int]bool{},
		chanIdx:      map[chanKey]int{},
		origins:      map[string]cachedOrigin{},
		vias:         map[viaKey]int{},
		ibIdx:        map[seenKey]ibRef{},
		lastWarn:     map[string]warnRef{},
		tuners:       map[string]*tunerLoad{},
		profilers:    map[string]*tunerLoad{},
		netLibs:      map[string]bool{},
		threadNodes:  map[string]int{},
	}
}

// Kind returns KindNCCLLog.
func (l *NCCLLog) Kind() Kind { return KindNCCLLog }

// Result returns the log, or nil when no NCCL line was seen.
func (l *NCCLLog) Result() Artifact {
	if l.lines.n == 0 {
		return nil
	}
	l.closeBackend()
	l.finishHosts()
	l.soleHostVersions()
	l.finishIBext()
	return l
}

// Hosts returns the distinct host names that printed lines, in first-seen
// order, without blank or placeholder ("<cluster_name>") names.
func (l *NCCLLog) Hosts() []string {
	var out []string
	for _, h := range l.hostList {
		if RealHost(h) {
			out = append(out, h)
		}
	}
	return out
}

// HostEvidence returns the first line host printed, or a zero Evidence.
func (l *NCCLLog) HostEvidence(host string) Evidence {
	for i, h := range l.hostList {
		if h == host {
			return l.hostFirst[i]
		}
	}
	return Evidence{}
}

// RealHost reports whether h names a host: not blank and not a placeholder
// such as "<cluster_name>".
func RealHost(h string) bool {
	return h != "" && !strings.HasPrefix(h, "<")
}

// EnvValues returns the settings of the named variable, in input order.
func (l *NCCLLog) EnvValues(name string) []NCCLSetting {
	var out []NCCLSetting
	for _, e := range l.Env {
		if e.Name == name {
			out = append(out, e)
		}
	}
	return out
}

// GIDUses reports the GID indices the log says NCCL was told to use
// (NCCL_IB_GID_INDEX) or used (the GID index in a failed ibv_modify_qp).
//
// On InfiniBand the GID index only selects a GRH source address, and 0 is
// the normal value, so a log whose devices are all InfiniBand states no
// RoCE GID use.
func (l *NCCLLog) GIDUses() []GIDUse {
	if len(l.IBDevices) > 0 && !l.RoCE() {
		return nil
	}
	var out []GIDUse
	for _, e := range l.EnvValues("NCCL_IB_GID_INDEX") {
		n, err := strconv.Atoi(e.Value)
		if err != nil {
			continue
		}
		// The setting applies to every device NCCL uses on the host.
		for _, dev := range l.ibDeviceNames(e.Host) {
			out = append(out, GIDUse{Host: e.Host, Device: dev, Index: n, SetBy: SetByEcho, Evidence: e.Evidence})
		}
	}
	for _, s := range l.Setup {
		if s.GIDIndex >= 0 {
			dev, _, _ := strings.Cut(s.Dev, ":")
			out = append(out, GIDUse{Host: s.Host, Device: dev, Index: s.GIDIndex, Evidence: s.Evidence})
		}
	}
	if len(l.EnvValues("NCCL_IB_GID_INDEX")) == 0 {
		// NCCL 2.3 prints the index on every RoCE queue pair by default.
		seen := map[string]bool{}
		for _, q := range l.QPs {
			k := q.Host + "\x00" + q.Device + "\x00" + strconv.Itoa(q.GIDIndex)
			if q.GIDIndex >= 0 && !seen[k] {
				seen[k] = true
				out = append(out, GIDUse{Host: q.Host, Device: q.Device, Index: q.GIDIndex, Evidence: q.Evidence})
			}
		}
	}
	return out
}

// GIDEntries returns the GID rows NCCL states: in its failed
// ibv_modify_qp lines (2.2x: "local GID index 3, local GID
// ::ffff:10.0.0.1") and in its queue-pair lines ("GID 3 (0/...)", see
// QPInfo): what the index in use held. The RoCE version is not printed.
func (l *NCCLLog) GIDEntries() []GIDEntry {
	var out []GIDEntry
	for _, q := range l.QPs {
		if q.GIDIndex < 0 || q.GID == "" {
			continue
		}
		e := GIDEntry{Host: q.Host, Device: q.Device, Port: q.Port, Index: q.GIDIndex, GID: q.GID, Evidence: q.Evidence}
		if c, v4 := ClassifyGID(q.GID); c == GIDIPv4 {
			e.IPv4 = v4
		}
		out = append(out, e)
	}
	for _, s := range l.Setup {
		if s.GIDIndex < 0 || s.LocalGID == "" {
			continue
		}
		dev, port, _ := strings.Cut(s.Dev, ":")
		e := GIDEntry{Host: s.Host, Device: dev, Port: atoiOr(port, 0), Index: s.GIDIndex, GID: s.LocalGID, Evidence: s.Evidence}
		if c, v4 := ClassifyGID(s.LocalGID); c == GIDIPv4 {
			e.IPv4 = v4
		}
		out = append(out, e)
	}
	return out
}

// ibDeviceNames returns the IB devices host uses, each once in the
// order NCCL lists them, or one "" when the log names none.
func (l *NCCLLog) ibDeviceNames(host string) []string {
	var out []string
	for _, d := range l.IBDevices {
		if d.Host == host && !slices.Contains(out, d.Name) {
			out = append(out, d.Name)
		}
	}
	if len(out) == 0 {
		return []string{""}
	}
	return out
}

// LinkSpeeds reports the speeds of NCCL's port lines ("NET/IB: [0]
// mlx5_0:uverbs0:1/RoCE ... speed=400000") and of its "Made virtual
// device" lines that the port lines do not already state. A merged device
// ("name=mlx5_0+mlx5_1 speed=800000 ndevs=2") is the sum of its ports
// (net_ib.cc adds them up): a port no other line states is given an equal
// share, so that NICs per node × speed counts each port once. An EFA
// host's rate per NET device follows from the instance type aws-ofi-nccl
// names (PlatformSpeeds).
func (l *NCCLLog) LinkSpeeds() []LinkSpeed {
	var out []LinkSpeed
	stated := func(dev string, rate unit.BitRate) bool {
		return slices.ContainsFunc(out, func(s LinkSpeed) bool { return s.Device == dev && (rate == 0 || s.Rate == rate) })
	}
	for _, p := range l.IBPorts {
		if p.Speed > 0 {
			out = append(out, LinkSpeed{Device: p.Device, Rate: p.Speed, Evidence: p.Evidence})
		}
	}
	for _, v := range l.VirtualDevices {
		if !strings.Contains(v.Device, "+") && !stated(v.Device, v.Rate) {
			out = append(out, v)
		}
	}
	for _, v := range l.VirtualDevices {
		ports := strings.Split(v.Device, "+")
		share := v.Rate / unit.BitRate(len(ports))
		if len(ports) < 2 || share <= 0 {
			continue
		}
		for _, p := range ports {
			if p != "" && !stated(p, 0) {
				out = append(out, LinkSpeed{Device: p, Rate: share, Evidence: v.Evidence})
			}
		}
	}
	return append(out, l.PlatformSpeeds...)
}

// RoCE reports whether any IB device NCCL uses is RoCE (Ethernet).
func (l *NCCLLog) RoCE() bool {
	for _, d := range l.IBDevices {
		if d.LinkLayer == "RoCE" {
			return true
		}
	}
	return false
}

// VersionAtLeast reports whether the first NCCL version printed is at least
// major.minor, and whether a version was printed at all.
func (l *NCCLLog) VersionAtLeast(major, minor int) (atLeast, known bool) {
	if len(l.Versions) == 0 {
		return false, false
	}
	ma, mi, ok := parseVersion(l.Versions[0].Version)
	if !ok {
		return false, false
	}
	return ma > major || (ma == major && mi >= minor), true
}

// AnyVersionAtLeast reports whether any NCCL version the log prints (runs
// pasted together print several) is at least major.minor, and whether
// every one of them was read: a rule that holds only before a version
// needs both, or it would speak of a later run.
func (l *NCCLLog) AnyVersionAtLeast(major, minor int) (atLeast, known bool) {
	if len(l.Versions) == 0 {
		return false, false
	}
	known = true
	for _, v := range l.Versions {
		ma, mi, ok := parseVersion(v.Version)
		known = known && ok
		atLeast = atLeast || ok && (ma > major || ma == major && mi >= minor)
	}
	return atLeast, known
}

// parseVersion reads "2.26.2+cuda12.4" as 2, 26.
func parseVersion(v string) (major, minor int, ok bool) {
	a, rest, ok1 := strings.Cut(v, ".")
	b, _, _ := strings.Cut(rest, ".")
	ma, err1 := strconv.Atoi(a)
	mi, err2 := strconv.Atoi(b)
	return ma, mi, ok1 && err1 == nil && err2 == nil
}
