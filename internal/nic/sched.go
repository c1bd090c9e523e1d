package nic

import (
	"math/bits"

	"rocelab/internal/unit"
)

// ring holds the QPs of one priority that may send now. By default it is
// a FIFO: a QP joins its tail when it becomes ready, and a QP served goes
// back to the tail as its packet starts (a deficit round robin's active
// list, one packet a turn). With an index order (Config.QPOrderByIndex)
// it serves the ready QP whose index follows the one last served, cycling
// through the NIC's QPs in the order it created them.
type ring struct {
	buf         []*qp
	first, size int
	idx         *indexOrder
}

func (r *ring) len() int { return r.size }

func (r *ring) head() *qp {
	if r.idx != nil {
		return r.idx.qps[r.idx.next()]
	}
	return r.buf[r.first]
}

func (r *ring) push(q *qp) {
	r.size++
	if r.idx != nil {
		r.idx.add(q)
		return
	}
	if r.size > len(r.buf) {
		buf := make([]*qp, max(8, 2*len(r.buf)))
		for i := 0; i < r.size-1; i++ {
			buf[i] = r.buf[(r.first+i)%len(r.buf)]
		}
		r.buf, r.first = buf, 0
	}
	r.buf[wrap(r.first+r.size-1, len(r.buf))] = q
}

// wrap returns i mod n for 0 <= i < 2n, the index of a ring's place i
// from its array's start: a subtraction where % divides.
func wrap(i, n int) int {
	if i >= n {
		i -= n
	}
	return i
}

func (r *ring) pop() *qp {
	r.size--
	if r.idx != nil {
		return r.idx.take()
	}
	q := r.buf[r.first]
	r.buf[r.first] = nil
	r.first = wrap(r.first+1, len(r.buf))
	return q
}

// indexOrder is a ring's ready QPs by index: the HPCC ns-3 model's
// RdmaEgressQueue::GetNextQindex (qbb-net-device.cc), which scans the
// NIC's QPs from the one after the last served and takes the first that
// may send. It grows with the NIC's QPs, never per packet.
type indexOrder struct {
	set  []uint64 // bit i: QP i is ready
	qps  []*qp    // QP i while it is ready
	last int32    // the index last served
}

func (o *indexOrder) add(q *qp) {
	for int(q.idx) >= len(o.qps) {
		o.qps = append(o.qps, nil)
	}
	for int(q.idx)>>6 >= len(o.set) {
		o.set = append(o.set, 0)
	}
	o.qps[q.idx] = q
	o.set[q.idx>>6] |= 1 << (q.idx & 63)
}

// next returns the index of the first ready QP after last, wrapping
// around; the set is not empty.
func (o *indexOrder) next() int32 {
	from := o.last + 1
	if w := int(from >> 6); w < len(o.set) {
		if m := o.set[w] >> (from & 63); m != 0 {
			return from + int32(bits.TrailingZeros64(m))
		}
		for w++; w < len(o.set); w++ {
			if o.set[w] != 0 {
				return int32(w<<6 + bits.TrailingZeros64(o.set[w]))
			}
		}
	}
	for w, m := range o.set {
		if m != 0 {
			return int32(w<<6 + bits.TrailingZeros64(m))
		}
	}
	panic("nic: next of an empty index order")
}

func (o *indexOrder) take() *qp {
	i := o.next()
	q := o.qps[i]
	o.qps[i] = nil
	o.set[i>>6] &^= 1 << (i & 63)
	o.last = i
	return q
}

// calendar holds QPs paced to a later send time: a binary min-heap on
// (time, insertion order), typed, so that equal times leave in the order
// they came.
type calendar struct {
	h   []calEntry
	seq uint64
}

type calEntry struct {
	t   unit.Time
	seq uint64
	q   *qp
	gen uint32
}

func (c *calendar) len() int { return len(c.h) }

func (c *calendar) min() unit.Time { return c.h[0].t }

func less(a, b *calEntry) bool { return a.t < b.t || a.t == b.t && a.seq < b.seq }

// push queues q at t. An entry whose gen no longer matches its QP's
// calGen is stale (the QP was rescheduled) and is dropped when popped.
func (c *calendar) push(t unit.Time, q *qp) {
	c.seq++
	c.h = append(c.h, calEntry{t: t, seq: c.seq, q: q, gen: q.calGen})
	i := len(c.h) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !less(&c.h[i], &c.h[parent]) {
			break
		}
		c.h[i], c.h[parent] = c.h[parent], c.h[i]
		i = parent
	}
}

// pop removes the earliest entry and returns its QP, or nil when the
// entry was stale.
func (c *calendar) pop() *qp {
	q := c.h[0].q
	if c.h[0].gen != q.calGen {
		q = nil
	}
	last := len(c.h) - 1
	c.h[0] = c.h[last]
	c.h[last] = calEntry{}
	c.h = c.h[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(c.h) && less(&c.h[l], &c.h[m]) {
			m = l
		}
		if r < len(c.h) && less(&c.h[r], &c.h[m]) {
			m = r
		}
		if m == i {
			return q
		}
		c.h[i], c.h[m] = c.h[m], c.h[i]
		i = m
	}
}
