package fabric

import (
	"math/rand/v2"
	"testing"
)

// refETS is the deliberately plain DWRR the scheduler is checked against:
// it visits the classes one by one, round robin, crediting each on its
// turn.
type refETS struct{ ETS }

func (e *refETS) pick(ready uint8, hs HeadSizer) int {
	if sp := ready & e.strict; sp != 0 {
		for c := 7; ; c-- {
			if sp&(1<<c) != 0 {
				return c
			}
		}
	}
	for {
		c := e.rr
		if ready&(1<<c) != 0 {
			if !e.credited {
				e.deficit[c] += e.quantum[c]
				e.credited = true
			}
			if head := hs.HeadBytes(c); e.deficit[c] >= head {
				e.deficit[c] -= head
				return c
			}
		}
		e.rr = (e.rr + 1) & 7
		e.credited = false
	}
}

// heads gives each class's head frame size.
type heads [8]int64

func (h *heads) HeadBytes(c int) int64 { return h[c] }

// ETS picks the classes the plain round robin picks, and keeps the same
// deficits, over random ready sets, weights, strict sets and frame sizes.
func TestETSMatchesRoundRobin(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		var w [8]int
		for c := range w {
			w[c] = r.IntN(60)
		}
		strict := uint8(r.IntN(256) & r.IntN(256) & r.IntN(256)) // few strict classes
		got, want := NewETS(strict, w), refETS{NewETS(strict, w)}
		var h heads
		for step := range 2000 {
			ready := uint8(r.IntN(256))
			if ready == 0 {
				continue
			}
			for c := range h {
				h[c] = 64 + int64(r.IntN(9000))
			}
			a, b := got.Pick(ready, &h), want.pick(ready, &h)
			if a != b || got.deficit != want.deficit {
				t.Fatalf("trial %d step %d ready %08b: picked %d, want %d; deficits %v, want %v", trial, step, ready, a, b, got.deficit, want.deficit)
			}
			if r.IntN(10) == 0 {
				c := r.IntN(8)
				got.Emptied(c)
				want.Emptied(c)
			}
		}
	}
}
