package fabric

import (
	"math/rand/v2"
	"testing"

	"rocelab/internal/unit"
)

// TestSerialisationMemo checks the port's memo of the last frame length's
// serialisation time against TxTime's division, over lengths that repeat
// and change, and after the rate changes (SetPHY's clock offset), when a
// stale memo would give the old rate's time.
func TestSerialisationMemo(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pt := &Port{rate: 100 * unit.Gbps}
	lengths := []int32{84, 1106, 4190, 9238, 70000}
	for i := range 2000 {
		if i == 1000 {
			pt.SetPHY(-87.5, 0, rand.PCG{})
		}
		w := lengths[r.IntN(len(lengths))]
		if got, want := pt.serialisation(w), pt.rate.TxTime(unit.Bytes(w)); got != want {
			t.Fatalf("frame %d: %d wire bytes at %d b/s take %d ps, want %d", i, w, pt.rate, got, want)
		}
	}
}
