package fabric

// pgState is one ingress priority group's buffer use, and whether its
// port holds the priority off at the peer (xoff, at every port, a NIC's
// too). A port keeps it beside the priority's receive counts, in one
// cache line (ingress), so that neither a frame's admission nor its
// departure, which asks whether to send XON, reads a line of its own.
type pgState struct {
	min, shared, headroom int64
	headroomCap           int32 // at most MaxHeadroom
	xoff                  bool
	// port is the index of its port in the switch (a packet's InPort; set
	// by Switch.Start), so that a frame's admission reads no line of its
	// in port but this one.
	port int16
}

// MaxHeadroom is the largest headroom of one priority group a switch
// takes: 2 GiB less a byte, some hundred times any switch's buffer.
const MaxHeadroom = 1<<31 - 1

// buffer is a switch's shared buffer in the SONiC/SAI model: a per-PG
// reserved minimum, a shared pool whose admission uses a dynamic threshold
// (a PG may hold at most alpha × the free shared space), and for lossless
// PGs a headroom that absorbs what arrives between XOFF and the upstream
// stopping.
//
// A PG's occupancy is one count split into regions that fill in order —
// minimum, shared, headroom — and empty in the reverse order, whichever
// packet leaves: the headroom in use is the part of the occupancy above
// what the shared pool admitted, as in switch ASICs. So a PG that spilled
// into headroom drains it first and can send XON as soon as its occupancy
// falls back under the threshold.
type buffer struct {
	// What a frame's admission and departure read comes first; the
	// priority groups' use lies in the ingress ports (pgState).
	sharedSize int64
	sharedUsed int64
	reserve    int64
	static     int64   // lossless PGs' static threshold, in alpha's place when positive
	alpha      float64 // lossless PGs
	// portAlpha, when set, is each ingress port's lossless alpha (ports
	// of several speeds, SwitchConfig.AlphaByRate), in alpha's place.
	portAlpha  []float64
	alphaLossy float64 // lossy egress queues
	xonOffset  int64
	size       int64
}

// threshold is the dynamic shared-buffer limit for a PG or queue.
func (b *buffer) threshold(alpha float64) int64 {
	return int64(alpha * float64(b.sharedSize-b.sharedUsed))
}

// pgLimit is the shared buffer a lossless PG of ingress port port may
// hold: the static threshold if there is one, else its port's alpha's
// dynamic one.
func (b *buffer) pgLimit(port int) int64 {
	if b.static > 0 {
		return b.static
	}
	a := b.alpha
	if b.portAlpha != nil {
		a = b.portAlpha[port]
	}
	return b.threshold(a)
}

// admitLossless charges a lossless packet of size bytes to its ingress PG
// g, of ingress port port, or reports that the headroom overflowed.
func (b *buffer) admitLossless(g *pgState, port int, size int64) bool {
	switch {
	case g.headroom == 0 && g.min+size <= b.reserve:
		g.min += size
	case g.headroom == 0 && g.shared+size <= b.pgLimit(port) && b.sharedUsed+size <= b.sharedSize:
		g.shared += size
		b.sharedUsed += size
	case g.headroom+size <= int64(g.headroomCap):
		g.headroom += size
	default:
		return false
	}
	return true
}

// admitLossy charges a lossy packet to the shared pool if its egress
// queue, holding queued bytes, stays under the lossy dynamic threshold.
func (b *buffer) admitLossy(queued, size int64) bool {
	if queued+size <= b.threshold(b.alphaLossy) && b.sharedUsed+size <= b.sharedSize {
		b.sharedUsed += size
		return true
	}
	return false
}

// release credits size bytes leaving PG g: headroom first, then shared,
// then the minimum. A lossy packet leaves the shared pool only.
func (b *buffer) release(g *pgState, size int64, lossless bool) {
	if !lossless {
		b.sharedUsed -= size
		return
	}
	r := min(g.headroom, size)
	g.headroom -= r
	size -= r
	r = min(g.shared, size)
	g.shared -= r
	b.sharedUsed -= r
	g.min -= size - r
}

// wantXOFF reports whether a lossless PG should hold its upstream off: it
// has spilled into headroom, or its shared use reached the threshold. A
// PG within its reserved minimum holds nothing of the shared pool and
// never asks, however full the pool is: it could not ask to be released,
// since it has no shared use left to drain.
func (b *buffer) wantXOFF(g *pgState, port int) bool {
	return g.headroom > 0 || g.shared > 0 && g.shared >= b.pgLimit(port)
}

// wantXON reports whether a held-off PG may release its upstream: its
// headroom is empty and its shared use is an offset below the threshold,
// or it holds nothing of the shared pool. The threshold follows the
// pool's free space, which other PGs take: when it is under the offset, a
// PG that has drained releases its upstream all the same, as the ASIC's
// XON threshold (the XOFF one less the offset, at least zero) does;
// otherwise the PG's last departure would leave its upstream paused for
// good.
func (b *buffer) wantXON(g *pgState, port int) bool {
	return g.headroom == 0 && (g.shared == 0 || g.shared+b.xonOffset <= b.pgLimit(port))
}
