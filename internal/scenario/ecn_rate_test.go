package scenario

import (
	"strings"
	"testing"

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

// marksByRate runs the scenario and returns the CE marks of the switch
// ports of each nominal rate.
func marksByRate(t *testing.T, text string) map[unit.BitRate]int64 {
	t.Helper()
	tw, _ := run(t, mustLoad(t, "ecn.yaml", text))
	out := map[unit.BitRate]int64{}
	for _, sw := range tw.Net.Switches {
		for _, pt := range sw.Ports() {
			c := pt.Snapshot()
			rate := 100 * unit.Gbps
			if !pt.Rate().Nominal(rate) {
				rate = 400 * unit.Gbps
			}
			for p := range 8 {
				out[rate] += c.ECNMarked[p]
			}
		}
	}
	return out
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
