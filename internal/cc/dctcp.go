package cc

import "rocelab/internal/unit"

// DCTCPConfig holds the knobs of DCTCP as the HPCC ns-3 model runs it over
// RDMA (CC_MODE 8, rdma-hw.cc HandleAckDctcp): DCTCP's α estimator and its
// once-a-window cut (Alizadeh et al., "Data Center TCP", SIGCOMM 2010)
// applied to a sending rate, by the names of DCTCPKnobs, in their units.
// Presets fill it.
type DCTCPConfig struct {
	G            int64 // g: α gain, 1/1024
	InitialAlpha int64 // initial_alpha, 1/1024
	AIRate       int64 // ai_rate: additive increase per window, Mb/s
	MinRate      int64 // min_rate, Mb/s
	UseWindow    int64 // use_window: 1 holds bytes in flight below W·rate/line
	BaseRTT      int64 // base_rtt T, ns; 0: the NIC's longest path, set before New
	Window       int64 // window W, bytes; 0: line rate × T
}

// DCTCPKnobs is DCTCP's knob table.
var DCTCPKnobs = &params[DCTCPConfig]{algo: "DCTCP", table: []Param[DCTCPConfig]{
	{Name: "g", Unit: "1/1024", Min: 1, Max: 1024, Paper: 64, NS3: 64,
		Meaning: "α gain g: once a window α ← (1−g)·α + g·F, F the share of the window's ACKs that echoed a CE mark",
		Note:    "the paper's g = 1/16; ns-3 EWMA_GAIN, which run.py's dctcp sets to 0.0625 (its DCQCN to 1/256)",
		field:   func(c *DCTCPConfig) *int64 { return &c.G }},
	{Name: "initial_alpha", Unit: "1/1024", Min: 0, Max: 1024, Paper: 1024, NS3: 1024,
		Meaning: "α of a new QP: its first cut takes the rate to (1 − α/2)",
		Note:    "ns-3 starts at 1, as Linux's dctcp_alpha_on_init",
		field:   func(c *DCTCPConfig) *int64 { return &c.InitialAlpha }},
	{Name: "ai_rate", Unit: "Mb/s", Min: 0, Max: 1_000_000, Paper: 615, NS3: 615,
		Meaning: "additive increase: the rate grows by this once a window while no cut is pending",
		Note:    "ns-3 DCTCP_RATE_AI; run.py's dctcp writes 615, one 1 KB MTU per 13 µs RTT (DCTCP's one segment per RTT); RdmaHw's default is 1000",
		field:   func(c *DCTCPConfig) *int64 { return &c.AIRate }},
	{Name: "min_rate", Unit: "Mb/s", Min: 1, Max: 10_000_000, Paper: 1000, NS3: 1000,
		Meaning: "rate floor",
		Note:    "ns-3 run.py MIN_RATE",
		field:   func(c *DCTCPConfig) *int64 { return &c.MinRate }},
	{Name: "use_window", Unit: "bool", Min: 0, Max: 1, Paper: 1, NS3: 1,
		Meaning: "1: bytes in flight are held below W·rate/line (ns-3 HAS_WIN 1, VAR_WIN 1, as run.py's dctcp); 0: the rate alone (HAS_WIN 0)",
		field:   func(c *DCTCPConfig) *int64 { return &c.UseWindow }},
	{Name: "base_rtt", Unit: "ns", Min: 0, Max: 1_000_000_000, Paper: 0, NS3: 0,
		Meaning: "T, the round trip the default window is sized by; 0 takes the fabric's longest path",
		Note:    "ns-3 GLOBAL_T 1: the largest RTT over all host pairs",
		field:   func(c *DCTCPConfig) *int64 { return &c.BaseRTT }},
	{Name: "window", Unit: "B", Min: 0, Max: 1 << 40, Paper: 0, NS3: 0,
		Meaning: "W, the window at line rate; 0 is line rate × T (ns-3's largest bandwidth-delay product)",
		field:   func(c *DCTCPConfig) *int64 { return &c.Window }},
}}

// DCTCPPreset returns the named DCTCP configuration: "paper" or "ns3".
func DCTCPPreset(name string) (DCTCPConfig, error) {
	var c DCTCPConfig
	return c, DCTCPKnobs.preset(&c, name)
}

// Set sets the knob called name to v; out of range or unknown is an error.
func (c *DCTCPConfig) Set(name string, v int64) error { return DCTCPKnobs.set(c, name, v) }

