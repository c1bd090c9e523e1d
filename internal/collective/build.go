package collective

import "rocelab/internal/gpu"

// build lays out the batch's kernels and connections: which rank runs
// which program on which channel, and over which connections.
func (e *engine) build() {
	e.kernels = e.kernels[:0]
	e.groupEnd = e.groupEnd[:0]
	for r := range e.rankK {
		e.rankK[r] = e.rankK[r][:0]
	}
	c := e.c
	switch {
	case c.NRanks == 1:
	case e.call.Func.p2p():
		e.buildP2P()
	case e.choice.Algo == Tree:
		e.buildTree()
	case e.choice.Algo == NVLS || e.choice.Algo == NVLSTree:
		e.buildNVLS()
	case e.choice.Algo == PAT:
		e.buildPAT()
	default:
		e.buildRing()
	}
	// Count each connection's slices per call so that CTS stop where the
	// batch ends, record its producer and consumer, and list each rank's
	// network connections that carry data in this call (its proxy starts
	// one operation per call on each: sends as ci, receives as -ci-1).
	for r := range e.rankNet {
		e.rankNet[r] = e.rankNet[r][:0]
	}
	sends := make([]int64, len(e.conns))
	for ki := range e.kernels {
		k := &e.kernels[ki]
		k.n = k.p.length()
		k.p.sendOpsOn(func(ci int32, _, times int64) { sends[ci] += times })
	}
	for ki := range e.kernels {
		k := &e.kernels[ki]
		for _, ci := range k.p.send[:k.p.nsend] {
			cn := &e.conns[ci]
			cn.perCall, cn.base = sends[ci], cn.total
			cn.sendEnd, cn.recvEnd = cn.total+sends[ci], cn.total+sends[ci]
			cn.total += sends[ci] * int64(e.iters)
			if cn.net {
				e.unposted += sends[ci] * int64(e.iters)
			}
			e.conns[ci].prodK = int32(ki)
			if e.conns[ci].net && sends[ci] > 0 {
				e.rankNet[e.conns[ci].proxySrc] = append(e.rankNet[e.conns[ci].proxySrc], ci)
			}
		}
		for _, ci := range k.p.recv[:k.p.nrecv] {
			e.conns[ci].consK = int32(ki)
			if e.conns[ci].net && sends[ci] > 0 {
				e.rankNet[k.rank] = append(e.rankNet[k.rank], -ci-1)
			}
		}
	}
}

// plan splits the call over its channels as NCCL's planner does
// (plan.go): the bytes of the call's count (its size; for AllGather and
// ReduceScatter one rank's piece) each channel carries, and the number of
// channels that run.
func (e *engine) plan() {
	c := e.c
	e.shares, e.nch = nil, max(e.choice.Channels, 1)
	if c.NRanks < 2 || e.call.Func.p2p() {
		return
	}
	count := e.call.Bytes
	if e.call.Func == AllGather || e.call.Func == ReduceScatter {
		count /= int64(c.NRanks)
	}
	maxCh := c.Tuning.NChannels
	if e.choice.Algo == NVLS || e.choice.Algo == NVLSTree {
		maxCh = c.Tuning.NVLSChannels()
	}
	e.shares = channelShares(c.Cfg.Version, e.call.Func, e.choice.Proto, count, c.NRanks, e.choice.Channels, e.choice.Threads, max(maxCh, e.choice.Channels))
	e.nch = len(e.shares)
}

func (e *engine) addKernel(r int, p prog) {
	e.addKernelIn(r, p, -1)
}

// addKernelIn adds a kernel that runs in warp group g (-1: its own).
func (e *engine) addKernelIn(r int, p prog, g int32) {
	e.rankK[r] = append(e.rankK[r], int32(len(e.kernels)))
	e.kernels = append(e.kernels, kernel{rank: int32(r), p: p, group: g})
}

// ll128Grain is the data one warp moves per LL128 slice: 32 threads of
// 8 words, 15 of every 16 data (device.h ncclProtoGrainSize).
const ll128Grain = 32 * 8 / 16 * 15 * 8

