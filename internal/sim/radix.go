//go:build !heapbaseline

package sim

import (
	"math/bits"
	"unsafe"

	"rocelab/internal/prefetch"
	"rocelab/internal/unit"
)

// Shape of the radix queue: times are split into digits of digitBits bits
// above a lowest digit of spanBits, and there is one bucket per (digit
// position, digit value).
const (
	digitBits  = 12
	digitVals  = 1 << digitBits
	numBuckets = (63/digitBits + 1) * digitVals
	numWords   = numBuckets / 64
	chunkLen   = 32 // events per chunk
	// spanShift widens the lowest digit, bucket 0's span, to spanBits:
	// 8.2 ns (docs/engine.md, "Two threads").
	spanShift = 1
	spanBits  = digitBits + spanShift
)

// chunk is a fixed block of one bucket's events; buckets are linked lists of
// chunks taken from a free list, so memory follows the number of queued
// events however they are spread over the buckets.
type chunk struct {
	ev   [chunkLen]event
	n    int32 // events written
	next *chunk
}

// bucket is a FIFO list of chunks. Two pointers, 16 bytes: the queue
// holds 24576 buckets, most never used, and a third word made its array
// 196 KB larger.
type bucket struct {
	head, tail *chunk
}

// radixQueue is a monotone radix heap (Ahuja, Mehlhorn, Orlin and Tarjan,
// 1990) over digits of digitBits bits (the lowest, spanBits). It keeps
// last, a lower bound of every queued time that never exceeds the
// scheduler's Now(), so no event can be added below it. An event at time t sits in bucket 0 if t and last differ
// only in their lowest digit; otherwise, with d the highest digit position
// where they differ, in bucket d*digitVals + (digit d of t). As t > last
// and both agree above d, digit d of t exceeds last's: buckets in index
// order hold ever later times, and the lowest non-empty bucket holds the
// minimum.
//
// Events are taken from bucket 0, a span sorted on (time, key, arrival in
// it): the events of one 8 ns span, a handful in a busy fabric. When it is
// empty, the lowest bucket (d, v) is redistributed: last becomes the least
// time that bucket can hold (last's digits above d, then v, then zeros),
// and its events move to buckets of lower digit positions. So an event
// moves at most 64/digitBits times (a frame's arrival, a few hundred
// nanoseconds ahead, once before bucket 0), by sequential copies, and
// nothing searches for a minimum: bucket 0 is kept sorted.
//
// Each bucket is kept in insertion order: new events are appended, and a
// bucket is only redistributed into lower buckets, which are then all
// empty. Equal times always share a bucket, so they reach the heap in
// insertion order, and equal-time events run by key and, for equal keys,
// first-in first-out.
//
// Cancelled events stay queued as tombstones (their slot is not live) and
// are dropped, their slots freed, when met.
// queue is the scheduler's event queue: the radix queue, or with the
// heapbaseline build tag a plain container/heap for comparison.
type queue = radixQueue

type radixQueue struct {
	last    unit.Time
	nonzero [numWords]uint64             // bit b set iff bucket b > 0 is non-empty
	summary [(numWords + 63) / 64]uint64 // bit w set iff nonzero[w] != 0
	buckets [numBuckets]bucket           // the lowest digit's are unused: see now
	now     nowHeap                      // bucket 0, the events of last's lowest digit
	free    *chunk                       // list of free chunks, linked by next
	// lone is the chunk of the event that next took straight from a
	// bucket of one event (single), which runs without entering bucket
	// 0; nil otherwise.
	lone *chunk
}

// nowEntry orders an event of bucket 0 in one word: the low 32 bits of
// its time above (the events of bucket 0 share every bit of their time
// above the lowest digit, so these order them as the whole times do), and
// below the slot in nowHeap.cs that holds it, which is also its arrival
// in the bucket (slots are taken in turn; see nowHeap). Entries compare
// as integers, on (time, slot): the key, which orders equal times before
// the slot does, stays in the event and is read only for equal times,
// about one entry in thirty (nowHeap.tiesByKey). A sort moves 8 bytes an
// entry and compares once, where an entry holding its key was 16 bytes
// and up to three comparisons.
type nowEntry uint64

// newEntry returns the entry of an event at time t in slot ev.
func newEntry(t unit.Time, ev uint32) nowEntry { return nowEntry(uint64(uint32(t))<<32 | uint64(ev)) }

