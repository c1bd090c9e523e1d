package fabric

import (
	"testing"

	"rocelab/internal/packet"
)

// received counts the frames a node takes.
type received struct{ n int }

func (r *received) Name() string                  { return "r" }
func (r *received) Receive(*packet.Packet, *Port) { r.n++ }

// TestArrivalHandler checks that a frame's arrival is served by the
// port's arrival handler, which the links schedule, and not by the
// port's Handle: a tag the port's switch no longer serves leaves the
// frame on the wire, so an arrival sent to the port itself would be
// lost, not run twice.
func TestArrivalHandler(t *testing.T) {
	node := &received{}
	pt := &Port{node: node, rx: &linkDir{}}
	pt.rx.wire.Push(&packet.Packet{Kind: packet.Data})
	pt.Handle(0, tagArrive)
	if node.n != 0 || pt.rx.wire.Head() == nil {
		t.Fatalf("Port.Handle served an arrival: %d frames received", node.n)
	}
	(*portArrival)(pt).Handle(0, tagArrive)
	if node.n != 1 || pt.rx.wire.Head() != nil {
		t.Fatalf("the arrival handler received %d frames, want 1 taken off the wire", node.n)
	}
}
