package collective

import "iter"

// p2pPerBatch is NCCL_MAX_DEV_WORK_P2P_PER_BATCH (device.h, 2.22 on;
// NCCL_MAX_WORK_ELEMENTS_P2P/2 before): the point-to-point works, each a
// send and a receive, that one channel runs at once, splitting its warps
// among them (sendrecv.h: nWarpPerWork = nWarps/nWorks), and that one
// proxy operation of the channel carries as its subs.
const p2pPerBatch = 8

// sharedSteps is NCCL_SHARED_STEPS (transport/net.cc): the slots of a
// channel's shared point-to-point buffer, divided among the subs of one
// proxy operation.
const sharedSteps = 16

// p2pLLThreshold is NCCL_P2P_LL_THRESHOLD: point-to-point transfers up
// to this many bytes per channel use LL.
const p2pLLThreshold = 16384

// p2pProto returns the protocol of a point-to-point call's operations.
// NCCL gives an operation LL up to NCCL_P2P_LL_THRESHOLD a channel of
// a peer's, for its own bytes (alltoall's are a rank's share), only where
// its connection has an LL buffer (enqueue.cc addP2pToPlan, v2.28.3:
// protoLL[dir] &= conn->conn.buffs[NCCL_PROTO_LL] != nullptr; 2.14-2.21
// in the same test on one connection). A connection to a peer on another
// server has none: a point-to-point network connection shares its
// channel's buffers and gets an LL one only with
// NCCL_ALLOC_P2P_NET_LL_BUFFERS=1, 0 by default (transport/net.cc
// sendProxyConnect and recvProxyConnect: allocP2pNetLLBuffers; init.cc),
// so every network operation runs Simple, at every size (Config.P2PNetLL
// sets it). Before 2.14
// point-to-point had no LL. The twin runs a call in one protocol: Simple
// when any operation crosses servers (those set the call's time; its
// NVLink operations, LL in NCCL, then run Simple too), else LL by the
// threshold.
func (c *Comm) p2pProto(call Call) Proto {
	if !c.Cfg.Version.AtLeast(2, 14, 0) || !c.Cfg.P2PNetLL && c.p2pCrossesNet(call) {
		return Simple
	}
	bytes := call.Bytes
	if call.Func == AllToAll {
		bytes /= int64(c.NRanks)
	}
	if bytes <= int64(c.p2pPerPeer())*p2pLLThreshold {
		return LL
	}
	return Simple
}

// p2pCrossesNet says whether a point-to-point call has an operation
// between two servers.
func (c *Comm) p2pCrossesNet(call Call) bool {
	for pr := range c.p2pPairs(call) {
		if pr.src/c.PPN != pr.dst/c.PPN {
			return true
		}
	}
	return false
}

// p2pPair is one operation of a point-to-point call: src sends bytes to
// dst.
type p2pPair struct {
	src, dst int
	bytes    int64
}

// p2pPairs yields a point-to-point call's operations: its Pairs, else
// SendRecv's shift by Peer (1 when zero), else alltoall's, a rank's
// share to every rank, itself included. They are yielded, not listed:
// an alltoall has the square of the ranks, and p2pCrossesNet, at every
// plan, stops at the first that crosses servers.
func (c *Comm) p2pPairs(call Call) iter.Seq[p2pPair] {
	return func(yield func(p2pPair) bool) {
		n := c.NRanks
		switch {
		case len(call.Pairs) > 0:
			for _, p := range call.Pairs {
				if !yield(p2pPair{p[0], p[1], call.Bytes}) {
					return
				}
			}
		case call.Func == SendRecv:
			d := call.Peer
			if d == 0 {
				d = 1
			}
			for r := 0; r < n; r++ {
				if !yield(p2pPair{r, ((r+d)%n + n) % n, call.Bytes}) {
					return
				}
			}
		default:
			for r := 0; r < n; r++ {
				for k := 0; k < n; k++ {
					if !yield(p2pPair{r, (r + k) % n, call.Bytes / int64(n)}) {
						return
					}
				}
			}
		}
	}
}

