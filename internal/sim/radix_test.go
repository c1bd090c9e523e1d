//go:build !heapbaseline

package sim

// Tests of the radix queue's own properties: they do not hold for the
// container/heap baseline of the heapbaseline build tag.

import (
	"cmp"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"rocelab/internal/unit"
)

// TestNoAllocs requires a warmed-up scheduler to run a mix of pops, pushes
// and cancels without allocating.
func TestNoAllocs(t *testing.T) {
	s := NewScheduler()
	h := &holder{s: s, incr: holdIncrements(), cancel: true}
	for i := range 10000 {
		s.At(h.incr[i&(incrTable-1)], 0, h, uint64(i))
	}
	for j := range h.timers {
		h.timers[j] = s.At(holdTimeout, 0, h, 0)
	}
	for range 200000 {
		s.Step()
	}
	allocs := testing.AllocsPerRun(20000, func() {
		s.Step()
		id := s.After(h.incr[s.Executed()%incrTable], 0, nil, 0)
		s.Cancel(id)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per step, want 0", allocs)
	}
}

// TestCompactionBounded requires the queue's memory to follow the pending
// events when most events are cancelled before they run: at times beyond
// the first span, in the buckets' chunks, and within it, in bucket 0's
// slots, which it gives back only when it empties or on compaction (a
// timer re-armed within a span).
func TestCompactionBounded(t *testing.T) {
	for name, at := range map[string]func(i int) unit.Time{
		"buckets": func(i int) unit.Time { return unit.Time(1_000_000 + i) },
		"span":    func(i int) unit.Time { return unit.Time(1000 + i%(digitVals/2)) },
	} {
		s := NewScheduler()
		var ids [100]EventID
		for i := range 1_000_000 {
			k := i % len(ids)
			s.Cancel(ids[k])
			ids[k] = s.At(at(i), 0, nil, 0)
		}
		if s.Pending() != len(ids) {
			t.Fatalf("%s: Pending = %d, want %d", name, s.Pending(), len(ids))
		}
		if n := chunkCount(&s.q) * chunkLen; n > 4*defaultMinCompact+numBuckets*chunkLen {
			t.Errorf("%s: queue holds room for %d events with %d pending", name, n, s.Pending())
		}
		if n := len(s.q.now.cs) * chunkLen; n > 4*defaultMinCompact {
			t.Errorf("%s: bucket 0 holds %d event slots with %d pending", name, n, s.Pending())
		}
		if len(s.st.gen) > 4*defaultMinCompact {
			t.Errorf("%s: slot table has %d slots with %d pending", name, len(s.st.gen), s.Pending())
		}
		s.Run()
		if s.Executed() != uint64(len(ids)) {
			t.Errorf("%s: %d events ran, want %d", name, s.Executed(), len(ids))
		}
	}
}

// chunkCount returns the number of chunks q holds, in buckets (bucket 0's
// slots among them) or free.
func chunkCount(q *radixQueue) int {
	n := len(q.now.cs)
	for c := q.free; c != nil; c = c.next {
		n++
	}
	for _, bk := range q.buckets {
		for c := bk.head; c != nil; c = c.next {
			n++
		}
	}
	return n
}

// refSort sorts entries with the library's sort: the reference.
func refSort(h []nowEntry) { slices.Sort(h) }

// arrange leaves h as drawn (order 0), sorts it (1) or sorts it in
// reverse (2).
func arrange(h []nowEntry, order int) {
	if order > 0 {
		refSort(h)
	}
	if order == 2 {
		slices.Reverse(h)
	}
}

// TestSortEntries checks the bucket's sort on (time, slot) against the
// library's on sizes from empty to thousands, with times drawn from few
// values (ties broken by arrival; keys are tiesByKey's, TestTiesByKey),
// in random, sorted and reversed order, and with the fallback taken at
// once or after one or two partitions.
func TestSortEntries(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 12, 13, 17, 64, 65, 500, 3000} {
		for _, spread := range []int{1, 3, 4096} {
			for order := range 3 {
				for _, depth := range []int{0, 1, 2, 2 * bits.Len(uint(n))} {
					h := make([]nowEntry, n)
					for i := range h {
						h[i] = newEntry(unit.Time(rng.IntN(spread)), uint32(i))
					}
					arrange(h, order)
					rng.Shuffle(len(h), func(i, j int) {
						if order == 0 {
							h[i], h[j] = h[j], h[i]
						}
					})
					want := slices.Clone(h)
					refSort(want)
					sortEntries(h, depth)
					if !slices.Equal(h, want) {
						t.Fatalf("n=%d spread=%d order=%d depth=%d: sorted differently", n, spread, order, depth)
					}
				}
			}
		}
	}
}

// TestSortSpan: sortSpan orders a span's entries as the library's sort
// does, on sizes sorted by insertion, below and above its threshold, with
// times spread over the whole lowest digit or piled on a few values (runs
// of equal times, sorted by arrival), in random, sorted and
// reversed order; times that differ above the lowest digit are sorted too.
// It fails when the counting pass puts an entry in the wrong step or a
// step is left unsorted.
func TestSortSpan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, insertionMax, insertionMax + 1, spanSorted - 1, spanSorted, 67, 500, 3000} {
		for _, spread := range []int{1, 3, 64, 200, 1 << spanBits, 3 << spanBits} {
			for order := range 3 {
				base := uint32(rng.IntN(1<<18)) << spanBits
				h := make([]nowEntry, n)
				for i := range h {
					h[i] = newEntry(unit.Time(base+uint32(rng.IntN(spread))), uint32(i))
				}
				arrange(h, order)
				want := slices.Clone(h)
				refSort(want)
				if sortSpan(h); !slices.Equal(h, want) {
					t.Fatalf("n=%d spread=%d order=%d: sorted differently", n, spread, order)
				}
			}
		}
	}
}

