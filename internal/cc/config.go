package cc

import (
	"fmt"
	"strings"
)

// Variant is the shape of the reaction-point algorithm: the parts of DCQCN
// that differ between the SIGCOMM 2015 paper and the ConnectX firmware
// beyond the values of the knobs. A preset fixes it; docs/cc.md compares the
// two step by step.
type Variant uint8

const (
	// VariantMLX5 is DCQCN as ConnectX NICs run it, after the HPCC ns-3
	// "Mellanox DCQCN" model (CC_MODE 1) and the mlx5 knob descriptions:
	// α is updated once per dce_tcp_rtt period, up if a CNP arrived in the
	// period and down otherwise, on a grid that starts at the first CNP; the
	// first CNP allocates a rate limiter and sets α to initial_alpha_value
	// without adding its own increment; hyper increase adds a constant
	// rpg_hai_rate; and the limiter is released, forgetting α, when the
	// rate climbs back to rpg_max_rate.
	VariantMLX5 Variant = iota
	// VariantPaper is DCQCN as Zhu et al. describe it and htsim's DCQCNSrc
	// codes it: each CNP raises α at once (after the cut that uses the old
	// α), α decays once per dce_tcp_rtt period (the paper's K) counted from
	// the last CNP, hyper increase adds i·rpg_hai_rate with i the number of
	// stages past F, and the QP keeps its α between congestion episodes.
	VariantPaper
)

// String returns "mlx5" or "paper".
func (v Variant) String() string {
	if v == VariantPaper {
		return "paper"
	}
	return "mlx5"
}

// CNP pacing scopes, the values of the cnp_pacing_scope knob: which CNPs
// share one min_time_between_cnps gap at the notification point.
const (
	// ScopePort: one gap for all CNPs a NIC port sends. The mlx5 PRM field
	// description (as mstflint prints it) and the kernel patch both say
	// "minimum time between sending cnps from the port".
	ScopePort int64 = 0
	// ScopeQP: one gap per QP, the paper's "at most one CNP every N µs per
	// flow".
	ScopeQP int64 = 1
)

// DCQCNConfig holds every DCQCN knob under its mlx5 name, in mlx5 units
// (µs, Mb/s, bytes, 1/1024). Set and Get address the fields by name; Knobs
// lists names, units, ranges and meanings. Presets fill it; the zero value
// is not a valid configuration.
type DCQCNConfig struct {
	// Variant is the algorithm's shape; Preset sets it.
	Variant Variant

	DceTcpG                  int64 // dce_tcp_g, 1/1024
	DceTcpRtt                int64 // dce_tcp_rtt, µs
	InitialAlphaValue        int64 // initial_alpha_value, 1/1024
	RateReduceMonitorPeriod  int64 // rate_reduce_monitor_period, µs
	RpgGd                    int64 // rpg_gd, log2 of Gd in Q10
	RpgMinDecFac             int64 // rpg_min_dec_fac, %
	RpgMinRate               int64 // rpg_min_rate, Mb/s
	RpgMaxRate               int64 // rpg_max_rate, Mb/s
	RateToSetOnFirstCnp      int64 // rate_to_set_on_first_cnp, Mb/s
	RpgTimeReset             int64 // rpg_time_reset, µs
	RpgByteReset             int64 // rpg_byte_reset, bytes
	RpgThreshold             int64 // rpg_threshold (F)
	RpgAiRate                int64 // rpg_ai_rate, Mb/s
	RpgHaiRate               int64 // rpg_hai_rate, Mb/s
	ClampTgtRate             int64 // clamp_tgt_rate, 0/1
	ClampTgtRateAfterTimeInc int64 // clamp_tgt_rate_after_time_inc, 0/1
	MinTimeBetweenCnps       int64 // min_time_between_cnps, µs
	CnpDscp                  int64 // cnp_dscp
	Cnp802pPrio              int64 // cnp_802p_prio
	RoceCcPrioMask           int64 // roce_cc_prio_mask (ROCE_CC_PRIO_MASK)
	CnpPacingScope           int64 // cnp_pacing_scope (rocelab)
}

