package scenario

import (
	"strings"
	"testing"

	"rocelab/internal/fabric"
	"rocelab/internal/unit"
)

// ecnRateScenario is an 8->1 incast over a leaf-spine whose hosts run at
// 100G and fabric at 400G: the queue builds at the 100G port toward the
// receiver. ecn is the switch.ecn line.
func ecnRateScenario(ecn string) string {
	return `name: ecn-by-rate
duration: 2ms
topology: {kind: leaf-spine, leaves: 2, spines: 2, hosts_per_leaf: 8, uplinks_per_leaf: 2,
  host_link: {rate: 100G, cable: 2m}, fabric_link: {rate: 400G, cable: 10m}}
switch:
  ecn: ` + ecn + `
traffic:
  generators:
    - {kind: incast, bytes: 1MB, receiver: h0, senders: [h8, h9, h10, h11, h12, h13, h14, h15]}
`
}

// byRate runs the scenario and sums a per-priority counter over the
// switch ports of each nominal rate (100G or 400G here).
func byRate(t *testing.T, text string, field func(*fabric.Counters) *[8]int64) map[unit.BitRate]int64 {
	t.Helper()
	tw, _ := run(t, mustLoad(t, "rates.yaml", text))
	out := map[unit.BitRate]int64{}
	for _, sw := range tw.Net.Switches {
		for _, pt := range sw.Ports() {
			rate := 100 * unit.Gbps
			if !pt.Rate().Nominal(rate) {
				rate = 400 * unit.Gbps
			}
			c := pt.Snapshot()
			for _, n := range field(&c) {
				out[rate] += n
			}
		}
	}
	return out
}

// marksByRate returns the CE marks of each rate's switch ports.
func marksByRate(t *testing.T, text string) map[unit.BitRate]int64 {
	t.Helper()
	return byRate(t, text, func(c *fabric.Counters) *[8]int64 { return &c.ECNMarked })
}

// switch.ecn.by_rate gives the ports of a rate their own thresholds: with
// the 100G ports' set above anything the incast queues, they mark
// nothing where the common profile marks; with the 400G ports' set high
// instead, those stop marking and the 100G bottleneck still marks.
func TestECNByRate(t *testing.T) {
	base := marksByRate(t, ecnRateScenario("{kmin: 20KB, kmax: 200KB, pmax: 0.2}"))
	if base[100*unit.Gbps] == 0 {
		t.Fatalf("the incast's 100G bottleneck marked nothing with kmin 20KB: %v", base)
	}
	high := marksByRate(t, ecnRateScenario("{kmin: 20KB, kmax: 200KB, pmax: 0.2, by_rate: {100G: {kmin: 30MB, kmax: 31MB}}}"))
	if high[100*unit.Gbps] != 0 {
		t.Errorf("100G ports marked %d times above their own 30MB kmin", high[100*unit.Gbps])
	}
	other := marksByRate(t, ecnRateScenario("{kmin: 20KB, kmax: 200KB, pmax: 0.2, by_rate: {400G: {kmin: 30MB, kmax: 31MB}}}"))
	if other[400*unit.Gbps] != 0 || other[100*unit.Gbps] == 0 {
		t.Errorf("with the 400G ports' kmin at 30MB: 400G marks %d (want 0), 100G marks %d (want some)", other[400*unit.Gbps], other[100*unit.Gbps])
	}
}

