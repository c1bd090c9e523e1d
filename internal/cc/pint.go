package cc

import (
	"math"

	"rocelab/internal/unit"
)

// PINTConfig holds the knobs of HPCC-PINT as the HPCC ns-3 model runs it
// (CC_MODE 10; Ben Basat et al., "PINT: Probabilistic In-band Network
// Telemetry", SIGCOMM 2020): HPCC driven by one number per packet, the
// largest utilisation of the hops it crossed, each hop's written as a
// randomly rounded power of log_base. By the names of PINTKnobs, in their
// units; presets fill it.
type PINTConfig struct {
	Eta      int64 // eta: target utilisation η, 1/1000
	MaxStage int64 // max_stage: additive stages before a multiplicative update
	AIRate   int64 // ai_rate: additive increase, Mb/s
	MinRate  int64 // min_rate, Mb/s
	LogBase  int64 // log_base: the encoding's base, 1/1000 (1010 is 1.01)
	BaseRTT  int64 // base_rtt T, ns; 0: the NIC's longest path, set before New
	Window   int64 // window W, bytes; 0: line rate × T
}

// PINTKnobs is HPCC-PINT's knob table.
var PINTKnobs = &params[PINTConfig]{algo: "HPCC-PINT", table: []Param[PINTConfig]{
	{Name: "eta", Unit: "1/1000", Min: 1, Max: 1000, Paper: 950, NS3: 950,
		Meaning: "target utilisation η: the rate is scaled by η/U, U the largest hop utilisation the ACK echoes",
		Note:    "ns-3 U_TARGET",
		field:   func(c *PINTConfig) *int64 { return &c.Eta }},
	{Name: "max_stage", Unit: "stages", Min: 0, Max: 1 << 20, Paper: 0, NS3: 0,
		Meaning: "per-RTT updates of additive increase (U < η) before a multiplicative one",
		Note:    "ns-3 MI_THRESH",
		field:   func(c *PINTConfig) *int64 { return &c.MaxStage }},
	{Name: "ai_rate", Unit: "Mb/s", Min: 0, Max: 1_000_000, Paper: 40, NS3: 40,
		Meaning: "additive increase W_AI as a rate, added at every update",
		Note:    "ns-3 run.py RATE_AI = 10·bw/25 Mb/s, 40 at 100G",
		field:   func(c *PINTConfig) *int64 { return &c.AIRate }},
	{Name: "min_rate", Unit: "Mb/s", Min: 1, Max: 10_000_000, Paper: 1000, NS3: 1000,
		Meaning: "rate floor",
		Note:    "ns-3 run.py MIN_RATE",
		field:   func(c *PINTConfig) *int64 { return &c.MinRate }},
	{Name: "log_base", Unit: "1/1000", Min: 1001, Max: 2000, Paper: 1010, NS3: 1010,
		Meaning: "base b of the encoding: a hop writes log_b(⌈512·u⌉), rounded up or down at random in proportion, if above what the packet carries",
		Note:    "ns-3 PINT_LOG_BASE, run.py's default 1.01 (2 bytes on the wire; 1.05 and above, 1 byte)",
		field:   func(c *PINTConfig) *int64 { return &c.LogBase }},
	{Name: "base_rtt", Unit: "ns", Min: 0, Max: 1_000_000_000, Paper: 0, NS3: 0,
		Meaning: "T, the period of the switches' utilisation average and the default window's round trip; 0 takes the fabric's longest path",
		Note:    "ns-3 GLOBAL_T 1 and the switches' MaxRtt",
		field:   func(c *PINTConfig) *int64 { return &c.BaseRTT }},
	{Name: "window", Unit: "B", Min: 0, Max: 1 << 40, Paper: 0, NS3: 0,
		Meaning: "W, the window at line rate; bytes in flight are held below W·rate/line (ns-3 HAS_WIN 1, VAR_WIN 1); 0 is line rate × T",
		field:   func(c *PINTConfig) *int64 { return &c.Window }},
}}

