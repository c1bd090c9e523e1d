package sim

import "rocelab/internal/unit"

// Key orders events that fall at the same time: the node that receives the
// event (high 32 bits), then its source (low 32 bits). It does not depend
// on how a run is partitioned, so a node sees its equal-time events in the
// same order whichever scheduler holds them; see the package comment.
type Key uint64

// Sources of an event, the low half of its Key.
const (
	// SrcControl is the run's control side: workload posts, faults, the
	// sampler. Its events come first among a node's equal-time events.
	SrcControl uint32 = 0
	// SrcSelf is a node's own timers.
	SrcSelf uint32 = 1
	// srcBase is where numbered sources begin.
	srcBase uint32 = 2
)

// NodeKey returns the key of events that node receives from src.
func NodeKey(node, src uint32) Key { return Key(uint64(node)<<32 | uint64(src)) }

// SrcPort returns the source of frames sent by the port with id port.
func SrcPort(port int) uint32 { return SrcFrom(port) }

// SrcFrom returns the i-th numbered source: the sending port of a frame,
// the NIC of a completion.
func SrcFrom(i int) uint32 { return srcBase + uint32(i) }

// Node returns the receiving node of k.
func (k Key) Node() uint32 { return uint32(k >> 32) }

// event is one queued event, kept whole in the queue so that running it
// touches no other table.
type event struct {
	t   unit.Time
	key Key
	tag uint64
	id  EventID
	h   Handler
	// hint is the address of memory the handler will touch besides
	// itself (a frame's packet), fetched ahead with the handler; 0 for
	// none. An address only, never read: it keeps nothing alive and costs
	// the garbage collector nothing.
	hint uintptr
}
