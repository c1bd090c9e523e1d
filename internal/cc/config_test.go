package cc

import (
	"strings"
	"testing"

	"rocelab/internal/unit"
)

// The mlx5 preset is the defaults table of mlxconfig q on a ConnectX-5 Ex, fw 16.27.2008 (xdp-newbies list, 22 Jun 2020), cross-checked with NVIDIA DOCA's "DCQCN CC Parameters" page, value for value.
func TestPresetMLX5IsTheDefaultsTable(t *testing.T) {
	want := map[string]int64{
		"dce_tcp_g": 1019, "dce_tcp_rtt": 1, "initial_alpha_value": 1023,
		"rate_reduce_monitor_period": 4, "rpg_gd": 11, "rpg_min_dec_fac": 50,
		"rpg_min_rate": 1, "rpg_max_rate": 0, "rate_to_set_on_first_cnp": 0,
		"rpg_time_reset": 300, "rpg_threshold": 1,
		// Firmware reports 32767; the preset turns the byte counter off, as
		// the HPCC ns-3 model of ConnectX DCQCN does (see the knob's note).
		"rpg_byte_reset": 0,
		"rpg_ai_rate":    5, "rpg_hai_rate": 50, "clamp_tgt_rate": 0,
		"clamp_tgt_rate_after_time_inc": 1, "min_time_between_cnps": 4,
		"cnp_dscp": 48, "cnp_802p_prio": 6, "roce_cc_prio_mask": 255,
		"cnp_pacing_scope": ScopeQP,
	}
	c, err := Preset("mlx5")
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != len(Names()) {
		t.Fatalf("%d knobs, the test knows %d", len(Names()), len(want))
	}
	for n, v := range want {
		if got, err := c.Get(n); err != nil || got != v {
			t.Errorf("%s = %d (%v), want %d", n, got, err, v)
		}
	}
	if c.Variant != VariantMLX5 || c.Validate() != nil {
		t.Fatalf("variant %v, validate %v", c.Variant, c.Validate())
	}
}

// The paper preset is Zhu et al. (SIGCOMM 2015, as htsim's DCQCN model
// reads it): g = 1/256, K = T = 55 µs, B = 10 MB,
// F = 5, R_AI = 40 Mb/s, N = 50 µs per flow, a cut on every CNP.
func TestPresetPaper(t *testing.T) {
	c, err := Preset("paper")
	if err != nil {
		t.Fatal(err)
	}
	if g := 1 - float64(c.DceTcpG)/1024; g != 1.0/256 {
		t.Errorf("g = %v", g)
	}
	for n, v := range map[string]int64{
		"dce_tcp_rtt": 55, "rpg_time_reset": 55, "rpg_byte_reset": 10_000_000,
		"rpg_threshold": 5, "rpg_ai_rate": 40, "min_time_between_cnps": 50,
		"rate_reduce_monitor_period": 0, "initial_alpha_value": 1024,
		"cnp_pacing_scope": ScopeQP, "clamp_tgt_rate": 1,
	} {
		if got, _ := c.Get(n); got != v {
			t.Errorf("%s = %d, want %d", n, got, v)
		}
	}
	if c.Variant != VariantPaper || c.Validate() != nil {
		t.Fatalf("variant %v, validate %v", c.Variant, c.Validate())
	}
}

func TestSetErrors(t *testing.T) {
	c, _ := Preset("mlx5")
	err := c.Set("rpg_gd", 7)
	if err == nil || !strings.Contains(err.Error(), "allowed 10..11") {
		t.Fatalf("rpg_gd 7: %v", err)
	}
	if c.RpgGd != 11 {
		t.Fatal("a refused value changed the config")
	}
	if err := c.Set("rpg_thresold", 1); err == nil || !strings.Contains(err.Error(), "rpg_threshold") {
		t.Fatalf("misspelt name: %v (want the known names listed)", err)
	}
	if err := c.Set("rpg_threshold", 5); err != nil || c.RpgThreshold != 5 {
		t.Fatalf("rpg_threshold 5: %v", err)
	}
	if _, err := Preset("cx7"); err == nil || !strings.Contains(err.Error(), "mlx5, paper") {
		t.Fatalf("unknown preset: %v", err)
	}
	c.RpgByteReset = -1
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "rpg_byte_reset") {
		t.Fatalf("validate: %v", err)
	}
}

// Every knob in the table is settable to its bounds and to each preset's
// value, has a unit and a meaning, and addresses its own field.
func TestKnobTable(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Knobs() {
		if seen[k.Name] || k.Unit == "" || k.Meaning == "" || k.Min > k.Max {
			t.Errorf("knob %+v", k)
		}
		seen[k.Name] = true
		c, _ := Preset("mlx5")
		for _, v := range []int64{k.Min, k.Max, k.MLX5, k.Paper} {
			if err := c.Set(k.Name, v); err != nil {
				t.Errorf("%s: %v", k.Name, err)
			}
			if got, _ := c.Get(k.Name); got != v {
				t.Errorf("%s: set %d, got %d", k.Name, v, got)
			}
		}
		for _, v := range []int64{k.Min - 1, k.Max + 1} {
			if c.Set(k.Name, v) == nil {
				t.Errorf("%s: %d accepted", k.Name, v)
			}
		}
	}
	// Each knob writes a field of its own.
	var c DCQCNConfig
	for i, k := range Knobs() {
		_ = c.Set(k.Name, k.Min+1)
		for j, o := range Knobs() {
			if v, _ := c.Get(o.Name); j <= i && v != o.Min+1 || j > i && v != 0 {
				t.Fatalf("setting %s changed %s", k.Name, o.Name)
			}
		}
	}
}

func TestEnabled(t *testing.T) {
	c, _ := Preset("mlx5")
	_ = c.Set("roce_cc_prio_mask", 1<<3)
	for p := -1; p <= 8; p++ {
		if c.Enabled(p) != (p == 3) {
			t.Errorf("priority %d: %v", p, c.Enabled(p))
		}
	}
}

// FuzzSet: Set never panics, and a value it accepts validates and reads back.
func FuzzSet(f *testing.F) {
	f.Add("rpg_gd", int64(11))
	f.Add("rpg_byte_reset", int64(-1))
	f.Add("nope", int64(0))
	f.Fuzz(func(t *testing.T, name string, v int64) {
		c, _ := Preset("paper")
		if err := c.Set(name, v); err != nil {
			return
		}
		if got, err := c.Get(name); err != nil || got != v {
			t.Fatalf("%s: set %d, got %d %v", name, v, got, err)
		}
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
	})
}

// None keeps line rate whatever happens.
func TestNone(t *testing.T) {
	var c Controller = NewNone(400 * unit.Gbps)
	c.OnCNP(1)
	c.OnSend(2, 4096)
	c.OnAck(3, 4096, unit.Microsecond)
	c.OnDeadline(4)
	if c.Rate() != 400*unit.Gbps || c.NextDeadline() != unit.MaxTime {
		t.Fatalf("None: %v %v", c.Rate(), c.NextDeadline())
	}
}

// Out-of-range knobs reach New only by writing the fields directly; New
// clamps them, so no timer period is zero.
func TestNewClamps(t *testing.T) {
	c, _ := Preset("mlx5")
	c.DceTcpRtt, c.RpgTimeReset, c.RpgGd = 0, -5, 99
	q := c.New(100 * unit.Gbps)
	q.OnCNP(0)
	for i := 0; i < 100 && q.NextDeadline() < unit.Second; i++ {
		d := q.NextDeadline()
		q.OnDeadline(d)
		if q.NextDeadline() <= d {
			t.Fatal("no progress")
		}
	}
}
