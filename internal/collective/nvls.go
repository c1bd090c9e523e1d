package collective

import "rocelab/internal/gpu"

// NVLS and NVLSTree (NVLink SHARP): on an NVSwitch server of Hopper or
// later GPUs the switch reduces what the GPUs store into a multicast
// object and multicasts the result back. Every GPU with a NIC of its own
// is a head (on one server, every GPU), and every channel works for every
// head (NCCL's all_reduce.h, NVLS and NVLS_TREE): a channel's loop is one
// chunk per head, each GPU scatters the loop's chunks to the heads'
// reductions in the switch, head h takes the sum of chunk h, runs it
// through the tree across servers with the heads h of the other servers
// (NVLSTree; on one server there is none), stores the result into the
// multicast object, which delivers it to every GPU. So a channel is nHeads
// pipelines side by side, each at 1/nHeads of the channel's rate, with its
// own network connection between the servers' heads h, on head h's NIC;
// channels alternate between the tree and its mirror (connect.cc).
//
// The switch is modelled as two kernels of no cost of their own per
// server, channel and head (a reduction fed by every GPU, a multicast fed
// by the head); a GPU's NVLink carries its contribution, and its head's
// the multicast, at NCCL's NVLS efficiency of the link (tuning.cc
// nvlsEfficiency), which gives each GPU 9/8 of the data per direction with
// eight heads, the load NCCL's NVLS search books (search.cc).

// nvlsTune is what NCCL sets up for NVLS when the communicator is built:
// comm->nvlsChannels, the channels every NVLS or NVLSTree call runs on
// whatever its size (enqueue.cc topoGetAlgoInfo: nc = comm->nvlsChannels),
// comm->nvlsChunkSize and NVLSTree's cap on it (nvlsTreeMaxChunkSize).
type nvlsTune struct {
	channels       int
	chunk, treeMax int64
}

// nvlsMinGPUs is the fewest GPUs of a server NCCL sets NVLS up on
// (ncclNvlsInit returns early below them): 3 up to 2.28 ("gpuCount <= 2",
// v2.26.2 nvls.cc 157, v2.28.3 160), 2 from 2.29 ("gpuCount < 2", v2.29.7
// 162).
func nvlsMinGPUs(v Version) int {
	if v.AtLeast(2, 29, 0) {
		return 2
	}
	return 3
}

// nvlsTuning returns NCCL's NVLS set-up for a communicator of nNodes
// servers (n: one of them; g: its NVLS graph) by release
// (transport/nvls.cc). 16 channels (NCCL_NVLS_NCHANNELS) up to 2.24 and
// on Hopper; on Blackwell 32 from 2.25 (NVLS_NCHANNELS_SM100), and from
// 2.27 24 on one server (NVLS_NCHANNELS_SM100_NVL); chunks of
// NCCL_NVLS_CHUNKSIZE (128 KiB), NVLSTree's capped at 64 KiB from 4
// servers (NCCL_NVLSTREE_MAX_CHUNKSIZE, enqueue.cc up to 2.29). From 2.30
// ncclNvlsTuning lets Blackwell across servers choose all three from the
// servers, the GPUs per server and the slowest GPU-NIC path's bandwidth
// (ncclNvlsTreeSm100Tuning, v2.30.4 lines 158-193; comm->minNetBw,
// topo.cc ncclTopoGetMinNetBw: 48 GB/s for a 400G NIC behind PCIe Gen5
// x16): 32 channels on two servers (chunks 256 KiB with at most 4 GPUs a
// server; NVLSTree's cap 64 KiB with 16 GPUs or more a server, or up to 8
// reaching NICs under 96 GB/s through PCIe switches, 128 KiB otherwise);
// on more servers 24 channels at 48-96 GB/s (cap 64 KiB through PCIe
// switches) and from 96 with up to 8 GPUs a server (256 KiB chunks), 32
// on NVLink domains of more GPUs. NCCL_NVLS_NCHANNELS then overrides
// the channels, which NCCL_MIN/MAX_CTAS bound ("std::max(minCTAs,
// std::min(maxCTAs, channels))"), NCCL_NVLS_CHUNKSIZE the chunk and
// NCCL_NVLSTREE_MAX_CHUNKSIZE the cap, in every release (v2.30.4 nvls.cc
// 217 and 220-225; before 2.30 nvls.cc reads the chunk, enqueue.cc the
// cap); without it the cap is 2.30's tuning, else 64 KiB from 4 servers
// or the chunk.
func nvlsTuning(cfg *Config, n node, g Graph, minCC, nNodes int) nvlsTune {
	t := nvlsTune{channels: 16, chunk: 128 << 10}
	switch {
	case minCC < 100 || !cfg.Version.AtLeast(2, 25, 0):
	case nNodes > 1 || !cfg.Version.AtLeast(2, 27, 0):
		t.channels = 32
	default:
		t.channels = 24
	}
	if minCC >= 100 && nNodes > 1 && cfg.Version.AtLeast(2, 30, 0) {
		t.sm100Tree(nNodes, n.ppn, n.maxBW(), g.TypeInter)
	}
	if cfg.NVLSChunk > 0 {
		t.chunk = cfg.NVLSChunk
	}
	switch {
	case cfg.NVLSTreeMaxChunk > 0:
		t.treeMax = cfg.NVLSTreeMaxChunk
	case t.treeMax > 0:
	case nNodes >= 4:
		t.treeMax = 64 << 10
	default:
		t.treeMax = t.chunk
	}
	if cfg.NVLSChannels > 0 {
		t.channels = cfg.NVLSChannels
	}
	minCTAs, maxCTAs := ctaBounds(cfg)
	t.channels = max(minCTAs, min(maxCTAs, t.channels))
	return t
}

