package doctor

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/ingest"
)

// NCCL failures that are not a queue pair's: a verbs resource the host
// could not allocate or register (ibv_reg_mr, ibv_create_qp), and any
// other WARN after which NCCL returned an error (bootstrap, sockets, a
// plugin's memory registration).

func ncclFailureRules() []Rule {
	return []Rule{
		{IDs: []string{"nccl.ib.alloc_failed"}, Check: checkAllocFailures},
		{IDs: []string{"nccl.warn.error"}, Check: checkWarnErrors},
	}
}

// A failureClass is what a failure means: the title's words, why, and
// the fix.
type failureClass struct {
	what, why, fix string
}

const memlockWhy = "Registering a buffer with the NIC, and creating a queue pair, pins memory against the process's locked-memory limit (RLIMIT_MEMLOCK, `ulimit -l`). The default of many distributions and containers, and the limit of jobs a batch system or systemd starts, is a few MB, and the registration then fails with ENOMEM; NCCL's troubleshooting guide names this cause for failing ibv_reg_mr and ibv_create_qp calls."

const memlockFix = "Raise the locked-memory limit where the ranks start: `* soft memlock unlimited` and `* hard memlock unlimited` in /etc/security/limits.conf (then a new login), `docker run --ulimit memlock=-1`, Slurm PropagateResourceLimitsExcept=MEMLOCK with slurmd itself started unlimited (LimitMEMLOCK=infinity); check that every rank sees `unlimited` with `mpirun <args> sh -c 'ulimit -l'` (or srun)."

// allocClass classifies a failed resource call ("ibv_reg_mr_iova2") or
// a plugin's registration message by its error.
func allocClass(call, msg string, errno int) (failureClass, bool) {
	m := strings.ToLower(msg)
	reg := strings.HasPrefix(call, "ibv_reg_") || strings.Contains(m, "register memory") || strings.Contains(m, "memory registration")
	switch {
	case errno == 12 || strings.Contains(m, "cannot allocate memory"):
		if call == "" && !reg {
			return failureClass{}, false
		}
		return failureClass{"the host could not pin memory for the NIC (Cannot allocate memory)", memlockWhy, memlockFix}, true
	case reg && (errno == 22 || errno == 14 || strings.Contains(m, "invalid argument") || strings.Contains(m, "bad address")):
		return failureClass{"the NIC driver refused to register a buffer",
			"NCCL registers its buffers with the NIC, GPU memory among them when GPUDirect RDMA is on. The kernel maps GPU memory for the NIC through DMA-BUF or the nvidia-peermem module; when neither works for this GPU driver, kernel and NIC driver, or the registration asks for an access flag the device does not take (relaxed ordering), ibv_reg_mr fails with EINVAL or EFAULT. It is not a GID or routing problem.",
			"Check that GPUDirect RDMA can work on the host: `lsmod | grep nvidia_peermem` (load it), or a GPU driver and kernel with DMA-BUF support; then rerun with NCCL_NET_GDR_LEVEL=LOC (GPUDirect RDMA off) and, apart, with NCCL_IB_PCI_RELAXED_ORDERING=0: if the job then runs, registering GPU memory is what failed."}, true
	case call == "ibv_reg_dmabuf_mr" && (errno == 95 || strings.Contains(m, "not supported")):
		return failureClass{"the RDMA stack cannot register GPU memory through DMA-BUF",
			"NCCL 2.13 and later register GPU buffers with the NIC through DMA-BUF (ibv_reg_dmabuf_mr) when CUDA reports the GPU can export them, instead of through the nvidia-peermem module. EOPNOTSUPP is the verbs stack refusing the call itself: a kernel, rdma-core or NIC driver without DMA-BUF memory regions (upstream Linux 5.12 and rdma-core 34 brought them; older MLNX_OFED lacks them), so every GPU buffer registration fails. It is not memory, GIDs or the fabric (NVIDIA/nccl#778: NCCL 2.13 fails where 2.11, which used nvidia-peermem only, runs).",
			"Set NCCL_DMABUF_ENABLE=0 on every rank so that NCCL registers GPU memory through nvidia-peermem (`lsmod | grep nvidia_peermem`, load it if absent), or bring the kernel, rdma-core/MLNX_OFED and the GPU driver to versions with DMA-BUF support; later NCCL releases also fall back from a failed DMA-BUF probe on their own."}, true
	case call != "":
		return failureClass{"a verbs resource could not be created",
			"The call creates or registers a verbs resource (a memory region, queue pair, completion queue or protection domain) rather than connecting one: it fails for what the host or NIC allows (locked memory, the device's resource limits, a device the container cannot use), not for GIDs or routes.",
			"Check `ulimit -l` where the ranks run and `ibv_devinfo` in the job's environment; the error text names what ran out."}, true
	}
	return failureClass{}, false
}

// A failureGroup gathers the failures of one class.
type failureGroup struct {
	class failureClass
	texts []string // the failures as "call: error", or the WARN's message
	hosts []string
	ev    evidence
}

// failureGroups groups failures by class, in the order classes first
// appear.
type failureGroups struct {
	list  []*failureGroup
	byKey map[string]*failureGroup
}

func (gs *failureGroups) add(key string, c failureClass, text, host string, ev Evidence) *failureGroup {
	g := gs.byKey[key]
	if g == nil {
		if gs.byKey == nil {
			gs.byKey = map[string]*failureGroup{}
		}
		g = &failureGroup{class: c}
		gs.byKey[key] = g
		gs.list = append(gs.list, g)
	}
	g.texts = append(g.texts, text)
	if host != "" {
		g.hosts = append(g.hosts, host)
	}
	g.ev.add(ev)
	return g
}

// where says on which hosts and how many lines: " on a, b; 3 lines".
func (g *failureGroup) where() string {
	return onHosts(g.hosts) + "; " + plural(len(g.ev.list), "line", "lines")
}

// warnings returns one warning of rule id per group, titled by its class
// and where it was seen.
func (gs *failureGroups) warnings(id string) []Finding {
	var fs []Finding
	for _, g := range gs.list {
		fs = append(fs, Finding{
			ID: id, Severity: Warn, Layer: LayerNCCL,
			Title:     fmt.Sprintf("%s (%s)", capitalise(g.class.what), strings.TrimLeft(g.where(), "; ")),
			Evidence:  g.ev.sorted(),
			Mechanism: g.class.why,
			Fix:       g.class.fix,
		})
	}
	return fs
}

// checkAllocFailures reports verbs calls that failed to create or
// register a resource (the queue-pair setup rule leaves them out).
func checkAllocFailures(inc *Incident) []Finding {
	var gs failureGroups
	for _, l := range All[*ingest.NCCLLog](inc) {
		for _, s := range l.Setup {
			if !s.Allocates() {
				continue
			}
			c, _ := allocClass(s.Call, s.Message, s.Errno)
			text := s.Call
			if m := strings.TrimSpace(s.Message); m != "" {
				// NCCL before 2.8 prints the failed call without the error.
				text += ": " + m
			}
			gs.add(c.what, c, text, s.Host, s.Evidence)
		}
	}
	var fs []Finding
	for _, g := range gs.list {
		fs = append(fs, Finding{
			ID: "nccl.ib.alloc_failed", Severity: Error, Layer: LayerRDMA,
			Title:     fmt.Sprintf("%s (%s%s)", capitalise(g.class.what), list(distinct(g.texts), 2), g.where()),
			Evidence:  g.ev.sorted(),
			Mechanism: g.class.why,
			Fix:       g.class.fix,
		})
	}
	return fs
}

