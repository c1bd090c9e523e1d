package doctor

import (
	"fmt"
	"strconv"
	"strings"

	"rocelab/internal/ingest"
)

// NCCL 2.28-2.30's symmetric memory, device API and GPU-Initiated
// Networking (GIN) WARNs, and RAS's version check (RAS is in 2.27.7
// already; the others came with 2.28), each told by its cause and fix. The messages are NCCL's own (src/gin/gin_host.cc,
// src/dev_runtime.cc, src/allocator.cc, src/ras/ras.cc at NCCL 2.30.7).

// deviceAPIClass classifies a WARN of symmetric memory, the device API,
// GIN or RAS by its message; ok is false for any other.
func deviceAPIClass(msg string) (failureClass, bool) {
	msg = strings.TrimSpace(msg)
	m := strings.ToLower(msg)
	switch {
	case strings.HasPrefix(m, "communicator does not support symmetric memory"):
		return symmetricOffClass("", 0), true
	case m == "gin is disabled.":
		return failureClass{"the program asked for GPU-Initiated Networking (GIN) but NCCL_GIN_ENABLE=0 turns it off",
			"A device communicator (ncclDevCommCreate) that requests GIN connections or resources connects GIN when it is created; with NCCL_GIN_ENABLE=0 NCCL refuses with an internal error instead of running without it. The program's request and the environment disagree; nothing reached the network.",
			"Unset NCCL_GIN_ENABLE (or set it to 1) where the program needs GIN, or have the program request no GIN (ginConnectionType NCCL_GIN_CONNECTION_NONE and no GIN signals, counters or barriers in ncclDevCommRequirements)."}, true
	case m == "gin not supported." || m == "no gin-capable devices found.":
		return failureClass{"the program asked for GPU-Initiated Networking (GIN) but no GIN plugin or GIN-capable NIC is available (" + msg + ")",
			"GIN lets kernels drive the NIC (GDAKI through DOCA GPUNetIO, or a CPU proxy) and needs a GIN plugin that initialised at NCCL init ('GIN/Plugin: Loaded gin plugin ...'); NCCL 2.28's GIN notes require a Volta or newer GPU, ConnectX-4 or newer NICs with rdma-core 44 or later, and nvidia-peermem or DMA-BUF (Linux 6.1 or later). Without them ('GIN/Plugin: Failed to initialize any GIN plugin') a device communicator that requests GIN fails at creation.",
			"Read the GIN/Plugin lines of the log (NCCL_DEBUG_SUBSYS=INIT,NET): which plugin was tried and why it failed; check `lsmod | grep nvidia_peermem` (or a DMA-BUF capable kernel and driver), rdma-core's version and that the NICs are visible in the container; NCCL_GIN_TYPE selects the backend (2 proxy, 3 GDAKI) when one of them works."}, true
	case strings.HasPrefix(m, "user requested gin but not all ranks in the communicator support gin"):
		return failureClass{"the program asked for GIN but not every rank of the communicator can use it",
			"NCCL enables GIN for a communicator only when every rank has a GIN backend and its GPU supports GPUDirect RDMA on CUDA VMM memory (CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED); one node without the GIN plugin, without nvidia-peermem/DMA-BUF, or with NCCL_GIN_ENABLE=0 in its environment disables it for all, and a device communicator that requires GIN fails with invalid argument.",
			"Compare the ranks' GIN/Plugin lines and environments: the same NCCL, GIN plugin, NCCL_GIN_* settings and GPUDirect RDMA setup (nvidia-peermem or DMA-BUF) on every node; or let the program run without GIN when it is not available."}, true
	case strings.Contains(m, "nccl_gin_connection_full but the communicator supports only nccl_gin_connection_rail"):
		return failureClass{"the program asked for full GIN connectivity but the communicator has rail-only GIN: NCCL_CROSS_NIC=0 on some rank",
			"GIN connects every rank to every other (NCCL_GIN_CONNECTION_FULL) only when each rank allows traffic between different NICs (rails); NCCL takes that from NCCL_CROSS_NIC, and a 0 on any rank makes the whole communicator rail-only. A request for full connectivity then fails with invalid argument.",
			"Request NCCL_GIN_CONNECTION_RAIL in the program's ncclDevCommRequirements (rail-optimised fabrics without cross-rail routes need it), or unset NCCL_CROSS_NIC=0 on every rank where the fabric routes between rails."}, true
	case strings.HasPrefix(m, "cannot create worldginbarrier with nccl_gin_connection_rail"):
		return failureClass{"the program asked for a world GIN barrier on rail-only GIN connections",
			"A barrier over all ranks needs GIN connections between every pair of ranks; with NCCL_GIN_CONNECTION_RAIL each rank reaches only the ranks of its own rail, so NCCL refuses the device communicator with invalid argument.",
			"Request no worldGinBarrierCount with rail connections (use rail or LSA barriers), or full connections (NCCL_GIN_CONNECTION_FULL, which needs NCCL_CROSS_NIC not 0 on any rank)."}, true
	case strings.HasPrefix(m, "window registration of addresses that span multiple physical segments requires dmabuf"):
		return failureClass{"a symmetric window spans several physical allocations, which GIN can register only through DMA-BUF",
			"With GIN, NCCL registers each window with the NIC; a window made of several cuMem physical allocations (an allocator that maps chunks side by side) can be registered only as DMA-BUF, and without DMA-BUF (nvidia-peermem only, or a kernel before 6.1) the registration fails.",
			"Register windows that each come from one allocation (ncclMemAlloc, or one cuMemCreate), or give the hosts DMA-BUF support: a GPU driver and kernel (6.1 or later) with DMA-BUF, and NCCL_DMABUF_ENABLE not 0."}, true
	case strings.HasPrefix(m, "window address must be suitably aligned"):
		return failureClass{"a buffer registered as an NCCL window does not start on NCCL's window alignment",
			"ncclCommWindowRegister requires the window to start at an offset within its CUDA VMM allocation that is a multiple of NCCL_WIN_REQUIRED_ALIGNMENT (4096 bytes); a buffer carved out of a larger pool by a caching allocator (PyTorch's, XLA's BFC allocator) at a finer granularity fails with invalid argument (openxla/xla#47406).",
			"Allocate window buffers with ncclMemAlloc (or the framework's NCCL memory pool) so that each starts on the alignment, or round the allocator's block boundaries up to 4096 bytes."}, true
	case strings.HasPrefix(m, "allocation failed. no suitable space found to accommodate size="):
		return symmetricSpaceClass(m), true
	case rasVersionWarn(m):
		return failureClass{"two processes of the job run different NCCL versions (NCCL's RAS found it: " + msg + ")",
			"Every NCCL process runs a RAS thread that connects to its peers when a communicator is created and first compares NCCL versions; a peer of another version is refused and its connection closed. Ranks of one job with different NCCL libraries also disagree on their bootstrap and connection messages, so a mixed job fails or hangs in init or in its first collectives.",
			"Load one NCCL on every rank: check the 'NCCL version' line of each rank's log, LD_LIBRARY_PATH and LD_PRELOAD, and the libnccl each framework wheel bundles (nvidia-nccl-cu12 in a Python environment overrides the system's); rebuild or repin so that all hosts and containers match."}, true
	}
	return failureClass{}, false
}