// Get returns the knob called name.
func (c *DCTCPConfig) Get(name string) (int64, error) { return DCTCPKnobs.get(c, name) }

// Validate reports the first knob out of range.
func (c *DCTCPConfig) Validate() error { return DCTCPKnobs.validate(c) }

// DCTCP is the sender of one queue pair under the HPCC ns-3 model's DCTCP
// (CC_MODE 8). The responder echoes, on each ACK, whether the data packet
// that triggered it arrived CE-marked; the sender
//
//   - counts the echoing ACKs, and once a window (the first ACK beyond the
//     sequence sent at the last update) sets α ← (1−g)·α + g·F with F the
//     count over the packets that were in flight at that update plus one,
//     capped at 1;
//   - on an echoing ACK outside a cut's window cuts the rate to
//     rate·(1 − α/2), not below min_rate, and ignores further echoes until
//     an ACK passes the sequence sent at the cut (TCP's CWR state);
//   - outside that state, at each update adds ai_rate, not above line.
//
// The first ACK only opens the first window, counting its echo. With
// use_window, bytes in flight stay below W·rate/line. DCTCP has no timer
// and ignores CNPs.
type DCTCP struct {
	ackDriven
	line, minRate, ai int64
	g                 float64
	w                 int64 // window at line rate, bytes; 0 none

	rate     int64
	alpha    float64
	marked   int64 // echoing ACKs since the last update
	batch    int64 // packets the current update's F is counted over
	lastSeq  int64 // sequence sent at the last update
	highSeq  int64 // sequence sent at the last cut
	primed   bool
	reducing bool
	stats    DCTCPStats
}

// DCTCPStats counts what a DCTCP sender did.
type DCTCPStats struct {
	Updates, Cuts, Increases int64
}

// New returns DCTCP for a QP on a port of the given line rate, starting at
// line rate. Out-of-range knobs are clamped into range; a zero base_rtt is
// taken as 10 µs (the caller should set it).
func (c *DCTCPConfig) New(line unit.BitRate) *DCTCP {
	v := DCTCPKnobs.clamped(*c)
	l := max(int64(line), 1)
	var w int64
	if v.UseWindow == 1 {
		_, w = window(l, v.BaseRTT, v.Window)
	}
	mbps := func(x int64) int64 { return x * int64(unit.Mbps) }
	return &DCTCP{
		line: l, minRate: min(mbps(v.MinRate), l), ai: mbps(v.AIRate),
		g: float64(v.G) / 1024, w: w,
		rate: l, alpha: float64(v.InitialAlpha) / 1024,
	}
}

// Rate returns the current rate.
func (d *DCTCP) Rate() unit.BitRate { return unit.BitRate(d.rate) }

// Alpha returns the current α.
func (d *DCTCP) Alpha() float64 { return d.alpha }

// Stats returns what the sender has done.
func (d *DCTCP) Stats() DCTCPStats { return d.stats }

// Window returns the bytes the QP may have in flight now, W·rate/line (at
// least 1), or 0 without a window.
func (d *DCTCP) Window() int64 {
	if d.w == 0 {
		return 0
	}
	return scaled(d.w, d.rate, d.line)
}

// Wire asks for an ACK per data packet, each echoing the packet's CE mark:
// DCTCP counts the echoing ACKs, one per packet as in the ns-3 model.
func (d *DCTCP) Wire() Wire { return Wire{EchoCE: true, AckEach: true} }

// OnFeedback takes one acknowledgement: its sequences and its ECN echo.
func (d *DCTCP) OnFeedback(_ unit.Time, f Feedback) {
	if f.CE {
		d.marked++
	}
	update := !d.primed || f.Acked > d.lastSeq
	if update {
		if d.primed {
			frac := min(1, float64(d.marked)/float64(d.batch))
			d.alpha = float64((1-d.g)*d.alpha) + float64(d.g*frac)
			d.marked = 0
			d.batch = f.Next - f.Acked + 1
			d.stats.Updates++
		} else {
			d.primed, d.batch = true, f.Next+1
		}
		d.lastSeq = f.Next
	}
	if d.reducing && f.Acked > d.highSeq {
		d.reducing = false
	}
	if f.CE && !d.reducing {
		d.rate = max(int64(float64(d.rate)*(1-d.alpha/2)), d.minRate)
		d.reducing, d.highSeq = true, f.Next
		d.stats.Cuts++
	}
	if update && !d.reducing {
		d.rate = min(d.rate+d.ai, d.line)
		d.stats.Increases++
	}
}