// sm100Tree is NCCL 2.30's ncclNvlsTreeSm100Tuning for Blackwell across
// nNodes servers of ppn GPUs whose slowest GPU-NIC path carries nicBw
// GB/s over path type inter; a system below 48 GB/s keeps the defaults.
func (t *nvlsTune) sm100Tree(nNodes, ppn int, nicBw float32, inter gpu.Path) {
	switch {
	case nNodes == 2 && nicBw >= 48:
		t.channels, t.treeMax = 32, 128<<10
		if ppn <= 4 {
			t.chunk, t.treeMax = 256<<10, 256<<10
		} else if ppn >= 16 || (ppn <= 8 && inter <= gpu.PXB && nicBw < 96) {
			t.treeMax = 64 << 10
		}
	case nicBw >= 96 && ppn <= 8:
		t.channels, t.chunk, t.treeMax = 24, 256<<10, 256<<10
	case nicBw >= 96:
		t.channels, t.treeMax = 32, 128<<10
		if ppn >= 32 {
			t.treeMax = 64 << 10
		}
	case nicBw >= 48:
		t.channels, t.treeMax = 24, 128<<10
		if inter <= gpu.PXB {
			t.treeMax = 64 << 10
		}
	}
}

// nvlsChunk is NCCL's NVLS or NVLSTree chunk for a call of nBytes over nc
// channels (enqueue.cc calcCollChunking): the communicator's NVLS chunk,
// for NVLSTree at most its cap (nvlsTuning), then smaller while the call
// has few chunks for each of the nc × nHeads pipelines (NVLSTree: 256 KiB
// below 32, 128 KiB below 16, 64 KiB below 4, 32 KiB below 1 chunk each;
// NVLS across fewer bytes: 64, 32, 16 KiB below 64, 8 and 2).
func (c *Comm) nvlsChunk(a Algo, nBytes int64, nc int) int64 {
	chunk := c.Tuning.nvlsTune.chunk
	ops := int64(nc) * int64(len(c.nvlsHeads()))
	if a == NVLS {
		for _, r := range []struct{ below, max int64 }{{64, 65536}, {8, 32768}, {2, 16384}} {
			if nBytes < r.below*ops*chunk && chunk > r.max {
				chunk = r.max
			}
		}
		return chunk
	}
	chunk = min(chunk, c.Tuning.nvlsTune.treeMax)
	for _, r := range []struct{ below, max int64 }{{32, 262144}, {16, 131072}, {4, 65536}, {1, 32768}} {
		if nBytes < r.below*ops*chunk && chunk > r.max {
			chunk = r.max
		}
	}
	return chunk
}

