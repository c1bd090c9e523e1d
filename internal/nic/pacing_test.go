package nic

import (
	"testing"

	"rocelab/internal/cc"
	"rocelab/internal/fabric"
	"rocelab/internal/packet"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// step is a congestion controller that holds one rate until its deadline
// and another after it: a rate rise at a known time. The test controllers
// take cc.None's no-ops for what they ignore.
type step struct {
	cc.None
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
func (s *step) NextDeadline() unit.Time {
	if s.risen {
		return unit.MaxTime
	}
	return s.at
}
func (s *step) OnDeadline(now unit.Time) { s.risen = s.risen || now >= s.at }

// held is an ACK-driven controller that holds one packet in flight and
// takes the rate rates[i] after its i-th acknowledgement (the last one
// after more).
type held struct {
	cc.None
	rates []unit.BitRate
	acks  int
}

func (h *held) Rate() unit.BitRate                { return h.rates[min(h.acks, len(h.rates)-1)] }
func (h *held) OnFeedback(unit.Time, cc.Feedback) { h.acks++ }
func (*held) Window() int64                       { return 1 }
func (*held) Wire() cc.Wire                       { return cc.Wire{AckEach: true} }

// sentBy runs one QP from h0 to h1 over a 100G cable with 1 KB packets,
// the first at line rate and the rest under ctl, installed at 1 ns, and
// returns the data packets h0 had sent by until.
func sentBy(t *testing.T, set func(*Config), ctl cc.Controller, until unit.Time) int64 {
	t.Helper()
	return sentByWith(t, set, ctl, until, 0, nil)
}

// sentByWith is sentBy that calls at(h0) once the run reaches when.
func sentByWith(t *testing.T, set func(*Config), ctl cc.Controller, until, when unit.Time, at func(*NIC)) int64 {
	t.Helper()
	cfg := &Config{MTU: 1024, TCPMSS: 8948, Priority: 3, TTL: 64, Timeout: 10, RetryCnt: 7, AckCoalesce: 1,
		CompletionDelay: 200 * unit.Nanosecond}
	set(cfg)
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
	w.RunUntil(unit.Nanosecond)
	a0 := a
	if a, ok := ctl.(cc.AckDriven); ok {
		a0.qps[0].setAck(a)
	} else {
		a0.qps[0].cc = ctl
	}
	if at != nil {
		w.RunUntil(when)
		at(a0)
	}
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
		ctl := &step{before: unit.Gbps, after: 50 * unit.Gbps, at: 50 * unit.Microsecond}
		if got := sentBy(t, func(c2 *Config) { c2.KeepPendingGap = c.keep }, ctl, c.by*unit.Microsecond); got < c.lo || got > c.hi {
			t.Errorf("gap kept %v: %d packets sent by %d us, expected %d-%d", c.keep, got, c.by, c.lo, c.hi)
		}
	}
}

// A cut delays the pending packet only with RetimeAll (the HPCC ns-3
// model's ChangeRate, for HPCC and HPCC-PINT). Two packets leave at line
// rate, the next every 0.88 us at 10 Gb/s, the seventh at 4.5 us; the cut
// to 1 Gb/s at 5 us falls in the gap. Unset, the eighth keeps its time
// (5.4 us) and the ninth waits 8.8 us after it (14.2 us): 8 by 12 us.
// With RetimeAll the eighth waits 8.8 us after the seventh (13.3 us): 7.
func TestRateCutPacing(t *testing.T) {
	for _, c := range []struct {
		all    bool
		lo, hi int64
	}{{false, 8, 8}, {true, 7, 7}} {
		ctl := &step{before: 10 * unit.Gbps, after: unit.Gbps, at: 5 * unit.Microsecond}
		if got := sentBy(t, func(c2 *Config) { c2.RetimeAll = c.all }, ctl, 12*unit.Microsecond); got < c.lo || got > c.hi {
			t.Errorf("retime all %v: %d packets sent by 12 us, expected %d-%d", c.all, got, c.lo, c.hi)
		}
	}
}

// With RetimeAll a QP its window holds takes each new rate for the packet
// the next ACK lets go, as ns-3's ChangeRate moves m_nextAvail whatever
// the window. One packet is in flight (a round trip 0.12 us). The first
// leaves at 0 at line rate; its ACK cuts the rate to 1 Gb/s, and the
// second waits 8.8 us after the first; its ACK raises the rate to 50 Gb/s,
// and the third leaves 0.18 us after the second, the rest every 0.18 us:
// 1 by 5 us, 20 by 12 us. Without RetimeAll the second leaves at the
// first's ACK (2 by 5 us), and the third 8.8 us after it; 20 by 12 us as
// well. A held QP that took the cut and not the rise would still be at 2.
func TestWindowHeldTakesNewRate(t *testing.T) {
	for _, c := range []struct {
		all    bool
		by     unit.Time
		lo, hi int64
	}{{true, 5, 1, 1}, {true, 12, 19, 21}, {false, 5, 2, 2}, {false, 12, 19, 21}} {
		ctl := &held{rates: []unit.BitRate{100 * unit.Gbps, unit.Gbps, 50 * unit.Gbps}}
		if got := sentBy(t, func(cfg *Config) { cfg.RetimeAll = c.all }, ctl, c.by*unit.Microsecond); got < c.lo || got > c.hi {
			t.Errorf("retime all %v: %d packets sent by %d us, expected %d-%d", c.all, got, c.by, c.lo, c.hi)
		}
	}
}

// cnpCut is a controller at one rate until a CNP cuts it to another.
type cnpCut struct {
	cc.None
	before, after unit.BitRate
	cut           bool
}

func (c *cnpCut) Rate() unit.BitRate {
	if c.cut {
		return c.after
	}
	return c.before
}
func (c *cnpCut) OnCNP(unit.Time) { c.cut = true }

// A cut a CNP brings re-times the pending packet as a timer's cut does
// (TestRateCutPacing): the same 10 to 1 Gb/s at 5 us, from a CNP the
// reaction point receives, leaves 7 packets sent by 12 us with RetimeAll
// and 8 without (a CNP that skipped the re-time would leave 8 in both).
func TestCNPCutPacing(t *testing.T) {
	for _, c := range []struct {
		all  bool
		want int64
	}{{false, 8}, {true, 7}} {
		ctl := &cnpCut{before: 10 * unit.Gbps, after: unit.Gbps}
		cnp := func(n *NIC) { n.rxCNP(&packet.Packet{DstQP: n.qps[0].qpn}) }
		if got := sentByWith(t, func(cfg *Config) { cfg.RetimeAll = c.all }, ctl, 12*unit.Microsecond, 5*unit.Microsecond, cnp); got != c.want {
			t.Errorf("retime all %v: %d packets sent by 12 us, expected %d", c.all, got, c.want)
		}
	}
}