// ncclResultNames are ncclResult_t's values (nccl.h).
var ncclResultNames = []string{"success", "unhandled cuda error", "unhandled system error", "internal error", "invalid argument", "invalid usage", "remote error", "in progress"}

func ncclResultName(r int) string {
	if r >= 0 && r < len(ncclResultNames) {
		return ncclResultNames[r]
	}
	return "error"
}

// warnClass classifies a WARN line no other rule reads: bootstrap and
// socket failures, a plugin's memory registration; ok is false for one
// it cannot tell.
func warnClass(w ingest.Warning) (failureClass, bool) {
	if c, ok := allocClass("", w.Message, -1); ok {
		return c, true
	}
	m := strings.ToLower(w.Message)
	if c, ok := socketTypeClass(m); ok {
		return c, true
	}
	if c, ok := bootstrapRootClass(m); ok {
		return c, true
	}
	if c, ok := oobIfnameClass(w.Message); ok {
		return c, true
	}
	if c, ok := mismatchClass(w, m); ok {
		return c, true
	}
	if c, ok := cudaLibraryClass(strings.TrimSpace(m)); ok {
		return c, true
	}
	if c, ok := reversePathClass(strings.TrimSpace(m)); ok {
		return c, true
	}
	if c, ok := deviceAPIClass(w.Message); ok {
		return c, true
	}
	if c, ok := p2pPeerHiddenClass(w); ok {
		return c, true
	}
	if c, ok := sameGPUClass(strings.TrimSpace(m)); ok {
		return c, true
	}
	// A bootstrap failure: the error returned through bootstrap.cc, or a
	// connect that failed outright. A socket closed by its peer later in
	// the run is fallout of the peer's own failure, not this.
	if w.Raised.Line > 0 && w.Message == w.Raised.Text {
		return raisedClass(w.Result, w.Where, w.Reason), true
	}
	if c, ok := loopbackConnect(m); ok {
		return c, true
	}
	if c, ok := pollConnectClass(w.Message); ok {
		return c, true
	}
	socket := strings.Contains(m, "bootstrap") || connectFailed(m)
	for _, c := range w.Chain {
		socket = socket || bootstrapFile(path.Base(c))
	}
	switch {
	case strings.Contains(m, "nvlink sharp (nvls)") && strings.Contains(m, "cuda error 2 "):
		return nvlsOutOfMemory, true
	case strings.HasPrefix(path.Base(w.Where), "nvls.cc") && strings.Contains(m, "cuda failure"),
		strings.Contains(m, "nvlink sharp (nvls)") && strings.Contains(m, "cuda error"):
		return nvlsFailure(w.Message), true
	case strings.Contains(m, "p2p is disabled between nvlink connected gpus"):
		return nvlinkP2PClass, true
	case strings.Contains(m, "ipcgetmemhandle failed") || strings.Contains(m, "ipcopenmemhandle failed"):
		return failureClass{"the P2P transport could not share GPU memory with another process (" + strings.TrimSpace(w.Message) + ")",
			"Between GPUs of one node driven by different processes, NCCL's and RCCL's P2P transport allocates a buffer and exports it through CUDA/HIP IPC (cudaIpcGetMemHandle, hipIpcGetMemHandle) for the peer process to map. The export or the mapping fails when the processes cannot share GPU memory: containers in separate IPC namespaces or without the same devices visible, a GPU the driver does not let another process map (MPS, a VM, confidential computing), or a driver fault; it fails every communicator that needs that path at init. It is not the network.",
			"Run the ranks of a node in one container or with a shared IPC namespace (docker --ipc=host, Kubernetes hostIPC or one pod), with the GPUs of every rank of the communicator visible to each of its processes; to confirm, rerun with NCCL_P2P_DISABLE=1 (shared memory instead): if init then passes, the IPC export is what failed, and the driver's logs (dmesg, amdgpu/nvidia) say why."}, true
	case strings.Contains(m, "nvmldevicegethandlebypcibusid() failed"):
		return failureClass{"NVML cannot find the GPU CUDA gave NCCL (" + strings.TrimSpace(w.Message) + ")",
			"NCCL builds the node's topology by looking each GPU up in NVML by the PCI bus id CUDA reports. 'Not Found' means NVML in this process does not see a GPU that CUDA does: the device cgroup of a Slurm task bound to its own GPU (--gpu-bind or --tres-bind=gres/gpu:per_task:1 with ConstrainDevices=yes) or of a container hides the GPU's /dev/nvidiaN from NVML while CUDA still reaches it, or NVML and CUDA disagree on the devices after a remap (CUDA_VISIBLE_DEVICES, NCCL_TESTS_DEVICE). Init stops with 'unhandled system error' on every rank so bound (nccl-tests#300, NVIDIA/nccl#1066). The network is not involved.",
			"Give each task every GPU of its node and let NCCL pick by local rank: srun --gpus-per-node=<n> (or --tres-bind=gres/gpu:none) instead of per-task binding, or a container with all the node's GPUs; check inside the job step that `nvidia-smi -L` lists the GPU the rank uses."}, true
	case strings.Contains(m, "failed to open libnvidia-ml"):
		return failureClass{"NCCL could not load NVML (" + strings.TrimSpace(w.Message) + ")",
			"NCCL loads the GPU driver's NVML library (libnvidia-ml.so.1) at init to read the GPUs and their links. It comes with the driver, not with CUDA or NCCL: a container image or environment without the driver's user-space libraries, a driver installed outside the loader's path, or an incomplete driver install leaves it missing, and init fails with 'unhandled system error' on every rank (nccl-tests#320). The network is not involved.",
			"Check `ldconfig -p | grep libnvidia-ml` where the ranks run; in containers let the NVIDIA container toolkit inject the driver's libraries (--gpus, or the device plugin) instead of copying them into the image; otherwise add the driver's library directory to /etc/ld.so.conf.d (then ldconfig) or reinstall the driver's user-space package."}, true
	case strings.HasPrefix(m, "error: network ") && strings.HasSuffix(strings.TrimSpace(m), " not found."):
		return failureClass{"NCCL_NET names a network no loaded plugin provides (" + strings.TrimSpace(w.Message) + ")",
			"NCCL_NET picks the network by name: NCCL's own \"IB\" and \"Socket\", or the name a net plugin gives itself (\"AWS Libfabric\" for aws-ofi-nccl). When the plugin that provides the name was not loaded (not on the library path, its module not loaded, NCCL_NET_PLUGIN naming another library, which NCCL prefers over NCCL_NET), no network has that name and init fails with 'invalid usage' on every rank. Nothing reached the fabric.",
			"Load the plugin that provides the network (for aws-ofi-nccl: its module or uenv view, or its directory on LD_LIBRARY_PATH; NCCL_NET_PLUGIN naming its library or unset), and check that NCCL_DEBUG=INFO prints 'NET/Plugin: Loaded' and 'Using network <name>'; or unset NCCL_NET to let NCCL choose."}, true
	case strings.Contains(m, "net/ofi unexpected number of remote rails"):
		return ofiRailsClass, true
	case strings.Contains(m, "net/ofi numer of forced rails"):
		return failureClass{"aws-ofi-nccl refused OFI_NCCL_FORCE_NUM_RAILS: the forced count is no multiple of the NICs the device has (" + strings.TrimSpace(w.Message) + ")",
			"OFI_NCCL_FORCE_NUM_RAILS (aws-ofi-nccl 1.14 on) sets every device's rail count: a value below the device's NIC count uses its first NICs, a larger one splits each NIC into several rails and must then be a multiple of the NIC count; any other value fails the device at init.",
			"Set OFI_NCCL_FORCE_NUM_RAILS to a divisor of the smallest NIC count per GPU among the job's nodes, or to a multiple of it, the same on every node."}, true
	case strings.Contains(m, " marked as failed."):
		// 2.29 ends the line there; 2.30 adds "Initiating recovery? ...".
		return failoverClass(m), true
	case strings.Contains(m, "the error is fatal (no functional devices left)"):
		return failoverOut("NCCL's IB port failover had no NIC left to move the connection to", "every device of it has failed"), true
	case strings.Contains(m, "no support for more than a single failed device"):
		return failoverOut("NCCL's IB port failover stopped: a second device of a merged NIC failed", "a second device of it fails (the failover handles one)"), true
	case strings.Contains(m, "attribute busid of node nic not found"):
		return busidNICClass, true
	case strings.HasPrefix(strings.TrimSpace(m), "attribute ") && strings.Contains(m, " of node ") && strings.HasSuffix(strings.TrimSpace(m), " not found"):
		return failureClass{"NCCL's topology XML lacks an attribute it needs (" + strings.TrimSpace(w.Message) + ")",
			"NCCL reads the node's topology (and, when given, the rings and trees) as XML: built from sysfs, or loaded from NCCL_TOPO_FILE and NCCL_GRAPH_FILE, which may also be set in /etc/nccl.conf or ~/.nccl.conf. A node without an attribute NCCL requires stops init with an internal error: a file written by hand, for another machine or another NCCL version, or for a different GPU count (NVIDIA/nccl#379: a CPU's arch missing from an injected topology); such a file may be set in /etc/nccl.conf unnoticed (#1008).",
			"Find which files NCCL loaded (`env | grep -E 'NCCL_(TOPO|GRAPH)_FILE'`, and /etc/nccl.conf, ~/.nccl.conf); rerun without them to confirm, then regenerate the topology on the machine itself with NCCL_TOPO_DUMP_FILE=<file> and the NCCL version the job uses. Without such files, rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=GRAPH and report the XML NCCL built."}, true
	case strings.Contains(m, "neither af_inet") && socketTransport(w.Chain):
		return failureClass{"the socket transport was handed a peer address that is no IP address",
			"The error returns through the socket transport (net_socket.cc), not the bootstrap: NCCL was connecting a point-to-point channel to a peer and the handle it read for that peer holds no IP address (family 1 is AF_UNIX, 0 an empty one), because the peer had not yet sent its side. NCCL sets a send/recv connection up when both ranks post their halves within one group; an ncclSend and ncclRecv called outside ncclGroupStart/ncclGroupEnd, with both ranks sending first, starts the connection before the matching receive exists (NVIDIA/nccl#2057). The network is not at fault.",
			"Wrap each rank's paired ncclSend/ncclRecv in ncclGroupStart()/ncclGroupEnd() (torch.distributed: batch_isend_irecv, or isend/irecv rather than blocking send before recv), or order them so that one rank receives first; then rerun."}, true
	case strings.Contains(m, "neither af_inet"):
		return uniqueIDClass, true
	case gpuOutOfMemory(m):
		return gpuOOMClass, true
	case strings.HasPrefix(m, strings.ToLower(cudaCheckPrefix)) || strings.HasPrefix(m, strings.ToLower(cudaErrorPrefix)):
		return failureClass{"a CUDA call NCCL made failed (" + strings.TrimSpace(w.Message) + strings.TrimSuffix(" in "+path.Base(w.Where), " in .") + ")",
			"NCCL checks every CUDA runtime and driver call it makes (CUDACHECK, CUCHECK) and fails the operation when one returns an error, printing the call's error string; its source file names the step: transport.cc, p2p.cc and proxy.cc while connecting peers (allocating and mapping their buffers), enqueue.cc at a kernel launch, init.cc at communicator creation. Such an error comes from the GPU side, not the network: a CUDA runtime or NCCL build the driver does not fully support (a container's CUDA newer than the host driver), a GPU in a bad state (an Xid in dmesg), devices not visible to the process, or an NCCL release's own fault on that platform.",
			"Read `nvidia-smi` (driver and its CUDA version against the CUDA and NCCL the job ships), dmesg on that host for Xid errors, and CUDA_VISIBLE_DEVICES of the failing rank; rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,ALLOC to see the call's step, and with another NCCL release (or the same one with the transport of that step disabled, e.g. NCCL_P2P_DISABLE=1 for p2p.cc) to tell a release's fault from the host's."}, true
	case strings.Contains(m, "does not loop back to start"):
		return ringLoopClass, true
	case strings.Contains(m, "incompatible devices") && strings.Contains(m, "link type"):
		return mixedLinkClass, true
	case connectFailed(m) && transportChain(w.Chain), proxyConnectFailed(w, m):
		return transportConnectClass(m), true
	case socket && peerClosed(m) && strings.Contains(m, "call to send to "):
		return bootstrapResetClass(m), true
	case socket && peerClosed(m):
		return bootstrapProbeClass, true
	case socket:
		return failureClass{"NCCL's bootstrap connection between ranks failed",
			"Before any RDMA, ranks exchange addresses over TCP on the interface NCCL picks (the 'Bootstrap : Using' line, NCCL_SOCKET_IFNAME): a connect that fails or times out means the ranks cannot reach each other there (an interface the peers cannot route to, such as docker0, a bridge or a link-local address; a firewall; rank 0 gone).",
			"Set NCCL_SOCKET_IFNAME to the interface the hosts reach each other on, the same on every host; check that the address of 'Bootstrap : Using' answers from the peers, and that no firewall stands between them."}, true
	case peerClosed(m):
		return peerGoneClass, true
	}
	if sharpWarn(w) {
		return sharpClass(w), true
	}
	if src, ok := pluginSource(w); ok {
		return failureClass{pluginFailed + src + "): " + strings.TrimSpace(w.Message),
			"The WARN comes from a net plugin's own code (its source file, a function where NCCL prints a file, or its NET/<name> tag): the plugin, not NCCL's IB or socket transport, carries the inter-node traffic ('Using network <plugin>'), and NCCL only passed its error up. Errors of memory registration or connection setup in a plugin are often the plugin and GPUDirect RDMA not agreeing on how to map GPU memory, or a plugin built for another NCCL or driver version.",
			"Read the plugin's own log (UCX_LOG_LEVEL=info, FI_LOG_LEVEL=warn) for the call that failed; rerun without GPUDirect RDMA (NCCL_NET_GDR_LEVEL=LOC) and with NCCL's own IB transport (NCCL_NET=IB, or the plugin removed from the library path) to tell the plugin from the fabric; match the plugin's version to NCCL's."}, true
	}
	return failureClass{}, false
}

