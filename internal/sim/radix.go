package sim

import (
	"math/bits"

	"rocelab/internal/unit"
)

// event is one queued event, kept whole in the queue so that running it
// touches no other table.
type event struct {
	t    unit.Time
	h    Handler
	tag  uint64
	slot uint32
}

// Shape of the radix queue: times are split into digits of digitBits bits,
// and there is one bucket per (digit position, digit value).
const (
	digitBits  = 4
	digitVals  = 1 << digitBits
	numBuckets = (63/digitBits + 1) * digitVals
	chunkLen   = 32 // events per chunk
)

// chunk is a fixed block of one bucket's events; buckets are linked lists of
// chunks taken from one arena, so memory follows the number of queued events
// however they are spread over the buckets.
type chunk struct {
	ev   [chunkLen]event
	n    int32 // events written
	next int32 // next chunk of the bucket, or 0
}

// bucket is a FIFO list of chunks. Chunk 0 is never used, so the zero bucket
// is empty.
type bucket struct {
	head, tail int32
	rd         int32 // events before rd in the head chunk are consumed
}

// radixQueue is a monotone radix heap (Ahuja, Mehlhorn, Orlin and Tarjan)
// with multi-bit digits. Every queued time is >= last, the least time taken
// out so far. An event at time t sits in bucket 0 if t == last; otherwise,
// if d is the highest digit in which t and last differ, in the bucket for
// (d, t's digit d). Buckets in index order thus hold ever later times, and
// the lowest non-empty bucket holds the minimum. Taking out the minimum m of
// bucket (d, v) sets last to m and moves the bucket's events to buckets of
// lower digit positions, so an event moves at most 64/digitBits times.
//
// Each bucket is kept in insertion order: new events are appended, and a
// bucket is only redistributed into lower buckets, which are then all empty.
// Equal times always share a bucket, so they come out first-in first-out
// with no sequence number stored.
//
// Cancelled events stay queued as tombstones (their slot is not live) and
// are dropped, their slots freed, when met.
type radixQueue struct {
	last    unit.Time
	nonzero [(numBuckets + 63) / 64]uint64 // bit b set iff bucket b is non-empty
	buckets [numBuckets]bucket
	chunks  []chunk
	free    int32 // list of free chunks, linked by next
}

// bucketOf returns the bucket for time t >= q.last.
func (q *radixQueue) bucketOf(t unit.Time) int {
	x := uint64(t ^ q.last)
	if x == 0 {
		return 0
	}
	d := (bits.Len64(x) - 1) / digitBits * digitBits
	return d/digitBits*digitVals + int(uint64(t)>>d%digitVals)
}

func (q *radixQueue) newChunk() int32 {
	c := q.free
	if c != 0 {
		q.free = q.chunks[c].next
		q.chunks[c].next = 0
		return c
	}
	if len(q.chunks) == 0 {
		q.chunks = append(q.chunks, chunk{}) // chunk 0 means none
	}
	q.chunks = append(q.chunks, chunk{})
	return int32(len(q.chunks) - 1)
}

// freeChunk returns chunk c to the free list, clearing it so that it keeps
// no handler alive.
func (q *radixQueue) freeChunk(c int32) {
	ch := &q.chunks[c]
	clear(ch.ev[:ch.n])
	ch.n = 0
	ch.next = q.free
	q.free = c
}

// push queues e; e.t must be >= q.last.
func (q *radixQueue) push(e event) {
	b := q.bucketOf(e.t)
	bk := &q.buckets[b]
	c := bk.tail
	if c == 0 || q.chunks[c].n == chunkLen {
		nc := q.newChunk()
		if c == 0 {
			bk.head = nc
			q.nonzero[b/64] |= 1 << (b % 64)
		} else {
			q.chunks[c].next = nc
		}
		bk.tail = nc
		c = nc
	}
	ch := &q.chunks[c]
	ch.ev[ch.n] = e
	ch.n++
}

