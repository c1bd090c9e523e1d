package collective

import (
	"cmp"
	"fmt"
	"slices"

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
// model's per-hop network latency and adds the rest as proxy and polling
// overhead, so that the fabric's own latency is not counted twice.
const NominalFabricLatency = 1500 * unit.Nanosecond

// HopSoftware is the proxy and polling time of one network hop, send and
// receive side together: NCCL's Ring LL network latency (2.7 µs) less
// NominalFabricLatency.
const HopSoftware = 1200 * unit.Nanosecond

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
	evPost
	evRankStart
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
)

// String names the pattern in QP tags.
func (k connKind) String() string { return [...]string{"ring", "tree", "p2p"}[k] }

type kernel struct {
	rank  int32
	p     prog
	pc, n int
	busy  bool
	cur   op
}

// timing holds a batch's latencies and rates.
type timing struct {
	launch, intraLat     unit.Time
	sendDelay, recvDelay unit.Time
	chanRate, hostRate   unit.BitRate
	nvRate               unit.BitRate
	wireNum, wireDen     int64
	// stream: LL and LL128 lines are visible to an NVLink peer as they
	// are written, so a local hop forwards while it receives.
	stream bool
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
	rankK    [][]int32
	rankIter []int
	ranksFin int
	gpuFree  []unit.Time

	busy   bool
	call   Call
	choice Choice
	iters  int
	start  unit.Time
	tm     timing
	failed error
}

func (e *engine) init(c *Comm) {
	*e = engine{c: c}
	e.connIdx = map[connKey]int32{}
	e.rankK = make([][]int32, c.NRanks)
	e.rankIter = make([]int, c.NRanks)
	e.gpuFree = make([]unit.Time, c.NRanks)
}

// Busy reports whether a batch is running.
func (c *Comm) Busy() bool { return c.eng.busy }

// Failed returns the error that stopped the communicator, if any.
func (c *Comm) Failed() error { return c.eng.failed }

// Plan returns the algorithm, protocol and channels NCCL would use for
// call.
func (c *Comm) Plan(call Call) (Choice, error) {
	if call.Func == SendRecv || call.Func == AllToAll {
		p := Simple
		if call.Bytes <= int64(c.Cfg.ChannelsPerNetPeer)*p2pLLThreshold {
			p = LL
		}
		return Choice{Algo: Ring, Proto: p, Channels: c.Cfg.ChannelsPerNetPeer}, nil
	}
	return c.Tuning.Choose(call.Func, call.Bytes)
}

// p2pLLThreshold is NCCL_P2P_LL_THRESHOLD: point-to-point transfers up
// to this many bytes per channel use LL.
const p2pLLThreshold = 16384

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
	e.setTiming()
	e.build()
	for ci := range e.conns {
		e.postCTS(int32(ci))
	}
	for r := range e.rankK {
		e.rankIter[r] = 0
		e.t.After(e.tm.launch, e, tag(evRankStart, int32(r)))
	}
	e.ranksFin = 0
	return nil
}

func us(x float32) unit.Time { return unit.Time(float64(x) * float64(unit.Microsecond)) }

// setTiming derives the batch's latencies and rates. NCCL's tuning
// latency for the call is its measured small-message time: the twin
// charges it once per call, as launch and synchronisation overhead,
// after taking out the per-hop latencies it models explicitly on the
// call's critical path (an NVLink or PCIe hop costs the LL hop latency of
// the tuning tables; a network hop costs HopSoftware plus the fabric's
// own latency, of which NominalFabricLatency is already in NCCL's
// numbers). So a small call takes about the model's time on a nominal
// fabric, and a slower fabric, a socket transport or host bounce buffers
// add to it.
func (e *engine) setTiming() {
	c, a, p, f := e.c, e.choice.Algo, e.choice.Proto, e.call.Func
	srv := c.Sys.Server
	intraHw := hwPCI
	if srv.Intra == gpu.NVSwitch {
		intraHw = hwNVLink
	}
	hop := us(hwLat[intraHw][Ring][LL])
	tm := timing{
		intraLat: hop, sendDelay: HopSoftware / 2, recvDelay: HopSoftware - HopSoftware/2,
		chanRate: gpu.Rate(srv.GPU.ChannelBW), nvRate: gpu.Rate(srv.IntraBW()),
		wireNum: 1, wireDen: 1,
	}
	netHop := HopSoftware + NominalFabricLatency
	nn := c.NNodes()
	var crit unit.Time
	model := us(baseLat[Ring][Simple])
	switch {
	case f == SendRecv || f == AllToAll:
		crit = netHop
	case a == Tree:
		model = us(c.Tuning.Lat[f][a][p])
		crit = 2 * (unit.Time(c.PPN-1)*hop + unit.Time(log2i(int64(nn)))*netHop)
	default:
		model = us(c.Tuning.Lat[f][a][p])
		steps, inter := c.NRanks-1, nn-1
		if f == AllReduce {
			steps, inter = 2*(c.NRanks-1), 2*(nn-1)
		}
		crit = unit.Time(steps-inter)*hop + unit.Time(inter)*netHop
	}
	tm.launch = max(model-crit, us(baseLat[a][p]))
	switch p {
	case LL:
		tm.wireNum, tm.stream = 2, true
	case LL128:
		tm.wireNum, tm.wireDen, tm.stream = 128, 120, true
	}
	if c.Net == NetSocket {
		tm.sendDelay += SocketLatency / 2
		tm.recvDelay += SocketLatency - SocketLatency/2
	}
	if c.Net == NetSocket || !c.GDR {
		tm.sendDelay += HostBounceLatency / 2
		tm.recvDelay += HostBounceLatency - HostBounceLatency/2
		tm.hostRate = gpu.Rate(HostChannelBW)
	}
	e.tm = tm
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
	case evPost:
		e.post(idx)
	case evRankStart:
		for _, k := range e.rankK[idx] {
			e.run(k)
		}
		e.rankCheck(idx)
	}
}