// groupKey is the group a failure of class c joins: its class and
// source location, or for a net plugin's WARN the plugin's location alone:
// its messages name the connection (addresses, a request), so the same
// failure on two connections reads as two texts.
func groupKey(c failureClass, w ingest.Warning) string {
	if src, ok := pluginSource(w); ok && strings.HasPrefix(c.what, pluginFailed) {
		return pluginFailed + src
	}
	return c.what + "\x00" + path.Base(w.Where)
}

const pluginFailed = "the net plugin failed ("

// uniqueIDClass is an address family that is no IP family read through
// the bootstrap: the unique id this rank got was never filled in.
var uniqueIDClass = failureClass{"the bootstrap address this rank was given is no IP address",
	"A rank connects to the others through the address in the ncclUniqueId that rank 0 created and the launcher handed to every rank; an address family that is neither AF_INET nor AF_INET6 means this rank's unique id is not an id rank 0 filled in: either the ranks did not share it (nccl-tests built without MPI=1 yet started by mpirun, a launcher whose broadcast never reached this rank, a garbled NCCL_COMM_ID) or its creator's ncclGetUniqueId failed and the id was passed on unfilled. No connection was ever attempted.",
	"Start the ranks as one job whose launcher hands them rank 0's unique id: nccl-tests built with `make MPI=1` against the MPI that launches it (mpirun, or srun --mpi=pmix), torchrun's rendezvous for PyTorch; the nccl-tests preamble must then list every rank once."}