// A Knob describes one DCQCN parameter: the one table the scenario loader,
// the tuner's lint and its config generator read.
type Knob struct {
	// Name is the mlx5 sysfs attribute (/sys/class/net/<if>/ecn/roce_rp/ or
	// roce_np/), or for the priority mask the mlxconfig name in lower case.
	Name string
	// Point is where the knob acts: "rp" (sender), "np" (receiver) or
	// "port" (both).
	Point string
	// Unit is the unit of the value, e.g. "us", "Mb/s", "B", "1/1024".
	Unit string
	// Min and Max bound the values Set accepts.
	Min, Max int64
	// MLX5 and Paper are the values of the two presets.
	MLX5, Paper int64
	// Meaning says in one line what the knob does here.
	Meaning string
	// Note qualifies the range or the source, when there is something to
	// say: values beyond what mlx5 firmware accepts, a knob only one variant
	// reads, a knob that is not mlx5's.
	Note string
	// Extension is true for a knob mlx5 does not have (a rocelab choice made
	// settable); a config generator for real NICs skips it.
	Extension bool

	field func(*DCQCNConfig) *int64
}

const maxUint32 = 1<<32 - 1

// knobs is the table. Ranges are the mlx5 ranges from the NVIDIA DOCA "DCQCN
// CC Parameters" page, or the width of the PRM field where that page gives
// none; the notes say where rocelab accepts more.
var knobs = [...]Knob{
	{Name: "dce_tcp_g", Point: "rp", Unit: "1/1024", Min: 0, Max: 1023, MLX5: 1019, Paper: 1020,
		Meaning: "α keep factor G: each α update α ← α·G/1024, plus (1024−G)/1024 on a CNP; the paper's g is (1024−G)/1024",
		Note:    "paper g = 1/256 is G = 1020; mstflint's help text default 64 is stale (mlxconfig q shows 1019)",
		field:   func(c *DCQCNConfig) *int64 { return &c.DceTcpG }},
	{Name: "dce_tcp_rtt", Point: "rp", Unit: "us", Min: 1, Max: 131071, MLX5: 1, Paper: 55,
		Meaning: "α update period (mlx5); the paper's K, after which α decays if no CNP came",
		field:   func(c *DCQCNConfig) *int64 { return &c.DceTcpRtt }},
	{Name: "initial_alpha_value", Point: "rp", Unit: "1/1024", Min: 1, Max: 1024, MLX5: 1023, Paper: 1024,
		Meaning: "α at the first CNP (mlx5: of each rate-limited episode; paper: of the QP's life)",
		Note:    "mlx5 accepts 1..1023; 1024 (exactly 1, the paper's α0) is rocelab's",
		field:   func(c *DCQCNConfig) *int64 { return &c.InitialAlphaValue }},
	{Name: "rate_reduce_monitor_period", Point: "rp", Unit: "us", Min: 0, Max: maxUint32, MLX5: 4, Paper: 0,
		Meaning: "decrease window: at most one decrease per window, at its end, only if a CNP arrived in it",
		Note:    "0 (rocelab's, the paper's behaviour) decreases at each CNP; mlx5 accepts 1 and up",
		field:   func(c *DCQCNConfig) *int64 { return &c.RateReduceMonitorPeriod }},
	{Name: "rpg_gd", Point: "rp", Unit: "log2 Q10", Min: 10, Max: 11, MLX5: 11, Paper: 11,
		Meaning: "cut depth: RC ← RC·(1 − α/Gd) with Gd = 2^(rpg_gd−10), so 11 cuts by α/2 and 10 by α",
		Note:    "mstflint's help text (log2 Gd, default 7) is stale",
		field:   func(c *DCQCNConfig) *int64 { return &c.RpgGd }},
	{Name: "rpg_min_dec_fac", Point: "rp", Unit: "%", Min: 0, Max: 100, MLX5: 50, Paper: 0,
		Meaning: "one decrease keeps at least this share of the rate (100 = never decrease)",
		field:   func(c *DCQCNConfig) *int64 { return &c.RpgMinDecFac }},
	{Name: "rpg_min_rate", Point: "rp", Unit: "Mb/s", Min: 1, Max: 10_000_000, MLX5: 1, Paper: 1,
		Meaning: "rate floor of the QP",
		Note:    "taken as the line rate when above it",
		field:   func(c *DCQCNConfig) *int64 { return &c.RpgMinRate }},
	{Name: "rpg_max_rate", Point: "rp", Unit: "Mb/s", Min: 0, Max: 10_000_000, MLX5: 0, Paper: 0,
		Meaning: "ceiling of RC and RT while rate-limited (0 = port speed); mlx5 releases the limiter on reaching it",
		field:   func(c *DCQCNConfig) *int64 { return &c.RpgMaxRate }},
	{Name: "rate_to_set_on_first_cnp", Point: "rp", Unit: "Mb/s", Min: 0, Max: 10_000_000, MLX5: 0, Paper: 0,
		Meaning: "RC and RT at the first CNP, before its decrease (0 = keep the current rate)",
		field:   func(c *DCQCNConfig) *int64 { return &c.RateToSetOnFirstCnp }},
	{Name: "rpg_time_reset", Point: "rp", Unit: "us", Min: 1, Max: 131071, MLX5: 300, Paper: 55,
		Meaning: "rate-increase timer period T, restarted by each decrease",
		field:   func(c *DCQCNConfig) *int64 { return &c.RpgTimeReset }},
	{Name: "rpg_byte_reset", Point: "rp", Unit: "B", Min: 0, Max: 1<<31 - 1, MLX5: 0, Paper: 10_000_000,
		Meaning: "bytes sent per byte-counter increase event, counted from each decrease (0 = byte counter off)",
		Note: "firmware reports 32767 (a 15-bit field, 'given in Bytes' per mstflint); read as bytes it fires every 2.6 us at 100G and its increases outrun " +
			"every decrease, so the queue runs to the PFC threshold. The mlx5 preset follows the HPCC ns-3 model of ConnectX DCQCN, which has no byte counter; " +
			"set 32767 to try the firmware reading. Larger values are for the paper's B = 10 MB",
		field: func(c *DCQCNConfig) *int64 { return &c.RpgByteReset }},
	{Name: "rpg_threshold", Point: "rp", Unit: "stages", Min: 0, Max: 31, MLX5: 1, Paper: 5,
		Meaning: "F: increase events of fast recovery before additive increase",
		Note:    "mstflint's help text default 5 is stale for mlx5",
		field:   func(c *DCQCNConfig) *int64 { return &c.RpgThreshold }},
	{Name: "rpg_ai_rate", Point: "rp", Unit: "Mb/s", Min: 0, Max: 1_000_000, MLX5: 5, Paper: 40,
		Meaning: "additive-increase step R_AI added to the target rate",
		field:   func(c *DCQCNConfig) *int64 { return &c.RpgAiRate }},
	{Name: "rpg_hai_rate", Point: "rp", Unit: "Mb/s", Min: 0, Max: 1_000_000, MLX5: 50, Paper: 400,
		Meaning: "hyper-increase step R_HAI added to the target rate (mlx5: R_HAI per event; paper: i·R_HAI)",
		Note:    "the paper's value is not in the sources read; 400 keeps mlx5's and QCN's R_HAI = 10·R_AI",
		field:   func(c *DCQCNConfig) *int64 { return &c.RpgHaiRate }},
	{Name: "clamp_tgt_rate", Point: "rp", Unit: "bool", Min: 0, Max: 1, MLX5: 0, Paper: 1,
		Meaning: "1: every decrease first sets the target rate RT to the current rate RC",
		field:   func(c *DCQCNConfig) *int64 { return &c.ClampTgtRate }},
	{Name: "clamp_tgt_rate_after_time_inc", Point: "rp", Unit: "bool", Min: 0, Max: 1, MLX5: 1, Paper: 1,
		Meaning: "1: a decrease sets RT ← RC if the timer (not only the byte counter) raised the rate since the last decrease",
		field:   func(c *DCQCNConfig) *int64 { return &c.ClampTgtRateAfterTimeInc }},
	{Name: "min_time_between_cnps", Point: "np", Unit: "us", Min: 0, Max: 131071, MLX5: 4, Paper: 50,
		Meaning: "minimum gap between CNPs the receiver sends, within one cnp_pacing_scope",
		Note:    "dumps show 4 (most), 2 (a CX-5), 0 (newer firmware); the paper's N = 50 µs is per flow",
		field:   func(c *DCQCNConfig) *int64 { return &c.MinTimeBetweenCnps }},
	{Name: "cnp_dscp", Point: "np", Unit: "dscp", Min: 0, Max: 63, MLX5: 48, Paper: 48,
		Meaning: "DSCP of generated CNPs (the NIC marks them)",
		field:   func(c *DCQCNConfig) *int64 { return &c.CnpDscp }},
	{Name: "cnp_802p_prio", Point: "np", Unit: "prio", Min: 0, Max: 7, MLX5: 6, Paper: 6,
		Meaning: "802.1p priority of generated CNPs (the NIC marks them)",
		field:   func(c *DCQCNConfig) *int64 { return &c.Cnp802pPrio }},
	{Name: "roce_cc_prio_mask", Point: "port", Unit: "mask", Min: 0, Max: 255, MLX5: 255, Paper: 255,
		Meaning: "priorities congestion control acts on, bit p for priority p; the NIC gives other QPs None",
		Note:    "mlxconfig ROCE_CC_PRIO_MASK; sysfs splits it into the files ecn/roce_rp/enable/0..7 and ecn/roce_np/enable/0..7",
		field:   func(c *DCQCNConfig) *int64 { return &c.RoceCcPrioMask }},
	{Name: "cnp_pacing_scope", Point: "np", Unit: "enum", Min: ScopePort, Max: ScopeQP, MLX5: ScopeQP, Paper: ScopeQP,
		Meaning: "what shares one CNP gap: 0 the NIC port, 1 each QP",
		Note: "not an mlx5 knob: firmware does not document the scope. The PRM text says 'from the port'; read as one gap for the whole port, " +
			"16 incast QPs each get a CNP every 64 us while α decays every 1 us (dce_tcp_rtt), α stays near 0 and cuts near 1 %, and DCQCN " +
			"cannot slow an incast at all. The preset paces per QP, as the paper's NP does per flow; 0 gives the per-port reading",
		Extension: true,
		field:     func(c *DCQCNConfig) *int64 { return &c.CnpPacingScope }},
}

