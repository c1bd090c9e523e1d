package fabric

import (
	"math/rand/v2"
	"testing"

	"rocelab/internal/packet"
)

// A link direction's wire (two slots, then the spill list) gives its
// frames back first in, first out and lists them in that order, over
// random runs of pushes and pops that fill it from empty to past the
// spill and back, against a plain slice.
func TestWireFIFO(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pkts := make([]packet.Packet, 64)
	var d linkDir
	var want []*packet.Packet
	next := 0
	for step := range 20000 {
		if len(want) == 0 || (len(want) < len(pkts) && r.IntN(2) == 0) {
			p := &pkts[next%len(pkts)]
			next++
			d.push(p)
			want = append(want, p)
		} else {
			if got := d.pop(); got != want[0] {
				t.Fatalf("step %d: popped %p, want %p", step, got, want[0])
			}
			want = want[1:]
		}
		var got []*packet.Packet
		d.each(func(p *packet.Packet) { got = append(got, p) })
		if len(got) != len(want) || int(d.onWire) != len(want) {
			t.Fatalf("step %d: %d frames listed, %d counted, want %d", step, len(got), d.onWire, len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("step %d: frame %d listed is %p, want %p", step, i, got[i], want[i])
			}
		}
	}
}
