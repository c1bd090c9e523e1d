package fabric_test

import (
	"testing"

	"rocelab/internal/fabric"
	"rocelab/internal/packet"
	"rocelab/internal/unit"
)

// inPorts records the in port a switch stamped on each frame its port sends.
type inPorts struct{ in []int16 }

func (r *inPorts) Frame(_ unit.Time, _ *fabric.Port, dir fabric.Direction, p *packet.Packet) {
	if dir == fabric.Tx {
		r.in = append(r.in, p.InPort)
	}
}

// TestForwardStampsInPort checks that a switch stamps a frame with the
// index of the port it arrived on, which its departure releases the
// buffer of, for each port of the switch: admission takes the index from
// the priority group's line, not from the port's first line.
func TestForwardStampsInPort(t *testing.T) {
	const n = 4
	for src := 1; src < n; src++ {
		net, sw, hs := star(t, n, 100*unit.Gbps, 3*unit.Metre, defaultSwitch())
		rec := &inPorts{}
		sw.Ports()[0].SetTap(rec)
		hs[src].dst, hs[src].payload, hs[src].left = 0, 1024, 3
		hs[src].port.Kick()
		net.Domains[0].Sched.Run()
		if len(rec.in) != 3 {
			t.Fatalf("from h%d: %d frames sent to h0, want 3", src, len(rec.in))
		}
		for i, in := range rec.in {
			if int(in) != src {
				t.Fatalf("from h%d: frame %d stamped with in port %d", src, i, in)
			}
		}
	}
}