// t returns the low 32 bits of the entry's time.
func (x nowEntry) t() uint32 { return uint32(x >> 32) }

// ev returns the entry's slot.
func (x nowEntry) ev() uint32 { return uint32(x) }

// nowHeap is bucket 0: its entries from hd on, sorted on (time, key,
// slot), the least first; the events themselves wait in slots of the
// chunks cs, slot i in cs[i/chunkLen]. It holds the events of one 8 ns
// span, a handful: new ones, mostly the latest, are appended, and taking
// the least moves nothing. A span's events arrive in the chunks of the
// bucket redistributed into it, which become its slots as they are, in
// order (redistribute): the events are not copied again.
//
// Slots are taken in turn from 0 and all given back at once when the
// bucket empties, as it does at the end of every span: events run or
// dropped before then keep their slots, which a span's count bounds, and
// no list of free slots is kept; compact gives back those of cancelled
// events (compactSlots), which a span's count does not bound. So a later
// arrival always holds a higher slot, and the slot breaks ties of time
// and key first-in first-out.
type nowHeap struct {
	h   []nowEntry
	hd  int
	cs  []*chunk
	nev uint32 // slots in use
}

// tiesByKey orders h, sorted on (time, slot), on (time, key, slot): the
// entries of each run of equal times go by key, by an insertion sort
// that keeps equal keys in slot order. Most entries have a time of their
// own and cost one comparison.
func (n *nowHeap) tiesByKey(h []nowEntry) {
	for i := 1; i < len(h); i++ {
		x := h[i]
		if x>>32 != h[i-1]>>32 {
			continue
		}
		k := n.at(x.ev()).key
		j := i
		for ; j > 0 && h[j-1]>>32 == x>>32 && n.at(h[j-1].ev()).key > k; j-- {
			h[j] = h[j-1]
		}
		h[j] = x
	}
}

// len returns the number of events in the bucket.
func (n *nowHeap) len() int { return len(n.h) - n.hd }

// at returns the event in slot i, which must be below nev: slot i is in
// chunk cs[i/chunkLen], read without the bounds and nil checks Go puts
// on a slice's element (the run loop asks twice an event). The event's
// address counts from the chunk's ev field, wherever chunk places it.
func (n *nowHeap) at(i uint32) *event {
	c := *(**chunk)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(n.cs)), uintptr(i/chunkLen)*unsafe.Sizeof((*chunk)(nil))))
	return (*event)(unsafe.Add(unsafe.Pointer(c), unsafe.Offsetof(chunk{}.ev)+uintptr(i%chunkLen)*unsafe.Sizeof(event{})))
}

// entry stores e in bucket 0's next slot and returns its entry, the
// latest to arrive.
func (q *radixQueue) entry(e *event) nowEntry {
	n := &q.now
	i := n.nev
	if int(i/chunkLen) == len(n.cs) {
		n.cs = append(n.cs, q.newChunk())
	}
	n.nev++
	*n.at(i) = *e
	return newEntry(e.t, i)
}

// sort orders the entries of one span on (time, key, slot): sortSpan on
// (time, slot), by insertion when there are a handful, as there are on
// small fabrics (a large fabric puts dozens in a span, and thousands of
// hosts starting at once put thousands in one), then tiesByKey.
func (n *nowHeap) sort() {
	h := n.h[n.hd:]
	sortSpan(h)
	n.tiesByKey(h)
}