// empty marks bucket b empty; its chunks must already be freed.
func (q *radixQueue) empty(b int) {
	q.buckets[b] = bucket{}
	q.nonzero[b/64] &^= 1 << (b % 64)
}

// front returns the first event of bucket 0, if any.
func (q *radixQueue) front() *event {
	bk := &q.buckets[0]
	for bk.head != 0 {
		ch := &q.chunks[bk.head]
		if bk.rd < ch.n {
			return &ch.ev[bk.rd]
		}
		next := ch.next
		q.freeChunk(bk.head)
		if next == 0 {
			q.empty(0)
			return nil
		}
		bk.head, bk.rd = next, 0
	}
	return nil
}

// popFront removes the first event of bucket 0, which must exist.
func (q *radixQueue) popFront() {
	bk := &q.buckets[0]
	q.chunks[bk.head].ev[bk.rd] = event{}
	bk.rd++
}

// lowest returns the lowest non-empty bucket above 0, or 0 if there is none.
func (q *radixQueue) lowest() int {
	if m := q.nonzero[0] &^ 1; m != 0 {
		return bits.TrailingZeros64(m)
	}
	for w := 1; w < len(q.nonzero); w++ {
		if m := q.nonzero[w]; m != 0 {
			return w*64 + bits.TrailingZeros64(m)
		}
	}
	return 0
}

// minLive returns the least time of a live event in bucket b > 0, or false
// if it holds only tombstones.
func (q *radixQueue) minLive(b int, st *slotTable) (unit.Time, bool) {
	m, ok := unit.MaxTime, false
	for c := q.buckets[b].head; c != 0; c = q.chunks[c].next {
		ch := &q.chunks[c]
		for i := range ch.ev[:ch.n] {
			e := &ch.ev[i]
			if (!ok || e.t < m) && st.isLive(e.slot) {
				m, ok = e.t, true
			}
		}
	}
	return m, ok
}

// redistribute empties bucket b > 0 into the buckets below it, relative to
// the new last time m, which must not exceed any live time in bucket b.
// Tombstones are dropped and their slots freed; it returns how many.
func (q *radixQueue) redistribute(b int, m unit.Time, st *slotTable) int {
	q.last = m
	dropped := 0
	c := q.buckets[b].head
	q.empty(b)
	for c != 0 {
		// push may grow the arena, so index it afresh each time.
		for i := int32(0); i < q.chunks[c].n; i++ {
			e := q.chunks[c].ev[i]
			if st.isLive(e.slot) {
				q.push(e)
			} else {
				st.release(e.slot)
				dropped++
			}
		}
		next := q.chunks[c].next
		q.freeChunk(c)
		c = next
	}
	return dropped
}

// compact drops every tombstone and frees its slot, keeping order.
func (q *radixQueue) compact(st *slotTable) {
	for b := range q.buckets {
		bk := &q.buckets[b]
		if bk.head == 0 {
			continue
		}
		// Copy live events forward within the bucket's own chunks; the
		// write position never passes the read position.
		wc, wi := bk.head, int32(0)
		for rc, ri := bk.head, bk.rd; rc != 0; rc, ri = q.chunks[rc].next, 0 {
			for ; ri < q.chunks[rc].n; ri++ {
				e := q.chunks[rc].ev[ri]
				if !st.isLive(e.slot) {
					st.release(e.slot)
					continue
				}
				if wi == chunkLen {
					wc, wi = q.chunks[wc].next, 0
				}
				q.chunks[wc].ev[wi] = e
				wi++
			}
		}
		rest := q.chunks[wc].next
		clear(q.chunks[wc].ev[wi:q.chunks[wc].n])
		q.chunks[wc].n = wi
		q.chunks[wc].next = 0
		for rest != 0 {
			next := q.chunks[rest].next
			q.freeChunk(rest)
			rest = next
		}
		bk.tail, bk.rd = wc, 0
		if wi == 0 {
			q.freeChunk(wc)
			q.empty(b)
		}
	}
}
