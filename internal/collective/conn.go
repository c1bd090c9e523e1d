package collective

import (
	"fmt"

	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// nSteps is NCCL_STEPS: the slots of a connection's buffer.
const nSteps = 8

// ctsBytes is the size of one CTS FIFO entry NCCL's receiver RDMA-writes
// into the sender's FIFO (struct ncclIbSendFifo, padded).
const ctsBytes = 64

// A conn is one direction of one NCCL connection: a channel's link from
// a sending rank to a receiving rank, over NVLink (local) or over the
// network through a NIC's queue pairs. Its counters run over the whole
// run, as NCCL's step counters do.
type conn struct {
	net      bool
	src, dst int32
	qps      []workload.QP
	cts      workload.QP // receiver-to-sender CTS queue pair (IB only)
	sock     bool        // socket transport: no CTS
	window   int64

	// Sender side: slices written into the send buffer by the kernel,
	// handed to the proxy for posting, acknowledged by the receiver's NIC,
	// and reaped by the sender's proxy (send slot free).
	produced, posted, acked, freed int64
	// Receiver side: slices fully arrived, visible to the kernel, and
	// consumed by it (receive slot free); CTS messages posted and
	// arrived at the sender.
	complete, arrived, consumed int64
	ctsPosted, ctsArrived       int64
	// sendReady and recvReady are when the sender's and the receiver's
	// proxies took up the current call's operation.
	sendReady, recvReady unit.Time
	// perCall is the connection's slices in one call of the batch and
	// base its slices before the batch; sendEnd and recvEnd are the
	// freed and consumed slices at which the sender's and the receiver's
	// current operation ends (Engine.takeUp).
	perCall, base, sendEnd, recvEnd int64
	// total is the slices of all calls started so far; CTS are not
	// posted beyond it.
	total int64

	size   [nSteps]int64
	nparts uint8 // messages per slice (Comm.msgParts), on consecutive QPs
	// landAt is when each slot's slice began landing in the receiver's
	// memory (network, LL and LL128: the kernel reads its lines as they
	// land) or became visible to its consumer (every other connection).
	landAt             [nSteps]unit.Time
	arrParts, ackParts [nSteps]uint8

	prodK, consK       int32 // producer and consumer kernel of the batch
	waitSend, waitRecv bool

	// Wire bytes posted, for reports, the hosts of a network connection
	// and its NICs (node·NICs + nic).
	bytes            int64
	hostSrc, hostDst int32
	nicSrc, nicDst   int32
	// bounce and bounceRx say the sender's and the receiver's GPU move
	// the data through host memory (no GPUDirect RDMA).
	bounce, bounceRx bool
	// pxn says the sender hands its data over NVLink to the rank whose
	// proxy posts it (proxySrc) from that rank's NIC.
	pxn      bool
	proxySrc int32
	// paced is when the connection's queue pairs are next free to take
	// a slice at timing.qpRate each (schedulePosts); lastPost is when the
	// sender's proxy last posted a slice of it.
	paced, lastPost unit.Time
}

// sendFree reports whether the sender has a free slot for its next slice.
func (c *conn) sendFree() bool {
	if c.net {
		return c.produced-c.freed < c.window
	}
	return c.produced-c.consumed < c.window
}

// Message ids: connection, kind, slice and part.
const (
	idData = 0
	idCTS  = 1
)

func msgID(conn int32, kind int, slice int64, part int) uint64 {
	return uint64(conn)<<40 | uint64(kind)<<39 | uint64(slice&(1<<31-1))<<8 | uint64(part)
}

// schedulePosts hands slices that are in the send buffer and, on IB,
// cleared by a CTS to the sender's proxy thread, which posts each after
// noticing it and spending its per-operation time on it. The post is
// decided now and reaches the NIC then (PostAfter); a failure in between
// does not withdraw it (a queue pair in error flushes it).
func (e *engine) schedulePosts(ci int32) {
	c := &e.conns[ci]
	limit := c.produced
	if !c.sock {
		limit = min(limit, c.ctsArrived)
	}
	for c.posted < limit {
		from := c.sendReady
		size := unit.Bytes(c.size[c.posted&(nSteps-1)])
		if e.tm.llPass > 0 {
			// A Ring/LL step is posted the passes of the loop
			// (RingLLPost) after it is ready and after the connection's
			// previous post, and after the pass that reads the flags of
			// all its lines (RingLLScan); the passes serve the proxy's
			// other connections meanwhile.
			from = max(from, e.t.Now(), c.lastPost) + e.tm.llPass + e.tm.llScan.TxTime(size)
		}
		d := e.proxy(c.proxySrc, from, e.tm.proxyOp)
		c.lastPost = e.t.Now() + d
		d += e.tm.sendLat
		if c.bounce {
			d += HostBounceLatency / 2
		}
		if c.pxn {
			d += e.tm.intraLat
		}
		if r := e.nicRate[c.nicSrc]; r > 0 && !c.sock {
			// The NIC reads the slice over its PCIe link: a slice waits
			// while the link is behind.
			d = e.pace(d, &e.nicTx[c.nicSrc], r, size)
		}
		if r := e.tm.qpRate; r > 0 && !c.sock {
			// Each of the connection's queue pairs carries at most
			// qpRate.
			d = e.pace(d, &c.paced, r*unit.BitRate(len(c.qps)), size)
		}
		e.post(ci, d)
	}
}

// pace returns when, from now, a slice of size bytes due d from now
// starts on a resource that moves r and is next free at *free, and
// holds the resource that long.
func (e *engine) pace(d unit.Time, free *unit.Time, r unit.BitRate, size unit.Bytes) unit.Time {
	now := e.t.Now()
	st := max(now+d, *free)
	*free = st + r.TxTime(size)
	return st - now
}

// post has the next slice sent d from now: one WRITE with immediate on
// one QP chosen round-robin, or split over every QP with
// NCCL_IB_SPLIT_DATA_ON_QPS=1 (and always over every socket of a socket
// connection), one part per QP even when some parts are empty, so that
// the k-th message on any of the connection's QPs is always the same
// slice.
func (e *engine) post(ci int32, d unit.Time) {
	c := &e.conns[ci]
	s := c.posted
	c.posted++
	e.unposted--
	b := c.size[s&(nSteps-1)]
	c.bytes += b
	opc := workload.WriteImm
	if c.sock {
		opc = workload.Send
	}
	n := int64(len(c.qps))
	if c.nparts == 1 {
		e.t.PostAfter(d, c.qps[s%n], workload.Message{Op: opc, Bytes: b, ID: msgID(ci, idData, s, 0)})
		return
	}
	// nparts consecutive queue pairs, the next group in turn.
	np := int64(c.nparts)
	first := s % (n / np) * np
	per := b / np
	for j := int64(0); j < np; j++ {
		pb := per
		if j == np-1 {
			pb = b - per*(np-1)
		}
		e.t.PostAfter(d, c.qps[first+j], workload.Message{Op: opc, Bytes: pb, ID: msgID(ci, idData, s, int(j))})
	}
}

// postCTS has the receiver's proxy post a clear-to-send for every free
// slot up to the slices started so far (NCCL's recv proxy posting irecv,
// one proxy operation each), writing it into the sender's FIFO. NCCL
// posts it unsignaled (but for one slot in NCCL_STEPS, which drains the
// send queue; the model needs no draining), and nothing waits for its
// requester completion.
func (e *engine) postCTS(ci int32) {
	c := &e.conns[ci]
	if !c.net || c.sock {
		return
	}
	limit := min(c.consumed+c.window, c.total)
	for c.ctsPosted < limit {
		d := e.proxy(c.dst, c.recvReady, e.tm.proxyOp)
		e.t.PostAfter(d, c.cts, workload.Message{Op: workload.WriteImm, Bytes: ctsBytes, ID: msgID(ci, idCTS, c.ctsPosted, 0), Unsignaled: true})
		c.ctsPosted++
	}
}

// qpRef says what one of the communicator's QPs is: a data QP (the idx-th
// of its connection) or a CTS QP, with its completions counted at each
// end. Completions on a QP arrive in order, so the k-th is known without
// a work request id (a responder learns none, only the immediate).
type qpRef struct {
	conn      int32
	idx       int32
	cts, mine bool
	recv, ack int64
}

func (e *engine) addQP(q workload.QP, conn int32, idx int32, cts bool) {
	if len(e.qps) == 0 {
		// The communicator's QPs are numbered from its first one: a
		// transport numbers every QP of a job densely, and a table from 0
		// in each of thousands of communicators would cost their product.
		e.qpBase = q
	}
	for int(q-e.qpBase) >= len(e.qps) {
		e.qps = append(e.qps, qpRef{})
	}
	e.qps[q-e.qpBase] = qpRef{conn: conn, idx: idx, cts: cts, mine: true}
}

// Completed receives the completions of the communicator's queue pairs.
func (e *engine) Completed(cp workload.Completion) {
	i := int(cp.QP - e.qpBase)
	if e.failed != nil || i < 0 || i >= len(e.qps) || !e.qps[i].mine {
		return
	}
	ref := &e.qps[i]
	ci := ref.conn
	c := &e.conns[ci]
	if cp.Status != workload.Success {
		e.fail(fmt.Errorf("NET/IB: completion error on connection rank %d -> rank %d: status=%d (%s) at %s",
			c.src, c.dst, cp.Status, cp.Status, cp.At))
		return
	}
	if ref.cts {
		if cp.Side == workload.Responder {
			c.ctsArrived++
			e.schedulePosts(ci)
		}
		return
	}
	// The slice of this completion: the k-th message on the QP.
	k := &ref.ack
	if cp.Side == workload.Responder {
		k = &ref.recv
	}
	s := *k
	*k++
	// Queue pair idx carries part idx%nparts of every (n/nparts)-th slice
	// from idx/nparts (post).
	groups := int64(len(c.qps)) / int64(c.nparts)
	s = int64(ref.idx)/int64(c.nparts) + s*groups
	slot := s & (nSteps - 1)
	if cp.Side == workload.Requester {
		c.ackParts[slot]++
		for c.acked < c.posted {
			a := c.acked & (nSteps - 1)
			if c.ackParts[a] != c.nparts {
				break
			}
			c.ackParts[a] = 0
			c.acked++
			e.reapSend(ci)
		}
		return
	}
	c.arrParts[slot]++
	for c.complete < c.posted {
		a := c.complete & (nSteps - 1)
		if c.arrParts[a] != c.nparts {
			break
		}
		c.arrParts[a] = 0
		c.complete++
		if e.tm.stream && !c.sock {
			// The NIC wrote the slice's lines as its packets came in, on
			// each part's port at once; the kernel polls their flags.
			// (Every other slice lands when it is visible.)
			span := e.c.Sys.Server.NICRate.TxTime(unit.Bytes(c.size[a] / int64(c.nparts)))
			c.landAt[a] = max(e.t.Now()-span, 0) + e.tm.recvLat
		}
		d := e.tm.recvLat
		if c.bounceRx {
			d += HostBounceLatency - HostBounceLatency/2
		}
		if r := e.nicRate[c.nicDst]; r > 0 && !c.sock {
			// ... and writes it over its PCIe link as it arrives.
			now := e.t.Now()
			dur := r.TxTime(unit.Bytes(c.size[a]))
			e.nicRx[c.nicDst] = max(e.nicRx[c.nicDst], now-dur) + dur
			d += e.nicRx[c.nicDst] - now
		}
		if !c.sock {
			// The receiver's proxy reaps the completion (ncclNet test)
			// before it can post the slot's next CTS; with Simple the GPU
			// waits for it, and for the flush of GPUDirect writes.
			ops := 1
			if e.tm.recvWait && e.c.flush[c.dst] {
				ops++
			}
			if reap := e.proxy(c.dst, 0, unit.Time(ops)*e.tm.proxyOp); e.tm.recvWait {
				d += reap
			}
		}
		e.after(c.dst, d, tag(evVisible, ci))
	}
}

// reapSend has the sender's proxy reap the send completion of ci's oldest
// acknowledged slice (sendProxyProgress: the ncclNet test that returns
// done, then the head the GPU polls): only then is the send slot free.
// Sockets post no work requests to reap.
func (e *engine) reapSend(ci int32) {
	c := &e.conns[ci]
	if c.sock {
		e.sendFreed(ci)
		return
	}
	e.after(c.proxySrc, e.proxy(c.proxySrc, 0, e.tm.proxyOp), tag(evSendFreed, ci))
}

// sendFreed frees ci's oldest send slot.
func (e *engine) sendFreed(ci int32) {
	c := &e.conns[ci]
	c.freed++
	if c.freed == c.sendEnd && c.sendEnd < c.total {
		c.sendReady = e.takeUp(c.proxySrc, c, &c.sendEnd)
	}
	if c.waitSend && c.sendFree() {
		c.waitSend = false
		e.run(c.prodK)
	}
}

// visible makes the next slice of ci visible to its consumer kernel.
func (e *engine) visible(ci int32) {
	c := &e.conns[ci]
	if !c.net || c.sock || !e.tm.stream {
		c.landAt[c.arrived&(nSteps-1)] = e.t.Now()
	}
	c.arrived++
	if c.waitRecv {
		c.waitRecv = false
		e.run(c.consK)
	}
}

// consumed frees the receive slot of ci's oldest slice.
func (e *engine) consumedOne(ci int32) {
	c := &e.conns[ci]
	c.consumed++
	if c.net && c.consumed == c.recvEnd && c.recvEnd < c.total {
		c.recvReady = e.takeUp(c.dst, c, &c.recvEnd)
	}
	if c.net {
		e.postCTS(ci)
		return
	}
	if c.waitSend && c.sendFree() {
		c.waitSend = false
		e.run(c.prodK)
	}
}

// producedOne records that the producer wrote a slice of wire bytes b.
func (e *engine) producedOne(ci int32, b int64) {
	c := &e.conns[ci]
	c.size[c.produced&(nSteps-1)] = b
	c.produced++
	if c.net {
		e.schedulePosts(ci)
		return
	}
	c.bytes += b
	if !e.tm.stream {
		e.after(e.kernels[c.prodK].rank, e.tm.intraLat, tag(evVisible, ci))
	}
}

// openConn returns the connection of the given kind, channel and ranks,
// connecting its queue pairs on first use.
func (e *engine) openConn(k connKey, srcNIC, dstNIC int) int32 {
	if ci, ok := e.connIdx[k]; ok {
		return ci
	}
	cm := e.c
	ci := int32(len(e.conns))
	e.conns = append(e.conns, conn{src: k.src, dst: k.dst, proxySrc: k.src, window: nSteps, cts: -1})
	c := &e.conns[ci]
	e.connIdx[k] = ci
	if k.src < 0 || k.dst < 0 {
		return ci // to or from an NVSwitch: NVLink
	}
	sn, _ := cm.Rank(int(k.src))
	dn, _ := cm.Rank(int(k.dst))
	if sn == dn {
		return ci
	}
	c.net = true
	lane := int(k.ch)
	ps, pd := cm.port(srcNIC, lane), cm.port(dstNIC, lane)
	hs, hd := cm.host(int(k.src), ps), cm.host(int(k.dst), pd)
	c.hostSrc, c.hostDst = int32(hs), int32(hd)
	c.nicSrc, c.nicDst = int32(sn*cm.Sys.Server.NICs+cm.dmaUnit(ps)), int32(dn*cm.Sys.Server.NICs+cm.dmaUnit(pd))
	c.bounce, c.bounceRx = cm.pcieBounce(int(k.src)), cm.pcieBounce(int(k.dst))
	if e.t == nil {
		return ci // a dry run (Traffic) connects nothing
	}
	tagStr := fmt.Sprintf("nccl/%s%d/r%d->r%d", k.kind, k.ch, k.src, k.dst)
	c.nparts = 1
	if cm.Net == NetSocket {
		c.sock = true
		for j := 0; j < cm.Cfg.Sockets(); j++ {
			q := e.t.Connect(hs, hd, workload.QPOptions{Class: workload.TCP, RateCap: SocketRate, Tag: tagStr}, e)
			e.addQP(q, ci, int32(j), false)
			c.qps = append(c.qps, q)
		}
		c.nparts = uint8(len(c.qps))
		return ci
	}
	o := e.qpOptions(tagStr, cm.Cfg.TC)
	for j := 0; j < cm.qpsPerConn(); j++ {
		q := e.t.Connect(cm.host(int(k.src), cm.port(srcNIC, lane+j)), cm.host(int(k.dst), cm.port(dstNIC, lane+j)), o, e)
		e.addQP(q, ci, int32(j), false)
		c.qps = append(c.qps, q)
	}
	c.nparts = uint8(cm.msgParts())
	fifo := cm.Cfg.FifoTC
	if fifo < 0 {
		fifo = cm.Cfg.TC
	}
	c.cts = e.t.Connect(hd, hs, e.qpOptions(tagStr+"/cts", fifo), e)
	e.addQP(c.cts, ci, 0, true)
	return ci
}

// qpOptions returns an IB queue pair's options: traffic class tc (-1,
// NCCL_IB_TC unset, leaves the NIC's configured class), the ACK timeout
// and retry count.
func (e *engine) qpOptions(tag string, tc int) workload.QPOptions {
	return workload.QPOptions{Class: workload.RoCE, SetTC: tc >= 0, TC: uint8(max(tc, 0)), Tag: tag, Timeout: e.c.Cfg.Timeout, RetryCount: e.c.Cfg.RetryCnt}
}

// Calibration of the socket transport (see the package documentation).
const (
	// SocketRate is what one NCCL socket carries: about 2 GB/s, from
	// NVIDIA/nccl#209 (one ring over TCP: 2.06 GB/s) and #450 (four
	// channels on 100 Gb/s TCP: 4.5-5.2 GB/s busbw).
	SocketRate = 16 * unit.Gbps
	// SocketLatency is the kernel TCP path a message crosses, send and
	// receive side together (tens of µs; 15 µs assumed).
	SocketLatency = 15 * unit.Microsecond
)