// Knobs returns the knob table, in a fixed order.
func Knobs() []Knob { return append([]Knob(nil), knobs[:]...) }

// Names returns the knob names in table order.
func Names() []string {
	ns := make([]string, len(knobs))
	for i := range knobs {
		ns[i] = knobs[i].Name
	}
	return ns
}

// LookupKnob returns the knob called name.
func LookupKnob(name string) (Knob, bool) {
	for i := range knobs {
		if knobs[i].Name == name {
			return knobs[i], true
		}
	}
	return Knob{}, false
}

// Presets returns the preset names Preset accepts.
func Presets() []string { return []string{"mlx5", "paper"} }

// Preset returns the named configuration: "mlx5" (ConnectX defaults, from
// mlxconfig q on a ConnectX-5 Ex) or "paper" (Zhu et al., SIGCOMM 2015, at
// 40 Gb/s).
func Preset(name string) (DCQCNConfig, error) {
	var c DCQCNConfig
	switch name {
	case "mlx5":
		c.Variant = VariantMLX5
	case "paper":
		c.Variant = VariantPaper
	default:
		return c, fmt.Errorf("cc: unknown DCQCN preset %q (known: %s)", name, strings.Join(Presets(), ", "))
	}
	for i := range knobs {
		v := knobs[i].MLX5
		if c.Variant == VariantPaper {
			v = knobs[i].Paper
		}
		*knobs[i].field(&c) = v
	}
	return c, nil
}