// ll128SliceWire is the wire bytes of one warp's LL128 slice: 32
// threads of NCCL_LL128_SHMEM_ELEMS_PER_THREAD (8) words (prims_ll128.h
// WireWordPerSlice).
const ll128SliceWire = 32 * 8 * 8

// ll128Chunk is an LL128 step's data: 4915200 bytes of buffer in
// NCCL_STEPS slots, 15 of every 16 words data.
const ll128Chunk = 4915200 / nSteps / 16 * 15

// treeLL128Chunk is NCCL's Tree/LL128 chunk for a call of the given bytes
// on nc channels (enqueue.cc calcCollChunking): halved while the call has
// few chunks per tree step, and from 2.22 cut down to whole warp grains.
func (c *Comm) treeLL128Chunk(bytes, nc int64) int64 {
	// Up to 2.19 the halving starts from the step's buffer bytes (lines
	// with their flags) and the chunk is its data; from 2.20 from the data.
	chunk := int64(ll128Chunk)
	old := !c.Cfg.Version.AtLeast(2, 20, 0)
	if old {
		chunk = ll128Chunk / 15 * 16
	}
	ppn := float64(c.PPN)
	ns := 1 + float64(log2i(int64(c.NNodes()))) + 0.1*ppn
	for float64(bytes/(nc*chunk)) < ns*64/ppn && chunk > 131072 {
		chunk /= 2
	}
	for float64(bytes/(nc*chunk)) < ns*16/ppn && chunk > 32768 {
		chunk /= 2
	}
	if old {
		return chunk / 16 * 15
	}
	if c.Cfg.Version.AtLeast(2, 22, 0) {
		chunk = chunk / ll128Grain * ll128Grain
	}
	return chunk
}

// treeSimpleChunk219 is the Tree/Simple chunk of NCCL up to 2.19: a step
// of the buffer, halved while the call has few chunks per channel for
// the tree's depth (enqueue.cc computeColl; connect.cc connectTrees
// approximates the depth as the GPUs per server less one plus log2 of the
// servers). From 2.20 calcCollChunking keeps the whole step.
func (c *Comm) treeSimpleChunk219(bytes, nc int64) int64 {
	chunk := c.Cfg.BuffSize / nSteps
	depth := int64(c.PPN - 1 + log2i(int64(c.NNodes())))
	for bytes/(nc*chunk) < depth*8 && chunk > 131072 {
		chunk /= 2
	}
	for bytes/(nc*chunk) < depth*4 && chunk > 65536 {
		chunk /= 2
	}
	for bytes/(nc*chunk) < depth && chunk > 32768 {
		chunk /= 2
	}
	return chunk
}

// treeShares219 lays a tree call out on its channels as NCCL's kernel up
// to 2.19 does (runTreeSplit, runTreeUpDown): in loops of one chunk per
// channel, channel ch taking the ch-th chunk of each loop, so that the
// last loop's data goes to the first channels and the others run an
// empty step; a call smaller than one loop is cut into one chunk per
// channel, rounded up to the protocol's least chunk (minChunk). It
// returns each channel's bytes, the chunk and the loops every channel
// runs.
func treeShares219(bytes, chunk, minChunk int64, nc int) (shares []int64, realChunk, loops int64) {
	loop := int64(nc) * chunk
	if loop > bytes {
		chunk = ceilDiv(bytes, int64(nc)*minChunk) * minChunk
		loop = int64(nc) * chunk
	}
	loops = max(ceilDiv(bytes, loop), 1)
	shares = make([]int64, nc)
	for ch := range shares {
		for l := int64(0); l < loops; l++ {
			shares[ch] += min(max(bytes-l*loop-int64(ch)*chunk, 0), chunk)
		}
	}
	return shares, chunk, loops
}