// pluginSource names the net plugin a WARN comes from: its source file
// when the name says so ("ib_plugin.c"), its location when that is a
// function rather than a file (aws-ofi-nccl's "create_nccl_ofi_component:459",
// GPUDirect-TCPX's "tcpxCommProgress:1231"; NCCL and RCCL print
// file:line), or the plugin's tag that begins the message ("NET/OFI
// Request ... completed with error", as PyTorch prints NCCL's last error).
// A tuner's or profiler's plugin is not a net plugin, whatever its
// location.
func pluginSource(w ingest.Warning) (string, bool) {
	base := path.Base(w.Where)
	if w.Where != "" && netPluginSignature(base) && (strings.Contains(base, "plugin") || !strings.ContainsRune(base, '.')) {
		return base, true
	}
	if name, ok := ingest.PluginTag(w.Message); ok {
		return "NET/" + name, true
	}
	return "", false
}

// netPluginSignature reports whether a WARN's location names a net
// plugin's code: a net plugin's source file ("ib_plugin.c") or function
// (aws-ofi-nccl's "nccl_ofi_*" and "*_ofi_*", GPUDirect-TCPX's "tcpx*",
// UCX's "ucx*", a "*net*"/"*Net*" entry point), and not a tuner's or
// profiler's.
func netPluginSignature(where string) bool {
	w := strings.ToLower(where)
	if strings.Contains(w, "tuner") || strings.Contains(w, "profiler") {
		return false
	}
	return strings.Contains(w, "ofi") || strings.Contains(w, "tcpx") || strings.Contains(w, "ucx") ||
		strings.Contains(w, "net") || strings.Contains(w, "ib_plugin")
}

// bootstrapFile reports whether the base name of a file in an error chain
// is NCCL's bootstrap: bootstrap.cc, or the bootstrap.cu of NCCL 2.0 to
// 2.3, which named every source .cu (nccl-tests#15: "bootstrap.cu:28 -> 2
// [Net]" under NCCL 2.2.13).
func bootstrapFile(base string) bool {
	return strings.HasPrefix(base, "bootstrap.cc") || strings.HasPrefix(base, "bootstrap.cu")
}

// peerClosed reports whether a WARN's lowered message is a socket its
// other end closed.
func peerClosed(m string) bool {
	return strings.Contains(m, "connection reset by peer") || strings.Contains(m, "connection closed by remote peer") || strings.Contains(m, "broken pipe")
}

// bootstrapProbeClass is a socket closed by its other end while the error
// returns through bootstrap.cc: during init, when a rank's bootstrap
// listener accepts connections. Besides a rank that died there, anything
// that connects to the listening port and closes before sending NCCL's
// 8-byte magic does it: a port scan (nmap -sT over the ephemeral range) or
// a health probe. NCCL skips a connection with the wrong magic but, before
// 2.27.3, failed bootstrap on one that closed before the magic was whole
// (NVIDIA/nccl#1612, fixed by #1613 in 2.27.3).
var bootstrapProbeClass = failureClass{"a connection to NCCL's bootstrap closed during init: a rank that died there, or a port scan or probe that connected to the bootstrap port and hung up",
	"While a communicator is created, each rank's bootstrap listens on an ephemeral TCP port and reads an 8-byte magic from every connection it accepts; it skips a connection with the wrong magic, but NCCL before 2.27.3 fails init when one closes before sending the magic at all (NVIDIA/nccl#1612), which is what a TCP connect scan (nmap -sT), a load-balancer health check or a monitoring probe of the port range does. A peer rank that died during init closes its connection the same way. Unlike a socket closed later in the run, the peer here need not be a rank of the job.",
	"Check whether the peer address of the WARN is a host of the job (its 'Bootstrap : Using' address); if not, or if no other rank failed first, the cause is a scanner: exclude the hosts' ephemeral ports (net.ipv4.ip_local_port_range) from security scans during jobs, and use NCCL 2.27.3 or later, which ignores such connections. If it is a rank's host, find that rank's first failure (its log, dmesg, an OOM kill)."}

// gpuOutOfMemory reports whether a WARN is NCCL failing to allocate GPU
// memory: CUDACHECK's "Cuda failure 'out of memory'" (2.x: "Cuda failure
// 2 'out of memory'") and alloc.h's "Failed to CUDA calloc|malloc N
// bytes".
func gpuOutOfMemory(m string) bool {
	return strings.Contains(m, "cuda failure") && strings.Contains(m, "'out of memory'") ||
		strings.HasPrefix(m, "failed to cuda calloc ") || strings.HasPrefix(m, "failed to cuda malloc ")
}