// Set sets the knob called name to v, in the knob's mlx5 unit. An unknown
// name or a value out of range is an error that says what is allowed; the
// configuration is then unchanged.
func (c *DCQCNConfig) Set(name string, v int64) error {
	k, ok := LookupKnob(name)
	if !ok {
		return fmt.Errorf("cc: unknown DCQCN knob %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	if err := k.check(v); err != nil {
		return err
	}
	*k.field(c) = v
	return nil
}

// Get returns the value of the knob called name.
func (c *DCQCNConfig) Get(name string) (int64, error) {
	k, ok := LookupKnob(name)
	if !ok {
		return 0, fmt.Errorf("cc: unknown DCQCN knob %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return *k.field(c), nil
}

// Validate reports the first knob whose value is out of range, or nil.
func (c *DCQCNConfig) Validate() error {
	if c.Variant > VariantPaper {
		return fmt.Errorf("cc: DCQCN variant %d unknown (0 mlx5, 1 paper)", c.Variant)
	}
	for i := range knobs {
		if err := knobs[i].check(*knobs[i].field(c)); err != nil {
			return err
		}
	}
	return nil
}

func (k *Knob) check(v int64) error {
	if v < k.Min || v > k.Max {
		return fmt.Errorf("cc: %s = %d out of range: allowed %d..%d %s (%s)", k.Name, v, k.Min, k.Max, k.Unit, k.Meaning)
	}
	return nil
}

// Enabled reports whether roce_cc_prio_mask selects congestion control for
// priority prio (0..7).
func (c *DCQCNConfig) Enabled(prio int) bool {
	return prio >= 0 && prio < 8 && c.RoceCcPrioMask>>prio&1 == 1
}
