package collective

// A program is what one NCCL kernel thread group does in one collective
// call, as a sequence of primitive operations (prims: send, recv,
// recvReduceSend, recvCopySend, ...), each on one slice. An operation
// waits for a slice on every connection it receives from and a free slot
// on every connection it sends to. Programs are computed, not stored:
// op(i) derives operation i from the chunking NCCL uses.

type progKind uint8

const (
	progRing progKind = iota
	progTreeUp
	progTreeDown
	progTreeRoot
	progP2PSend
	progP2PRecv
	// progP2PCopy is a rank's send to itself: a copy by its channel's
	// warps, on no connection (sendrecv.h isCopy).
	progP2PCopy
	// progPat is a rank's part of a PAT AllGather or ReduceScatter
	// (pat.go): send[i] and recv[i] are the connections across the
	// dimension of its step i.
	progPat
)

// maxIO is the most connections one operation touches: an NVSwitch
// reducing the contributions of every GPU of a server
// (NCCL_MAX_NVLS_ARITY).
const maxIO = maxNVLSArity

type prog struct {
	kind progKind
	f    Func
	// Ring: ring size, this rank's position, the root's position.
	n, pos, root int
	// part is the bytes this channel carries for this rank (AllGather and
	// ReduceScatter: of one rank's piece); chunk and slices are NCCL's
	// chunk size and slices per chunk.
	part, chunk int64
	slices      int
	// steps, when set, is the number of chunks the program runs whatever
	// its part: NCCL up to 2.19 runs every channel of a tree for the same
	// number of loops, the last chunks of some channels empty
	// (treeShares219).
	steps      int64
	recv, send [maxIO]int32
	nrecv      int8
	nsend      int8
	// virt marks an NVSwitch's reduction or multicast (no GPU, no time of
	// its own); passive a GPU that only receives what the switch stores
	// into its memory.
	virt, passive bool
	// PAT: the pieces aggregated into one message, and per step the
	// messages and the pieces it sends.
	agg          int
	msgs, pieces [maxIO]int32
}

// op is one primitive operation.
type op struct {
	bytes        int64
	recv, send   bool
	nrecv, nsend int8
	// ri and si are the first of the program's receive and send
	// connections the operation uses (PAT: one of its dimensions).
	ri, si int8
}

// recvs and sends return the connections operation o receives from and
// sends to.
func (p *prog) recvs(o *op) []int32 { return p.recv[o.ri : o.ri+o.nrecv] }
func (p *prog) sends(o *op) []int32 { return p.send[o.si : o.si+o.nsend] }

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// loops returns the number of chunk loops the program runs.
func (p *prog) loops() int64 {
	if p.steps > 0 {
		return p.steps
	}
	if p.part <= 0 {
		return 0
	}
	if p.kind == progRing && p.f == AllReduce {
		return ceilDiv(p.part, int64(p.n)*p.chunk)
	}
	return ceilDiv(p.part, p.chunk)
}

// perLoop returns the operations per loop.
func (p *prog) perLoop() int {
	if p.kind == progPat {
		return p.patPerLoop()
	}
	if p.kind != progRing {
		return p.slices
	}
	switch p.f {
	case AllReduce:
		return (2*p.n - 1) * p.slices
	case AllGather, ReduceScatter:
		return p.n * p.slices
	}
	return p.slices
}

// length returns the number of operations.
func (p *prog) length() int {
	if p.kind == progPat {
		return p.patLength()
	}
	if p.kind == progP2PSend || p.kind == progP2PRecv || p.kind == progP2PCopy {
		return int(max(1, p.loops()))
	}
	return int(p.loops()) * p.perLoop()
}

func sliceOf(chunkBytes, realChunk int64, slices, m int) int64 {
	ss := ceilDiv(realChunk, int64(slices))
	return min(max(chunkBytes-int64(m)*ss, 0), ss)
}

// op fills o with operation i.
func (p *prog) op(i int, o *op) {
	per := p.perLoop()
	l, j := int64(i/per), i%per
	o.nrecv, o.nsend, o.ri, o.si = p.nrecv, p.nsend, 0, 0
	switch p.kind {
	case progPat:
		p.patOp(l, j, o)
		return
	case progP2PSend, progP2PRecv, progP2PCopy:
		rem := p.part - l*p.chunk
		o.bytes = min(max(rem, 0), p.chunk)
		o.recv, o.send = p.kind == progP2PRecv, p.kind == progP2PSend
		return
	case progTreeUp, progTreeDown, progTreeRoot:
		rem := p.part - l*p.chunk
		o.bytes = min(max(rem, 0), p.chunk)
		o.recv, o.send = p.nrecv > 0, p.nsend > 0
		return
	}
	k, m := j/p.slices, j%p.slices
	rem, real := p.ringLoop(l)
	cb, recv, send := p.ringStep(rem, real, k)
	o.bytes = sliceOf(cb, real, p.slices, m)
	o.recv, o.send = recv, send
}

