package collective

// PAT (Parallel Aggregated Trees, NCCL 2.23 on) runs AllGather and
// ReduceScatter with one GPU per node as a binomial tree rooted at every
// rank at once, shifted copies of one another (src/include/collectives.h
// PatAGAlgorithm, PatRSAlgorithm; src/device/prims_simple.h patCopy,
// patReduce). A rank connects to the ranks 2^d away, for every dimension
// d below log2 of the rank count rounded up: an AllGather sends to
// rank - 2^d and receives from rank + 2^d, a ReduceScatter the other way.
// In the tree of the piece at offset t from a rank (t in 1..n-1) the rank
// at that offset forwards it across the dimension of t's lowest set bit,
// so over all trees a rank sends across dimension d the pieces of the
// offsets whose lowest set bit is d (patPieces): n/2 across 1 rank away,
// one across n/2, n-1 in all as on a ring, in log2(n) steps instead of
// n-1. An AllGather runs the dimensions from the farthest down (what it
// sends across d it received across a farther one), a ReduceScatter from
// the nearest up (it reduces what it received across a nearer one before
// it sends). Pieces that go to the same peer in one step are aggregated
// into one message of up to aggFactor pieces, the most whose total stays
// within half the chunk (the algorithm's constructor, postFreq); each
// message is one step of the connection's buffer, moved by the proxy as
// any Simple step.

// patDims returns the dimensions a PAT of n ranks uses, in the order its
// steps run for f, and the pieces each rank sends across each.
func patDims(f Func, n int) (dims, pieces []int) {
	for d := 0; 1<<d < n; d++ {
		dims = append(dims, d)
		pieces = append(pieces, patPieces(n, d))
	}
	if f == AllGather {
		for i, j := 0, len(dims)-1; i < j; i, j = i+1, j-1 {
			dims[i], dims[j] = dims[j], dims[i]
			pieces[i], pieces[j] = pieces[j], pieces[i]
		}
	}
	return dims, pieces
}

// patPieces is the number of offsets t in 1..n-1 whose lowest set bit is
// d, for 2^d < n (at least one, 2^d itself): the pieces a rank sends
// across dimension d.
func patPieces(n, d int) int {
	lo := 1 << d
	return (n-1-lo)/(2*lo) + 1
}

// patChunk is NCCL's PAT chunk for a call of nBytes on nc channels: one
// step of the Simple buffer, halved down to 64 KiB while the call has
// fewer than 32 (AllGather) or 16 (ReduceScatter) chunks per channel
// (enqueue.cc calcCollChunking).
func patChunk(f Func, step, nBytes int64, nc int) int64 {
	per := int64(32)
	if f == ReduceScatter {
		per = 16
	}
	chunk := step
	for chunk*int64(nc)*per > nBytes && chunk > 65536 {
		chunk /= 2
	}
	return chunk
}

// patAgg is the aggregation factor of a channel whose part of each piece
// is part bytes in chunks of chunk: the pieces doubled while twice their
// total fits in the chunk, up to half the ranks.
func patAgg(chunk, part int64, n int) int {
	agg := 1
	for part > 0 && chunk >= 2*part*int64(agg) && agg < n/2 {
		agg *= 2
	}
	return agg
}

// buildPAT lays out a PAT call: on each channel every rank runs one
// program over a send and a receive connection per dimension.
func (e *engine) buildPAT() {
	c, f := e.c, e.call.Func
	n := c.NRanks
	step := c.Cfg.BuffSize / nSteps
	chunk := patChunk(f, step, e.call.Bytes, e.nch)
	dims, pieces := patDims(f, n)
	for ch := 0; ch < e.nch; ch++ {
		nic := c.channelNIC(ch)
		part := e.shares[ch]
		agg := patAgg(chunk, part, n)
		for r := range n {
			p := prog{kind: progPat, f: f, n: n, part: part, chunk: min(chunk, max(part, 1)), slices: 1, agg: agg}
			for i, d := range dims {
				to, from := (r-(1<<d)%n+n)%n, (r+(1<<d))%n
				if f == ReduceScatter {
					to, from = from, to
				}
				p.send[i] = e.openConn(connKey{ckPat, int32(ch), int32(r), int32(to)}, nic, nic)
				p.recv[i] = e.openConn(connKey{ckPat, int32(ch), int32(from), int32(r)}, nic, nic)
				p.msgs[i] = int32((pieces[i] + agg - 1) / agg)
				p.pieces[i] = int32(pieces[i])
			}
			p.nsend, p.nrecv = int8(len(dims)), int8(len(dims))
			e.addKernel(r, p)
		}
	}
}

// patPerLoop is a PAT program's operations per chunk: at step i, one
// operation per message it sends across dimension i or receives across
// the dimension of step i-1, whichever are more (what it receives in one
// step feeds its sends in the next); the first step receives the last
// step's messages of the previous chunk, so that chunks pipeline as a
// worker's patCopy receives and sends in one operation.
func (p *prog) patPerLoop() int {
	per, prev := 0, p.msgs[p.nsend-1]
	for i := range p.nsend {
		per += int(max(prev, p.msgs[i]))
		prev = p.msgs[i]
	}
	return per
}

// patLength is a PAT program's operations: its chunks' and the receives
// of the last step of its last chunk.
func (p *prog) patLength() int {
	if l := p.loops(); l > 0 {
		return int(l)*p.patPerLoop() + int(p.msgs[p.nsend-1])
	}
	return 0
}

// patOp fills o with operation j of loop l of a PAT program (l = loops:
// the last receives).
func (p *prog) patOp(l int64, j int, o *op) {
	last := int(p.nsend) - 1
	cb := func(l int64) int64 { return min(p.chunk, p.part-l*p.chunk) }
	o.nrecv, o.nsend = 0, 0
	if l == p.loops() {
		o.recv, o.send = true, false
		o.ri, o.nrecv = int8(last), 1
		o.bytes = p.patMsg(last, j, cb(l-1))
		return
	}
	for i := 0; i <= last; i++ {
		ri, slot, rl := i-1, p.msgs[last], l
		if i == 0 {
			ri, rl = last, l-1
		} else {
			slot = p.msgs[i-1]
		}
		cur := p.msgs[i]
		if m := int(max(slot, cur)); j >= m {
			j -= m
			continue
		}
		o.recv, o.send = j < int(slot) && rl >= 0, j < int(cur)
		if o.recv {
			o.ri, o.nrecv = int8(ri), 1
			o.bytes = p.patMsg(ri, j, cb(rl))
		}
		if o.send {
			o.si, o.nsend = int8(i), 1
			o.bytes = p.patMsg(i, j, cb(l))
		}
		return
	}
}

// patMsg is the bytes of message j across step i's dimension.
func (p *prog) patMsg(i, j int, cb int64) int64 {
	return int64(min(int32(p.agg), p.pieces[i]-int32(j*p.agg))) * cb
}

// patSendOps calls f, as sendOpsOn does, for a PAT program: a loop's
// sends depend only on its chunk, whole in every loop but the last.
func (p *prog) patSendOps(f func(ci int32, bytes, times int64)) {
	loops := p.loops()
	var o op
	each := func(l, times int64) {
		for j := range p.patPerLoop() {
			p.patOp(l, j, &o)
			if o.send {
				f(p.send[o.si], o.bytes, times)
			}
		}
	}
	if loops > 1 {
		each(0, loops-1)
	}
	if loops > 0 {
		each(loops-1, 1)
	}
}
