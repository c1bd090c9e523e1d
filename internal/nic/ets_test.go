package nic

import (
	"math/bits"
	"testing"

	"rocelab/internal/fabric"
	"rocelab/internal/packet"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// shadowETS stands before a NIC's Dequeue: it takes the NIC's ETS and
// DWRR states, asks a copy of them for the class to serve with Pick (the
// head frames' lengths from the NIC's Head), lets Dequeue run and checks
// the NIC's states against the copy's, with DWRR's reset of a class that
// runs empty.
type shadowETS struct {
	t        *testing.T
	n        *NIC
	d        [8]fabric.DWRR
	alone    int // dequeues with one class ready, and one item left behind
	several  int // dequeues with more than one class ready
	dequeues int
}

// Head implements fabric.HeadSizer over the copy's DWRR states.
func (s *shadowETS) Head(c int) (int64, *fabric.DWRR) {
	head, _ := s.n.Head(c)
	return head, &s.d[c]
}

// Dequeue implements fabric.Egress.
func (s *shadowETS) Dequeue(pt *fabric.Port, paused uint8) (*packet.Packet, bool) {
	n := s.n
	ready := n.busy &^ paused
	for m := ready; m != 0; m &= m - 1 {
		c := &n.cls[bits.TrailingZeros8(m)]
		if c.ctrl.Len() == 0 && !c.ready.head().hasData() {
			s.t.Fatalf("%s: class %d's head QP has nothing to send: the run left what this test covers", n.name, bits.TrailingZeros8(m))
		}
	}
	if ready == 0 {
		return n.Dequeue(pt, paused)
	}
	ets := n.ets
	for c := range s.d {
		s.d[c] = n.cls[c].dwrr
	}
	c := ets.Pick(ready, s)
	cls := &n.cls[c]
	if cls.ctrl.Len()+cls.ready.len() == 1 {
		s.d[c].Emptied() // the class runs empty
	} else if ready&(ready-1) == 0 && n.cfg.Strict&(1<<c) == 0 {
		s.alone++
	}
	if ready&(ready-1) != 0 {
		s.several++
	}
	s.dequeues++
	p, more := n.Dequeue(pt, paused)
	if p.Prio != uint8(c) {
		s.t.Fatalf("%s, dequeue %d, ready %08b: sent class %d, want %d", n.name, s.dequeues, ready, p.Prio, c)
	}
	if n.ets != ets {
		s.t.Fatalf("%s, dequeue %d, ready %08b: round robin %+v, want %+v", n.name, s.dequeues, ready, n.ets, ets)
	}
	for k := range s.d {
		if n.cls[k].dwrr != s.d[k] {
			s.t.Fatalf("%s, dequeue %d, ready %08b, class %d: DWRR %+v, want %+v", n.name, s.dequeues, ready, k, n.cls[k].dwrr, s.d[k])
		}
	}
	return p, more
}

// ignore takes the test's completions and drops them.
type ignore struct{}

func (ignore) Completed(workload.Completion) {}

// TestDequeueChargesAsPick runs two NICs, each with WRITEs on three
// weighted classes (10, 30 and 60 %) and a strict one, READ responses
// and the ACKs of the other side's WRITEs, posted at staggered times so
// that a class is sometimes alone and sometimes one of several. After
// every dequeue the NIC's round robin and every class's DWRR state must
// be what Pick, taken on a copy before it, leaves: a NIC that picks its
// one ready class with ETS.Next must charge it the frame it made.
func TestDequeueChargesAsPick(t *testing.T) {
	cfg := &Config{MTU: 1000, TCPMSS: 8948, Priority: -1, TTL: 64, Timeout: 10, RetryCnt: 7, AckCoalesce: 3,
		Strict: 1 << 6, Weights: [8]int{20, 10, 30, 60, 20, 20, 20, 20}, CompletionDelay: 200 * unit.Nanosecond}
	net := fabric.NewNetwork(1, 1)
	nics := []*NIC{New(net.Domains[0], 0, "h0", cfg), New(net.Domains[0], 1, "h1", cfg)}
	shadows := make([]*shadowETS, len(nics))
	for i, n := range nics {
		if err := net.AddHost(n); err != nil {
			t.Fatal(err)
		}
		shadows[i] = &shadowETS{t: t, n: n}
	}
	net.Link(nics[0].Port(), nics[1].Port(), 100*unit.Gbps, 2*unit.Metre)
	for i, n := range nics {
		n.Start()
		n.Port().SetEgress(shadows[i])
	}
	tr := NewTransport(net, nics)
	w := &sim.Windows{Control: tr.Control(), Collect: tr.Collect, Deliver: tr.Deliver, Parts: []sim.Part{tr.Part(net.Domains[0])},
		Lookahead: unit.MaxTime, Reply: cfg.CompletionDelay, Workers: 1}
	us := unit.Microsecond
	for _, f := range []struct {
		src, dst int
		prio     uint8
		op       workload.Op
		bytes    int64
		at       unit.Time
	}{
		{0, 1, 1, workload.Write, 300_001, 0}, // alone at first, two QPs
		{0, 1, 1, workload.Write, 50_777, 0},
		{0, 1, 2, workload.Write, 200_003, 15 * us},
		{0, 1, 3, workload.WriteImm, 400_009, 25 * us},
		{1, 0, 2, workload.Read, 250_013, 10 * us}, // h0 answers it
		{1, 0, 3, workload.Read, 90_017, 60 * us},
		{0, 1, 6, workload.Write, 20_021, 30 * us},
		{1, 0, 1, workload.Write, 150_031, 20 * us}, // h0 acknowledges it
		{1, 0, 3, workload.Write, 120_041, 5 * us},
		{1, 0, 3, workload.Write, 80_051, 5 * us},
	} {
		qp := tr.Connect(f.src, f.dst, workload.QPOptions{PinPriority: true, Priority: f.prio}, ignore{})
		tr.PostAfter(f.at, qp, workload.Message{Op: f.op, Bytes: f.bytes})
	}
	w.RunUntil(unit.MaxTime)
	for _, s := range shadows {
		t.Logf("%s: %d dequeues, %d of one class with more behind it, %d of several classes", s.n.name, s.dequeues, s.alone, s.several)
		if s.alone == 0 || s.several == 0 {
			t.Errorf("%s: %d dequeues of one class with more behind it, %d of several: the run does not cover both", s.n.name, s.alone, s.several)
		}
	}
}