// treeMinChunk219 is runTreeSplit's least chunk up to 2.19, in bytes of
// 4-byte elements, for a call of nt threads per channel.
func treeMinChunk219(p Proto, nt int) int64 {
	switch p {
	case LL:
		return int64(nt) * 8
	case LL128:
		return 4 * (int64(nt) * 15 / 8)
	}
	// Simple: the tree adds a sync warp and three for its split.
	return int64(nt+4*32-2*32) * 64
}

// chunking returns NCCL's chunk size (data bytes), slices per chunk and
// window (slices in flight) for an algorithm and protocol
// (enqueue.cc calcCollChunking, collectives.h).
func (e *engine) chunking(a Algo, p Proto, f Func) (chunk int64, slices int, window int64) {
	step := e.c.Cfg.BuffSize / nSteps
	switch p {
	case LL:
		return 524288 / nSteps / 2, 1, nSteps
	case LL128:
		if a == Tree {
			return e.c.treeLL128Chunk(e.call.Bytes, int64(e.nch)), 1, nSteps
		}
		return ll128Chunk, 1, nSteps
	}
	if a == Ring && (f == AllReduce || f == AllGather || f == ReduceScatter) {
		return 4 * step, 2, nSteps / 2
	}
	return step, 1, nSteps
}

// part returns channel ch's share of total split over nc channels.
func part(total int64, ch, nc int) int64 {
	return total*int64(ch+1)/int64(nc) - total*int64(ch)/int64(nc)
}

func (e *engine) buildRing() {
	c, f := e.c, e.call.Func
	nc := e.nch
	chunk, slices, window := e.chunking(Ring, e.choice.Proto, f)
	n := c.NRanks
	for ch := 0; ch < nc; ch++ {
		nic := c.channelNIC(ch)
		order := c.localOrder(ch)
		ring := make([]int, 0, n)
		for node := 0; node < c.NNodes(); node++ {
			for _, g := range order {
				ring = append(ring, node*c.PPN+g)
			}
		}
		conns := make([]int32, n) // conns[i]: ring[i] -> ring[i+1]
		for i := range ring {
			src, dst := ring[i], ring[(i+1)%n]
			conns[i] = e.openConn(connKey{ckRing, int32(ch), int32(src), int32(dst)}, nic, nic)
			e.conns[conns[i]].window = window
		}
		rootPos := 0
		for i, r := range ring {
			if r == e.call.Root {
				rootPos = i
			}
		}
		for i, r := range ring {
			p := prog{kind: progRing, f: f, n: n, pos: i, root: rootPos, part: e.shares[ch], chunk: chunk, slices: slices, nrecv: 1, nsend: 1}
			p.recv[0] = conns[(i-1+n)%n]
			p.send[0] = conns[i]
			e.addKernel(r, p)
		}
	}
}

// treeShape returns rank r's parent and children in channel ch's tree:
// NCCL's double binary tree across servers (tree 0 for the first half
// of the channels, its mirror for the second), a chain inside each
// server starting at the GPU next to the channel's NIC.
func (c *Comm) treeShape(ch, r int) (up int, down []int) {
	nn := c.NNodes()
	order := c.localOrder(ch)
	node, li := r/c.PPN, r%c.PPN
	pos := 0
	for i, x := range order {
		if x == li {
			pos = i
		}
	}
	head := func(n int) int { return n*c.PPN + order[0] }
	if pos+1 < len(order) {
		down = append(down, node*c.PPN+order[pos+1])
	}
	if pos > 0 {
		return node*c.PPN + order[pos-1], down
	}
	var u, d0, d1 int
	if (ch/c.graphCh)%2 == 0 {
		u, d0, d1 = btree(nn, node)
	} else {
		u, d0, d1 = dtree(nn, node)
	}
	for _, d := range []int{d0, d1} {
		if d >= 0 {
			down = append(down, head(d))
		}
	}
	up = -1
	if u >= 0 {
		up = head(u)
	}
	return up, down
}