// TestTiesByKey: bucket 0's sort and its insertion of a new event give
// the order of (time, key, slot), the whole entry the library's sort is
// given as the reference, with times and keys drawn from few values so
// that runs of equal times hold several keys, each several times, in
// random, sorted and reversed order of arrival. It fails when equal
// times are left in slot order (tiesByKey not called or not stable) or a
// new event is placed by time and slot alone.
func TestTiesByKey(t *testing.T) {
	type full struct {
		t   unit.Time
		key Key
		ev  uint32
	}
	order := func(a, b full) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.key, b.key), cmp.Compare(a.ev, b.ev))
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{2, 3, insertionMax + 1, spanSorted + 5, 200} {
		for _, spread := range []int{1, 3, 64} {
			for arrival := range 3 {
				var q radixQueue
				evs := make([]full, n)
				for i := range evs {
					evs[i] = full{t: unit.Time(rng.IntN(spread)), key: Key(rng.IntN(5))}
				}
				if arrival > 0 {
					slices.SortFunc(evs, func(a, b full) int { return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.key, b.key)) })
				}
				if arrival == 2 {
					slices.Reverse(evs)
				}
				half := n / 2
				for i := range evs[:half] {
					evs[i].ev = uint32(i)
					x := q.entry(&event{t: evs[i].t, key: evs[i].key})
					q.now.h = append(q.now.h, x)
				}
				q.now.sort()
				for i := half; i < n; i++ {
					evs[i].ev = uint32(i)
					q.pushNow(&event{t: evs[i].t, key: evs[i].key})
				}
				slices.SortFunc(evs, order)
				for i, x := range q.now.h {
					e := q.now.at(x.ev())
					if got := (full{e.t, e.key, x.ev()}); got != evs[i] {
						t.Fatalf("n=%d spread=%d arrival=%d: entry %d is %+v, want %+v", n, spread, arrival, i, got, evs[i])
					}
				}
			}
		}
	}
}

// TestSlotAddress: nowHeap.at, which reads a slot's event by address,
// gives the same event as indexing its chunk, for slots across several
// chunks: the address counts from chunk's ev field, not from the chunk's
// start, so a field placed ahead of ev does not shift every event.
func TestSlotAddress(t *testing.T) {
	var q radixQueue
	for i := range 3*chunkLen + 5 {
		q.entry(&event{t: unit.Time(i), tag: uint64(i)})
	}
	for i := range q.now.nev {
		want := &q.now.cs[i/chunkLen].ev[i%chunkLen]
		if got := q.now.at(i); got != want || got.tag != uint64(i) {
			t.Fatalf("at(%d) = %p (tag %d), want %p (tag %d)", i, got, got.tag, want, i)
		}
	}
}

// spanLog records the events it runs and, for some tags, schedules a
// child a few picoseconds on, so that bucket 0 takes pushes between sorts.
type spanLog struct {
	s   scheduler
	ran []refEvent
}

func (l *spanLog) Handle(now unit.Time, tag uint64) {
	l.ran = append(l.ran, refEvent{t: now, tag: tag})
	if tag%4 == 0 && tag < 1<<40 {
		l.s.At(now+unit.Time(tag>>3%5), Key(tag>>5%3), l, tag<<8|1)
	}
}

// TestSpansAgainstReference runs many events of few keys, dense enough
// that bucket 0 takes spans of hundreds (the counting pass of sortSpan,
// then tiesByKey), at times on both sides of the 2^32 and 2^33 ps
// boundaries, where bucket 0's entries keep only their time's low 32
// bits, and over times that differ only above bit 32, against the naive
// reference sorted on (time, key, insertion). It fails when bucket 0
// orders by truncated times across a boundary or leaves equal times out
// of key order.
func TestSpansAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, base := range []unit.Time{0, 1<<32 - 3000, 1<<32 - 1, 1 << 32, 1<<33 - 1<<spanBits + 17, 5<<32 - 1} {
		for _, width := range []unit.Time{1, 64, 1 << spanBits, 3 << spanBits, 1 << 20} {
			ref, got := &spanLog{}, &spanLog{}
			ref.s, got.s = &refScheduler{}, NewScheduler()
			for i := range 600 {
				at := base + unit.Time(rng.Int64N(int64(width)))
				if i%7 == 0 {
					at += unit.Time(rng.IntN(3)) << 32 // equal low 32 bits, other high bits
				}
				k, tag := Key(rng.IntN(3)), uint64(i)<<2|uint64(rng.IntN(4))
				ref.s.At(at, k, ref, tag)
				got.s.At(at, k, got, tag)
			}
			ref.s.Run()
			got.s.Run()
			if !slices.Equal(ref.ran, got.ran) {
				for i := range min(len(ref.ran), len(got.ran)) {
					if ref.ran[i] != got.ran[i] {
						t.Fatalf("base %d width %d: event %d ran %+v, want %+v", base, width, i, got.ran[i], ref.ran[i])
					}
				}
				t.Fatalf("base %d width %d: ran %d events, want %d", base, width, len(got.ran), len(ref.ran))
			}
		}
	}
}