var gpuOOMClass = failureClass{"NCCL could not allocate GPU memory for its buffers (CUDA out of memory)",
	"NCCL allocates its buffers on the GPU when a communicator is created and when it first connects a peer over a transport (P2P, NET, NVLS buffers for a new collective or send/recv pattern); when the application has already taken the GPU's memory (model, activations, the framework's caching allocator), the allocation fails and init or that first call fails. It is not the network: the peers of the failing process then see its connections close.",
	"Leave GPU memory for NCCL: a smaller batch or model shard, a cap on the framework's share (torch.cuda.set_per_process_memory_fraction, PYTORCH_CUDA_ALLOC_CONF), communicators created before the model fills memory; or smaller NCCL buffers (NCCL_BUFFSIZE, NCCL_MAX_NCHANNELS, NCCL_NVLS_ENABLE=0 where NVLS holds memory). `nvidia-smi` at the failure shows what holds the memory."}

// sharedMemOver returns the lines of w's host saying that NCCL's kernels
// ask for more shared memory than the GPU gives ("ncclMaxSharedMem 82240
// exceeds device/fn maxSharedMem 79856") when w is a CUDA call failing with
// 'invalid argument' in NCCL's launch path (enqueue.cc): the launch that
// request made fail.
func sharedMemOver(l *ingest.NCCLLog, w ingest.Warning) []Evidence {
	if !strings.HasPrefix(path.Base(w.Where), "enqueue.cc") || !strings.Contains(w.Message, "'invalid argument'") {
		return nil
	}
	var out []Evidence
	for i, h := range l.SharedMemOver.Hosts {
		if h == w.Host {
			out = append(out, l.SharedMemOver.First[i])
		}
	}
	return out
}

// sharedMemClass is NCCL's kernel launch failing because its build asks
// for more shared memory per block than the GPU has (NVIDIA/nccl-tests#287:
// NCCL 2.25.1 on the RTX 5090's sm_120, 82240 against 79856 bytes; NCCL's
// maintainers fixed the unroll for that architecture in 2.26).
var sharedMemClass = failureClass{"NCCL's kernels ask for more shared memory than this GPU gives a block, so their launch failed ('invalid argument')",
	"NCCL sizes its kernels' shared memory for the GPU architectures it knows; INFO's 'ncclMaxSharedMem N exceeds device/fn maxSharedMem M' says this build asks for more than the GPU allows, and the first collective's kernel launch then fails with cudaErrorInvalidValue. It happens when the NCCL release predates the GPU (NCCL 2.25 on Blackwell GeForce/RTX PRO, sm_120) and fails on every run, whatever the network does.",
	"Use an NCCL release that supports the GPU's architecture (2.26 or later for sm_120), built for it (NVCC_GENCODE with the GPU's compute capability); check the 'NCCL version' line of every rank (PyTorch wheels bundle their own libnccl)."}

// ncclUnhandledCudaError is the result NCCL returns after a failed CUDA call.
const ncclUnhandledCudaError = 1

// cudaCheckWarn reports whether a WARN is one NCCL prints right before
// returning ncclUnhandledCudaError, so the failure is an error even when no
// return code follows it in the input (NCCL_DEBUG=WARN, an excerpt, or the
// codes printed by other processes: NVIDIA/nccl#1410): CUDACHECK and
// CUDACHECKGOTO's "Cuda failure '<error string>'" (src/include/checks.h),
// CUCHECK and CUCHECKGOTO's "Cuda failure <code> '<error string>'"
// (cudawrap.h), and NVLS's "Failed to bind NVLink SHARP (NVLS) Multicast
// memory of size N : CUDA error <code> '<error string>'" (transport/nvls.cc,
// 2.27 on). CUDACHECKIGNORE and CUCHECKIGNORE print the same text at INFO
// and go on, so only a WARN counts.
func cudaCheckWarn(msg string) bool {
	msg = strings.TrimSpace(msg)
	return strings.HasPrefix(msg, cudaCheckPrefix+" ") ||
		strings.HasPrefix(msg, "Failed to bind NVLink SHARP (NVLS) Multicast memory") && strings.Contains(msg, ": "+cudaErrorPrefix+" ")
}

// How NCCL's WARNs open a failed CUDA call's error: the check macros'
// "Cuda failure" (CUDACHECK, CUCHECK) and NVLS's bind "CUDA error",
// each then a space.
const (
	cudaCheckPrefix = "Cuda failure"
	cudaErrorPrefix = "CUDA error"
)

// socketTransport reports whether an error chain passes through NCCL's
// socket transport (transport/net_socket.cc) before any bootstrap file.
func socketTransport(chain []string) bool {
	for _, c := range chain {
		switch b := path.Base(c); {
		case strings.HasPrefix(b, "bootstrap.cc"):
			return false
		case strings.HasPrefix(b, "net_socket.cc"):
			return true
		}
	}
	return false
}

// nvlsClass is a CUDA call of NCCL's NVLink SHARP transport failing
// (transport/nvls.cc, "Cuda failure 1 'invalid argument'"): creating or
// binding the multicast object through the NVSwitches. NCCL's maintainers
// (NVIDIA/nccl#976, #1338, #1488, #1672) trace it to the system rather
// than NCCL: a Fabric Manager restarted without resetting the GPUs, or
// multicast that does not work on the node.
var nvlsClass = failureClass{"NVLink SHARP (NVLS) could not set up its multicast memory (a CUDA call in transport/nvls.cc failed)",
	"On NVSwitch servers (H100/H200/B200 HGX, GB200) NCCL builds NVLS channels by creating a multicast object on the NVSwitches and binding each GPU's memory to it; the CUDA call fails (%s) when the fabric cannot give one: the Fabric Manager was restarted or stopped while the GPUs kept their state (its guide has the GPUs reset between), the driver and Fabric Manager versions differ, or multicast is not available to this process (a container or VM without the fabric). It fails every communicator at init, whatever the RDMA network does.",
	"Rerun with NCCL_NVLS_ENABLE=0: if the job then starts, NVLS is the cause. Then check `nvidia-smi -q | grep -A2 Fabric` (State Completed, Status Success), that nvidia-fabricmanager runs the driver's version, and reboot (or reset the GPUs) after a Fabric Manager restart; nvbandwidth's multicast tests show whether the node can do NVLS at all."}

// nvlsFailure is nvlsClass naming the CUDA error the WARN printed: most
// public reports show 'invalid argument', others 401 'the operation cannot
// be performed in the present state' (NVIDIA/nccl#1788) or 'initialization
// error' (#1029) from the same calls.
func nvlsFailure(msg string) failureClass {
	c := nvlsClass
	err := "in most reports with 'invalid argument'"
	if e, ok := cudaErrorText(msg); strings.Contains(msg, "'invalid argument'") {
		err = "with 'invalid argument'"
	} else if ok {
		err = "here with " + e + "; " + err
	}
	c.why = fmt.Sprintf(c.why, err)
	return c
}

// cudaErrorText is the CUDA error a WARN printed, code and string ("401
// 'the operation cannot be performed in the present state'"): after the
// check macros' "Cuda failure " or NVLS's bind "CUDA error " (NCCL 2.27 on,
// also as PyTorch's "Last error:"), up to the string's closing quote.
func cudaErrorText(msg string) (string, bool) {
	for _, p := range []string{cudaCheckPrefix, cudaErrorPrefix} {
		if _, e, ok := strings.Cut(msg, p+" "); ok {
			e = strings.TrimSpace(e)
			if i := strings.LastIndexByte(e, '\''); i > 0 {
				e = e[:i+1]
			}
			return e, true
		}
	}
	return "", false
}

