package nic_test

import (
	"testing"

	"rocelab/internal/fabric"
	"rocelab/internal/nic"
	"rocelab/internal/packet"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// pair is two NICs joined by one 100G cable: the smallest RC testbed.
type pair struct {
	net  *fabric.Network
	tr   *nic.Transport
	a, b *nic.NIC
	got  []workload.Completion
	w    *sim.Windows
}

// run runs the pair until nothing is pending, or until the workloads
// finish.
func (p *pair) run() { p.w.RunUntil(unit.MaxTime) }

// runUntil runs the pair until t.
func (p *pair) runUntil(t unit.Time) { p.w.RunUntil(t) }

func (p *pair) Completed(c workload.Completion) { p.got = append(p.got, c) }

func testConfig() *nic.Config {
	c := &nic.Config{MTU: 1024, TCPMSS: 8948, ECT: true, DSCP: 26, Priority: -1, TTL: 64,
		Timeout: 10, RetryCnt: 7, AckCoalesce: 4, Strict: 1<<6 | 1<<7, CompletionDelay: 200 * unit.Nanosecond}
	for d := range c.Classifier.DSCPToPrio {
		c.Classifier.DSCPToPrio[d] = uint8(d >> 3)
	}
	for i := range c.Weights {
		c.Weights[i] = 1
	}
	return c
}

func newPair(t testing.TB, cfg *nic.Config) *pair {
	t.Helper()
	net := fabric.NewNetwork(1, 1)
	p := &pair{net: net}
	p.a = nic.New(net.Domains[0], 0, "h0", cfg)
	p.b = nic.New(net.Domains[0], 1, "h1", cfg)
	for _, n := range []*nic.NIC{p.a, p.b} {
		if err := net.AddHost(n); err != nil {
			t.Fatal(err)
		}
	}
	net.Link(p.a.Port(), p.b.Port(), 100*unit.Gbps, 2*unit.Metre)
	p.a.Start()
	p.b.Start()
	p.tr = nic.NewTransport(net, []*nic.NIC{p.a, p.b})
	p.w = &sim.Windows{Control: p.tr.Control(), Collect: p.tr.Collect, Deliver: p.tr.Deliver, Parts: []sim.Part{p.tr.Part(net.Domains[0])},
		Lookahead: unit.MaxTime, Reply: cfg.CompletionDelay, Workers: 1}
	return p
}

// side returns the completions at one side.
func (p *pair) side(s workload.Side) []workload.Completion {
	var out []workload.Completion
	for _, c := range p.got {
		if c.Side == s {
			out = append(out, c)
		}
	}
	return out
}

// conservation checks sent + retransmitted = delivered + dropped +
// discarded + in flight, in packets and payload bytes.
func conservation(t *testing.T, net *fabric.Network) {
	t.Helper()
	tot, in := net.Totals(), net.InFlight()
	if l, r := tot.Sent.Bytes+tot.Retransmitted.Bytes, tot.Delivered.Bytes+tot.Dropped.Bytes+tot.Discarded.Bytes+in.Bytes; l != r {
		t.Errorf("bytes: sent+retx %d != delivered+dropped+discarded+in flight %d (%+v, in flight %+v)", l, r, tot, in)
	}
	if l, r := tot.Sent.Packets+tot.Retransmitted.Packets, tot.Delivered.Packets+tot.Dropped.Packets+tot.Discarded.Packets+in.Packets; l != r {
		t.Errorf("packets: %d != %d", l, r)
	}
}

// A message completes at both ends with its size; a zero-byte message
// completes too (one packet without payload).
func TestWriteImmCompletes(t *testing.T) {
	p := newPair(t, testConfig())
	qp := p.tr.Connect(0, 1, workload.QPOptions{}, p)
	p.tr.Post(qp, workload.Message{Op: workload.WriteImm, Bytes: 100_000, ID: 7})
	p.tr.Post(qp, workload.Message{Op: workload.WriteImm, Bytes: 0, ID: 8})
	p.tr.Post(qp, workload.Message{Op: workload.Write, Bytes: 5000, ID: 9})
	p.run()
	req, resp := p.side(workload.Requester), p.side(workload.Responder)
	if len(req) != 3 || req[0].ID != 7 || req[1].ID != 8 || req[2].ID != 9 || req[0].Status != workload.Success {
		t.Fatalf("requester completions %+v", req)
	}
	if len(resp) != 2 || resp[0].Bytes != 100_000 || resp[1].Bytes != 0 {
		t.Fatalf("responder completions %+v (a plain WRITE must not complete at the responder)", resp)
	}
	if d, _ := p.tr.Progress(qp); d != 105_000 {
		t.Errorf("delivered %d bytes", d)
	}
	// 98 packets of 1024 + one of 672 (100000 B), one empty, 5 for 5000 B.
	if got := p.net.Totals().Sent.Packets; got != 98+1+5 {
		t.Errorf("sent %d packets", got)
	}
	conservation(t, p.net)
}

// A post made ahead of its time (PostAfter) reaches the NIC then, not
// when it was made: a post made after it for an earlier time goes first,
// and each message's first byte leaves no sooner than its post.
func TestPostAfter(t *testing.T) {
	p := newPair(t, testConfig())
	late := p.tr.Connect(0, 1, workload.QPOptions{}, p)
	early := p.tr.Connect(0, 1, workload.QPOptions{}, p)
	p.tr.PostAfter(5*unit.Microsecond, late, workload.Message{Op: workload.WriteImm, Bytes: 1000, ID: 1})
	p.tr.PostAfter(1*unit.Microsecond, early, workload.Message{Op: workload.WriteImm, Bytes: 1000, ID: 2})
	p.run()
	resp := p.side(workload.Responder)
	if len(resp) != 2 || resp[0].QP != early || resp[1].QP != late {
		t.Fatalf("responder completions %+v: want the early post's first", resp)
	}
	// 1000 B on 100G take 80 ns, and 2 m of cable 10 ns: each arrives
	// within a few hundred ns of its post, none before it.
	post := map[workload.QP]unit.Time{late: 5 * unit.Microsecond, early: 1 * unit.Microsecond}
	for _, c := range resp {
		if c.At < post[c.QP] || c.At > post[c.QP]+unit.Microsecond {
			t.Errorf("QP %d's message arrived at %s, posted at %s", c.QP, c.At, post[c.QP])
		}
	}
}

// dropNth loses the data packets whose ordinal (1-based, counting data
// packets arriving at the port) is in drop.
type dropNth struct {
	n    int
	drop map[int]bool
	all  bool
	acks bool
}

func (d *dropNth) Lose(_ unit.Time, p *packet.Packet) bool {
	if d.acks {
		return p.Kind == packet.Ack
	}
	if p.Kind != packet.Data {
		return false
	}
	d.n++
	return d.all || d.drop[d.n]
}

// One lost packet in the middle of a message: the responder sees the gap,
// counts the packets after it as out of sequence, NAKs once, and the
// requester goes back to the lost PSN. Every byte arrives once.
func TestGoBackNAfterGap(t *testing.T) {
	p := newPair(t, testConfig())
	p.b.Port().SetLoss(&dropNth{drop: map[int]bool{10: true}})
	qp := p.tr.Connect(0, 1, workload.QPOptions{}, p)
	p.tr.Post(qp, workload.Message{Op: workload.WriteImm, Bytes: 100 * 1024})
	p.run()
	if d, _ := p.tr.Progress(qp); d != 100*1024 {
		t.Fatalf("delivered %d", d)
	}
	a, b := p.a.HW, p.b.HW
	if a.PacketSeqErr != 1 || a.LocalAckTimeoutErr != 0 {
		t.Errorf("requester: packet_seq_err %d, local_ack_timeout_err %d; want 1, 0", a.PacketSeqErr, a.LocalAckTimeoutErr)
	}
	// Packets 11.. sent before the NAK reached the requester arrive out of
	// sequence; all of them are sent again.
	if b.OutOfSequence == 0 || b.OutOfSequence+1 != a.Retransmitted {
		t.Errorf("out_of_sequence %d, retransmitted %d: go-back-N resends the lost packet and every one after it", b.OutOfSequence, a.Retransmitted)
	}
	if b.DuplicateRequest != 0 {
		t.Errorf("duplicates %d after a NAK", b.DuplicateRequest)
	}
	if tot := p.net.Totals(); tot.Discarded.Packets != b.OutOfSequence || tot.Dropped.Packets != 1 {
		t.Errorf("discarded %d, dropped %d", tot.Discarded.Packets, tot.Dropped.Packets)
	}
	conservation(t, p.net)
	t.Logf("1 loss: out_of_sequence %d, retransmitted %d packets", b.OutOfSequence, a.Retransmitted)
}

// The last packet lost: nothing follows to reveal the gap, so the local
// ACK timer recovers it, one timeout after the last ACK.
func TestTailLossTimeout(t *testing.T) {
	cfg := testConfig()
	p := newPair(t, cfg)
	p.b.Port().SetLoss(&dropNth{drop: map[int]bool{10: true}})
	qp := p.tr.Connect(0, 1, workload.QPOptions{}, p)
	p.tr.Post(qp, workload.Message{Op: workload.WriteImm, Bytes: 10 * 1024})
	p.run()
	req := p.side(workload.Requester)
	if len(req) != 1 || req[0].Status != workload.Success {
		t.Fatalf("completions %+v", req)
	}
	// With ACKs coalesced every 4 packets, the last ACK covered packet 8:
	// the timeout resends from 9, and 9 arrives a second time.
	if p.a.HW.LocalAckTimeoutErr != 1 || p.a.HW.Retransmitted != 2 || p.b.HW.DuplicateRequest != 1 {
		t.Errorf("local_ack_timeout_err %d, retransmitted %d, duplicate_request %d; want 1, 2, 1",
			p.a.HW.LocalAckTimeoutErr, p.a.HW.Retransmitted, p.b.HW.DuplicateRequest)
	}
	// 4.096 us × 2^10 = 4.194304 ms after the timer was last set.
	T := cfg.ACKTimeout()
	if T != 4194304*unit.Nanosecond {
		t.Fatalf("timeout %v", T)
	}
	if at := req[0].At; at < T || at > T+20*unit.Microsecond {
		t.Errorf("completed at %v, want just after one timeout %v", at, T)
	}
	conservation(t, p.net)
}

// Lost ACKs: the requester times out and resends; the responder finds
// duplicates, drops them and acknowledges again.
func TestLostACKsDuplicates(t *testing.T) {
	p := newPair(t, testConfig())
	loss := &dropNth{acks: true}
	p.a.Port().SetLoss(loss)
	qp := p.tr.Connect(0, 1, workload.QPOptions{}, p)
	p.tr.Post(qp, workload.Message{Op: workload.WriteImm, Bytes: 8 * 1024})
	p.runUntil(3 * unit.Millisecond)
	loss.acks = false // the path heals before the first timeout (4.19 ms)
	p.run()
	if p.b.HW.DuplicateRequest != 8 || p.a.HW.LocalAckTimeoutErr != 1 {
		t.Errorf("duplicate_request %d, local_ack_timeout_err %d; want 8, 1", p.b.HW.DuplicateRequest, p.a.HW.LocalAckTimeoutErr)
	}
	if len(p.side(workload.Responder)) != 1 {
		t.Error("the message completed twice at the responder")
	}
	conservation(t, p.net)
}

// A dead path: the QP fails after retry_cnt retries, at (retry_cnt + 1)
// timeouts after the last packet went out, with IBV_WC_RETRY_EXC_ERR; the
// requests behind it are flushed.
func TestRetryExceeded(t *testing.T) {
	cfg := testConfig()
	cfg.RetryCnt = 3
	p := newPair(t, cfg)
	p.b.Port().SetLoss(&dropNth{all: true})
	qp := p.tr.Connect(0, 1, workload.QPOptions{}, p)
	p.tr.Post(qp, workload.Message{Op: workload.WriteImm, Bytes: 4096, ID: 1})
	p.tr.Post(qp, workload.Message{Op: workload.WriteImm, Bytes: 4096, ID: 2})
	p.run()
	req := p.side(workload.Requester)
	if len(req) != 2 || req[0].Status != workload.RetryExceeded || req[1].Status != workload.Flushed {
		t.Fatalf("completions %+v", req)
	}
	T := cfg.ACKTimeout()
	want := 4*T + 2*100*unit.Nanosecond // 8 packets at 100G ≈ 0.7 us before the first timer starts
	if at := req[0].At; at < 4*T || at > want+unit.Microsecond {
		t.Errorf("failed at %v, want (retry_cnt+1)·timeout = %v", at, 4*T)
	}
	a := p.a.HW
	if a.LocalAckTimeoutErr != 4 || a.ReqCQEError != 1 || a.ReqCQEFlushError != 1 {
		t.Errorf("local_ack_timeout_err %d req_cqe_error %d req_cqe_flush_error %d; want 4, 1, 1", a.LocalAckTimeoutErr, a.ReqCQEError, a.ReqCQEFlushError)
	}
	// A request posted to a QP in the error state is flushed at once.
	p.tr.Post(qp, workload.Message{Op: workload.WriteImm, Bytes: 1, ID: 3})
	p.run()
	if last := p.got[len(p.got)-1]; last.ID != 3 || last.Status != workload.Flushed {
		t.Errorf("post to a failed QP: %+v", last)
	}
}

// chain is a workload that posts its next message when the previous one
// completes at the responder, opening connections as the run goes on.
type chain struct {
	t     workload.Transport
	left  int
	done  bool
	at    []unit.Time
	hosts []int
}

func (c *chain) Start(t workload.Transport) {
	c.t = t
	c.Wake(0, 0)
}

func (c *chain) Wake(now unit.Time, tag uint64) {
	src, dst := c.hosts[c.left%2], c.hosts[(c.left+1)%2]
	qp := c.t.Connect(src, dst, workload.QPOptions{}, c)
	c.t.Post(qp, workload.Message{Op: workload.WriteImm, Bytes: int64(c.left) * 1000})
}

func (c *chain) Completed(cp workload.Completion) {
	if cp.Side != workload.Responder {
		return
	}
	c.at = append(c.at, cp.At)
	if c.left--; c.left == 0 {
		c.done = true
		return
	}
	c.t.After(unit.Microsecond, c, 0) // a local step before the next hop
}

func (c *chain) Done() bool { return c.done }

// Connections opened while the run goes on, messages posted from
// completions, a zero-byte message among them, and local steps between:
// the chain ping-pongs five times and the run ends when it is done.
func TestWorkloadChain(t *testing.T) {
	p := newPair(t, testConfig())
	c := &chain{left: 5, hosts: []int{0, 1}}
	p.tr.Start(c)
	p.run()
	if !c.done || len(c.at) != 5 || !p.tr.Done() {
		t.Fatalf("chain: done %v after %d completions", c.done, len(c.at))
	}
	for i := 1; i < len(c.at); i++ {
		if c.at[i]-c.at[i-1] < unit.Microsecond {
			t.Errorf("step %d came %v after the previous: the local step was skipped", i, c.at[i]-c.at[i-1])
		}
	}
	if n := len(p.tr.Conns()); n != 5 {
		t.Errorf("%d connections, want one per hop", n)
	}
}

// A QP carries its own timeout and retry count, as NCCL sets them
// (NCCL_IB_TIMEOUT, NCCL_IB_RETRY_CNT), over the host's defaults: with
// timeout 12 and 2 retries it fails after 3 × 16.8 ms.
func TestPerQPTimeout(t *testing.T) {
	p := newPair(t, testConfig())
	p.b.Port().SetLoss(&dropNth{all: true})
	qp := p.tr.Connect(0, 1, workload.QPOptions{Timeout: 12, RetryCount: 2}, p)
	p.tr.Post(qp, workload.Message{Op: workload.WriteImm, Bytes: 4096})
	p.run()
	want := 3 * (4096 * unit.Nanosecond << 12)
	if len(p.got) != 1 || p.got[0].Status != workload.RetryExceeded || p.got[0].At < want || p.got[0].At > want+unit.Microsecond {
		t.Fatalf("completions %+v, want failure at %v", p.got, want)
	}
	if p.a.HW.LocalAckTimeoutErr != 3 {
		t.Errorf("local_ack_timeout_err %d, want 3", p.a.HW.LocalAckTimeoutErr)
	}
}
