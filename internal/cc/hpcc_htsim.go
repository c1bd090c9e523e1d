package cc

import (
	"math"

	"rocelab/internal/unit"
)

// htsimMaxWindow bounds HTSimHPCC's window: htsim's has no bound and runs
// away (its packet spacing reaches 0 and it aborts); this one stops where
// int64 arithmetic stays exact enough, far beyond any fabric's BDP.
const htsimMaxWindow = 1 << 50

// htsimHeader is the bytes htsim's HPCC packet adds to its payload
// (hpccpacket.h, HPCCPacket::ACKSIZE).
const htsimHeader = 64

// HTSimHPCC is HPCC's sender as csg-htsim runs it (sim/hpcc.cpp,
// HPCCSrc, 841d9e7), which host.hpcc.htsim selects. It is a window, not a
// rate, and differs from the HPCC ns-3 model's (HPCC) where hpcc.cpp does:
//
//   - every ACK sets the window from the last ACK's window (processAck
//     assigns computeWind's result to _cwnd each time): W·η/U + W_AI when
//     U ≥ η or after max_stage additive stages, else W + W_AI; the stage
//     counts only at the first ACK of each RTT, as in ns-3;
//   - the reference INT is the first ACK's for good (_link_info is written
//     only when the hop count changes), so the load is the average since
//     that ACK, and the queue term min(qlen, that ACK's qlen);
//   - a hop's queue counts the packet that reads it (htsim writes INT as
//     the packet's serialisation ends, before the queue lets it go;
//     queue_lossless_output.cpp, completeService): one packet of W_AI
//     and htsim's 64-byte header (hpccpacket.h, ACKSIZE) more than the
//     queue rocelab's switches write at dequeue;
//   - τ/T divides integer picoseconds: U keeps its start η until a hop's
//     τ reaches T, then takes u whole, with no moving average;
//   - the pacing rate is W·8/T (here no faster than the line) and the
//     window has no cap (here htsimMaxWindow); a packet goes when W holds
//     it whole (_cwnd ≥ _flightsize + _mss).
//
// W_AI is one of htsim's packets: ai_rate·T/8 bytes, rounded half to
// even, so that the whole Mb/s the converter writes for a packet of an
// even size (within half a byte of it) give that size back. The stage count starts at 0 (hpcc.cpp never sets
// _incStage).
type HTSimHPCC struct {
	ackDriven
	line     int64
	t        int64 // T, ps
	eta      float64
	maxStage int64
	wai      int64 // W_AI, bytes
	intBytes uint8

	cwnd    int64
	u       float64
	stage   int64
	lastSeq int64
	ref     [8]Hop
	nref    int
}

// newHTSim returns csg-htsim's sender at line rate from the clamped knobs
// v: its window starts at window (line rate × T when 0) and U at η.
func newHTSim(line unit.BitRate, v HPCCConfig) *HTSimHPCC {
	l := max(int64(line), 1)
	t, w := window(l, v.BaseRTT, v.Window)
	tps := t * int64(unit.Nanosecond)
	wai := max(int64(math.RoundToEven(float64(v.AIRate)*float64(unit.Mbps)*float64(tps)/float64(unit.Second)/8)), 1)
	eta := float64(v.Eta) / 1000
	return &HTSimHPCC{line: l, t: tps, eta: eta, maxStage: v.MaxStage, wai: wai, intBytes: uint8(v.INTBytes), cwnd: w, u: eta}
}

// Rate returns the pacing rate W·8/T, no faster than the line.
func (h *HTSimHPCC) Rate() unit.BitRate {
	r := float64(h.cwnd) * 8 * float64(unit.Second) / float64(h.t)
	return unit.BitRate(min(r, float64(h.line)))
}

// Window returns the bytes in flight below which the QP may send: htsim
// sends a packet when the window holds it whole.
func (h *HTSimHPCC) Window() int64 { return max(h.cwnd-h.wai+1, 1) }

// Wire asks for INT on every data packet and an ACK for each, as
// htsim's sink ACKs every packet with the packet's INT.
func (h *HTSimHPCC) Wire() Wire { return Wire{INT: true, INTBytes: h.intBytes, AckEach: true} }

// Utilization returns U, the utilisation the last ACK set.
func (h *HTSimHPCC) Utilization() float64 { return h.u }

// OnFeedback takes one ACK: measureInFlight, then computeWind with the
// window it sets (hpcc.cpp, processAck).
func (h *HTSimHPCC) OnFeedback(_ unit.Time, f Feedback) {
	if len(f.Hops) != h.nref {
		h.nref = copy(h.ref[:], f.Hops)
	} else {
		h.measure(f.Hops)
	}
	full := f.Acked > h.lastSeq
	if h.u >= h.eta || h.stage >= h.maxStage {
		h.cwnd = int64(min(float64(h.cwnd)*h.eta/h.u, htsimMaxWindow)) + h.wai
		if full {
			h.stage = 0
		}
	} else {
		h.cwnd += h.wai
		if full {
			h.stage++
		}
	}
	h.cwnd = min(h.cwnd, htsimMaxWindow)
	if full {
		h.lastSeq = f.Next
	}
}

// measure sets U from the hops against the reference: u is the largest
// hop's min(qlen, qlen₀)·8/(B·T) + txRate/B, and U takes it when that
// hop's τ is at least T.
func (h *HTSimHPCC) measure(hops []Hop) {
	u, tau := 0.0, int64(-1)
	for i := range hops {
		n, o := &hops[i], &h.ref[i]
		dt := int64(n.Time - o.Time)
		if dt <= 0 || n.Rate <= 0 {
			continue // htsim divides by zero here and keeps U
		}
		b := float64(n.Rate)
		tx := float64(n.TxBytes-o.TxBytes) * 8 * float64(unit.Second) / float64(dt)
		v := float64(min(n.QLen, o.QLen)+h.wai+htsimHeader)*8*float64(unit.Second)/(b*float64(h.t)) + tx/b
		if v > u || tau < 0 {
			u, tau = v, dt
		}
	}
	if tau >= h.t { // no hop measured (tau -1) keeps U too
		h.u = u
	}
}