// nvlsOutOfMemory is NVLS failing to bind multicast memory with CUDA error
// 2 (out of memory): the NVSwitches' multicast objects are used up. NCCL
// 2.29 sets NVLS up for every communicator it can, sub-communicators of a
// few ranks too, and each holds its objects until it is destroyed; an
// NVSwitch system has a fixed number (128 slots on H200 HGX, per the Fabric
// Manager log of NVIDIA/nccl#2077), and 2.29 no longer falls back without
// NVLS when they run out.
var nvlsOutOfMemory = failureClass{"NVLink SHARP (NVLS) could not bind its multicast memory: the NVSwitches' multicast resources are used up (CUDA error 2, out of memory)",
	"NCCL sets up NVLS multicast objects on the NVSwitches for each communicator that can use them and keeps them until the communicator is destroyed; a process that creates many communicators (FSDP or tensor-parallel sub-groups, one per layer group) uses up the fabric's fixed number of multicast slots, and the next bind fails with out of memory although GPU memory is free. NCCL 2.29 reports this as an error instead of running that communicator without NVLS.",
	"Set NCCL_NVLS_ENABLE=0 for the job, or keep NVLS off the small communicators (NCCL 2.30's communicator config can disable NVLS per communicator; destroy communicators no longer used); the Fabric Manager log shows 'all the NVSwitch multicast resources/slot ids are used' when this is the cause."}

// ofiRailsClass is aws-ofi-nccl's RDMA protocol refusing a connection
// whose two ends have different rail counts ("NET/OFI Unexpected number of
// remote rails for dev 0. Expected 3 but got 2", nccl_ofi_rdma.c):
// NVIDIA/nccl#1913 and aws-ofi-nccl#1061 on P5 with NCCL 2.28's GIN, where
// the reporter's OFI_NCCL_FORCE_NUM_RAILS made it pass; aws-ofi-nccl#771
// added that variable to let P5/P5e and P5en nodes, whose NICs per GPU
// differ, talk.
var ofiRailsClass = failureClass{"the two ends of an aws-ofi-nccl connection have different rail counts (NET/OFI Unexpected number of remote rails)",
	"aws-ofi-nccl's RDMA protocol stripes each connection over the device's rails (the EFA NICs it groups under one GPU, four per GPU on P5) and checks, when the connection is accepted, that the peer's device has as many rails as its own ('Expected' is this side's count, 'got' the peer's); a mismatch fails the connect and NCCL returns an error (internal or system error). The counts differ when the nodes are of different instance types (P5/P5e beside P5en), when a node lost a NIC (a failed EFA device, or one the container does not see), when a topology file or plugin version groups the NICs differently, or when NCCL's devices are formed differently on each side (NCCL 2.28's GIN proxy backend on P5).",
	"Give every node the same rails: set OFI_NCCL_FORCE_NUM_RAILS to one value on every rank (the smallest NIC count per GPU among the nodes, or a multiple of it), run one instance type and one aws-ofi-nccl version per job, and compare `fi_info -p efa -t FI_EP_RDM | grep -c domain` (or `ls /sys/class/infiniband | wc -l`) across the nodes to find one missing a NIC."}

// busidNICClass is NCCL 2.18.5 to 2.19's topology detection failing on a
// network interface with no PCI device. NCCL attaches such a "virtual" NIC
// (ncclTopoFillNet: no PCI path in sysfs) to the first CPU node without a
// bus ID; the next PCI device it files under that CPU is sorted by bus ID
// among the CPU's children (xml.cc, "Keep PCI sub devices ordered by PCI
// Bus ID", 2.18.5), which read every child's busid with xmlGetAttrStr and
// fail on the NIC's. 2.20.3 reads it with xmlGetAttr and skips children
// without one. NVIDIA/nccl#1247 (2.18.6, vLLM under Ray) and #1812 (2.19.3,
// NET/Socket in a Singularity container) hit it.
var busidNICClass = failureClass{"NCCL's topology detection failed on a network interface that has no PCI device (Attribute busid of node nic not found)",
	"NCCL builds the node's topology from sysfs: each NIC it will use hangs under its PCI device. An interface with no PCI device behind it (a container's veth eth0, a bridge, bond or tunnel NCCL_SOCKET_IFNAME picked, a VM's paravirtual NIC without a PCI path, a net plugin's virtual device) is filed directly under a CPU node without a bus ID. NCCL 2.18.5 to 2.19 then sort the next PCI device (a GPU or NIC) they add under that CPU by bus ID, read the bus ID of every device already there, and stop with an internal error on that NIC's missing one; 2.20.3 skips it. An NCCL_TOPO_FILE whose <nic> has no <pci> parent can fail the same way. It is not a network fault: NCCL never got to connect.",
	"Upgrade NCCL to 2.20.3 or later (with PyTorch, a wheel or container that bundles it). Until then, keep NCCL to interfaces backed by a PCI NIC: NCCL_SOCKET_IFNAME=<the physical interface> (not eth0 of a container's veth, nor a bridge), NCCL_IB_HCA=<the RDMA devices>; or give NCCL_TOPO_FILE a topology whose <nic> nodes sit under their <pci> device. `readlink -f /sys/class/net/<if>/device` shows whether an interface has a PCI device: none is the virtual one."}

// failoverClass is the class of NCCL's IB resiliency WARN
// (transport/net_ib/p2p_resiliency.cc) "Device N marked as failed." (2.29)
// or "... Initiating recovery? Yes|No" (2.30 on): a port of a merged NIC
// failed and the connection goes on over the others.
func failoverClass(m string) failureClass {
	dev := "a NIC"
	if _, after, ok := strings.Cut(m, "device "); ok {
		if n, _, ok := strings.Cut(after, " "); ok {
			if _, err := strconv.Atoi(n); err == nil {
				dev = "device " + n + " of a merged NIC"
			}
		}
	}
	then := "Recovery is off (NCCL_IB_RESILIENCY_PORT_RECOVERY unset, or NCCL before 2.30), so the port stays out of service until the communicator is destroyed, even after its link returns."
	if strings.Contains(m, "recovery? yes") {
		then = "Recovery is on (NCCL_IB_RESILIENCY_PORT_RECOVERY=1, 2.30 on): NCCL probes the port and returns it to service ('Device N has been recovered' at INFO with NCCL_DEBUG_SUBSYS=NET), and gives up after NCCL_IB_RESILIENCY_PORT_RECOVERY_ATTEMPTS_MAX failed attempts (5 by default; 'Device N will not be attempted to be recovered any more')."
	}
	return failureClass{"NCCL's IB port failover took " + dev + " out of service",
		"With NCCL_IB_RESILIENCY_PORT_FAILOVER=1 (NCCL 2.29 on) a connection over a merged NIC (ports NCCL fuses into one virtual device) survives a completion error with status 5 (WR_FLUSH_ERR) or 12 (RETRY_EXC_ERR) on one port: NCCL marks that device (its index in the merged NIC) failed and moves its queue pairs to the others, so the job goes on at the bandwidth of the ports left. " + then,
		"Find why the port failed: its link (`ibstat`, `rdma link`, dmesg link down/up lines, the switch port's error counters) and the completion error logged before this line; until it is back, busbw is that of the ports left."}
}

