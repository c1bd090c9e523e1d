package cc

import "rocelab/internal/unit"

// HPCCConfig holds HPCC's knobs (Li et al., "HPCC: High Precision
// Congestion Control", SIGCOMM 2019), by the names of HPCCKnobs, in their
// units. Presets fill it.
type HPCCConfig struct {
	Eta       int64 // eta: target utilisation η, 1/1000
	MaxStage  int64 // max_stage: additive-increase stages before a multiplicative update
	AIRate    int64 // ai_rate: additive increase W_AI as a rate, Mb/s
	MinRate   int64 // min_rate, Mb/s
	BaseRTT   int64 // base_rtt T, ns; 0: the NIC's longest path, set before New
	Window    int64 // window W, bytes; 0: line rate × T
	FastReact int64 // fast_react: 1 reacts to every ACK between per-RTT updates
	INTBytes  int64 // int_bytes: what INT adds on the wire to a data packet and its ACK
	HTSim     int64 // htsim: 1 runs csg-htsim's sender (HTSimHPCC) on these knobs
}

// HPCCKnobs is HPCC's knob table.
var HPCCKnobs = &params[HPCCConfig]{algo: "HPCC", table: []Param[HPCCConfig]{
	{Name: "eta", Unit: "1/1000", Min: 1, Max: 1000, Paper: 950, NS3: 950,
		Meaning: "target utilisation η of the most loaded hop: the rate is scaled by η/U",
		Note:    "ns-3 U_TARGET; the HPCC project page later recommends 99 %",
		field:   func(c *HPCCConfig) *int64 { return &c.Eta }},
	{Name: "max_stage", Unit: "stages", Min: 0, Max: 1 << 20, Paper: 5, NS3: 0,
		Meaning: "per-RTT updates of additive increase (U < η) before a multiplicative one",
		Note:    "the paper prints maxStage = 5; its project page says that is a typo and the runs used 0 (ns-3 MI_THRESH 0)",
		field:   func(c *HPCCConfig) *int64 { return &c.MaxStage }},
	{Name: "ai_rate", Unit: "Mb/s", Min: 0, Max: 1_000_000, Paper: 40, NS3: 40,
		Meaning: "additive increase W_AI, as a rate (W_AI / T), added at every update",
		Note:    "ns-3 run.py RATE_AI = 10·bw/25 Mb/s, 40 at 100G",
		field:   func(c *HPCCConfig) *int64 { return &c.AIRate }},
	{Name: "min_rate", Unit: "Mb/s", Min: 1, Max: 10_000_000, Paper: 1000, NS3: 1000,
		Meaning: "rate floor",
		Note:    "ns-3 run.py MIN_RATE",
		field:   func(c *HPCCConfig) *int64 { return &c.MinRate }},
	{Name: "base_rtt", Unit: "ns", Min: 0, Max: 1_000_000_000, Paper: 0, NS3: 0,
		Meaning: "T, the base RTT the queue term and the EWMA are normalised by; 0 takes the fabric's longest path",
		Note:    "ns-3 GLOBAL_T 1 uses the largest RTT over all host pairs: 2 × propagation + one MTU packet's serialisation per hop",
		field:   func(c *HPCCConfig) *int64 { return &c.BaseRTT }},
	{Name: "window", Unit: "B", Min: 0, Max: 1 << 40, Paper: 0, NS3: 0,
		Meaning: "W, the window at line rate; bytes in flight are held below W·rate/line (ns-3 VAR_WIN 1); 0 is line rate × T",
		field:   func(c *HPCCConfig) *int64 { return &c.Window }},
	{Name: "fast_react", Unit: "bool", Min: 0, Max: 1, Paper: 1, NS3: 1,
		Meaning: "1: every ACK recomputes the rate from the last committed one; the per-RTT update commits it",
		field:   func(c *HPCCConfig) *int64 { return &c.FastReact }},
	{Name: "int_bytes", Unit: "B", Min: 0, Max: 255, Paper: 42, NS3: 42,
		Meaning: "bytes INT adds on the wire to each data packet and to the ACK that echoes it: five 8-byte hop records and a 2-byte hop count",
		Note:    "the paper's 42 bytes, ns-3's IntHeader; csg-htsim's INT occupies none (0: its HPCCPacket's size is the payload and its 64-byte header)",
		field:   func(c *HPCCConfig) *int64 { return &c.INTBytes }},
	{Name: "htsim", Unit: "bool", Min: 0, Max: 1, Paper: 0, NS3: 0,
		Meaning: "1: csg-htsim's sender (hpcc.cpp): a window every ACK sets from the last ACK's, INT measured against the first ACK's, U taken whole once τ reaches T, W_AI = ai_rate·T/8 bytes; fast_react and min_rate unused",
		Note:    "for runs imported from htsim_hpcc (docs/engine.md)",
		field:   func(c *HPCCConfig) *int64 { return &c.HTSim }},
}}

