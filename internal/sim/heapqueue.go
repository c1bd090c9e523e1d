//go:build heapbaseline

package sim

import (
	"container/heap"

	"rocelab/internal/unit"
)

// queue is, under the heapbaseline build tag, a plain container/heap
// ordered by (time, key, insertion sequence): the baseline the radix queue is
// measured against in whole-fabric benchmarks
// (go test -tags heapbaseline -bench . ./internal/scenario). It offers the
// radix queue's operations with every event in "bucket 0".
type queue struct {
	h   heapEvents
	seq uint64
	// now stands for the radix queue's bucket 0, whose next events
	// RunUntil fetches ahead: a heap keeps none there.
	now noBucket
	// lone stands for the radix queue's event run outside bucket 0:
	// never set, as single finds none.
	lone *event
	// head is a copy of the heap's first event, which front returns:
	// the scheduler reads an event after popFront, which moves the
	// heap's entries (the radix queue never moves an event).
	head event
}

// noBucket is an empty bucket 0: RunUntil finds nothing in it to fetch.
type noBucket struct {
	hd int
	h  []noEntry
}

// noEntry stands for an entry of the radix queue's bucket 0, which
// RunUntil asks for its slot.
type noEntry uint64

func (noEntry) ev() uint32 { return 0 }

func (noBucket) at(uint32) *event { return nil }

// lookAhead is the radix queue's; fetch does nothing: the baseline
// measures the queue alone.
const lookAhead = 2

func fetch(*event) {}

type heapEvent struct {
	event
	seq uint64
}

type heapEvents []heapEvent

// Len implements heap.Interface.
func (h heapEvents) Len() int { return len(h) }

// Less implements heap.Interface.
func (h heapEvents) Less(i, j int) bool {
	if h[i].t != h[j].t {
		return h[i].t < h[j].t
	}
	if h[i].key != h[j].key {
		return h[i].key < h[j].key
	}
	return h[i].seq < h[j].seq
}

// Swap implements heap.Interface.
func (h heapEvents) Swap(i, j int) { h[i], h[j] = h[j], h[i] }

// Push implements heap.Interface.
func (h *heapEvents) Push(x any) { *h = append(*h, x.(heapEvent)) }

// Pop implements heap.Interface.
func (h *heapEvents) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (q *queue) push(t unit.Time, k Key, h Handler, tag uint64, id EventID, hint uintptr) {
	q.seq++
	heap.Push(&q.h, heapEvent{event{t: t, key: k, h: h, tag: tag, id: id, hint: hint}, q.seq})
}

func (q *queue) front() *event {
	if len(q.h) == 0 {
		return nil
	}
	q.head = q.h[0].event
	return &q.head
}

func (q *queue) popFront() { heap.Pop(&q.h) }

// prefetch does nothing: the baseline measures the queue alone.
func (q *queue) prefetch() {}

// lowest, base and redistribute serve the radix queue's higher buckets,
// which the heap does not have: front always holds the minimum.
func (q *queue) lowest() uint                                         { return 0 }
func (q *queue) base(uint) unit.Time                                  { return 0 }
func (q *queue) redistribute(uint, unit.Time, *slotTable) int         { return 0 }
func (q *queue) single(uint, unit.Time, unit.Time, *slotTable) *event { return nil }
func (q *queue) freeLone()                                            {}

// earliest reports no events beyond front, which holds the minimum.
func (q *queue) earliest(*slotTable) (unit.Time, bool) { return 0, false }

// compact drops every tombstone and frees its slot.
func (q *queue) compact(st *slotTable) {
	kept := q.h[:0]
	for _, e := range q.h {
		if st.liveID(e.id) {
			kept = append(kept, e)
		} else {
			st.release(e.id)
		}
	}
	q.h = kept
	heap.Init(&q.h)
}