func (e *engine) buildTree() {
	c := e.c
	nc := e.nch
	chunk, _, window := e.chunking(Tree, e.choice.Proto, AllReduce)
	var steps int64
	if !c.Cfg.Version.AtLeast(2, 20, 0) {
		if e.choice.Proto == Simple {
			chunk = c.treeSimpleChunk219(e.call.Bytes, int64(nc))
		}
		e.shares, chunk, steps = treeShares219(e.call.Bytes, chunk, treeMinChunk219(e.choice.Proto, e.choice.Threads), nc)
	}
	for ch := 0; ch < nc; ch++ {
		nic := c.channelNIC(ch)
		pt := e.shares[ch]
		upConn := func(child, parent int) int32 {
			ci := e.openConn(connKey{ckTree, int32(ch), int32(child), int32(parent)}, nic, nic)
			e.conns[ci].window = window
			return ci
		}
		for r := 0; r < c.NRanks; r++ {
			up, down := c.treeShape(ch, r)
			base := prog{f: AllReduce, part: pt, chunk: chunk, slices: 1, steps: steps}
			if up < 0 {
				p := base
				p.kind = progTreeRoot
				for _, d := range down {
					p.recv[p.nrecv] = upConn(d, r)
					p.nrecv++
					p.send[p.nsend] = upConn(r, d)
					p.nsend++
				}
				e.addKernel(r, p)
				continue
			}
			pu, pd := base, base
			pu.kind, pd.kind = progTreeUp, progTreeDown
			pu.send[0], pu.nsend = upConn(r, up), 1
			pd.recv[0], pd.nrecv = upConn(up, r), 1
			for _, d := range down {
				pu.recv[pu.nrecv] = upConn(d, r)
				pu.nrecv++
				pd.send[pd.nsend] = upConn(r, d)
				pd.nsend++
			}
			e.addKernel(r, pu)
			e.addKernel(r, pd)
		}
	}
}

func (e *engine) buildP2P() {
	c, call := e.c, e.call
	n := c.NRanks
	proto := e.choice.Proto
	perPeer, minCh := c.p2pPerPeer(), c.p2pPerPeer()
	for minCh*n > c.p2pChannels() && minCh > 1 {
		minCh /= 2
	}
	w := p2pWarps{ops: map[[3]int][]int32{}}
	for pr := range c.p2pPairs(call) {
		if pr.src == pr.dst {
			chunk, parts := c.p2pChunking(Simple, pr.bytes, false, minCh, perPeer)
			for j := 0; j < parts; j++ {
				p := prog{kind: progP2PCopy, part: part(pr.bytes, j, parts), chunk: chunk, slices: 1}
				w.add(e, pr.src, c.p2pChannel(pr.src, pr.dst, j), 1, p)
			}
			continue
		}
		sn, sg := c.Rank(pr.src)
		dn, dg := c.Rank(pr.dst)
		netPeer := sn != dn
		chunk, parts := c.p2pChunking(proto, pr.bytes, netPeer, minCh, perPeer)
		srcNIC := c.p2pNIC(sg)
		pxn := netPeer && c.usePXN(sg, dg)
		if pxn {
			srcNIC = c.p2pNIC(dg)
		}
		for j := 0; j < parts; j++ {
			ci := e.openConn(connKey{ckP2P, int32(j), int32(pr.src), int32(pr.dst)}, srcNIC, c.p2pNIC(dg))
			e.conns[ci].window = nSteps
			if pxn {
				// The data crosses NVLink to the GPU next to srcNIC, whose
				// proxy posts it (NCCL's PXN).
				cn := &e.conns[ci]
				cn.pxn = true
				cn.proxySrc = int32(sn*c.PPN + c.localIndex(c.dev.FirstGPU(srcNIC)))
			}
			pt := part(pr.bytes, j, parts)
			s := prog{kind: progP2PSend, part: pt, chunk: chunk, slices: 1, nsend: 1}
			s.send[0] = ci
			r := prog{kind: progP2PRecv, part: pt, chunk: chunk, slices: 1, nrecv: 1}
			r.recv[0] = ci
			ch := c.p2pChannel(pr.src, pr.dst, j)
			w.add(e, pr.src, ch, 1, s)
			w.add(e, pr.dst, ch, 0, r)
		}
	}
	w.share(e, proto)
}

