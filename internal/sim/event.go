package sim

import "rocelab/internal/unit"

// event is one queued event, kept whole in the queue so that running it
// touches no other table.
type event struct {
	t   unit.Time
	h   Handler
	tag uint64
	id  EventID
}
