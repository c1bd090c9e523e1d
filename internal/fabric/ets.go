package fabric

import "math/bits"

// A HeadSizer tells a scheduler the frame length of the next packet of
// each non-empty class.
type HeadSizer interface {
	HeadBytes(class int) int64
}

// ETS schedules eight traffic classes as IEEE 802.1Qaz ETS does: strict
// classes first (the highest first), then deficit weighted round robin over
// the rest by their bandwidth weights. A switch egress port and a host NIC
// both use it.
type ETS struct {
	// What every pick reads first, then the deficits, then the quanta,
	// which a pick reads once a round.
	strict   uint8
	credited bool // the class at rr has had its quantum this round
	rr       int
	deficit  [8]int64
	quantum  [8]int64
}

// dwrrBase is the DWRR quantum of the class with the smallest weight: one
// jumbo frame, so that every visit can send at least one packet.
const dwrrBase = 9216

// NewETS returns a scheduler with the given strict classes and weights
// (ETS bandwidth %; a weight of 0 counts as 1).
func NewETS(strict uint8, weights [8]int) ETS {
	e := ETS{strict: strict}
	minW := 0
	for p, w := range weights {
		if strict&(1<<p) == 0 && w > 0 && (minW == 0 || w < minW) {
			minW = w
		}
	}
	for p, w := range weights {
		if w <= 0 || minW == 0 {
			w, minW = 1, 1
		}
		e.quantum[p] = int64(w) * dwrrBase / int64(minW)
	}
	return e
}

// Pick returns the class to serve next among ready (bit c set: class c
// has a packet and may send), charging the head packet to its deficit. It
// must not be called with ready == 0.
func (e *ETS) Pick(ready uint8, hs HeadSizer) int {
	if sp := ready & e.strict; sp != 0 {
		return bits.Len8(sp) - 1
	}
	c := e.rr
	if ready&(1<<c) == 0 {
		c = nextReady(ready, c)
		e.rr, e.credited = c, false
	}
	head := hs.HeadBytes(c)
	for {
		if !e.credited {
			e.deficit[c] += e.quantum[c]
			e.credited = true
		}
		if e.deficit[c] >= head {
			e.deficit[c] -= head
			return c
		}
		if n := nextReady(ready, c); n != c {
			c, head = n, hs.HeadBytes(n)
		}
		e.rr, e.credited = c, false
	}
}

// nextReady returns the first ready class after c, round robin: the round
// robin skips the classes with nothing to send in one step.
func nextReady(ready uint8, c int) int {
	m := uint(ready) &^ (2<<c - 1)
	if m == 0 {
		m = uint(ready)
	}
	return bits.TrailingZeros(m)
}

// Emptied resets class c's deficit when its queue runs empty, as DWRR
// does, so that an idle class does not bank credit.
func (e *ETS) Emptied(c int) { e.deficit[c] = 0 }
