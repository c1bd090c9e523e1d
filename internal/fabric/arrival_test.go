package fabric

import (
	"testing"

	"rocelab/internal/packet"
	"rocelab/internal/unit"
)

// received counts the frames a node takes.
type received struct{ n int }

func (r *received) Name() string                  { return "r" }
func (r *received) Receive(*packet.Packet, *Port) { r.n++ }

// tapped counts the frames a tap sees received.
type tapped struct{ rx int }

func (c *tapped) Frame(_ unit.Time, _ *Port, dir Direction, _ *packet.Packet) {
	if dir == Rx {
		c.rx++
	}
}

// loseAll is a loss hook that loses every frame.
type loseAll struct{}

func (loseAll) Lose(unit.Time, *packet.Packet) bool { return true }

// linked returns a port of node b linked from a port of node a.
func linked(t *testing.T, b Node, before func(*Port)) *Port {
	t.Helper()
	net := NewNetwork(1, 1)
	dom := net.Domains[0]
	pa := net.NewPort(dom, &received{}, net.NewNodeID(), 0)
	pb := net.NewPort(dom, b, net.NewNodeID(), 1)
	before(pb)
	net.Link(pa, pb, 100*unit.Gbps, 3*unit.Metre)
	return pb
}

// arriveOne puts a data frame on pt's receive wire and serves its arrival.
func arriveOne(pt *Port) {
	pt.rx.wire.Push(&packet.Packet{Kind: packet.Data, Frame: 100})
	(*linkArrival)(pt.rx).Handle(0, tagArrive)
}

// TestArrivalHandler checks that a frame's arrival is served by the link
// direction it came over, which the link schedules, and not by the
// receiving port's Handle: a tag the port's switch does not serve leaves
// the frame on the wire, so an arrival sent to the port itself would be
// lost, not run twice.
func TestArrivalHandler(t *testing.T) {
	node := &received{}
	pt := linked(t, node, func(*Port) {})
	if pt.rx.node != Node(node) || pt.rx.to != pt {
		t.Fatalf("the link direction names node %v and port %v, want the receiver's", pt.rx.node, pt.rx.to)
	}
	pt.rx.wire.Push(&packet.Packet{Kind: packet.Data})
	pt.Handle(0, tagArrive)
	if node.n != 0 || pt.rx.wire.Head() == nil {
		t.Fatalf("Port.Handle served an arrival: %d frames received", node.n)
	}
	(*linkArrival)(pt.rx).Handle(0, tagArrive)
	if node.n != 1 || pt.rx.wire.Head() != nil {
		t.Fatalf("the arrival handler received %d frames, want 1 taken off the wire", node.n)
	}
}

// TestArrivalHooksFollowPort checks that an arrival, which reads the
// port's tap and loss hook from the link direction, sees them whether
// they were set before the port was linked or after, and sees them go.
func TestArrivalHooksFollowPort(t *testing.T) {
	for _, early := range []bool{true, false} {
		node, tap := &received{}, &tapped{}
		set := func(pt *Port) {
			pt.SetTap(tap)
			pt.SetLoss(loseAll{})
		}
		pt := linked(t, node, func(pt *Port) {
			if early {
				set(pt)
			}
		})
		if !early {
			set(pt)
		}
		arriveOne(pt)
		if node.n != 0 {
			t.Fatalf("set early %v: a frame passed the loss hook", early)
		}
		pt.SetLoss(nil)
		arriveOne(pt)
		if node.n != 1 || tap.rx != 1 {
			t.Fatalf("set early %v: without the loss hook %d frames received, %d tapped; want 1, 1", early, node.n, tap.rx)
		}
		pt.SetTap(nil)
		arriveOne(pt)
		if node.n != 2 || tap.rx != 1 {
			t.Fatalf("set early %v: without the tap %d frames received, %d tapped; want 2, 1", early, node.n, tap.rx)
		}
	}
}

// keepAll is a loss hook that loses no frame.
type keepAll struct{}

func (keepAll) Lose(unit.Time, *packet.Packet) bool { return false }

// idle is an egress with nothing to send.
type idle struct{}

func (idle) Dequeue(*Port, uint8) (*packet.Packet, bool) { return nil, false }

// TestArrivalLinkDown checks that a frame arriving while its link is down
// is lost as such, neither tapped nor received, whatever hooks the port
// has (the link direction's hook bits say nothing of the link's state),
// and that frames are received again once the link is back up.
func TestArrivalLinkDown(t *testing.T) {
	for _, c := range []struct {
		name      string
		tap, loss bool
	}{{"none", false, false}, {"tap", true, false}, {"loss", false, true}, {"tap, loss", true, true}} {
		node, tap := &received{}, &tapped{}
		pt := linked(t, node, func(*Port) {})
		pt.SetEgress(idle{})
		pt.Peer().SetEgress(idle{})
		if c.tap {
			pt.SetTap(tap)
		}
		if c.loss {
			pt.SetLoss(keepAll{})
		}
		pt.rx.link.ScheduleState(10, false)
		pt.dom.Sched.Run()
		arriveOne(pt)
		if node.n != 0 || tap.rx != 0 || pt.ctr.Drops[DropLinkDown] != 1 {
			t.Fatalf("%s: link down: %d frames received, %d tapped, %d lost to the link down; want 0, 0, 1", c.name, node.n, tap.rx, pt.ctr.Drops[DropLinkDown])
		}
		pt.rx.link.ScheduleState(20, true)
		pt.dom.Sched.Run()
		arriveOne(pt)
		if node.n != 1 || pt.ctr.Drops[DropLinkDown] != 1 || (tap.rx == 1) != c.tap {
			t.Fatalf("%s: link up again: %d frames received, %d tapped, %d lost to the link down; want 1, %v, 1", c.name, node.n, tap.rx, pt.ctr.Drops[DropLinkDown], c.tap)
		}
	}
}
