package collective

import (
	"fmt"

	"rocelab/internal/gpu"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// Call is one collective call as an application makes it.
type Call struct {
	Func Func
	// Bytes is the size NCCL's tuning counts and nccl-tests prints:
	// the buffer for AllReduce, Broadcast and Reduce; all ranks' data for
	// AllGather (output) and ReduceScatter (input); one rank's send
	// buffer for AllToAll (count × type × ranks) and SendRecv.
	Bytes int64
	// Root is the root rank of Broadcast and Reduce.
	Root int
	// Peer is SendRecv's destination offset: rank r sends to r+Peer and
	// receives from r-Peer (nccl-tests uses 1). Zero means 1.
	Peer int
	// Pairs, when set, restricts SendRecv to these (source, destination)
	// ranks, each moving Bytes: a pipeline stage handing on activations.
	Pairs [][2]int
}

// Result is one finished batch of identical calls.
type Result struct {
	Call   Call
	Iters  int
	Choice Choice
	// Start and End bound the batch in simulated time.
	Start, End unit.Time
	// Err is set when a queue pair failed (retry exceeded).
	Err error
}

// Time returns the mean time of one call of the batch.
func (r Result) Time() unit.Time {
	if r.Iters == 0 {
		return 0
	}
	return (r.End - r.Start) / unit.Time(r.Iters)
}

// Listener hears of finished batches.
type Listener interface {
	BatchDone(r Result)
}

// NominalFabricLatency is the one-way small-message latency of a RoCE
// fabric that NCCL's network latency constants already contain (NIC
// pipeline, cable, one switch). The engine subtracts it from the tuning
// model's per-hop network latency and lets the simulated fabric add its
// own, so that the fabric's latency is not counted twice.
const NominalFabricLatency = 1500 * unit.Nanosecond

// HostChannelBW is the GB/s one channel's kernel moves through a host
// bounce buffer when GPUDirect RDMA is off. It is set so that the twin
// reproduces the CCI-MOC log (corpus
// allreduce-h100-1gpu-roce400g-gdr0-15GBps-ccimoc.txt: 2 × 1 H100, one
// 400G port, "GDR 0", 2 channels, busbw 15.04 GB/s): in a two-rank ring
// a channel's kernel touches the network in 3 operations per 2 chunks
// sent, so 2 channels × 2/3 × 11.25 = 15 GB/s.
const HostChannelBW = 11.25

// HostBounceLatency is the extra latency per network hop when data goes
// through host memory: one PCIe crossing at each end (assumed ~1 µs each).
const HostBounceLatency = 2 * unit.Microsecond

// Event kinds carried in After tags.
const (
	evOpDone = iota
	evVisible
	evRankStart
	evSendFreed
)

func tag(kind int, idx int32) uint64 { return uint64(kind)<<32 | uint64(uint32(idx)) }

type connKey struct {
	kind     connKind
	ch       int32
	src, dst int32
}

type connKind uint8

const (
	ckRing connKind = iota
	ckTree
	ckP2P
	ckNVLS
	ckPat
)

// String names the pattern in QP tags.
func (k connKind) String() string { return [...]string{"ring", "tree", "p2p", "nvls", "pat"}[k] }

type kernel struct {
	rank  int32
	p     prog
	pc, n int
	busy  bool
	// cur is operation pc once have is set: a kernel waiting on a
	// connection is tried again at every slice and credit that arrives.
	cur  op
	have bool
	// free is when the kernel finished its previous operation, and
	// sendHeld says the current one waited for a free send slot (an
	// LL/LL128 kernel reserves its send slot before it reads a line).
	free     unit.Time
	sendHeld bool
	// group, when not -1, is the warp group of a channel that runs this
	// kernel's operations in turn with the other kernels of the group
	// (NVLS: a GPU's scatter warps serve every head's pipeline).
	group int32
}

// timing holds a batch's per-step costs and rates (docs/nccl.md, "Per-step
// costs"; the constants and their sources are in calibration.go).
type timing struct {
	// launch is the per-call cost on every rank (NCCL's base latency of
	// the algorithm and protocol); intraLat the latency of one NVLink or
	// PCIe step (NCCL's per-protocol hardware latency).
	launch, intraLat unit.Time
	// callCost is a fixed cost of every call on every rank after its
	// launch and its host thread's enqueue (ringSimpleCall).
	callCost unit.Time
	// sendLat is the software latency of a network step at the sender
	// (the proxy noticing the slice and posting it), recvLat at the
	// receiver (GPU polling for LL/LL128; the proxy noticing the
	// completion and signalling the GPU for Simple).
	sendLat, recvLat unit.Time
	// proxyOp is the proxy thread's CPU time for one network operation;
	// the thread serves all of its rank's connections in turn. recvWait
	// says the GPU may read a received slice only once the receiver's
	// proxy has reaped its completion (and flushed it where the receiver
	// flushes: Comm.needFlush): Simple; LL and LL128 poll their flags.
	// llPass is, for a Ring/LL call across servers, the passes of the
	// proxy's loop a connection's step waits for before its post
	// (RingLLPost): on the connection's own time, not the thread's.
	proxyOp, llPass unit.Time
	// llScan is the rate at which the proxy reads the flags of a Ring/LL
	// step's lines before posting it (RingLLScan).
	llScan             unit.BitRate
	recvWait           bool
	chanRate, hostRate unit.BitRate
	// intraRate, when set, is the rate of a kernel operation that
	// neither feeds nor drains a network connection (Tree/Simple across
	// servers); chanRate otherwise.
	intraRate unit.BitRate
	// netRate caps a kernel operation that feeds or drains a network
	// connection (LL: NCCL's llMaxBw shared by the channels; a
	// point-to-point channel: P2PNetChannelRate).
	netRate unit.BitRate
	// qpRate caps what each queue pair of a network connection carries
	// (a Simple ring: RingQPRate).
	qpRate unit.BitRate
	nvRate unit.BitRate
	// wireNum/wireDen is the protocol's bytes on the network per byte of
	// data (LL 2, LL128 128/120); nvNum/nvDen on NVLink, where LL128 moves
	// 7 bytes of data in 9 (NCCL's single-server LL128 efficiency, since
	// NVLink is what limits it there).
	wireNum, wireDen int64
	nvNum, nvDen     int64
	// stream: LL and LL128 lines are visible to an NVLink peer as they
	// are written, so a local hop forwards while it receives.
	stream bool
	// sliceRound is, for a Ring/LL128 call, the wire bytes one round of
	// the kernel's warps moves (a 2 KiB slice each): an NVLink peer sees
	// an operation's lines that much of it after its start (hopLag).
	sliceRound int64
	// stepSync is, for a Ring/LL128 call, a kernel's own time between two
	// operations of a channel (StepSync): the next operation starts, and
	// the current one's post reaches its peers, that much after its data.
	stepSync unit.Time
}

type engine struct {
	c        *Comm
	t        workload.Transport
	listener Listener
	conns    []conn
	qps      []qpRef // by QP - qpBase
	qpBase   workload.QP
	connIdx  map[connKey]int32

	kernels  []kernel
	groupEnd []unit.Time // when each warp group is next free
	rankK    [][]int32
	rankIter []int
	ranksFin int
	gpuFree  []unit.Time

	// hostBase is when each host thread (Comm.ThreadGPUs ranks) began
	// enqueuing the batch's calls and hostEnd when it is done with them;
	// hostCost is its time per call and GPU.
	hostBase, hostEnd []unit.Time
	hostCost          unit.Time

	// proxyFree is when each rank's proxy thread is next idle; rankNet
	// lists each rank's network connections in the batch.
	proxyFree []unit.Time
	rankNet   [][]int32
	// nicTx and nicRx are when each NIC's PCIe link is next free for
	// reading data to send and writing data received (node·NICs + nic).
	nicTx, nicRx []unit.Time
	// nicRate is each NIC port's DMA rate when the host limits it below
	// its line rate (0 otherwise): nicDMA.
	nicRate []unit.BitRate

	busy bool
	// unposted counts the network connections' slices of the batch that
	// their proxies have not posted yet (Comm.Lead).
	unposted int64
	call     Call
	choice   Choice
	// shares is the bytes each channel of the call carries and nch the
	// channels that run (build.go plan).
	shares []int64
	nch    int
	iters  int
	start  unit.Time
	tm     timing
	failed error

	// on is t where it groups hosts: a rank's steps are made on its
	// server's group, named by the server's first host.
	on workload.Grouper
}

func (e *engine) init(c *Comm) {
	*e = engine{c: c}
	e.connIdx = map[connKey]int32{}
	e.rankK = make([][]int32, c.NRanks)
	e.rankIter = make([]int, c.NRanks)
	e.gpuFree = make([]unit.Time, c.NRanks)
	e.proxyFree = make([]unit.Time, c.NRanks)
	e.rankNet = make([][]int32, c.NRanks)
	e.nicTx = make([]unit.Time, c.NNodes()*c.Sys.Server.NICs)
	e.nicRx = make([]unit.Time, c.NNodes()*c.Sys.Server.NICs)
	e.nicRate = make([]unit.BitRate, c.NNodes()*c.Sys.Server.NICs)
}

// setNICRates sets the DMA rate of every NIC port the host limits below
// its line rate.
func (e *engine) setNICRates() {
	c := e.c
	n := c.Sys.Server.NICs
	line := c.dmaLine()
	for i := range e.nicRate {
		e.nicRate[i] = 0
		if r := c.nicDMA(i % n); r < line {
			e.nicRate[i] = gpu.Rate(r)
		}
	}
}

// Busy reports whether a batch is running.
func (c *Comm) Busy() bool { return c.eng.busy }

// Lead implements workload.Leader for the workloads that run the
// communicator: every post is made at least a proxy operation after Now
// (proxy: schedulePosts, postCTS), and while a network connection of the
// batch has a slice not yet posted, no rank has finished, since its
// receiver's kernel consumes every slice its connection carries: the
// batch does not end, and nothing starts the next one or connects,
// before that slice is posted and its completion seen. A failed
// communicator promises nothing.
func (c *Comm) Lead() (unit.Time, bool) {
	e := &c.eng
	return e.tm.proxyOp, e.busy && e.failed == nil && e.unposted > 0
}

// Failed returns the error that stopped the communicator, if any.
func (c *Comm) Failed() error { return c.eng.failed }

// Plan returns the algorithm, protocol and channels NCCL would use for
// call.
func (c *Comm) Plan(call Call) (Choice, error) {
	if call.Func.p2p() {
		return Choice{Algo: Ring, Proto: c.p2pProto(call), Channels: c.p2pPerPeer()}, nil
	}
	return c.Tuning.Choose(call.Func, call.Bytes)
}

// Run starts iters identical calls now, back to back on every rank's
// stream, as nccl-tests' timed loop enqueues them; the listener hears
// when the last has finished on every rank.
func (c *Comm) Run(call Call, iters int) error {
	e := &c.eng
	switch {
	case e.t == nil:
		return fmt.Errorf("collective: communicator not opened")
	case e.busy:
		return fmt.Errorf("collective: a batch is already running")
	case e.failed != nil:
		return e.failed
	case iters < 1:
		return fmt.Errorf("collective: %d iterations", iters)
	case call.Bytes < 0:
		return fmt.Errorf("collective: negative size %d", call.Bytes)
	case (call.Func == Broadcast || call.Func == Reduce) && (call.Root < 0 || call.Root >= c.NRanks):
		return fmt.Errorf("collective: root %d outside 0..%d", call.Root, c.NRanks-1)
	}
	for _, p := range call.Pairs {
		if call.Func != SendRecv || p[0] < 0 || p[1] < 0 || p[0] >= c.NRanks || p[1] >= c.NRanks || p[0] == p[1] {
			return fmt.Errorf("collective: pair %v: pairs are distinct ranks of a SendRecv", p)
		}
	}
	ch, err := c.Plan(call)
	if err != nil {
		return err
	}
	e.busy, e.call, e.choice, e.iters, e.start = true, call, ch, iters, e.t.Now()
	e.plan()
	e.setTiming()
	e.build()
	for ci := range e.conns {
		e.postCTS(int32(ci))
	}
	e.startHost()
	for r := range e.rankK {
		e.rankIter[r] = 0
		e.after(int32(r), e.launchDelay(int32(r)), tag(evRankStart, int32(r)))
	}
	e.ranksFin = 0
	return nil
}

func us(x float32) unit.Time { return unit.Time(float64(x) * float64(unit.Microsecond)) }

// setTiming derives the batch's per-step costs and rates from NCCL's
// tuning constants for the chosen algorithm and protocol and from the
// calibration in calibration.go. Every step is charged where NCCL's
// implementation incurs it: the kernel launch once per call, each NVLink
// step at its protocol's latency, each network step at the proxy
// threads of both ends (serial per rank) and on the simulated fabric,
// whose own latency NCCL's constants already assume (NominalFabricLatency
// is taken out of them).
func (e *engine) setTiming() {
	c, a, p := e.c, e.choice.Algo, e.choice.Proto
	srv := c.Sys.Server
	if e.call.Func.p2p() {
		a = Ring
	}
	intraHw, intraScale := hwPCI, 1.0
	if srv.Intra == gpu.NVSwitch {
		// An NVLink step takes the GPU generation's time, which NCCL's
		// one table does not tell apart (gpu.Model.NVLinkLat).
		intraHw, intraScale = hwNVLink, srv.GPU.NVLinkLatScale()
	}
	tm := timing{
		launch:   us(baseLat[a][p]),
		callCost: c.ringSimpleCall(e.call.Func, a, p),
		intraLat: us(float32(float64(hwLat[intraHw][a][p]) * intraScale)),
		proxyOp:  c.proxyOp(),
		chanRate: gpu.Rate(c.channelCap(e.call.Func, a, p, e.nch) * treeFactor(e.call.Func, a, p, e.call.Bytes, c.Tuning.minCC)),
		nvRate:   gpu.Rate(srv.IntraBW()),
		wireNum:  1, wireDen: 1, nvNum: 1, nvDen: 1,
	}
	if a == Tree && p == Simple && c.NNodes() > 1 {
		// NCCL's per-channel Tree limit (tuning.cc perChMaxTreeBws, by
		// node count: channelCap) is what a channel carries end to end
		// across servers, and binds the operations at its network
		// connections. A step that stays on its server, a hop of the
		// chain, runs at the GPU's channel rate: the pipeline fills at
		// the limit only where it crosses servers (docs/nccl.md, "The
		// forced trees and the host bounce from 256 MiB").
		tm.intraRate = gpu.Rate(c.slowestGPU().ChannelBW * treeFactor(e.call.Func, a, p, e.call.Bytes, c.Tuning.minCC))
	}
	if a == NVLS || a == NVLSTree {
		// NCCL charges NVLS no base latency; each crossing of the switch
		// (GPU to switch, switch to GPU) costs NVLSHop.
		tm.intraLat = NVLSHop
		tm.nvRate = gpu.Rate(srv.IntraBW() * float64(nvlsEfficiency[compCapIndex(c.Tuning.minCC)]))
	}
	netHop := hwLat[hwNet][a][p]
	if c.NRanks == c.NNodes() {
		netHop = hwLat[hwNet][Tree][p]
	}
	soft := max(us(netHop)-NominalFabricLatency, 0) + c.Sys.Server.StepOverhead + c.proxyStep(p)
	if a == Ring && p == LL && !e.call.Func.p2p() && c.NNodes() > 1 {
		tm.llPass, tm.llScan = RingLLPost, gpu.Rate(RingLLScan)
	}
	tm.sendLat = soft
	tm.recvLat = GPUPoll
	e.setNICRates()
	switch p {
	case LL:
		tm.wireNum, tm.nvNum, tm.stream = 2, 2, true
		if c.NNodes() > 1 && e.nch > 0 {
			tm.netRate = gpu.Rate(2 * c.llMaxBw() / float64(e.nch))
		}
	case LL128:
		tm.wireNum, tm.wireDen, tm.nvNum, tm.nvDen, tm.stream = 128, 120, 9, 7, true
		if a == Ring && !e.call.Func.p2p() {
			tm.sliceRound = int64(max(e.choice.Threads/32, 1)) * ll128SliceWire
			// The step's barriers, system-wide fence and flag posts
			// are synchronization of the kind an NVLink step is, and
			// take the GPU generation's time as it does (StepSync).
			tm.stepSync = unit.Time(float64(StepSync) * intraScale)
		}
	case Simple:
		// The receiver's proxy must see the completion (and flush
		// GPUDirect writes) before it bumps the tail the GPU polls.
		tm.sendLat, tm.recvLat = soft/2, soft-soft/2
		tm.recvWait = true
		if a == Ring && !e.call.Func.p2p() {
			tm.qpRate = gpu.Rate(RingQPRate)
		}
	}
	if c.Net == NetSocket {
		tm.sendLat += SocketLatency / 2
		tm.recvLat += SocketLatency - SocketLatency/2
	}
	if e.call.Func.p2p() {
		// A point-to-point channel moves at most P2PNetChannelRate to or
		// from a network peer.
		p2p := gpu.Rate(P2PNetChannelRate)
		if tm.netRate == 0 || p2p < tm.netRate {
			tm.netRate = p2p
		}
	}
	tm.hostRate = gpu.Rate(HostChannelBW)
	e.tm = tm
}

// proxy books cost on rank r's proxy thread, which serves its work in
// order and not before from, and returns how long from now until it is
// done.
func (e *engine) proxy(r int32, from, cost unit.Time) unit.Time {
	now := e.t.Now()
	st := max(now, from, e.proxyFree[r])
	e.proxyFree[r] = st + cost
	return e.proxyFree[r] - now
}

// startProxyOps has rank r's proxy take up the batch's first call's
// operation on each of its network connections, one after the other
// (ProxyOpStart each): a connection moves no data of the call before its
// operation started. Later calls' operations are taken up one connection
// at a time as the previous call's ends on it (takeUp).
func (e *engine) startProxyOps(r int32) {
	now := e.t.Now()
	for _, x := range e.rankNet[r] {
		ready := now + e.proxy(r, 0, ProxyOpStart)
		if x >= 0 {
			e.conns[x].sendReady = ready
		} else {
			e.conns[-x-1].recvReady = ready
		}
	}
}

// takeUp has rank r's proxy take up connection c's operation for the next
// call of the batch, now that the current one has ended on its side (end:
// c.sendEnd or c.recvEnd, moved on to the next operation's end), and
// returns when it is done. NCCL's host thread posts a call's proxy
// operations right after launching its kernel (enqueue.cc
// hostStreamPlanTask, uploadProxyOps), and so during the calls ahead of it
// in a timed loop; the proxy queues each behind the operation running on
// its connection (proxy.cc ProxyAppend: nextPeer) and swaps it in when
// that one is done (removeOp), for a send when the network has completed
// its last slice, for a receive when the GPU has consumed it. So a call's
// operations are taken up over the previous call's tail, connection by
// connection, not all at its start; and not before the host thread has
// posted them.
func (e *engine) takeUp(r int32, c *conn, end *int64) unit.Time {
	call := (*end - c.base) / c.perCall
	*end += c.perCall
	posted := e.enqueueStart(r, int(call)) + e.hostCost
	return e.t.Now() + e.proxy(r, posted, ProxyOpStart)
}

// Wake dispatches the engine's timed events.
func (e *engine) Wake(_ unit.Time, tg uint64) {
	if e.failed != nil {
		return
	}
	idx := int32(uint32(tg))
	switch tg >> 32 {
	case evOpDone:
		e.opDone(idx)
	case evVisible:
		e.visible(idx)
	case evSendFreed:
		e.sendFreed(idx)
	case evRankStart:
		if e.rankIter[idx] == 0 {
			// Later calls' operations were taken up as the previous
			// ones ended (takeUp).
			e.startProxyOps(idx)
		}
		for _, k := range e.rankK[idx] {
			e.kernels[k].free = e.t.Now()
			e.run(k)
		}
		e.rankCheck(idx)
	}
}

// after wakes e d from now with tag, a step of rank r: keyed by r's
// server where the transport groups hosts (workload.Grouper).
func (e *engine) after(r int32, d unit.Time, tg uint64) {
	if e.on != nil {
		e.on.AfterOn(e.c.host(int(r), 0), d, e, tg)
		return
	}
	e.t.After(d, e, tg)
}

// run starts kernel k's next operation if its inputs and outputs are
// ready; otherwise it waits on the first connection that is not.
func (e *engine) run(ki int32) {
	k := &e.kernels[ki]
	if k.busy || k.pc >= k.n {
		return
	}
	o := &k.cur
	if !k.have {
		k.p.op(k.pc, o)
		k.have = true
	}
	net := false
	if o.recv {
		for _, ci := range k.p.recvs(o) {
			c := &e.conns[ci]
			if c.arrived <= c.consumed {
				c.waitRecv = true
				return
			}
			net = net || c.net
		}
	}
	if o.send {
		for _, ci := range k.p.sends(o) {
			c := &e.conns[ci]
			if !c.sendFree() {
				c.waitSend = true
				k.sendHeld = true
				return
			}
			net = net || c.net
		}
	}
	now := e.t.Now()
	begin := e.streamStart(k, o)
	wire := o.bytes * e.tm.wireNum / e.tm.wireDen
	rate := e.tm.chanRate
	if !net && e.tm.intraRate > 0 {
		rate = e.tm.intraRate
	}
	if net && e.c.pcieBounce(int(k.rank)) {
		rate = min(rate, e.tm.hostRate)
	}
	if net && e.tm.netRate > 0 {
		rate = min(rate, e.tm.netRate)
	}
	end := max(now, begin+rate.TxTime(unit.Bytes(wire)))
	if k.group >= 0 {
		end = max(now, e.groupEnd[k.group]) + rate.TxTime(unit.Bytes(wire))
		e.groupEnd[k.group] = end
	}
	if k.p.virt || k.p.passive {
		end = now
	}
	if o.send && !k.p.virt {
		reserved := false
		for _, ci := range k.p.sends(o) {
			if e.conns[ci].net && !e.conns[ci].pxn {
				continue
			}
			if !reserved {
				g := k.rank
				st := max(begin, e.gpuFree[g])
				e.gpuFree[g] = st + e.tm.nvRate.TxTime(unit.Bytes(o.bytes*e.tm.nvNum/e.tm.nvDen))
				end = max(end, e.gpuFree[g])
				reserved = true
			}
			if e.tm.stream && !e.conns[ci].net {
				// Its lines reach the peer as it writes them, from the
				// start of its operation (streamStart), a round of
				// slices later on a ring with LL128 (hopLag).
				e.after(k.rank, max(begin+e.tm.intraLat+e.hopLag(wire, rate)-now, 0), tag(evVisible, ci))
			}
		}
	}
	if !k.p.virt && !k.p.passive {
		end += e.tm.stepSync
	}
	k.busy = true
	e.after(k.rank, end-now, tag(evOpDone, ki))
}

// hopLag returns how long after an operation of wire bytes starts, at
// rate, its NVLink peer can read its first lines, beyond the hop's
// latency: on a Ring/LL128 call one round of its warps' slices, or the
// whole operation when it is smaller than one round. In NCCL's LL128
// primitive (v2.28.3 src/device/prims_ll128.h, GenericOp lines 292-320
// and recvReduceSendCopy lines 182-200; the same since 2.12) warp w
// handles slices w, w+nwarps, ... of 32 threads × 8 words (2 KiB on the
// wire); it loads its whole slice, spinning until every thread's flag
// is set (__any_sync), before it stores the slice to the next GPU, so
// a hop forwards in rounds of nwarps slices: a ring's steps, each a
// rank's whole chunk for that step, are held by every hop for
// min(step, round) at the channel's rate. A tree kernel's rate already
// carries NCCL's measured correction for medium sizes
// (treeCorrectionFactor, treeFactor), and NVLS has no LL128: neither
// is charged it (docs/nccl.md, "The ring's LL128 hops").
func (e *engine) hopLag(wire int64, rate unit.BitRate) unit.Time {
	if e.tm.sliceRound == 0 {
		return 0
	}
	return rate.TxTime(unit.Bytes(min(wire, e.tm.sliceRound)))
}

// streamStart returns when kernel k could begin operation o: now, but
// for an LL or LL128 operation that receives from the network, which
// reads each line as the NIC lands it (prims_ll128.h and prims_ll.h poll
// every line's flag; nothing waits for the whole message), so it starts
// once its previous operation is done and the first lines of every slice
// it reads have landed (landAt), unless it waited for a send slot, which
// it takes before reading.
func (e *engine) streamStart(k *kernel, o *op) unit.Time {
	now := e.t.Now()
	if !e.tm.stream || !o.recv || k.sendHeld {
		return now
	}
	begin, net := k.free, false
	for _, ci := range k.p.recvs(o) {
		c := &e.conns[ci]
		net = net || (c.net && !c.sock)
		begin = max(begin, c.landAt[c.consumed&(nSteps-1)])
	}
	if !net {
		return now
	}
	return min(begin, now)
}

func (e *engine) opDone(ki int32) {
	k := &e.kernels[ki]
	k.busy = false
	k.free, k.sendHeld = e.t.Now(), false
	o := k.cur
	if o.recv {
		for _, ci := range k.p.recvs(&o) {
			e.consumedOne(ci)
		}
	}
	if o.send {
		wire := o.bytes * e.tm.wireNum / e.tm.wireDen
		for _, ci := range k.p.sends(&o) {
			e.producedOne(ci, wire)
		}
	}
	k.pc++
	k.have = false
	if k.pc < k.n {
		e.run(ki)
		return
	}
	e.rankCheck(k.rank)
}

// rankCheck ends rank r's current call when all its kernels are done,
// and starts its next one after the launch latency.
func (e *engine) rankCheck(r int32) {
	ks := e.rankK[r]
	done := 0
	for _, ki := range ks {
		if e.kernels[ki].pc >= e.kernels[ki].n {
			done++
		}
	}
	if done < len(ks) || e.rankIter[r] >= e.iters {
		return
	}
	e.rankIter[r]++
	if e.rankIter[r] < e.iters {
		for _, ki := range ks {
			e.kernels[ki].pc, e.kernels[ki].have = 0, false
		}
		e.after(r, e.launchDelay(r), tag(evRankStart, r))
		return
	}
	e.ranksFin++
	if e.ranksFin == len(e.rankK) {
		e.busy = false
		res := Result{Call: e.call, Iters: e.iters, Choice: e.choice, Start: e.start, End: e.t.Now()}
		if e.listener != nil {
			e.listener.BatchDone(res)
		}
	}
}

func (e *engine) fail(err error) {
	e.failed = err
	e.busy = false
	if e.listener != nil {
		e.listener.BatchDone(Result{Call: e.call, Iters: e.iters, Choice: e.choice, Start: e.start, End: e.t.Now(), Err: err})
	}
}

// threadGPUs returns how many ranks each host thread drives.
func (e *engine) threadGPUs() int {
	if g := e.c.ThreadGPUs; g > 1 && e.c.PPN%g == 0 {
		return g
	}
	return 1
}

// startHost has every host thread begin enqueuing the batch's calls, on
// its GPUs in turn and iteration after iteration, once it has enqueued the
// previous batch's (HostLaunch, HostLaunchPerChannel per channel).
func (e *engine) startHost() {
	g := e.threadGPUs()
	n := e.c.NRanks / g
	if len(e.hostBase) != n {
		e.hostBase, e.hostEnd = make([]unit.Time, n), make([]unit.Time, n)
	}
	e.hostCost = HostLaunch + HostLaunchPerChannel*unit.Time(e.nch)
	now := e.t.Now()
	for th := range e.hostBase {
		e.hostBase[th] = max(now, e.hostEnd[th])
		e.hostEnd[th] = e.hostBase[th] + e.hostCost*unit.Time(g*e.iters)
	}
}

// launchDelay returns how long from now rank r's next call starts: NCCL's
// launch latency after its previous call, and not before its host thread
// has enqueued the calls ahead of it (those of its other GPUs and earlier
// iterations; the call's own enqueue is in the launch latency). With a
// thread per GPU the thread is always ahead.
func (e *engine) launchDelay(r int32) unit.Time {
	return max(e.tm.launch, e.enqueueStart(r, e.rankIter[r])-e.t.Now()) + e.tm.callCost
}

// enqueueStart returns when rank r's host thread begins enqueuing the
// batch's call iter on r: after the calls of the earlier iterations and of
// the thread's GPUs before r in this one.
func (e *engine) enqueueStart(r int32, iter int) unit.Time {
	g := e.threadGPUs()
	return e.hostBase[int(r)/g] + e.hostCost*unit.Time(iter*g+int(r)%g)
}