// failoverOut is the class of NCCL's IB resiliency WARN that ends a
// connection over a merged NIC: when ends the sentence "the connection
// fails when ...".
func failoverOut(what, when string) failureClass {
	return failureClass{what,
		"NCCL's port failover (NCCL_IB_RESILIENCY_PORT_FAILOVER=1, 2.29 on) keeps a connection over a merged NIC alive while one of its devices fails; the connection fails with ncclRemoteError when " + when + ", and the job stops as it would without failover.",
		"Find why the ports failed: their links (`ibstat`, `rdma link`, dmesg link down/up), the switch ports' errors, and the completion errors before this line."}
}

// notACause reports whether a WARN never names the cause of a failure,
// so that neither nccl.warn.error nor an nccl-tests failure takes it for
// one: a host setting RCCL warns about (nccl.host.config), a topology
// search NCCL fell back from and went on (nccl.graph.search_fallback), a
// stranger's connection it dropped (nccl.socket.foreign), NCCL 2.30's
// note that failover has a single device, and, when versionsDiffer (the
// version lines already say so: nccl.version.mismatch), RAS's version
// mismatch with a peer.
func notACause(msg string, versionsDiffer bool) bool {
	if versionsDiffer && rasVersionWarn(msg) {
		return true
	}
	if _, host := hostWarning(msg); host {
		return true
	}
	if _, fallback := searchFallbackPattern(msg); fallback {
		return true
	}
	if _, foreign := foreignMagic(strings.ToLower(msg)); foreign {
		return true
	}
	if proxyTeardownWarn(msg) {
		return true
	}
	return strings.Contains(msg, "with a single device") // p2p_resiliency.cc
}

// checkWarnErrors reports the WARN lines no other rule reads: as errors
// when NCCL returned an error after them, as warnings when the log shows
// no return code (NCCL_DEBUG=WARN prints none) but the line says what
// failed. Unclassified WARNs without a return code are left out. Only a
// process's first failing WARN is a cause: the ones after it on the same
// process (a proxy's socket closed, a recv that failed) are its fallout,
// counted in its finding.
func checkWarnErrors(inc *Incident) []Finding {
	var gs failureGroups
	result := map[*failureGroup]int{}
	chain := map[*failureGroup][]string{}
	cudaCheck := map[*failureGroup]bool{}
	fallout := map[*failureGroup]int{}
	died := map[*failureGroup]bool{} // a local rank lost (proxyLostRank)
	td := newTeardowns()
	var perLog []map[*failureGroup]bool // the groups of each log's failures
	versionsDiffer := len(checkVersions(inc)) > 0
	for _, l := range All[*ingest.NCCLLog](inc) {
		cause := map[string]*failureGroup{} // the first failure of each process
		mine := map[*failureGroup]bool{}
		perLog = append(perLog, mine)
		recv := map[string][]Evidence{} // the proxy's failed reads, by thread
		for i, w := range l.Warnings {
			proc := w.Host + "\x00" + strconv.Itoa(w.PID)
			thread := proc + "\x00" + strconv.Itoa(w.TID)
			td.warn(proc, w.PID, w.TID, w.Message)
			lost, isLost := proxyLostRank(l, w, versionsDiffer)
			if !isLost && proxyRecvOf(l, i, versionsDiffer) {
				recv[thread] = append(recv[thread], w.Evidence)
				continue
			}
			if !isLost && notACause(w.Message, versionsDiffer) {
				continue
			}
			if _, plugin := pluginSource(w); plugin && slices.Contains(l.PluginInitFailures.Hosts, w.Host) {
				continue // the plugin failing to start: the transport rules tell it
			}
			c, ok := warnClass(w)
			var extraEv []Evidence
			if ic, ev, missing := ifaceMissingClass(l, w); missing {
				c, ok, extraEv = ic, true, ev
			} else if c == uniqueIDClass {
				c, extraEv = idCreatorHint(l, w, c)
			}
			if ingest.IBDeviceSkipped(w.Message) {
				if ibSkippedAll(l, w.Host) {
					continue // no device kept: the cause of the socket fallback (nccl.transport.socket_fallback)
				}
				using := slices.ContainsFunc(l.IBDevices, func(d ingest.NetDevice) bool { return d.Host == w.Host })
				what, n := ibSkipped(l, w.Host)
				c, ok = ibDeviceSkippedClass(what, n, using), true
			}
			if over := sharedMemOver(l, w); over != nil {
				c, ok, extraEv = sharedMemClass, true, over
			}
			if nt, ev, hit := noTransport(l, w); hit {
				c, ok, extraEv = nt, true, ev
			}
			if why := symmetricOffLines(l, w); why != nil {
				c, ok = symmetricOffClass(why[0].Text, l.Comm.Nodes), true
				extraEv = why
			}
			if isLost {
				c, ok, extraEv = lost, true, recv[thread]
			}
			if !ok && w.Result <= 0 {
				continue
			}
			if g := cause[proc]; g != nil {
				if ok && (w.PID < 0 || ingest.IBDeviceSkipped(w.Message)) && groupKey(g.class, w) == groupKey(c, w) {
					// Lines without NCCL's prefix name no process, and
					// NET/IB skips each device it cannot open with a WARN
					// of its own: the same failure again (one line per
					// device) is part of the cause, not its fallout.
					g.texts = append(g.texts, strings.TrimSpace(w.Message))
					g.ev.add(w.Evidence)
				} else {
					fallout[g]++
					if w.Result > 0 && result[g] <= 0 && w.PID >= 0 && !isLost {
						// The first WARN printed no return code; the
						// next one of its process unwinds the failure.
						result[g], chain[g] = w.Result, w.Chain
					}
				}
				continue
			}
			if !ok && w.Raised.Line > 0 {
				c = failureClass{"NCCL failed: " + strings.TrimSpace(w.Message),
					"The application raised NCCL's result with NCCL's last error under it: the WARN NCCL logged when the call failed, printed without its source file.",
					"Rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH and give the log: the WARN with its source file and the INFO lines before it name the subsystem and the device."}
			} else if !ok {
				c = failureClass{"NCCL failed after a WARN: " + strings.TrimSpace(w.Message),
					"NCCL printed this WARN and returned an error through the calls after it: the first WARN of a failing process is the cause; later errors on it and on other ranks are its fallout.",
					"Read the WARN's source file (it names the subsystem, a net plugin's file names the plugin) and the INFO lines before it; rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET if they are missing."}
			}
			key := groupKey(c, w)
			g := gs.add(key, c, strings.TrimSpace(w.Message), w.Host, w.Evidence)
			if w.Raised.Line > 0 {
				g.ev.add(w.Raised)
			}
			for _, e := range w.More {
				g.ev.add(e)
			}
			for _, e := range extraEv {
				g.ev.add(e)
			}
			cause[proc] = g
			td.cause(proc, w.TID, g)
			mine[g] = true
			died[g] = died[g] || isLost
			if w.Result > 0 && result[g] <= 0 && !isLost {
				result[g], chain[g] = w.Result, w.Chain
			}
			cudaCheck[g] = cudaCheck[g] || cudaCheckWarn(w.Message)
		}
	}
	under := peerFalloutUnder(perLog, died)
	tf := transportFailuresOf(inc)
	var fs []Finding
	for _, g := range gs.list {
		if under[g] != nil {
			continue // told under its cause
		}
		f := Finding{
			ID: "nccl.warn.error", Severity: Warn, Layer: LayerNCCL,
			Evidence:  g.ev.sorted(),
			Mechanism: g.class.why,
			Fix:       g.class.fix,
		}
		returned := ""
		if r := result[g]; r > 0 {
			f.Severity = Error
			returned = fmt.Sprintf(": NCCL returned %d (%s)", r, ncclResultName(r))
			if c := chain[g]; len(c) > 0 {
				var short []string
				for _, x := range c {
					short = append(short, path.Base(x))
				}
				returned += " through " + strings.Join(short, ", ")
			}
		} else if cudaCheck[g] {
			f.Severity = Error
			returned = fmt.Sprintf(": NCCL's CUDA check returns %d (%s) right after this WARN", ncclUnhandledCudaError, ncclResultName(ncclUnhandledCudaError))
		} else if died[g] {
			f.Severity = Error
		}
		if n := fallout[g]; n > 0 {
			f.Mechanism += fmt.Sprintf(" The %s after it on the same processes are its fallout.", plural(n, "later WARN", "later WARNs"))
		}
		returned += td.label(&f, g)
		if remoteFallout(g.class) {
			returned += foldRemoteFallout(&f, tf, g.hosts)
		}
		f.Title = fmt.Sprintf("%s%s (%s)", capitalise(g.class.what), returned, strings.TrimLeft(g.where(), "; "))
		for _, p := range gs.list {
			if under[p] != g {
				continue
			}
			f.Evidence = append(f.Evidence, p.ev.sorted()[:min(2, len(p.ev.list))]...)
			f.Mechanism += fmt.Sprintf(" Its fallout, told here: other processes found their connections to the failed one closed (%s, %s); they failed because this one did.", distinct(p.texts)[0], strings.TrimLeft(p.where(), "; "))
		}
		fs = append(fs, f)
	}
	return fs
}

