// Package sim is the core of the twin: a discrete-event scheduler and named
// random streams. It keeps no package-level state, reads no wall clock and
// uses no global random source.
//
// # Scheduler
//
// A Scheduler runs events in order of (time, Key, insertion). The Key says
// which node receives the event and from which source (the node's own
// timers, the port a frame comes from, the control side), so events at
// equal times run in an order that does not depend on how the run is
// partitioned: a node's equal-time events come from its own timers, which
// it schedules itself, from frames, which each link delivers in order, and
// from the control side, in that order, whether one scheduler holds the
// whole fabric or each partition has its own. Events with equal time and
// key run first-in first-out.
//
// An event is a Handler and a tag, so one object serves many timers
// without a closure per event. At returns an EventID for Cancel; ids carry
// a slot generation, so a stale id never cancels a later event. Scheduling
// before Now() panics: it is a programming error, and clamping it to Now()
// would silently reorder cause and effect.
//
// # Why a radix queue
//
// The twin never schedules before Now(), so its queue is monotone, and a
// monotone radix heap (see radixQueue) beats comparison heaps: an event is
// copied a few times between buckets, sequentially, instead of being sifted
// through log n levels of a heap whose lower levels miss the cache. In the
// hold model with 100k pending events (BenchmarkHold), on the project's
// 2-core machine, under load from other jobs:
//
//	container/heap of pointers to items               ~2.3 M events/s
//	4-ary implicit heap, 16-byte entries + side table   ~5 M events/s
//	binary radix heap, one slice per bucket           ~7.6 M events/s
//	8-bit-digit radix heap in 32-event chunks        13-15 M events/s
//
// The heap lost on cache misses in sift-down and in the side table holding
// handler and tag. It loses on small runs too, which keep 100 to 2000
// events pending: a 4-ary heap over a slab of events took 28 % more
// instructions than the radix queue on the 127->1 incast and 35 % more on
// the 128-host permutation (docs/engine.md, "A heap for small runs").
// The slice radix heap also let capacity pile up in every
// bucket the time window had drifted across (about 10 times the pending
// events); chunks from one free list keep memory at the pending events
// plus at most one partly filled chunk per bucket. Wider digits mean fewer
// moves: with 8 bits a frame's arrival, a few hundred nanoseconds ahead,
// moved three times before it ran; with 12 bits it moves twice, and a
// two-level bitmap finds the lowest of the 24576 buckets in two words.
// The events of the current 8 ns span, usually one or two, wait in bucket
// 0, kept sorted by time and key.
//
// Events nobody cancels (a frame's arrival, a port's next look at its
// queues) are queued with Send, which skips the table of pending ids.
//
// Cancel marks the event's slot dead in a bitmap; the event stays queued as
// a tombstone, dropped when met and swept out all at once when tombstones
// outnumber pending events, so Cancel is O(1) amortised and memory stays
// bounded. No operation allocates once the queue has reached its peak size.
//
// # Random streams
//
// Streams derives independent generators from one scenario seed by name;
// see Streams for the derivation.
package sim