// p2pChannel returns the channel of part j of the point-to-point
// operation in which rank src sends to dst (dst receives from src in the
// same round, so both ends agree). NCCL gives a round a base channel
// from its peers' distance: on more than one server the node delta and
// the local delta in groups of p2pPerBatch, so that on two servers of 8
// GPUs every peer on the other server shares one base (channel.h
// ncclP2pChannelBaseForRound, 2.22 on, the round's ordinal in init.cc's
// quadratic p2pSchedule; ncclChannelComputeBase before, the deltas
// themselves); on one server each round its own. Part j goes to the
// channel after the base: bit-reversed base plus j from 2.28, base plus
// bit-reversed j on 2.22-2.27, the base's bit-mirrored p2pChannels entry
// plus j before (paths.cc).
func (c *Comm) p2pChannel(src, dst, j int) int {
	n := c.p2pChannels()
	bits := log2i(int64(n))
	nn, l := c.NNodes(), c.PPN
	nodeDelta := ((dst/l-src/l)%nn + nn) % nn
	localDelta := ((dst%l-src%l)%l + l) % l
	v := c.Cfg.Version
	if !v.AtLeast(2, 22, 0) {
		base := localDelta
		if nn > 1 {
			base = nodeDelta + localDelta/p2pPerBatch
		}
		return (reverseBits(base%n, bits) + j) % n
	}
	base := quadOrdinal(localDelta, l)
	if nn > 1 {
		base = quadOrdinal(nodeDelta, nn)*int(ceilDiv(int64(l), p2pPerBatch)) + base/p2pPerBatch
	}
	if v.AtLeast(2, 28, 0) {
		return (reverseBits(base, bits) + j) & (n - 1)
	}
	return (base + reverseBits(j, bits)) & (n - 1)
}

// quadOrdinal returns where delta comes in NCCL's enumeration of the
// deltas 0..n-1 (init.cc p2pSchedule): (x·x+x)/2 modulo the power of two
// at least n, skipping those not below n.
func quadOrdinal(delta, n int) int {
	p := pow2Up(n)
	x, ord := 0, 0
	for k := 0; k < p; k++ {
		if x < n {
			if x == delta {
				return ord
			}
			ord++
		}
		x = (x + k + 1) & (p - 1)
	}
	return 0
}

// reverseBits returns the low bits of x in reverse order.
func reverseBits(x, bits int) int {
	r := 0
	for i := 0; i < bits; i++ {
		r = r<<1 | x>>i&1
	}
	return r
}

// p2pDepth returns the slices a network connection of a Simple
// point-to-point operation keeps in flight when nsubs operations of its
// rank in its direction share its channel: they share the channel's
// NCCL_SHARED_STEPS buffer slots as the subs of one proxy operation (at
// most p2pPerBatch: a channel's batch), min(NCCL_STEPS,
// NCCL_SHARED_STEPS/nsubs) each (net.cc sendProxyProgress and
// recvProxyProgress maxDepth).
func p2pDepth(nsubs int) int64 {
	return int64(min(nSteps, sharedSteps/min(max(nsubs, 1), p2pPerBatch)))
}

// p2pWarps gathers a point-to-point call's kernels by the warps that run
// them: a rank's channel and direction (0 receive, 1 send).
type p2pWarps struct {
	ops  map[[3]int][]int32
	keys [][3]int // in order of first use
}

// add adds kernel p of rank r, run by channel ch's warps of direction dir.
func (w *p2pWarps) add(e *engine, r, ch, dir int, p prog) {
	k := [3]int{r, ch, dir}
	if _, ok := w.ops[k]; !ok {
		w.keys = append(w.keys, k)
	}
	w.ops[k] = append(w.ops[k], int32(len(e.kernels)))
	e.addKernel(r, p)
}

// share has the operations that one channel of a rank runs in one
// direction take that channel's warps in turn (a warp group: NCCL splits
// them among the channel's works, so that together they move what one
// work would), and, for Simple, holds each network connection among them
// to its share of the channel's shared buffer (p2pDepth).
func (w *p2pWarps) share(e *engine, proto Proto) {
	for _, k := range w.keys {
		ks := w.ops[k]
		if len(ks) > 1 {
			g := int32(len(e.groupEnd))
			e.groupEnd = append(e.groupEnd, 0)
			for _, ki := range ks {
				e.kernels[ki].group = g
			}
		}
		if proto != Simple {
			continue
		}
		var nets []*conn
		for _, ki := range ks {
			if cn := e.p2pNetConn(ki); cn != nil {
				nets = append(nets, cn)
			}
		}
		for _, cn := range nets {
			cn.window = min(cn.window, p2pDepth(len(nets)))
		}
	}
}

// p2pNetConn returns point-to-point kernel ki's network connection, or
// nil (a copy to itself, or a peer on its server).
func (e *engine) p2pNetConn(ki int32) *conn {
	p := &e.kernels[ki].p
	var ci int32
	switch p.kind {
	case progP2PSend:
		ci = p.send[0]
	case progP2PRecv:
		ci = p.recv[0]
	default:
		return nil
	}
	if !e.conns[ci].net {
		return nil
	}
	return &e.conns[ci]
}
