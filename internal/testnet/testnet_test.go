package testnet

import (
	"math"
	"testing"

	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// sink posts messages on its QPs and records completions.
type sink struct {
	t     workload.Transport
	posts []post
	qps   []workload.QP
	req   map[uint64]unit.Time
	resp  map[uint64]unit.Time
	n     int
}

type post struct {
	src, dst int
	cap      unit.BitRate
	m        workload.Message
}

func (s *sink) Start(t workload.Transport) {
	s.t = t
	s.req, s.resp = map[uint64]unit.Time{}, map[uint64]unit.Time{}
	for _, p := range s.posts {
		q := t.Connect(p.src, p.dst, workload.QPOptions{RateCap: p.cap}, s)
		s.qps = append(s.qps, q)
		t.Post(q, p.m)
	}
}
func (s *sink) Completed(c workload.Completion) {
	id := s.posts[c.QP].m.ID // one message per QP here
	if c.Side == workload.Requester {
		s.req[id] = c.At
		s.n++
	} else {
		s.resp[id] = c.At
	}
}
func (s *sink) Wake(unit.Time, uint64) {}
func (s *sink) Done() bool             { return s.n == len(s.posts) }

var eff = 4096.0 / (4096 + 82)

func run(t *testing.T, posts ...post) (*sink, *Net) {
	t.Helper()
	n := New(Config{Hosts: 4, Rate: 100 * unit.Gbps, Latency: unit.Microsecond})
	s := &sink{posts: posts}
	if err := n.Run(unit.Second, s); err != nil {
		t.Fatal(err)
	}
	return s, n
}

// TestLineRate: one long WRITE with immediate arrives at line rate less
// headers after the latency; the ACK comes one latency later.
func TestLineRate(t *testing.T) {
	const b = 64 << 20
	s, _ := run(t, post{0, 1, 0, workload.Message{Op: workload.WriteImm, Bytes: b, ID: 7}})
	want := float64(b)*8/(100e9*eff) + 1e-6
	if got := s.resp[7].Seconds(); math.Abs(got/want-1) > 1e-3 {
		t.Errorf("arrival %.6f s, want %.6f", got, want)
	}
	if s.req[7]-s.resp[7] != unit.Microsecond {
		t.Errorf("ACK after %s", s.req[7]-s.resp[7])
	}
}

// TestSharing: two QPs from one host share its line; two hosts into one
// share the receiver's; a capped QP keeps to its cap; a zero-byte
// message completes; a READ returns its data.
func TestSharing(t *testing.T) {
	const b = 32 << 20
	s, _ := run(t, post{0, 1, 0, workload.Message{Op: workload.Write, Bytes: b, ID: 1}}, post{0, 2, 0, workload.Message{Op: workload.Write, Bytes: b, ID: 2}})
	both := float64(2*b) * 8 / (100e9 * eff)
	for id := uint64(1); id <= 2; id++ {
		if got := s.req[id].Seconds(); math.Abs(got/both-1) > 0.01 {
			t.Errorf("shared tx: message %d done at %.5f s, want about %.5f", id, got, both)
		}
	}
	s, _ = run(t, post{0, 2, 0, workload.Message{Op: workload.Send, Bytes: b, ID: 1}}, post{1, 2, 0, workload.Message{Op: workload.Send, Bytes: b, ID: 2}})
	if got := max(s.resp[1], s.resp[2]).Seconds(); math.Abs(got/both-1) > 0.01 {
		t.Errorf("incast: last arrival %.5f s, want about %.5f", got, both)
	}
	s, _ = run(t, post{0, 1, 10 * unit.Gbps, workload.Message{Op: workload.Write, Bytes: b, ID: 1}})
	if got, want := s.req[1].Seconds(), float64(b)*8/(10e9*eff); math.Abs(got/want-1) > 0.01 {
		t.Errorf("capped: %.5f s, want %.5f", got, want)
	}
	s, _ = run(t, post{0, 1, 0, workload.Message{Op: workload.WriteImm, Bytes: 0, ID: 3}}, post{2, 3, 0, workload.Message{Op: workload.Read, Bytes: 1 << 20, ID: 4}})
	if s.resp[3] == 0 || s.req[4] < unit.Time(float64(1<<20)*8/100e9*float64(unit.Second)) {
		t.Errorf("zero-byte responder %s, READ %s", s.resp[3], s.req[4])
	}
}
