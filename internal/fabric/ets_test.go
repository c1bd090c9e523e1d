package fabric

import (
	"math/rand/v2"
	"testing"
)

// refPick is the deliberately plain DWRR the scheduler is checked
// against: it visits the classes one by one, round robin, crediting each
// on its turn.
func refPick(e *ETS, ready uint8, cl *classes) int {
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
			d := &cl.d[c]
			if !e.credited {
				d.deficit += d.quantum
				e.credited = true
			}
			if head := cl.head[c]; int64(d.deficit) >= head {
				d.deficit -= int32(head)
				return int(c)
			}
		}
		e.rr = (e.rr + 1) & 7
		e.credited = false
	}
}

// classes gives each class's head frame size and holds its DWRR state.
type classes struct {
	head [8]int64
	d    [8]DWRR
}

func (cl *classes) Head(c int) (int64, *DWRR) { return cl.head[c], &cl.d[c] }

// randomETS returns a scheduler of random weights and few strict classes
// over cl's DWRR states.
func randomETS(r *rand.Rand, cl *classes) ETS {
	var w [8]int
	for c := range w {
		w[c] = r.IntN(60)
	}
	strict := uint8(r.IntN(256) & r.IntN(256) & r.IntN(256))
	return NewETS(strict, w, func(c int) *DWRR { return &cl.d[c] })
}

// ETS picks the classes the plain round robin picks, and keeps the same
// deficits and round robin state, over random ready sets (a quarter
// of them one class), weights, strict sets and frame sizes.
func TestETSMatchesRoundRobin(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		got := &classes{}
		e := randomETS(r, got)
		ref := e
		want := &classes{d: got.d}
		for step := range 2000 {
			ready := uint8(r.IntN(256))
			if r.IntN(4) == 0 {
				ready = 1 << r.IntN(8) // one class ready, which Pick takes a path of its own for
			}
			if ready == 0 {
				continue
			}
			for c := range got.head {
				got.head[c] = 64 + int64(r.IntN(9000))
			}
			want.head = got.head
			a, b := e.Pick(ready, got), refPick(&ref, ready, want)
			if a != b || got.d != want.d || e != ref {
				t.Fatalf("trial %d step %d ready %08b: picked %d, want %d; DWRR states %v, want %v; round robin %+v, want %+v", trial, step, ready, a, b, got.d, want.d, e, ref)
			}
			if r.IntN(10) == 0 {
				c := r.IntN(8)
				got.d[c].Emptied()
				want.d[c].Emptied()
			}
		}
	}
}

// randomAlone returns classes and a scheduler over them in a random
// round robin state, and a class c to be ready alone, with a random head
// length and a deficit of zero, as an empty queue's, or left over.
func randomAlone(r *rand.Rand) (*classes, ETS, int) {
	got := &classes{}
	e := randomETS(r, got)
	e.rr, e.credited = uint8(r.IntN(8)), r.IntN(2) == 0
	c := r.IntN(8)
	got.d[c].deficit = int32(r.IntN(2) * r.IntN(9000))
	got.head[c] = 64 + int64(r.IntN(9000))
	return got, e, c
}

// A class that passes alone through an empty egress (ETS.alone, then its
// queue's Emptied) leaves the scheduler as Pick of that class alone and
// the pop that empties its queue do, from random round robin states,
// strict sets and deficits.
func TestETSAloneMatchesPick(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range 5000 {
		got, e, c := randomAlone(r)
		want, ref := *got, e
		ref.Pick(1<<c, &want)
		want.d[c].Emptied()
		e.alone(c)
		got.d[c].Emptied()
		if e != ref || got.d != want.d {
			t.Fatalf("trial %d class %d: round robin %+v, want %+v; DWRR %v, want %v", trial, c, e, ref, got.d, want.d)
		}
	}
}

// Next and then Charge of the head's length leave the scheduler and the
// class's deficit as Pick does when one class is ready (the NIC's way of
// picking, which charges the frame it then makes), from random round
// robin states, strict sets, deficits and head lengths.
func TestETSNextChargeMatchesPick(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for trial := range 5000 {
		got, e, c := randomAlone(r)
		want, ref := *got, e
		wc := ref.Pick(1<<c, &want)
		gc, charge := e.Next(1 << c)
		if charge {
			e.Charge(&got.d[c], got.head[c])
		}
		if gc != wc || e != ref || got.d != want.d {
			t.Fatalf("trial %d class %d: picked %d, want %d; round robin %+v, want %+v; DWRR %v, want %v", trial, c, gc, wc, e, ref, got.d, want.d)
		}
	}
}

// TestETSQuantaFollowWeights checks each class's DWRR quantum against its
// weight wherever a weight of 0 lies: a weight of 0 counts as 1 (50 to 1
// beside a class of 50), and a strict class's weight, which DWRR never
// serves, leaves the others' quanta alone (the smallest other weight
// gets one jumbo frame).
func TestETSQuantaFollowWeights(t *testing.T) {
	for _, c := range []struct {
		strict  uint8
		weights [8]int
		want    [8]int32 // in jumbo frames (dwrrBase)
	}{
		{0, [8]int{50, 0, 50, 50, 50, 50, 50, 50}, [8]int32{50, 1, 50, 50, 50, 50, 50, 50}},
		{0, [8]int{0, 50, 50, 50, 50, 50, 50, 50}, [8]int32{1, 50, 50, 50, 50, 50, 50, 50}},
		{1 << 0, [8]int{0, 20, 40, 20, 20, 20, 20, 20}, [8]int32{0, 1, 2, 1, 1, 1, 1, 1}},
	} {
		var d [8]DWRR
		NewETS(c.strict, c.weights, func(p int) *DWRR { return &d[p] })
		for p := range d {
			if c.strict&(1<<p) == 0 && d[p].quantum != c.want[p]*dwrrBase {
				t.Errorf("strict %08b weights %v: class %d's quantum %d B, want %d", c.strict, c.weights, p, d[p].quantum, c.want[p]*dwrrBase)
			}
		}
	}
}