// nvlsHeads returns the local GPU indices (into GPUs) of the NVLS heads,
// in channel order.
func (c *Comm) nvlsHeads() []int {
	if c.NNodes() == 1 {
		return AllGPUs(c.PPN)
	}
	var heads []int
	seen := map[int]bool{}
	for _, n := range c.graphNICs() {
		g := c.dev.FirstGPU(n)
		for i, x := range c.GPUs {
			if x == g && !seen[i] {
				seen[i] = true
				heads = append(heads, i)
			}
		}
	}
	if len(heads) == 0 {
		heads = []int{0}
	}
	return heads
}

// switchID returns the pseudo-rank of server node's NVSwitch reduction
// (up) or multicast (down) in connection keys: below every real rank.
func switchID(node int, down bool) int32 {
	id := -1 - 2*int32(node)
	if down {
		id--
	}
	return id
}

func (e *engine) buildNVLS() {
	c := e.c
	nc := e.nch
	heads := c.nvlsHeads()
	nh := len(heads)
	chunk := c.nvlsChunk(e.choice.Algo, e.call.Bytes, nc)
	for ch := 0; ch < nc; ch++ {
		// Each GPU's scatter warps of the channel are one group, its
		// gather warps another.
		g0 := int32(len(e.groupEnd))
		for range 2 * c.NRanks {
			e.groupEnd = append(e.groupEnd, 0)
		}
		for hi, hl := range heads {
			e.buildNVLSHead(int32(ch*nh+hi), ch%2, hl, chunk, part(e.shares[ch], hi, nh), g0)
		}
	}
}

// buildNVLSHead lays out one channel's pipeline for head hl (local GPU
// index): lane numbers its connections, tree picks the tree (0) or its
// mirror (1) across servers, pt is the bytes of the channel that pass
// through this head; rank r's scatter runs in warp group g0+r.
func (e *engine) buildNVLSHead(lane int32, tree, hl int, chunk, pt int64, g0 int32) {
	c := e.c
	nn := c.NNodes()
	nic := c.dev.NICOf(c.GPUs[hl])
	conn := func(src, dst int32) int32 {
		ci := e.openConn(connKey{ckNVLS, lane, src, dst}, nic, nic)
		e.conns[ci].window = nSteps
		return ci
	}
	head := func(n int) int32 { return int32(n*c.PPN + hl) }
	base := prog{f: AllReduce, part: pt, chunk: chunk, slices: 1}
	for n := 0; n < nn; n++ {
		up, down := switchID(n, false), switchID(n, true)
		h := head(n)
		red := base
		red.kind, red.virt = progTreeRoot, true
		mc := red
		for li := 0; li < c.PPN; li++ {
			r := int32(n*c.PPN + li)
			give := base
			give.kind = progTreeUp
			give.send[0], give.nsend = conn(r, up), 1
			take := base
			take.kind = progTreeDown
			take.recv[0], take.nrecv = conn(down, r), 1
			e.addKernelIn(int(r), give, g0+2*r)
			e.addKernelIn(int(r), take, g0+2*r+1)
			red.recv[red.nrecv] = give.send[0]
			red.nrecv++
			mc.send[mc.nsend] = take.recv[0]
			mc.nsend++
		}
		red.send[0], red.nsend = conn(up, h), 1
		mc.recv[0], mc.nrecv = conn(h, down), 1
		e.addKernel(int(h), red)
		e.addKernel(int(h), mc)

		// The heads' tree across servers.
		var u, d0, d1 int
		if tree == 0 {
			u, d0, d1 = btree(nn, n)
		} else {
			u, d0, d1 = dtree(nn, n)
		}
		hu, hd := base, base
		hu.kind, hd.kind = progTreeUp, progTreeDown
		hu.recv[0], hu.nrecv = red.send[0], 1
		for _, d := range []int{d0, d1} {
			if d >= 0 {
				hu.recv[hu.nrecv] = conn(head(d), h)
				hu.nrecv++
				hd.send[hd.nsend] = conn(h, head(d))
				hd.nsend++
			}
		}
		hd.send[hd.nsend] = mc.recv[0]
		hd.nsend++
		if u < 0 {
			root := hu
			root.kind = progTreeRoot
			root.send, root.nsend = hd.send, hd.nsend
			e.addKernel(int(h), root)
			continue
		}
		hu.send[0], hu.nsend = conn(h, head(u)), 1
		hd.recv[0], hd.nrecv = conn(head(u), h), 1
		e.addKernel(int(h), hu)
		e.addKernel(int(h), hd)
	}
}