// PINTPreset returns the named HPCC-PINT configuration: "paper" or "ns3".
func PINTPreset(name string) (PINTConfig, error) {
	var c PINTConfig
	return c, PINTKnobs.preset(&c, name)
}

// Set sets the knob called name to v; out of range or unknown is an error.
func (c *PINTConfig) Set(name string, v int64) error { return PINTKnobs.set(c, name, v) }

// Get returns the knob called name.
func (c *PINTConfig) Get(name string) (int64, error) { return PINTKnobs.get(c, name) }

// Validate reports the first knob out of range.
func (c *PINTConfig) Validate() error { return PINTKnobs.validate(c) }

// pintFlows is the ns-3 model's max_concurrent: utilisation is encoded in
// units of 1/512.
const pintFlows = 512

// PINTCode is the encoding of one log base: what a hop writes and what a
// sender reads back.
type PINTCode struct {
	base, factor float64
}

// Code returns the encoding of the configuration's log base.
func (c *PINTConfig) Code() PINTCode {
	b := float64(min(max(c.LogBase, 1001), 2000)) / 1000
	return PINTCode{base: b, factor: 1 / math.Log(b)}
}

// Bytes is what the encoded value adds to a data packet and the ACK that
// echoes it: enough bytes for the largest code, log_b(512²).
func (p PINTCode) Bytes() int32 {
	bits := int32(math.Ceil(math.Log2(math.Log(pintFlows*pintFlows) * p.factor)))
	return (bits + 7) / 8
}

// Encode returns the code of utilisation u, rounding log_b(⌈512·u⌉) up
// with probability in proportion to where it lies between the two powers;
// draw is uniform in [0, 1).
func (p PINTCode) Encode(u, draw float64) uint16 {
	x := max(math.Ceil(u*pintFlows), 1)
	pw := math.Log(x) * p.factor
	hi, lo := math.Ceil(pw), math.Floor(pw)
	if hi == lo {
		return uint16(lo)
	}
	upper, lower := math.Pow(p.base, hi), math.Pow(p.base, lo)
	if draw < (x-lower)/(upper-lower) {
		return uint16(hi)
	}
	return uint16(lo)
}

// Decode returns the utilisation a code stands for, b^code / 512.
func (p PINTCode) Decode(code uint16) float64 { return math.Pow(p.base, float64(code)) / pintFlows }

// PINT is HPCC-PINT's sender for one queue pair, as the HPCC ns-3 model's
// UpdateRateHpPint: each ACK echoes a code, U its utilisation, and
//
//   - the rate from the last committed rate Rc: Rc·η/U + W_AI when U ≥ η or
//     after max_stage additive stages, else Rc + W_AI, within [min_rate,
//     line];
//   - the first ACK of each RTT (beyond the sequence sent at the last
//     update) commits it as Rc and counts the stage; the ACKs between only
//     set the rate.
//
// The first ACK only opens the first RTT. The window is W·rate/line.
// There is no sender-side average: the switches keep it (fabric).
type PINT struct {
	hpccCore
	code PINTCode
}

// New returns HPCC-PINT for a QP on a port of the given line rate,
// starting at line rate. A zero base_rtt is taken as 10 µs; the caller
// should set it.
func (c *PINTConfig) New(line unit.BitRate) *PINT {
	v := PINTKnobs.clamped(*c)
	core, _ := newHPCCCore(line, v.Eta, v.MaxStage, v.AIRate, v.MinRate, v.BaseRTT, v.Window)
	return &PINT{hpccCore: core, code: v.Code()}
}

// Wire asks for the code on every data packet and an ACK for each, which
// echoes it; the NIC reads it once, when it connects the QP.
func (h *PINT) Wire() Wire { return Wire{PINTBytes: uint8(h.code.Bytes()), AckEach: true} }

// OnFeedback takes one acknowledgement's code.
func (h *PINT) OnFeedback(_ unit.Time, f Feedback) {
	if h.opens(f) {
		return
	}
	full := h.ends(f)
	u := h.code.Decode(f.PINT)
	h.stats.MaxU = max(h.stats.MaxU, u)
	h.update(u, full)
	h.next(f, full)
}