// p2pStep is NCCL's comm->p2pChunkSize, a point-to-point step of the
// Simple protocol: NCCL_P2P_NET_CHUNKSIZE on more than one server (for
// every peer, NVLink ones too), NCCL_P2P_NVL_CHUNKSIZE (512 KiB) on one
// server of NVLink, NCCL_P2P_PCI_CHUNKSIZE (128 KiB) otherwise, at most
// an eighth of NCCL_BUFFSIZE (init.cc).
func (c *Comm) p2pStep() int64 {
	step := int64(1 << 17)
	switch {
	case c.NNodes() > 1:
		step = c.Cfg.P2PNetChunk
	case c.dev.Intra == gpu.NVSwitch:
		step = 1 << 19
	}
	return min(step, c.Cfg.BuffSize/nSteps)
}

// p2pChunking returns the chunk (data bytes) and channels of one
// point-to-point operation of the given bytes, as NCCL's addP2pToPlan
// (enqueue.cc) sets them: the step is p2pStep for Simple and an eighth
// of LL's buffer for LL; to a network peer the chunk is a quarter of the
// step under one step of Simple data and half of it under eight steps;
// LL carries half its chunk in data. The operation starts on up to minCh
// channels (one per half step on more than one server, an eighth
// otherwise) and doubles them, up to perPeer, while a channel's part
// exceeds a step (32 steps on one server).
func (c *Comm) p2pChunking(proto Proto, bytes int64, netPeer bool, minCh, perPeer int) (chunk int64, parts int) {
	step := c.p2pStep()
	if proto == LL {
		step = 524288 / nSteps
	}
	chunk = step
	if netPeer {
		if proto == Simple && bytes < step {
			chunk /= 4
		} else if bytes < 8*step {
			chunk /= 2
		}
	}
	if proto == LL {
		chunk /= 2
	}
	minPart, maxPart := step/8, step*32
	if c.NNodes() > 1 {
		minPart, maxPart = step/2, step
	}
	parts = int(min(int64(minCh), max(1, ceilDiv(bytes, minPart))))
	for p := max(minPart, ceilDiv(bytes, int64(parts))); p > maxPart && parts <= perPeer/2; p = ceilDiv(bytes, int64(parts)) {
		parts *= 2
	}
	return chunk, parts
}

// p2pNIC returns the NIC a GPU's point-to-point traffic uses: its
// nearest usable NIC. NCCL does not spread one GPU's peers over several
// NICs, which is why AllToAll gets one NIC's bandwidth per GPU
// (nccl-tests #267).
func (c *Comm) p2pNIC(g int) int {
	want := c.dev.NICOf(g)
	for _, n := range c.NICs {
		if n == want {
			return n
		}
	}
	return c.NICs[g%len(c.NICs)]
}

// usePXN says whether a send from local GPU sg to GPU dg of another
// server goes through PXN (NCCL_PXN_DISABLE=0, NCCL_P2P_PXN_LEVEL > 0):
// over NVLink to the GPU next to the NIC on dg's rail, then from that
// NIC, so that the traffic stays on the rail. Level 1 uses it only when
// dg's NIC is not the sender's own (behind another PCIe switch); level 2,
// NCCL's default, whenever the NICs differ, which is the same here.
func (c *Comm) usePXN(sg, dg int) bool {
	if c.Cfg.PXNDisable || c.Cfg.P2PPXNLevel == 0 || c.dev.Intra != gpu.NVSwitch || c.Net != NetIB {
		return false
	}
	return c.p2pNIC(sg) != c.p2pNIC(dg) && c.localIndex(c.dev.FirstGPU(c.p2pNIC(dg))) >= 0
}

// localIndex returns the index into GPUs of server GPU g, or -1.
func (c *Comm) localIndex(g int) int {
	for i, x := range c.GPUs {
		if x == g {
			return i
		}
	}
	return -1
}
