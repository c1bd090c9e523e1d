package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The ring against a slice on random pushes and pops at both ends,
// through several growths and wraps.
func TestRingAgainstSlice(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var ring Ring[int]
	var want []int
	for step := range 20000 {
		switch k := r.IntN(5); {
		case k < 3:
			ring.Push(step)
			want = append(want, step)
		case k == 3 && len(want) > 0:
			if *ring.Front() != want[0] {
				t.Fatalf("step %d: front %d, want %d", step, *ring.Front(), want[0])
			}
			ring.PopFront()
			want = want[1:]
		case k == 4 && len(want) > 0:
			ring.PopBack()
			want = want[:len(want)-1]
		}
		if ring.Len() != len(want) {
			t.Fatalf("step %d: length %d, want %d", step, ring.Len(), len(want))
		}
	}
	got := make([]int, ring.Len())
	for i := range got {
		got[i] = *ring.At(i)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("contents differ: %v against %v", got[:min(10, len(got))], want[:min(10, len(want))])
	}
}
