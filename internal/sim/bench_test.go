package sim

import (
	"container/heap"
	"math/rand/v2"
	"testing"

	"rocelab/internal/unit"
)

// The hold model: a fixed number of events stay pending (holdPending, or
// holdSmall in the Small benchmarks); each step pops the earliest and
// schedules one new event an exponentially distributed time later (mean
// holdMean). Increments come from a fixed table so that both queues see the
// same workload and the RNG does not weigh on the figure. Before timing,
// each queue runs 20 events per pending event to reach its steady state.
const (
	holdPending = 100_000
	holdSmall   = 1000
	holdMean    = 1000 * unit.Nanosecond
	incrTable   = 1 << 12
	// Timer re-arms per step in the cancel benchmarks, over holdTimers
	// timers whose timeout is far beyond the hold horizon: the pattern of a
	// NIC re-arming a retransmission timer on every ACK.
	holdTimers  = 1000
	holdTimeout = 1000 * holdMean * holdPending
)

func holdIncrements() []unit.Time {
	r := rand.New(rand.NewPCG(1, 2))
	d := make([]unit.Time, incrTable)
	for i := range d {
		d[i] = unit.Time(r.ExpFloat64() * float64(holdMean))
	}
	return d
}

func reportEvents(b *testing.B, events uint64) {
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// holder is the benchmark handler for Scheduler.
type holder struct {
	s      *Scheduler
	incr   []unit.Time
	i      int
	cancel bool
	timers [holdTimers]EventID
	armed  int
}

func (h *holder) Handle(now unit.Time, tag uint64) {
	h.s.At(now+h.incr[h.i&(incrTable-1)], 0, h, tag)
	h.i++
	if h.cancel {
		j := h.armed % holdTimers
		h.s.Cancel(h.timers[j])
		h.timers[j] = h.s.At(now+holdTimeout, 0, h, 0)
		h.armed++
	}
}

func benchHold(b *testing.B, pending int, cancel bool) {
	s := NewScheduler()
	h := &holder{s: s, incr: holdIncrements(), cancel: cancel}
	for i := range pending {
		s.At(h.incr[i&(incrTable-1)], 0, h, uint64(i))
	}
	for j := range h.timers {
		h.timers[j] = s.At(holdTimeout, 0, h, 0)
	}
	for range 20 * pending {
		s.Step()
	}
	start := s.Executed()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s.Step()
	}
	b.StopTimer()
	reportEvents(b, s.Executed()-start)
}

// BenchmarkHold measures Scheduler in the hold model with 100k pending events.
func BenchmarkHold(b *testing.B) { benchHold(b, holdPending, false) }

// BenchmarkHoldCancel adds one timer re-arm (Cancel plus At) to every step.
func BenchmarkHoldCancel(b *testing.B) { benchHold(b, holdPending, true) }

// BenchmarkHoldSmall is BenchmarkHold with 1000 pending events.
func BenchmarkHoldSmall(b *testing.B) { benchHold(b, holdSmall, false) }

// chItem and chQueue are the plain container/heap baseline: pointer items
// (recycled, so the figure is the heap's and not the garbage collector's)
// holding handler and tag, with an index kept for heap.Remove.
type chItem struct {
	t     unit.Time
	seq   uint64
	h     Handler
	tag   uint64
	index int
}

type chQueue []*chItem

func (q chQueue) Len() int { return len(q) }
func (q chQueue) Less(i, j int) bool {
	return q[i].t < q[j].t || (q[i].t == q[j].t && q[i].seq < q[j].seq)
}
func (q chQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index = i
	q[j].index = j
}
func (q *chQueue) Push(x any) {
	it := x.(*chItem)
	it.index = len(*q)
	*q = append(*q, it)
}
func (q *chQueue) Pop() any {
	old := *q
	n := len(old) - 1
	it := old[n]
	old[n] = nil
	*q = old[:n]
	it.index = -1
	return it
}

// chSched drives chQueue with the scheduler's semantics.
type chSched struct {
	q        chQueue
	spare    []*chItem
	now      unit.Time
	seq      uint64
	executed uint64
}

func (s *chSched) at(t unit.Time, h Handler, tag uint64) *chItem {
	var it *chItem
	if n := len(s.spare); n > 0 {
		it = s.spare[n-1]
		s.spare = s.spare[:n-1]
	} else {
		it = new(chItem)
	}
	*it = chItem{t: t, seq: s.seq, h: h, tag: tag}
	s.seq++
	heap.Push(&s.q, it)
	return it
}

func (s *chSched) cancel(it *chItem) {
	if it.index >= 0 {
		heap.Remove(&s.q, it.index)
		s.spare = append(s.spare, it)
	}
}

func (s *chSched) step() {
	it := heap.Pop(&s.q).(*chItem)
	s.now = it.t
	s.executed++
	h, tag := it.h, it.tag
	s.spare = append(s.spare, it)
	h.Handle(it.t, tag)
}

type chHolder struct {
	s      *chSched
	incr   []unit.Time
	i      int
	cancel bool
	timers [holdTimers]*chItem
	armed  int
}

func (h *chHolder) Handle(now unit.Time, tag uint64) {
	h.s.at(now+h.incr[h.i&(incrTable-1)], h, tag)
	h.i++
	if h.cancel {
		j := h.armed % holdTimers
		h.s.cancel(h.timers[j])
		h.timers[j] = h.s.at(now+holdTimeout, h, 0)
		h.armed++
	}
}

func benchHoldContainerHeap(b *testing.B, pending int, cancel bool) {
	s := &chSched{}
	h := &chHolder{s: s, incr: holdIncrements(), cancel: cancel}
	for i := range pending {
		s.at(h.incr[i&(incrTable-1)], h, uint64(i))
	}
	for j := range h.timers {
		h.timers[j] = s.at(holdTimeout, h, 0)
	}
	for range 20 * pending {
		s.step()
	}
	start := s.executed
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s.step()
	}
	b.StopTimer()
	reportEvents(b, s.executed-start)
}

// BenchmarkHoldContainerHeap is the container/heap baseline of BenchmarkHold.
func BenchmarkHoldContainerHeap(b *testing.B) { benchHoldContainerHeap(b, holdPending, false) }

// BenchmarkHoldCancelContainerHeap is the baseline of BenchmarkHoldCancel,
// cancelling eagerly with heap.Remove.
func BenchmarkHoldCancelContainerHeap(b *testing.B) { benchHoldContainerHeap(b, holdPending, true) }

// BenchmarkHoldSmallContainerHeap is the baseline of BenchmarkHoldSmall.
func BenchmarkHoldSmallContainerHeap(b *testing.B) { benchHoldContainerHeap(b, holdSmall, false) }