// run starts kernel k's next operation if its inputs and outputs are
// ready; otherwise it waits on the first connection that is not.
func (e *engine) run(ki int32) {
	k := &e.kernels[ki]
	if k.busy || k.pc >= k.n {
		return
	}
	o := &k.cur
	k.p.op(k.pc, o)
	net := false
	if o.recv {
		for _, ci := range k.p.recv[:k.p.nrecv] {
			c := &e.conns[ci]
			if c.arrived <= c.consumed {
				c.waitRecv = true
				return
			}
			net = net || c.net
		}
	}
	if o.send {
		for _, ci := range k.p.send[:k.p.nsend] {
			c := &e.conns[ci]
			if !c.sendFree() {
				c.waitSend = true
				return
			}
			net = net || c.net
		}
	}
	now := e.t.Now()
	wire := o.bytes * e.tm.wireNum / e.tm.wireDen
	rate := e.tm.chanRate
	if net && e.tm.hostRate > 0 {
		rate = min(rate, e.tm.hostRate)
	}
	end := now + rate.TxTime(unit.Bytes(wire))
	if o.send {
		reserved := false
		for _, ci := range k.p.send[:k.p.nsend] {
			if e.conns[ci].net {
				continue
			}
			if !reserved {
				g := k.rank
				st := max(now, e.gpuFree[g])
				e.gpuFree[g] = st + e.tm.nvRate.TxTime(unit.Bytes(wire))
				end = max(end, e.gpuFree[g])
				reserved = true
			}
			if e.tm.stream {
				e.t.After(e.tm.intraLat, e, tag(evVisible, ci))
			}
		}
	}
	k.busy = true
	e.t.After(end-now, e, tag(evOpDone, ki))
}

func (e *engine) opDone(ki int32) {
	k := &e.kernels[ki]
	k.busy = false
	o := k.cur
	if o.recv {
		for _, ci := range k.p.recv[:k.p.nrecv] {
			e.consumedOne(ci)
		}
	}
	if o.send {
		wire := o.bytes * e.tm.wireNum / e.tm.wireDen
		for _, ci := range k.p.send[:k.p.nsend] {
			e.producedOne(ci, wire)
		}
	}
	k.pc++
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
			e.kernels[ki].pc = 0
		}
		e.t.After(e.tm.launch, e, tag(evRankStart, r))
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

// Transfer is the network traffic of a call between two hosts: payload
// bytes on the wire (protocol lines included) in messages (slices), and
// the packets they make at an MTU.
type Transfer struct {
	Src, Dst int
	Bytes    int64
	Messages int64
	Packets  int64
	// CTS is the clear-to-send messages going the other way.
	CTS int64
}

// NetTraffic returns what iters calls put on the network, per host pair in
// ascending order, without running anything: the same layout and
// chunking the engine would use, for estimating a run's cost up front.
func (c *Comm) NetTraffic(call Call, iters int, mtu int64) ([]Transfer, error) {
	ch, err := c.Plan(call)
	if err != nil {
		return nil, err
	}
	var e engine
	e.init(c)
	e.call, e.choice, e.iters = call, ch, iters
	e.setTiming()
	e.build()
	per := make([]Transfer, len(e.conns))
	var o op
	for ki := range e.kernels {
		k := &e.kernels[ki]
		for i := 0; i < k.n; i++ {
			k.p.op(i, &o)
			if !o.send {
				continue
			}
			wire := o.bytes * e.tm.wireNum / e.tm.wireDen
			for _, ci := range k.p.send[:k.p.nsend] {
				tr := &per[ci]
				tr.Bytes += wire
				tr.Messages++
				tr.Packets += max(1, (wire+mtu-1)/mtu)
			}
		}
	}
	var out []Transfer
	for ci := range e.conns {
		cn := &e.conns[ci]
		if !cn.net || per[ci].Messages == 0 {
			continue
		}
		tr := per[ci]
		tr.Src, tr.Dst = int(cn.hostSrc), int(cn.hostDst)
		tr.Bytes *= int64(iters)
		tr.Messages *= int64(iters)
		tr.Packets *= int64(iters)
		if !cn.sock {
			tr.CTS = tr.Messages
		}
		out = append(out, tr)
	}
	return MergeTransfers(out), nil
}

// MergeTransfers adds up transfers between the same hosts, in ascending
// order of (source, destination).
func MergeTransfers(ts []Transfer) []Transfer {
	at := map[[2]int]int{}
	var out []Transfer
	for _, t := range ts {
		k := [2]int{t.Src, t.Dst}
		if i, ok := at[k]; ok {
			a := &out[i]
			a.Bytes += t.Bytes
			a.Messages += t.Messages
			a.Packets += t.Packets
			a.CTS += t.CTS
			continue
		}
		at[k] = len(out)
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b Transfer) int { return cmp.Or(cmp.Compare(a.Src, b.Src), cmp.Compare(a.Dst, b.Dst)) })
	return out
}
