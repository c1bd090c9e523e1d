package nic

import (
	"testing"

	"rocelab/internal/fabric"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// step is a congestion controller that holds one rate until its deadline
// and another after it: a rate rise at a known time.
type step struct {
	before, after unit.BitRate
	at            unit.Time
	risen         bool
}

func (s *step) Rate() unit.BitRate {
	if s.risen {
		return s.after
	}
	return s.before
}
func (*step) OnCNP(unit.Time)                 {}
func (*step) OnSend(unit.Time, int)           {}
func (*step) OnAck(unit.Time, int, unit.Time) {}
func (s *step) NextDeadline() unit.Time {
	if s.risen {
		return unit.MaxTime
	}
	return s.at
}
func (s *step) OnDeadline(now unit.Time) { s.risen = s.risen || now >= s.at }

// sentBy runs one QP from h0 to h1 over a 100G cable, paced at 1 Gb/s
// until 50 us and at 50 Gb/s after, and returns the data packets h0 had
// sent by until.
func sentBy(t *testing.T, keep bool, until unit.Time) int64 {
	t.Helper()
	cfg := &Config{MTU: 1024, TCPMSS: 8948, Priority: 3, TTL: 64, Timeout: 10, RetryCnt: 7, AckCoalesce: 1,
		CompletionDelay: 200 * unit.Nanosecond, KeepPendingGap: keep}
	for i := range cfg.Weights {
		cfg.Weights[i] = 1
	}
	net := fabric.NewNetwork(1, 1)
	a, b := New(net.Domains[0], 0, "h0", cfg), New(net.Domains[0], 1, "h1", cfg)
	for _, n := range []*NIC{a, b} {
		if err := net.AddHost(n); err != nil {
			t.Fatal(err)
		}
	}
	net.Link(a.Port(), b.Port(), 100*unit.Gbps, 2*unit.Metre)
	a.Start()
	b.Start()
	tr := NewTransport(net, []*NIC{a, b})
	w := &sim.Windows{Control: tr.Control(), Collect: tr.Collect, Deliver: tr.Deliver, Parts: []sim.Part{tr.Part(net.Domains[0])},
		Lookahead: unit.MaxTime, Reply: cfg.CompletionDelay, Workers: 1}
	qp := tr.Connect(0, 1, workload.QPOptions{}, nil)
	tr.Post(qp, workload.Message{Op: workload.Write, Bytes: 1 << 20})
	// The first packet leaves at 0 at line rate; the controller paces the
	// rest from it.
	w.RunUntil(unit.Nanosecond)
	a.qps[0].cc = &step{before: unit.Gbps, after: 50 * unit.Gbps, at: 50 * unit.Microsecond}
	w.RunUntil(until)
	return net.Totals().Sent.Packets
}

// A rate rise re-times the pending gap. The first two packets leave at
// line rate (the second while the controller is installed), the next five
// every 8.8 us at 1 Gb/s (the last at 44.3 us); at the rise the next goes at
// once and the rest every 0.18 us, 16-17 more by 53 us. With the pending
// gap kept (the HPCC ns-3 model's DCQCN), the eighth still waits for
// 53.2 us, and the new rate holds from there: 16-17 more by 56 us (a QP
// that stalled, or kept the old rate, would still be at 7).
func TestRateRisePacing(t *testing.T) {
	for _, c := range []struct {
		keep   bool
		by     unit.Time
		lo, hi int64
	}{
		{false, 53, 23, 24}, {false, 56, 40, 41},
		{true, 53, 7, 7}, {true, 56, 22, 24},
	} {
		if got := sentBy(t, c.keep, c.by*unit.Microsecond); got < c.lo || got > c.hi {
			t.Errorf("gap kept %v: %d packets sent by %d us, expected %d-%d", c.keep, got, c.by, c.lo, c.hi)
		}
	}
}