// HPCCPreset returns the named HPCC configuration: "paper" or "ns3".
func HPCCPreset(name string) (HPCCConfig, error) {
	var c HPCCConfig
	return c, HPCCKnobs.preset(&c, name)
}

// Set sets the knob called name to v; out of range or unknown is an error.
func (c *HPCCConfig) Set(name string, v int64) error { return HPCCKnobs.set(c, name, v) }

// Get returns the knob called name.
func (c *HPCCConfig) Get(name string) (int64, error) { return HPCCKnobs.get(c, name) }

// Validate reports the first knob out of range.
func (c *HPCCConfig) Validate() error { return HPCCKnobs.validate(c) }

// Hop is one switch egress port's in-band telemetry as an ACK echoes it.
type Hop struct {
	Port    int32 // which port wrote it: a changed path restarts the hop
	Time    unit.Time
	TxBytes int64
	QLen    int64
	Rate    unit.BitRate
}

// HPCC is HPCC's sender for one queue pair, as the HPCC ns-3 model runs it
// (rdma-hw.cc, CC_MODE 3, one rate for all hops):
//
//   - each ACK echoes the INT of every hop the data packet crossed; for
//     each hop, against the previous record of that hop, the link's
//     normalised load is u = txRate/B + min(qlen, qlen_prev)·8/(B·T);
//   - U is the largest u, and τ the time between that hop's records; the
//     utilisation estimate moves as u ← (u·(T − τ) + U·τ)/T, τ ≤ T;
//   - the rate from the last committed rate Rc: Rc·η/u + W_AI when u ≥ η or
//     after max_stage additive stages, else Rc + W_AI, within [min_rate,
//     line];
//   - the first ACK of each RTT (one beyond the sequence sent at the last
//     update) commits the new rate as Rc and counts the stage; the ACKs
//     between only set the rate (fast_react).
//
// The window is W·rate/line. The first ACK only records the hops.
type HPCC struct {
	hpccCore
	t        float64 // base RTT, ns
	fast     bool
	intBytes uint8

	u     float64
	hops  [8]Hop
	nhops int
}

// hpccCore is what HPCC and HPCC-PINT share: the rate rule's knobs, the
// window at line rate, the rate, the committed rate Rc with its stage
// count, and the sequence that ends the current RTT.
type hpccCore struct {
	ackDriven
	line, minRate int64
	eta           float64
	maxStage      int64
	ai            int64
	w             int64 // window at line rate, bytes

	rate, rc int64
	stage    int64
	lastSeq  int64 // the sequence sent at the last committed update
	primed   bool
	stats    HPCCStats
}

// HPCCStats counts what an HPCC sender did.
type HPCCStats struct {
	Updates, FastReacts int64
	// MaxU is the largest utilisation estimate seen.
	MaxU float64
}

// newHPCCCore returns the shared state of a sender at line rate: knobs in
// their units (rates Mb/s, η 1/1000, base RTT ns, window bytes), and the
// base RTT T it sized its window by.
func newHPCCCore(line unit.BitRate, eta, maxStage, aiRate, minRate, baseRTT, win int64) (hpccCore, int64) {
	l := max(int64(line), 1)
	t, w := window(l, baseRTT, win)
	mbps := func(x int64) int64 { return x * int64(unit.Mbps) }
	return hpccCore{
		line: l, minRate: min(mbps(minRate), l), eta: float64(eta) / 1000, maxStage: maxStage,
		ai: mbps(aiRate), w: w, rate: l, rc: l,
	}, t
}

// Sender returns the sender the knobs select for a QP on a port of the
// given line rate: csg-htsim's (HTSimHPCC) with htsim 1, else the HPCC
// ns-3 model's (New).
func (c *HPCCConfig) Sender(line unit.BitRate) AckDriven {
	if v := HPCCKnobs.clamped(*c); v.HTSim == 1 {
		return newHTSim(line, v)
	}
	return c.New(line)
}

// New returns HPCC for a QP on a port of the given line rate, starting at
// line rate. A zero base_rtt is taken as 10 µs; the caller should set it.
func (c *HPCCConfig) New(line unit.BitRate) *HPCC {
	v := HPCCKnobs.clamped(*c)
	core, t := newHPCCCore(line, v.Eta, v.MaxStage, v.AIRate, v.MinRate, v.BaseRTT, v.Window)
	return &HPCC{hpccCore: core, t: float64(t), fast: v.FastReact == 1, intBytes: uint8(v.INTBytes), u: 1}
}

