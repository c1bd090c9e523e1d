package sim

// slotTable gives each pending event a slot, so that an EventID can find out
// whether its event is still pending. The live bitmap is what the queue
// consults on every event; it stays small enough to sit in the L1 cache.
type slotTable struct {
	gen  []uint32 // generation of the id last issued for each slot; never 0
	live []uint64 // bit i set iff slot i holds a pending event
	// free holds, for each slot that no queued event refers to, the id of
	// its last event, so that alloc learns the generation without reading
	// gen, which is cold by the time a slot is reused.
	free []EventID
}

// alloc takes a free slot, marks it live and moves its generation on, so
// that ids issued for the slot's earlier events no longer match.
func (st *slotTable) alloc() EventID {
	var i, gen uint32
	if n := len(st.free); n > 0 {
		last := st.free[n-1]
		st.free = st.free[:n-1]
		i, gen = last.slot(), uint32(last>>32)+1
		if gen == 0 {
			gen = 1
		}
	} else {
		i, gen = uint32(len(st.gen)), 1
		st.gen = append(st.gen, 0)
		if i%64 == 0 {
			st.live = append(st.live, 0)
		}
	}
	st.gen[i] = gen
	st.live[i/64] |= 1 << (i % 64)
	return EventID(uint64(gen)<<32 | uint64(i))
}

// slot returns the slot index of the id.
func (id EventID) slot() uint32 { return uint32(id) }

// liveID reports whether the queued event with id is pending: an event
// without an id (Send) always is, until it runs.
func (st *slotTable) liveID(id EventID) bool { return id == 0 || st.isLive(id.slot()) }

// isLive reports whether slot i holds a pending event.
func (st *slotTable) isLive(i uint32) bool {
	return st.live[i/64]&(1<<(i%64)) != 0
}

// pending reports whether id names a pending event. An id's slot may be
// out of range: the id was never issued.
func (st *slotTable) pending(id EventID) bool {
	i := uint64(id.slot())
	return i < uint64(len(st.gen)) && st.gen[i] == uint32(id>>32) && st.isLive(uint32(i))
}

// kill marks slot i as no longer pending; the queue may still refer to it.
func (st *slotTable) kill(i uint32) {
	st.live[i/64] &^= 1 << (i % 64)
}

// release returns the slot of id, which must not be live, for reuse once no
// queued event refers to it.
func (st *slotTable) release(id EventID) {
	st.free = append(st.free, id)
}