// ncclSocketTypes are NCCL's socket types (socket.h, 2.16 on): the first
// word of every connection NCCL accepts names what the peer wants.
var ncclSocketTypes = []string{"unknown", "bootstrap", "proxy", "socket transport (NET/Socket)", "IB transport (NET/IB)", "RAS"}

// socketTypeClass reads "socketFinalizeAccept: wrong type 3 != 4" (NCCL
// 2.16 to 2.2x; later NCCL logs it as INFO and drops the connection): a
// peer connected to a socket of another kind. The IB transport sets its
// queue pairs up over a socket of type 4, the socket transport sends over
// type 3: a socket-transport peer at an IB-transport listener means the
// ranks chose different networks.
func socketTypeClass(m string) (failureClass, bool) {
	_, rest, ok := strings.Cut(m, "socketfinalizeaccept: wrong type ")
	if !ok {
		return failureClass{}, false
	}
	var peer, want int
	if n, _ := fmt.Sscanf(rest, "%d != %d", &peer, &want); n != 2 {
		return failureClass{}, false
	}
	name := func(t int) string {
		if t >= 0 && t < len(ncclSocketTypes) {
			return ncclSocketTypes[t]
		}
		return fmt.Sprintf("type %d", t)
	}
	if (peer == 3 || peer == 4) && (want == 3 || want == 4) && peer != want {
		return failureClass{fmt.Sprintf("the ranks use different networks: a peer connected for the %s where this rank listens for the %s", name(peer), name(want)),
			"Each rank picks its inter-node network on its own, from its environment and the plugins it finds: NCCL_IB_DISABLE, NCCL_NET, NCCL_NET_PLUGIN, NCCL_IB_HCA, and whether libnccl-net.so (HPC-X's IBext, an OFI or UCX plugin) is on its library path. When they differ, one side's transport connects to the other's listener, NCCL refuses the connection ('wrong type') and the collective hangs or fails. A variable set in the launching shell but not exported to every rank (torchrun, mpirun without -x) does this; so does a plugin that reads none of NCCL's variables.",
			"Make every rank choose the same network: export the same NCCL_* variables to all ranks (mpirun -x NCCL_IB_DISABLE, or the job's environment), and check each rank's log for 'NCCL_IB_DISABLE set by environment' and its 'Using network' line; to force sockets with HPC-X's plugin on the path, set NCCL_NET=Socket, or remove the plugin (NCCL_NET_PLUGIN=none) on every rank."}, true
	}
	return failureClass{fmt.Sprintf("a peer connected to the wrong NCCL socket (the %s where this rank listens for the %s)", name(peer), name(want)),
		"NCCL checks the first word of each connection it accepts against the socket's kind and refuses a mismatch: another job or another communicator's rank reaching this port (an address or port reused across jobs, NCCL_COMM_ID shared), or ranks of different NCCL versions.",
		"Give each job its own unique id (no shared NCCL_COMM_ID), and run the same NCCL build on every rank (the 'NCCL version' line of each)."}, true
}

// capitalise returns s with its first letter upper-case.
func capitalise(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// peerFalloutUnder finds the peers' closed connections to tell under
// their cause: in a log where the peer-gone failures sit beside exactly
// one failure of another kind (NVIDIA/nccl#1235: rank 3 out of GPU
// memory, rank 0 finding its socket closed), that failure is what closed
// them. A local rank the proxy lost (died) is told under that failure
// when it is on the rank's host: the log names the rank's own failure. A
// group whose failures span logs, or a log with several causes, stays on
// its own.
func peerFalloutUnder(perLog []map[*failureGroup]bool, died map[*failureGroup]bool) map[*failureGroup]*failureGroup {
	logs := map[*failureGroup]int{}
	for _, m := range perLog {
		for g := range m {
			logs[g]++
		}
	}
	under := map[*failureGroup]*failureGroup{}
	for _, m := range perLog {
		var peer, causes []*failureGroup
		for g := range m {
			if g.class.what == peerGoneClass.what || died[g] {
				peer = append(peer, g)
			} else {
				causes = append(causes, g)
			}
		}
		if len(causes) != 1 {
			continue
		}
		for _, p := range peer {
			if logs[p] == 1 && (!died[p] || slices.ContainsFunc(p.hosts, func(h string) bool { return slices.Contains(causes[0].hosts, h) })) {
				under[p] = causes[0]
			}
		}
	}
	return under
}