// ringLoop returns, for loop l of a ring program, the bytes left from it
// on and the chunk size its steps' slices divide (NCCL's realChunkSize).
func (p *prog) ringLoop(l int64) (rem, real int64) {
	if p.f == AllReduce {
		rem = p.part - l*int64(p.n)*p.chunk
		return rem, min(p.chunk, (ceilDiv(rem, int64(p.n))+15)&^15)
	}
	rem = p.part - l*p.chunk
	return rem, min(p.chunk, rem)
}

// ringStep returns step k of a ring program's loop that has rem bytes
// left and chunk size real: the bytes of the step's chunk, and whether it
// receives and sends.
func (p *prog) ringStep(rem, real int64, k int) (cb int64, recv, send bool) {
	n := p.n
	switch p.f {
	case AllReduce:
		c := int64(((p.pos-k)%n + n) % n)
		return min(max(rem-c*real, 0), real), k >= 1, k <= 2*n-3
	case AllGather, ReduceScatter:
		return real, k >= 1, k <= n-2
	case Broadcast, Reduce:
		q := ((p.pos-p.root)%n + n) % n
		if p.f == Reduce {
			q = ((p.pos-p.root-1)%n + n) % n
		}
		return real, q > 0, q < n-1
	}
	return 0, false, false
}

// sendOps calls f with the bytes of each operation that sends and the
// number of times it occurs, over the whole program, without deriving
// every operation: a collective of a GiB on hundreds of ranks has
// millions. An operation depends on its loop only through the bytes left
// from it on, so every loop that still has a whole span ahead (n chunks
// for a ring AllReduce, a chunk otherwise) repeats the first; and a ring's
// steps within a loop have at most three chunk sizes (whole, the last
// partial one, empty), whose slices are the same at every step.
func (p *prog) sendOps(f func(bytes, times int64)) {
	n, per := int64(p.length()), int64(p.perLoop())
	span := p.chunk
	if p.kind == progRing && p.f == AllReduce {
		span *= int64(p.n)
	}
	var full int64
	if span > 0 && per > 0 {
		full = min(p.part/span, n/per)
	}
	if p.kind == progRing {
		if full > 0 {
			p.ringLoopSends(0, full, f)
		}
		for l := full; l*per < n; l++ {
			p.ringLoopSends(l, 1, f)
		}
		return
	}
	var o op
	var i int64
	if full > 0 {
		for ; i < per; i++ {
			p.op(int(i), &o)
			if o.send {
				f(o.bytes, full)
			}
		}
		i = full * per
	}
	for ; i < n; i++ {
		p.op(int(i), &o)
		if o.send {
			f(o.bytes, 1)
		}
	}
}

// sendOpsOn calls f, as sendOps does, with each connection the sends go
// to.
func (p *prog) sendOpsOn(f func(ci int32, bytes, times int64)) {
	if p.kind == progPat {
		p.patSendOps(f)
		return
	}
	p.sendOps(func(bytes, times int64) {
		for _, ci := range p.send[:p.nsend] {
			f(ci, bytes, times)
		}
	})
}

// ringLoopSends calls f, as sendOps does, for the sends of loop l of a
// ring program, which occurs times times. A step's chunk is its position
// in the ring, so steps 0 to P·n-1 hold every chunk P times: of an
// AllReduce's n chunks the first are whole, one may be partial and the
// rest empty; every other collective's are whole. The steps that do not
// send (an AllReduce's last two, an AllGather's last, every step of a
// ring's end for Broadcast and Reduce) and those past the loop's are the
// last of them, and are taken off one by one.
func (p *prog) ringLoopSends(l, times int64, f func(bytes, times int64)) {
	rem, real := p.ringLoop(l)
	n := int64(p.n)
	steps := int64(p.perLoop() / p.slices)
	periods := ceilDiv(steps, n)
	whole, part := n, int64(0)
	if p.f == AllReduce {
		whole = 0
		if real > 0 {
			whole = min(n, max(rem/real, 0))
		}
		if whole < n && rem-whole*real > 0 {
			part = rem - whole*real
		}
	}
	type run struct{ cb, steps int64 }
	var runs [3]run
	nr := 0
	add := func(cb, d int64) {
		i := 0
		for i < nr && runs[i].cb != cb {
			i++
		}
		if i == nr {
			runs[nr] = run{cb: cb}
			nr++
		}
		runs[i].steps += d
	}
	add(real, whole*periods)
	if part > 0 {
		add(part, periods)
		whole++
	}
	add(0, (n-whole)*periods)
	for k := periods*n - 1; k >= 0; k-- {
		cb, _, send := p.ringStep(rem, real, int(k))
		if send && k < steps {
			break
		}
		add(cb, -1)
	}
	for _, r := range runs[:nr] {
		if r.steps == 0 {
			continue
		}
		for m := range p.slices {
			f(sliceOf(r.cb, real, p.slices, m), r.steps*times)
		}
	}
}