// Rate returns the current rate.
func (h *hpccCore) Rate() unit.BitRate { return unit.BitRate(h.rate) }

// Window returns the bytes the QP may have in flight now: W·rate/line.
func (h *hpccCore) Window() int64 { return scaled(h.w, h.rate, h.line) }

// Stats returns what the sender has done.
func (h *hpccCore) Stats() HPCCStats { return h.stats }

// update sets the rate from the utilisation u by hpccRate; at the first
// ACK of an RTT (full) it also commits it as Rc and counts the stage.
func (h *hpccCore) update(u float64, full bool) {
	rate, stage := hpccRate(h.rc, u, h.eta, h.stage, h.maxStage, h.ai, h.line, h.minRate)
	h.rate = rate
	if full {
		h.rc, h.stage = rate, stage
		h.stats.Updates++
	} else {
		h.stats.FastReacts++
	}
}

// opens reports whether f is the first ACK, which only opens the first
// RTT: up to the sequence it says will be sent next.
func (h *hpccCore) opens(f Feedback) bool {
	if h.primed {
		return false
	}
	h.primed, h.lastSeq = true, f.Next
	return true
}

// ends reports whether f ends the current RTT: it acknowledges past the
// sequence sent when the last one ended.
func (h *hpccCore) ends(f Feedback) bool { return f.Acked > h.lastSeq }

// next opens the next RTT, up to f's next sequence, when f ended one.
func (h *hpccCore) next(f Feedback, full bool) {
	if full && f.Next > h.lastSeq {
		h.lastSeq = f.Next
	}
}

// Wire asks for INT on every data packet, int_bytes on the wire, and an
// ACK for each: HPCC takes its signal from every packet's INT.
func (h *HPCC) Wire() Wire { return Wire{INT: true, INTBytes: h.intBytes, AckEach: true} }

// window returns the base RTT T (ns; 10 µs when 0, which the caller should
// not leave) and the window at line rate W (bytes; line rate × T when 0)
// of a windowed controller.
func window(line, baseRTT, w int64) (t, win int64) {
	t = baseRTT
	if t == 0 {
		t = 10_000
	}
	if w == 0 {
		w = max(int64(float64(line)*float64(t)/8e9), 1)
	}
	return t, w
}

// scaled is the window w at line rate scaled to rate, at least 1 byte
// (ns-3's VAR_WIN).
func scaled(w, rate, line int64) int64 {
	return max(int64(float64(w)*(float64(rate)/float64(line))), 1)
}

// hpccRate is HPCC's rate rule, shared by HPCC-PINT: from the committed
// rate rc and the utilisation u, rc·η/u + W_AI when u ≥ η or after
// maxStage additive stages, else rc + W_AI, within [minRate, line]; with
// the stage count it leaves.
func hpccRate(rc int64, u, eta float64, stage, maxStage, ai, line, minRate int64) (rate, next int64) {
	c := u / eta
	var r float64
	next = stage + 1
	if c >= 1 || stage >= maxStage {
		r = float64(rc)/max(c, 1e-9) + float64(ai)
		next = 0
	} else {
		r = float64(rc + ai)
	}
	rate = line
	if r < float64(line) {
		rate = max(int64(r), minRate)
	}
	return rate, next
}

// Utilization returns the current utilisation estimate u.
func (h *HPCC) Utilization() float64 { return h.u }

// OnFeedback takes one acknowledgement's INT.
func (h *HPCC) OnFeedback(_ unit.Time, f Feedback) {
	if len(f.Hops) == 0 {
		return
	}
	if h.opens(f) {
		h.store(f.Hops)
		return
	}
	full := h.ends(f)
	if !full && !h.fast {
		return
	}
	var peak float64
	var tau unit.Time
	seen := false
	for i := range f.Hops {
		n, o := &f.Hops[i], &h.hops[i]
		if i >= h.nhops || n.Port != o.Port || n.Time <= o.Time || n.Rate <= 0 {
			continue
		}
		dt := n.Time - o.Time
		b := float64(n.Rate)
		tx := float64(n.TxBytes-o.TxBytes) * 8 / (float64(dt) / float64(unit.Second))
		u := tx/b + float64(min(n.QLen, o.QLen))*8/float64(b*(h.t/1e9))
		if u > peak || !seen {
			peak, tau = u, dt
		}
		seen = true
	}
	h.store(f.Hops)
	if seen {
		t := min(float64(tau)/float64(unit.Nanosecond), h.t)
		h.u = (float64(h.u*(h.t-t)) + float64(peak*t)) / h.t
		h.stats.MaxU = max(h.stats.MaxU, h.u)
		h.update(h.u, full)
	}
	h.next(f, full)
}

func (h *HPCC) store(hops []Hop) {
	h.nhops = copy(h.hops[:], hops)
}
