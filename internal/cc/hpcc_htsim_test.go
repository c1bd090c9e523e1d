package cc

import (
	"math"
	"testing"

	"rocelab/internal/unit"
)

// htsimKnobs is host.hpcc as from-htsim writes it for htsim_hpcc at
// 100 Gb/s and packets of mtu bytes: T 12 us, η 0.95, 5 stages, W_AI one
// packet (ai_rate = mtu·8/T in whole Mb/s), W T·line/8.
func htsimKnobs(t *testing.T, mtu int64) HPCCConfig {
	t.Helper()
	c, err := HPCCPreset("ns3")
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]int64{"eta": 950, "max_stage": 5, "ai_rate": int64(math.Round(float64(mtu) * 8 / 12)),
		"base_rtt": 12_000, "window": 150_000, "int_bytes": 0, "htsim": 1} {
		if err := c.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func htsimSender(t *testing.T, mtu int64) *HTSimHPCC {
	t.Helper()
	c := htsimKnobs(t, mtu)
	s, ok := c.Sender(100 * unit.Gbps).(*HTSimHPCC)
	if !ok {
		t.Fatalf("htsim 1 gave %T, want *HTSimHPCC", c.Sender(100*unit.Gbps))
	}
	return s
}

// hop100 is a 100G hop's INT at t: sent bytes tx, q bytes queued.
func hop100(t unit.Time, tx, q int64) Hop {
	return Hop{Port: 3, Time: t, TxBytes: tx, QLen: q, Rate: 100 * unit.Gbps}
}

// The knob picks the sender: 0 the HPCC ns-3 model's, 1 csg-htsim's; and
// W_AI, from the whole Mb/s the converter writes, is the packet again.
func TestHPCCSenderKnob(t *testing.T) {
	c := htsimKnobs(t, 4096)
	c.HTSim = 0
	if _, ok := c.Sender(100 * unit.Gbps).(*HPCC); !ok {
		t.Errorf("htsim 0 gave %T, want *HPCC", c.Sender(100*unit.Gbps))
	}
	for _, mtu := range []int64{1024, 2048, 4096, 9000} {
		if s := htsimSender(t, mtu); s.wai != mtu {
			t.Errorf("mtu %d: W_AI %d B, want the packet", mtu, s.wai)
		}
	}
}

// csg-htsim's hpcc.cpp, step by step on one 5-hop path at 100G with
// 4096 B packets (T 12 us, η 0.95): the first ACK only records the hops
// and, U being η, adds W_AI (htsim_hpcc prints "CWND1 154096" for every
// sender's first ACK); until a hop's records are T apart U stays η, so
// each ACK adds W_AI ("CWND2 158192", "162288", ...); then U is taken
// whole from the average since the first ACK and every ACK scales the
// last ACK's window by η/U, compounding; the stage counts per RTT only.
func TestHTSimHPCCFollowsHpccCpp(t *testing.T) {
	s := htsimSender(t, 4096)
	if s.Window() != 150_000-4096+1 || s.Rate() != 100*unit.Gbps {
		t.Fatalf("start: window %d, rate %v; want W 150000 held for a whole packet, line rate", s.Window(), s.Rate())
	}
	path := func(at unit.Time, tx, q int64) []Hop {
		hs := make([]Hop, 5)
		for i := range hs {
			hs[i] = hop100(at, tx/int64(i+1), q)
		}
		return hs
	}
	s.OnFeedback(0, Feedback{Acked: 1, Next: 30, Hops: path(1*us, 0, 8192)})
	if s.cwnd != 154_096 {
		t.Fatalf("first ACK: window %d, want 150000 + 4096", s.cwnd)
	}
	// Within T of the reference: U = η, W += W_AI on every ACK.
	for k, at := range []unit.Time{5 * us, 9 * us, 12 * us} {
		s.OnFeedback(0, Feedback{Acked: 2 + int64(k), Next: 31 + int64(k), Hops: path(at, 1_000_000, 0)})
		if want := int64(154_096 + 4096*(k+1)); s.cwnd != want {
			t.Fatalf("ACK %d, τ < T: window %d, want %d", k+2, s.cwnd, want)
		}
	}
	// 13 us after the reference: the first hop sent at line rate since
	// it (the others less) with 40960 B queued, the reference 8192: U =
	// 1 + min(40960, 8192)+4160 B·8/(B·T), one packet more than the
	// switch's queue as htsim writes INT before the packet leaves.
	w := s.cwnd
	tx := int64(100e9 / 8 * 13e-6)
	U := 1 + float64(8192+4160)*8/(100e9*12e-6)
	for k := range 3 {
		s.OnFeedback(0, Feedback{Acked: 5 + int64(k), Next: 34 + int64(k), Hops: path(14*us, tx, 40960)})
		w = int64(float64(w)*0.95/U) + 4096
		if s.cwnd != w {
			t.Fatalf("ACK %d, τ ≥ T: window %d, want %d (U %.4f, got %.4f)", 5+k, s.cwnd, w, U, s.Utilization())
		}
	}
	if want := unit.BitRate(float64(w) * 8 / 12e-6); math.Abs(float64(s.Rate()-want)) > 1 {
		t.Errorf("rate %v, want W·8/T = %v", s.Rate(), want)
	}
	// An idle path: U = 0.2 < η (the average since the first ACK). Five
	// per-RTT updates add W_AI each, as do the ACKs between; from then on
	// every ACK scales by η/U, until an update scaling so restarts the
	// count.
	last, at := int64(30), 20*us
	const u = 0.2
	stage := 0
	for k := 1; k <= 7; k++ {
		for _, full := range []bool{false, true} {
			acked := last
			if full {
				acked = last + 1
			}
			at += us
			s.OnFeedback(0, Feedback{Acked: acked, Next: last + 10, Hops: path(at, int64(u*100e9/8*float64(at-1*us)/1e12), 0)})
			if stage >= 5 {
				w = int64(float64(w)*0.95/(u+4160*8/(100e9*12e-6))) + 4096
				if full {
					stage = 0
				}
			} else {
				w += 4096
				if full {
					stage++
				}
			}
			if full {
				last += 10
			}
			if d := s.cwnd - w; d < -1 || d > 1 {
				t.Fatalf("U < η, RTT %d (full %v): window %d, want %d", k, full, s.cwnd, w)
			}
		}
	}
	if s.Rate() != 100*unit.Gbps {
		t.Errorf("window %d B above T·line: rate %v, want the line", s.cwnd, s.Rate())
	}
}

// A path whose hop count changes restarts the reference, and U keeps its
// value across it.
func TestHTSimHPCCNewPath(t *testing.T) {
	s := htsimSender(t, 4096)
	s.OnFeedback(0, Feedback{Acked: 1, Next: 10, Hops: []Hop{hop100(0, 0, 0)}})
	s.OnFeedback(0, Feedback{Acked: 2, Next: 11, Hops: []Hop{hop100(20*us, int64(100e9/8*20e-6), 0)}})
	u := s.Utilization()
	w := s.cwnd
	s.OnFeedback(0, Feedback{Acked: 3, Next: 12, Hops: []Hop{hop100(21*us, 0, 0), hop100(21*us, 0, 0), hop100(21*us, 0, 0)}})
	if s.Utilization() != u || s.nref != 3 {
		t.Errorf("new path: U %.4f (was %.4f), %d reference hops; want U kept, 3", s.Utilization(), u, s.nref)
	}
	if want := int64(float64(w)*0.95/u) + 4096; s.cwnd != want {
		t.Errorf("new path: window %d, want the last U's %d", s.cwnd, want)
	}
}

// An ACK none of whose hops can be measured against the reference (no
// INT, or a hop's time not past the reference's) keeps U: before, U fell
// to 0 there and the next multiplicative step (W·η/U) sent the window to
// its bound.
func TestHTSimHPCCNoMeasureKeepsU(t *testing.T) {
	for _, hops := range [][]Hop{nil, {hop100(0, 0, 0)}} {
		s := htsimSender(t, 4096)
		s.stage = s.maxStage
		s.OnFeedback(0, Feedback{Acked: 1, Next: 10, Hops: hops})
		s.OnFeedback(0, Feedback{Acked: 2, Next: 11, Hops: hops})
		if s.Utilization() != 0.95 || s.cwnd >= htsimMaxWindow {
			t.Errorf("%d hops: U %.4f, window %d; want U η kept and a window near T·line", len(hops), s.Utilization(), s.cwnd)
		}
	}
}

func TestHTSimHPCCAllocs(t *testing.T) {
	s := htsimSender(t, 4096)
	hops := []Hop{hop100(0, 0, 0), hop100(0, 0, 0), hop100(0, 0, 0)}
	var n int64
	allocs := testing.AllocsPerRun(100, func() {
		n++
		for i := range hops {
			hops[i].Time += us
			hops[i].TxBytes += 12_000
		}
		s.OnFeedback(0, Feedback{Acked: n, Next: n + 8, Hops: hops})
		_, _ = s.Rate(), s.Window()
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per ACK", allocs)
	}
}
