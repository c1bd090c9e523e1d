package sim

// slotTable gives each pending event a slot, so that an EventID can find out
// whether its event is still pending. The live bitmap is what the queue
// consults on every event; it stays small enough to sit in the L1 cache.
type slotTable struct {
	gen  []uint32 // generation of the id last issued for each slot; never 0
	live []uint64 // bit i set iff slot i holds a pending event
	free []uint32 // slots that no queued event refers to
}

// alloc takes a free slot, marks it live and moves its generation on, so
// that ids issued for the slot's earlier events no longer match.
func (st *slotTable) alloc() (i, gen uint32) {
	if n := len(st.free); n > 0 {
		i = st.free[n-1]
		st.free = st.free[:n-1]
	} else {
		i = uint32(len(st.gen))
		st.gen = append(st.gen, 0)
		if i%64 == 0 {
			st.live = append(st.live, 0)
		}
	}
	gen = st.gen[i] + 1
	if gen == 0 {
		gen = 1
	}
	st.gen[i] = gen
	st.live[i/64] |= 1 << (i % 64)
	return i, gen
}

// isLive reports whether slot i holds a pending event.
func (st *slotTable) isLive(i uint32) bool {
	return st.live[i/64]&(1<<(i%64)) != 0
}

// matches reports whether the id (i, gen) names a pending event.
func (st *slotTable) matches(i uint64, gen uint32) bool {
	return i < uint64(len(st.gen)) && st.gen[i] == gen && st.isLive(uint32(i))
}

// kill marks slot i as no longer pending; the queue may still refer to it.
func (st *slotTable) kill(i uint32) {
	st.live[i/64] &^= 1 << (i % 64)
}

// release returns slot i, which must not be live, for reuse once no queued
// event refers to it.
func (st *slotTable) release(i uint32) {
	st.free = append(st.free, i)
}
