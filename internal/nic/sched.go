package nic

import "rocelab/internal/unit"

// ring is a FIFO of QPs that may send now, growing as needed.
type ring struct {
	buf         []*qp
	first, size int
}

func (r *ring) len() int { return r.size }

func (r *ring) head() *qp { return r.buf[r.first] }

func (r *ring) push(q *qp) {
	if r.size == len(r.buf) {
		buf := make([]*qp, max(8, 2*len(r.buf)))
		for i := 0; i < r.size; i++ {
			buf[i] = r.buf[(r.first+i)%len(r.buf)]
		}
		r.buf, r.first = buf, 0
	}
	r.buf[(r.first+r.size)%len(r.buf)] = q
	r.size++
}

func (r *ring) pop() *qp {
	q := r.buf[r.first]
	r.buf[r.first] = nil
	r.first = (r.first + 1) % len(r.buf)
	r.size--
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