// symmetricOffClass is a device communicator or window refused because the
// communicator has no symmetric memory. info is NCCL's INFO line that says
// why ("Symmetric memory is not supported. cuMemEnable 1, globalGinSupport
// 0, globalNicFused 1 cuMemGdrSupport 0", NCCL 2.29 and later), "" when the
// log lacks it; nodes is the communicator's nNodes from its init line (one
// NVLink domain counts as one node), 0 when not printed. NCCL (init.cc)
// grants symmetric memory when every pair of ranks has CUDA P2P,
// NCCL_WIN_ENABLE is not 0, cuMem is on, and GIN works or nNodes is 1; GIN
// works when a GIN plugin loaded, NCCL_CROSS_NIC is not 0 and no rank has a
// merged virtual NIC (globalNicFused, 2.29.2 to 2.30.4).
func symmetricOffClass(info string, nodes int) failureClass {
	var why, fix []string
	cuMem, cuMemOK := infoFlag(info, "cuMemEnable")
	if cuMemOK && cuMem == 0 {
		why = append(why, "cuMem (CUDA VMM) is off (cuMemEnable 0: NCCL_CUMEM_ENABLE=0, or a driver or container without it)")
	}
	gin, ok := infoFlag(info, "globalGinSupport")
	if !ok {
		gin, ok = infoFlag(info, "ginSupport")
	}
	fused, _ := infoFlag(info, "globalNicFused")
	switch {
	case ok && gin == 0 && nodes == 1 && cuMemOK && cuMem == 1:
		why = append(why, "every rank sits in one NVLink domain (nNodes 1), where GIN is not needed, so CUDA P2P is missing between some pair of GPUs or NCCL_WIN_ENABLE=0")
		fix = append(fix, "With cuMemEnable 1 in one NVLink domain: unset NCCL_WIN_ENABLE=0 and NCCL_P2P_DISABLE, and check that every pair of GPUs reaches the other over NVLink or PCIe P2P (nvidia-smi topo -p2p r, the P2P INFO lines); a GPU pair without P2P (a VM or container without it, an IOMMU in the way) turns symmetric memory off.")
	case ok && gin == 0 && fused == 1 && nodes != 1:
		why = append(why, "a rank uses a merged virtual NIC (globalNicFused 1: NCCL_IB_MERGE_NICS fused several ports into one device), which turns GIN off in NCCL 2.29.2 to 2.30.4, and symmetric memory across NVLink domains needs GIN")
		fix = append(fix, "With globalNicFused 1: set NCCL_IB_MERGE_NICS=0 on every rank so that each port is its own NIC and GIN can be used.")
	case ok && gin == 0:
		why = append(why, "GIN is not available on every rank, which symmetric memory across NVLink domains needs")
	}
	if v, ok := infoFlag(info, "cuMemGdrSupport"); ok && v == 0 {
		why = append(why, "a GPU lacks GPUDirect RDMA on cuMem memory (cuMemGdrSupport 0)")
	}
	what := "the communicator has no symmetric memory, so NCCL refused a device communicator or GIN connection"
	if len(why) > 0 {
		what += ": " + strings.Join(why, "; ")
	}
	fix = append(fix, "Read the 'Symmetric memory is not supported' line (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT): with cuMemEnable 0 unset NCCL_CUMEM_ENABLE=0 and check that the driver and container allow CUDA VMM; with GIN support 0 across nodes give every node a GIN plugin and nvidia-peermem or DMA-BUF (the GIN/Plugin lines say which failed), unset NCCL_CROSS_NIC=0 and NCCL_IB_MERGE_NICS, or keep the device-API kernels inside one NVLink domain; within a node, unset NCCL_P2P_DISABLE and check that the GPUs reach each other over NVLink.")
	return failureClass{what,
		"NCCL decides at init whether a communicator supports symmetric memory (init.cc): every pair of its ranks must reach each other through CUDA P2P, NCCL_WIN_ENABLE must not be 0, cuMem must be on, and either all ranks sit in one NVLink domain or GIN works on every rank (a GIN plugin, NCCL_CROSS_NIC not 0, no merged virtual NIC before 2.30.5, and GPUDirect RDMA on cuMem memory). Otherwise it prints 'Symmetric memory is not supported. cuMemEnable ..., globalGinSupport ...' at INFO, and ncclDevCommCreate or a GIN connection then fails; ncclCommWindowRegister registers nothing, silently (NVIDIA/nccl#1963). PCIe-only nodes are not supported (NVIDIA/nccl#2275).",
		strings.Join(fix, " ")}
}

