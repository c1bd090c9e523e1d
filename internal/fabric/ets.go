package fabric

import "math/bits"

// A HeadSizer gives a scheduler, for each non-empty class, the frame
// length of its next packet and the class's deficit round robin state.
// The state lies with the class's queue, so that a pick and the dequeue
// that follows read one cache line of the class, not one of each array.
type HeadSizer interface {
	Head(class int) (int64, *DWRR)
}

// DWRR is one class's deficit round robin state: its credit and the
// quantum a round adds. Both fit 32 bits (weights are percentages, so a
// quantum is at most 100 jumbo frames, and a credit is less than a
// quantum and a frame), so that a switch egress's class, its queue, this
// state and its frame counts, fills one cache line.
type DWRR struct{ deficit, quantum int32 }

// Emptied resets the deficit when the class's queue runs empty, as DWRR
// does, so that an idle class does not bank credit.
func (d *DWRR) Emptied() { d.deficit = 0 }

// ETS schedules eight traffic classes as IEEE 802.1Qaz ETS does: strict
// classes first (the highest first), then deficit weighted round robin over
// the rest by their bandwidth weights. A switch egress port and a host NIC
// both use it, each keeping the classes' DWRR states beside its queues.
type ETS struct {
	strict   uint8
	credited bool  // the class at rr has had its quantum this round
	rr       uint8 // the class the round robin is at
}

// dwrrBase is the DWRR quantum of the class with the smallest weight: one
// jumbo frame, so that every visit can send at least one packet.
const dwrrBase = 9216

// NewETS returns a scheduler with the given strict classes and weights
// (ETS bandwidth %; a weight of 0 counts as 1), and sets each class's
// quantum in the DWRR state dwrr(class) gives, which lies with the
// caller's queue of that class.
func NewETS(strict uint8, weights [8]int, dwrr func(class int) *DWRR) ETS {
	for p, w := range weights {
		weights[p] = max(w, 1)
	}
	minW := 0
	for p, w := range weights {
		if strict&(1<<p) == 0 && (minW == 0 || w < minW) {
			minW = w
		}
	}
	for p, w := range weights {
		dwrr(p).quantum = int32(w * dwrrBase / max(minW, 1))
	}
	return ETS{strict: strict}
}

// Pick returns the class to serve next among ready (bit c set: class c
// has a packet and may send), charging the head packet to its deficit. It
// must not be called with ready == 0.
func (e *ETS) Pick(ready uint8, hs HeadSizer) int {
	if sp := ready & e.strict; sp != 0 {
		return bits.Len8(sp) - 1
	}
	c := e.turn(ready)
	head, d := hs.Head(c)
	if ready&(ready-1) == 0 {
		// One class ready, as at most ports most of the time.
		e.Charge(d, head)
		return c
	}
	for {
		if !e.credited {
			d.deficit += d.quantum
			e.credited = true
		}
		if int64(d.deficit) >= head {
			d.deficit -= int32(head)
			return c
		}
		if n := nextReady(ready, c); n != c {
			c = n
			head, d = hs.Head(n)
		}
		e.rr, e.credited = uint8(c), false
	}
}

// Next is Pick's first step: a strict class among ready, the highest,
// which it returns with false (nothing to charge); otherwise the class the
// round robin is at, moved on to a ready one (turn), with true. When ready
// holds one class, Next's class is Pick's, and Charge with the length of
// the frame it sends does to the deficit what Pick does: a NIC, which
// learns its next frame's length only by working out the frame
// (HeadSizer), picks its one ready class so and charges the frame it
// made, once.
func (e *ETS) Next(ready uint8) (int, bool) {
	if sp := ready & e.strict; sp != 0 {
		return bits.Len8(sp) - 1, false
	}
	return e.turn(ready), true
}

// turn returns the class the round robin is at, moved on to the first
// ready one if it is not: a new turn, not yet credited.
func (e *ETS) turn(ready uint8) int {
	c := int(e.rr & 7) // a class, so that its mask needs no shift guard
	if ready&(1<<c) == 0 {
		c = nextReady(ready, c)
		e.rr, e.credited = uint8(c), false
	}
	return c
}

// Charge charges a head frame of head bytes to the deficit d of a class
// that is the only one ready (the one Next returned to a NIC, or the one
// Pick serves alone): its quantum once a round, and as many more as the
// frame needs (one class alone would be credited quantum by quantum until
// its head fits).
func (e *ETS) Charge(d *DWRR, head int64) {
	if !e.credited {
		d.deficit += d.quantum
		e.credited = true
	}
	for int64(d.deficit) < head {
		d.deficit += d.quantum
	}
	d.deficit -= int32(head)
}

// alone does to the round robin what Pick does when class c alone is
// ready, for a class whose queue then runs empty: its deficit, which
// Emptied then resets, is the caller's.
func (e *ETS) alone(c int) {
	if e.strict&(1<<c) == 0 {
		e.rr, e.credited = uint8(c), true
	}
}

// nextReady returns the first ready class after c, round robin: the round
// robin skips the classes with nothing to send in one step.
func nextReady(ready uint8, c int) int {
	m := uint(ready) &^ (2<<(c&7) - 1) // c is a class
	if m == 0 {
		m = uint(ready)
	}
	return bits.TrailingZeros(m)
}