// pushNow queues e in bucket 0, in order.
func (q *radixQueue) pushNow(e *event) {
	n := &q.now
	x := q.entry(e)
	// The new entry goes after every entry that comes before it: most
	// often at the end. Its slot is the highest, so it goes after every
	// entry of its time, then back past those of a greater key.
	lo, hi := n.hd, len(n.h)
	if hi > lo && n.h[hi-1] < x {
		lo = hi
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if n.h[m] < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for lo > n.hd && n.h[lo-1]>>32 == x>>32 && n.at(n.h[lo-1].ev()).key > e.key {
		lo--
	}
	n.h = append(n.h, x)
	if last := len(n.h) - 1; lo < last {
		copy(n.h[lo+1:], n.h[lo:last])
		n.h[lo] = x
	}
}

// lookAhead is how many of the next events the scheduler fetches the
// memory of while one runs: far enough ahead that a line arrives before
// its event starts, near enough that it is still cached when it does.
const lookAhead = 2

// fetch asks the processor for the memory event e will touch: the first
// two cache lines of its handler's data (an interface value holds its
// type and a pointer to its data), where the ports keep what every frame
// reads, and its hint.
func fetch(e *event) {
	prefetch.Object(uintptr(prefetch.Of(unsafe.Pointer(&e.h))), e.hint)
}

// pop removes the least event.
func (n *nowHeap) pop() {
	if n.hd++; n.hd == len(n.h) {
		n.h, n.hd, n.nev = n.h[:0], 0, 0
	} else if n.hd >= 64 && n.hd*2 >= len(n.h) {
		k := copy(n.h, n.h[n.hd:])
		n.h, n.hd = n.h[:k], 0
	}
}

// compactSlots gives back the slots of the events no longer in the
// bucket when they are most of its slots: a bucket that does not empty
// (a timer re-armed and cancelled again and again within one span) would
// otherwise take a new slot each time. The kept events move to new
// slots in their order; this allocates, but only when compact finds the
// slots mostly dead, and it is rare.
func (q *radixQueue) compactSlots() {
	n := &q.now
	k := len(n.h)
	if k == 0 {
		n.nev = 0
		return
	}
	if int(n.nev) <= 2*k+64 {
		return
	}
	old := n.cs
	n.cs, n.nev = nil, 0
	for j := range n.h {
		// In order: ties stay first-in first-out.
		i := n.h[j].ev()
		n.h[j] = q.entry(&old[i/chunkLen].ev[i%chunkLen])
	}
	for _, c := range old {
		q.freeChunk(c)
	}
}

// bucketOf returns the bucket for time t >= q.last: 0, the heap, when t
// shares all but its lowest digit with last. Most events fall within the
// second digit (a frame's arrival, a port's next look: under 33.6 µs
// ahead), which takes no search for the digit. Shifted by spanShift, the
// digits above the lowest are digitBits wide from bit 0.
func (q *radixQueue) bucketOf(t unit.Time) uint {
	x := uint64(t^q.last) >> spanShift
	if x < digitVals {
		return 0
	}
	u := uint64(t) >> spanShift
	if x < digitVals*digitVals {
		return digitVals + uint(u>>digitBits%digitVals)
	}
	pos := uint(bits.Len64(x)-1) / digitBits
	return pos*digitVals + uint(u>>(pos*digitBits)%digitVals)
}

// newChunk takes a chunk from the free list, or allocates one.
func (q *radixQueue) newChunk() *chunk {
	c := q.free
	if c != nil {
		q.free = c.next
		c.next = nil
		return c
	}
	return new(chunk)
}

// freeChunk returns chunk c to the free list. Its events are not
// cleared: the handlers they point to are the run's nodes, which live as
// long as the queue, and clearing cost a fifth of the queue's time.
func (q *radixQueue) freeChunk(c *chunk) {
	c.n = 0
	c.next = q.free
	q.free = c
}

// push queues the event of the given fields, written once where it
// waits; t must be >= q.last.
func (q *radixQueue) push(t unit.Time, k Key, h Handler, tag uint64, id EventID, hint uintptr) {
	b := q.bucketOf(t)
	if b == 0 {
		q.pushNow(&event{t: t, key: k, h: h, tag: tag, id: id, hint: hint})
		return
	}
	bk := q.bucket(b)
	c := bk.tail
	if c == nil || c.n == chunkLen {
		nc := q.newChunk()
		if c == nil {
			bk.head = nc
			q.nonzero[b/64] |= 1 << (b % 64)
			q.summary[b/4096] |= 1 << (b / 64 % 64)
		} else {
			c.next = nc
		}
		bk.tail = nc
		c = nc
	}
	// Field by field: a composite literal is built aside and copied.
	// c.n < chunkLen here, so the mask only spares the bounds check.
	e := &c.ev[uint32(c.n)%chunkLen]
	e.t, e.key, e.h, e.tag, e.id, e.hint = t, k, h, tag, id, hint
	c.n++
}

// bucket returns bucket b, which must be below numBuckets, as bucketOf
// gives: read without the bounds check of q.buckets[b].
func (q *radixQueue) bucket(b uint) *bucket {
	return (*bucket)(unsafe.Add(unsafe.Pointer(&q.buckets), b*uint(unsafe.Sizeof(bucket{}))))
}

// empty marks bucket b empty; its chunks must already be freed.
func (q *radixQueue) empty(b uint) {
	q.buckets[b] = bucket{}
	if q.nonzero[b/64] &^= 1 << (b % 64); q.nonzero[b/64] == 0 {
		q.summary[b/4096] &^= 1 << (b / 64 % 64)
	}
}

// front returns the first event of bucket 0, if any.
func (q *radixQueue) front() *event {
	if n := &q.now; uint(n.hd) < uint(len(n.h)) { // the bucket is not empty; the test also proves h[hd] in range
		return n.at(n.h[n.hd].ev())
	}
	return nil
}

// prefetch fetches ahead the memory of the event lookAhead places behind
// the least one in bucket 0. (Looking into the next bucket when the span
// holds fewer made runs 6-15% slower: the scan for it costs more than the
// misses it saves.)
func (q *radixQueue) prefetch() {
	n := &q.now
	k := n.hd + lookAhead - 1
	if uint(k) < uint(len(n.h)) {
		fetch(n.at(n.h[k].ev()))
	}
}

// popFront removes the first event of bucket 0, which must exist.
func (q *radixQueue) popFront() { q.now.pop() }

// lowest returns the lowest non-empty bucket above 0, or 0 if there is none.
// The buckets of the lowest digit are never used (bucketOf), so the scan
// starts at the second digit's.
func (q *radixQueue) lowest() uint {
	for i := digitVals / 4096; i < len(q.summary); i++ {
		if s := q.summary[i]; s != 0 {
			w := uint(i*64 + bits.TrailingZeros64(s))
			return w*64 + uint(bits.TrailingZeros64(q.nonzero[w]))
		}
	}
	return 0
}

// base returns the least time that bucket b > 0 can hold: last's digits
// above b's digit position, b's digit value, and zeros below.
func (q *radixQueue) base(b uint) unit.Time {
	if b < 2*digitVals {
		// The second digit's, nearly every bucket redistributed: with
		// constant shifts.
		const top = spanBits + digitBits
		return unit.Time(uint64(q.last)>>top<<top | uint64(b-digitVals)<<spanBits)
	}
	shift := b/digitVals*digitBits + spanShift
	high := uint64(q.last) >> (shift + digitBits) << (shift + digitBits)
	return unit.Time(high | uint64(b%digitVals)<<shift)
}

// single takes the event of bucket b > 0, relative to the new last time
// base, when it is the bucket's only event, live, of the second digit
// and due by limit, as three spans in four of a sparse run are (the
// 127->1 incast's): the event runs from the bucket's chunk, which lone
// holds until freeLone, and bucket 0, empty, is left alone, where moving
// the event in (the chunk taking bucket 0's place, its entry appended)
// and out again cost some 40 instructions. It returns nil, and changes
// nothing, for any other bucket.
func (q *radixQueue) single(b uint, base, limit unit.Time, st *slotTable) *event {
	if b >= 2*digitVals {
		return nil
	}
	c := q.buckets[b].head
	if e := &c.ev[0]; c.n == 1 && c.next == nil && e.t <= limit && st.liveID(e.id) {
		q.last = base
		q.empty(b)
		q.lone = c
		return e
	}
	return nil
}

// freeLone gives back lone's chunk, once its event's fields are read.
func (q *radixQueue) freeLone() {
	q.freeChunk(q.lone)
	q.lone = nil
}

// redistribute empties bucket b > 0 into the buckets below it, relative to
// the new last time base, which is q.base(b) (the caller has it). Since
// every event in bucket b shares with it the digits from b's position up,
// all go to lower positions. Tombstones are dropped and their slots freed;
// it returns how many. If the bucket held
// only tombstones, last stays as it was: no event at or after the new last
// would run to bring the clock up to it.
//
// A bucket of the second digit holds one span, which goes to bucket 0,
// empty then: its chunks, the events in the order they came, become
// bucket 0's slots as they are (the chunks bucket 0 held are freed), so
// each event keeps its place, and its entry is appended and sorted once.
func (q *radixQueue) redistribute(b uint, base unit.Time, st *slotTable) int {
	old := q.last
	q.last = base
	c := q.buckets[b].head
	q.empty(b)
	if b >= 2*digitVals {
		return q.spread(c, old, st)
	}
	n := &q.now
	if e := &c.ev[0]; c.n == 1 && c.next == nil && len(n.cs) == 1 && st.liveID(e.id) {
		// A span of one event due after the limit (single takes the
		// others): its chunk takes the place of the one bucket 0
		// held, and it needs no sort.
		q.freeChunk(n.cs[0])
		n.cs[0] = c
		n.h = append(n.h, newEntry(e.t, 0))
		n.nev = 1
		return 0
	}
	for _, c := range n.cs {
		q.freeChunk(c)
	}
	n.cs = n.cs[:0]
	dropped := 0
	var slot uint32
	for ; c != nil; c = c.next {
		n.cs = append(n.cs, c)
		for i := range c.ev[:c.n] {
			if e := &c.ev[i]; st.liveID(e.id) {
				n.h = append(n.h, newEntry(e.t, slot+uint32(i)))
			} else {
				st.release(e.id)
				dropped++
			}
		}
		slot += chunkLen
	}
	n.nev = slot - chunkLen + uint32(n.cs[len(n.cs)-1].n)
	switch n.len() {
	case 0:
		n.nev, q.last = 0, old
	case 1:
	default:
		n.sort()
	}
	return dropped
}

// spread is redistribute's part for a bucket above the second digit, whose
// chunks begin at c: its events go to the buckets of lower digits, and its
// chunks are freed. old is the last time before the bucket's.
func (q *radixQueue) spread(c *chunk, old unit.Time, st *slotTable) int {
	dropped, moved := 0, false
	for c != nil {
		for i := range c.ev[:c.n] {
			e := &c.ev[i]
			if st.liveID(e.id) {
				q.push(e.t, e.key, e.h, e.tag, e.id, e.hint)
				moved = true
			} else {
				st.release(e.id)
				dropped++
			}
		}
		next := c.next
		q.freeChunk(c)
		c = next
	}
	if !moved {
		q.last = old
	}
	return dropped
}

// earliest returns the earliest live time in the buckets above 0, without
// moving last: buckets in index order hold ever later times, so the first
// with a live event holds the minimum.
func (q *radixQueue) earliest(st *slotTable) (unit.Time, bool) {
	for i, s := range q.summary {
		for ; s != 0; s &= s - 1 {
			w := i*64 + bits.TrailingZeros64(s)
			for m := q.nonzero[w]; m != 0; m &= m - 1 {
				if t, ok := q.buckets[w*64+bits.TrailingZeros64(m)].earliest(st); ok {
					return t, true
				}
			}
		}
	}
	return 0, false
}

// earliest returns the earliest live time in the bucket.
func (bk *bucket) earliest(st *slotTable) (unit.Time, bool) {
	found, least := false, unit.MaxTime
	for c := bk.head; c != nil; c = c.next {
		for i := range c.ev[:c.n] {
			if e := &c.ev[i]; e.t <= least && st.liveID(e.id) {
				found, least = true, e.t
			}
		}
	}
	return least, found
}

// compact drops every tombstone and frees its slot, keeping order.
func (q *radixQueue) compact(st *slotTable) {
	kept := q.now.h[:0]
	for _, x := range q.now.h[q.now.hd:] {
		if e := q.now.at(x.ev()); st.liveID(e.id) {
			kept = append(kept, x)
		} else {
			st.release(e.id)
		}
	}
	q.now.h, q.now.hd = kept, 0
	q.compactSlots()
	for b := range q.buckets {
		bk := &q.buckets[b]
		if bk.head == nil {
			continue
		}
		// Copy live events forward within the bucket's own chunks; the
		// write position never passes the read position.
		wc, wi := bk.head, int32(0)
		for rc := bk.head; rc != nil; rc = rc.next {
			for ri := range rc.ev[:rc.n] {
				e := &rc.ev[ri]
				if !st.liveID(e.id) {
					st.release(e.id)
					continue
				}
				if wi == chunkLen {
					wc, wi = wc.next, 0
				}
				wc.ev[wi] = *e
				wi++
			}
		}
		rest := wc.next
		clear(wc.ev[wi:wc.n])
		wc.n = wi
		wc.next = nil
		for rest != nil {
			next := rest.next
			q.freeChunk(rest)
			rest = next
		}
		bk.tail = wc
		if wi == 0 {
			q.freeChunk(wc)
			q.empty(uint(b))
		}
	}
}