// infoFlag reads "name N" from NCCL's INFO text ("cuMemEnable 1,").
func infoFlag(info, name string) (int, bool) {
	_, rest, ok := strings.Cut(info, name+" ")
	if !ok {
		return 0, false
	}
	v := rest
	if i := strings.IndexAny(rest, ", "); i >= 0 {
		v = rest[:i]
	}
	n, err := strconv.Atoi(v)
	return n, err == nil
}

// symmetricSpaceClass is NCCL's symmetric address space running out
// (allocator.cc, through symMemoryObtain): each rank reserves a virtual
// address range for its windows (NCCL_WIN_STRIDE, by default the largest
// GPU memory of the communicator rounded up to 4 GiB), and a window that
// does not fit in what is left fails to register.
func symmetricSpaceClass(m string) failureClass {
	what := "NCCL's symmetric window address space is used up, so a window registration failed"
	size, limit := hexField(m, "size="), hexField(m, "limit=")
	if size > 0 && limit > 0 {
		what += fmt.Sprintf(" (a window of %.1f GiB did not fit in what was left of the %.1f GiB each rank reserves)", float64(size)/(1<<30), float64(limit)/(1<<30))
	}
	return failureClass{what,
		"Every window registered with ncclCommWindowRegister (and every ncclMemAlloc buffer a framework registers as symmetric memory) takes a range of a per-rank virtual address space whose size is NCCL_WIN_STRIDE, by default the largest GPU memory of the communicator rounded up to 4 GiB. NCCL 2.30.7 counts each registration anew, even of a buffer already registered, so registering the same allocation repeatedly without deregistering exhausts the space (NVIDIA/nccl#2331); windows that together exceed the GPU's memory do too. The registration, and the collective or device communicator that needed it, fails with an internal error. It is not GPU memory or the network.",
		"Register each buffer once per communicator and deregister it (ncclCommWindowDeregister) before registering it again or freeing it; check the framework's symmetric-memory pool for repeated registrations of one segment. If the windows really need more than the GPU's memory, raise NCCL_WIN_STRIDE (bytes) on every rank."}
}

// hexField reads the hexadecimal number after key ("size=0x2171600000").
func hexField(m, key string) int64 {
	_, rest, ok := strings.Cut(m, key)
	if !ok {
		return 0
	}
	if i := strings.IndexAny(rest, " ,"); i >= 0 {
		rest = rest[:i]
	}
	n, err := strconv.ParseInt(strings.TrimPrefix(rest, "0x"), 16, 64)
	if err != nil {
		return 0
	}
	return n
}

// symmetricOffLines returns the "Symmetric memory is not supported" lines
// of w's host when w is NCCL refusing work for want of symmetric memory.
func symmetricOffLines(l *ingest.NCCLLog, w ingest.Warning) []Evidence {
	if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(w.Message)), "communicator does not support symmetric memory") {
		return nil
	}
	for i, h := range l.SymmetricOff.Hosts {
		if h == w.Host {
			return []Evidence{l.SymmetricOff.First[i]}
		}
	}
	return nil
}
