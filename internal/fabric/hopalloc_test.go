package fabric_test

import (
	"testing"

	"rocelab/internal/unit"
)

// A frame's hops, its send on each link and its arrival at each port,
// allocate nothing once the pools and the queue have grown, and every
// frame sent arrives: a handler scheduled per hop must be a pointer, which
// an interface holds without a copy (a struct value would allocate).
func TestHopsDoNotAllocate(t *testing.T) {
	net, _, hs := star(t, 2, 100*unit.Gbps, 3*unit.Metre, defaultSwitch())
	hs[0].dst, hs[0].payload = 1, 1024
	sched := net.Domains[0].Sched
	if a := testing.AllocsPerRun(10, func() {
		hs[0].left = 100
		hs[0].port.Kick()
		sched.Run()
	}); a != 0 {
		t.Fatalf("100 frames over two hops allocate %v times", a)
	}
	if hs[1].got != 11*100*1024 {
		t.Fatalf("%d B delivered, want %d", hs[1].got, 11*100*1024)
	}
}