// A by_rate entry inherits what it leaves out; a bad one is reported at
// its place.
func TestECNByRateKeys(t *testing.T) {
	s := mustLoad(t, "e.yaml", ecnRateScenario("{kmin: 20KB, kmax: 200KB, pmax: 0.3, by_rate: {400G: {kmax: 800KB}}}"))
	if got := s.Switch.ECN.At(400 * unit.Gbps); got.Kmin != 20*unit.KB || got.Kmax != 800*unit.KB || got.Pmax != 0.3 {
		t.Errorf("400G profile %+v", got)
	}
	if got := s.Switch.ECN.At(100 * unit.Gbps); got.Kmax != 200*unit.KB {
		t.Errorf("100G profile %+v", got)
	}
	for _, c := range []struct{ ecn, want string }{
		{"{by_rate: {200G: {kmin: 1MB}}}", "switch.ecn.by_rate.200G: no link runs at 200Gbps"},
		{"{by_rate: {400G: {kmin: 1MB, kmax: 500KB}}}", "switch.ecn.by_rate.400G.kmax: must not be below kmin"},
		{"{by_rate: {400G: {colour: red}}}", `unknown key "colour"; expected one of: kmin, kmax, pmax`},
		{"{by_rate: {fast: {kmin: 1MB}}}", "switch.ecn.by_rate.fast"},
		{"{by_rate: [400G]}", "expected a mapping of port rate to thresholds"},
	} {
		_, err := Load("e.yaml", []byte(ecnRateScenario(c.ecn)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.ecn, err, c.want)
		}
	}
}

// The fluid engine gets the same profiles by rate.
func TestECNByRateFluid(t *testing.T) {
	s := mustLoad(t, "e.yaml", ecnRateScenario("{kmin: 20KB, kmax: 200KB, by_rate: {400G: {kmin: 1600KB, kmax: 6400KB}}}"))
	c := s.FluidConfig()
	if len(c.ECNByRate) != 1 || c.ECNByRate[0].Rate != 400*unit.Gbps || c.ECNByRate[0].ECN[3].Kmin != int64(1600*unit.KB) || c.ECN[3].Kmin != int64(20*unit.KB) {
		t.Errorf("fluid profiles: base %+v, by rate %+v", c.ECN[3], c.ECNByRate)
	}
}

// pausesByRate returns the PFC pause frames each rate's switch ports
// sent.
func pausesByRate(t *testing.T, text string) map[unit.BitRate]int64 {
	t.Helper()
	return byRate(t, text, func(c *fabric.Counters) *[8]int64 { return &c.TxPause })
}

// switch.alpha_by_rate gives the ingress ports of a rate their own share
// of the pool: the incast enters h0's leaf through its 400G ports, which
// pause their spines far more often at alpha 1/128 than at 8.
func TestAlphaByRate(t *testing.T) {
	incast := func(alpha string) string {
		y := ecnRateScenario("{enabled: false}")
		y = strings.Replace(y, "switch:\n", "switch:\n  alpha_by_rate: "+alpha+"\n", 1)
		return strings.Replace(y, "traffic:", "host: {cc: none}\ntraffic:", 1)
	}
	small := pausesByRate(t, incast("{400G: 1/128}"))
	large := pausesByRate(t, incast("{400G: 8}"))
	t.Logf("pauses sent by 400G ports: %d at alpha 1/128, %d at 8", small[400*unit.Gbps], large[400*unit.Gbps])
	if small[400*unit.Gbps] <= 2*large[400*unit.Gbps]+10 {
		t.Errorf("400G ports sent %d pauses at alpha 1/128, %d at 8", small[400*unit.Gbps], large[400*unit.Gbps])
	}
	s := mustLoad(t, "a.yaml", incast("{400G: 1/2}"))
	if s.Switch.AlphaAt(399_990_000_000) != 0.5 || s.Switch.AlphaAt(100*unit.Gbps) != s.Switch.Alpha {
		t.Errorf("alpha at 400G %g, at 100G %g", s.Switch.AlphaAt(400*unit.Gbps), s.Switch.AlphaAt(100*unit.Gbps))
	}
	for _, c := range []struct{ alpha, want string }{
		{"{200G: 1}", "switch.alpha_by_rate.200G: no link runs at 200Gbps"},
		{"{400G: 1000}", "switch.alpha_by_rate.400G"},
		{"[1]", "expected a mapping of port rate to alpha"},
	} {
		if _, err := Load("a.yaml", []byte(incast(c.alpha))); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.alpha, err, c.want)
		}
	}
	if _, err := Load("a.yaml", []byte(strings.Replace(incast("{400G: 1}"), "switch:\n", "switch:\n  static_th: 60KiB\n", 1))); err == nil || !strings.Contains(err.Error(), "alpha_by_rate (dynamic thresholds) or static_th") {
		t.Errorf("static_th with alpha_by_rate: %v", err)
	}
}
