package report

import (
	"strings"
	"testing"

	"rocelab/internal/metrics"
	"rocelab/internal/scenario"
	"rocelab/internal/twin"
)

// The loss target is judged on the traffic the scenario declares as RoCE,
// whatever priority it lands on: with PFC on a priority other than the one
// RoCE rides — PFC on 4 with the default DSCP 26, trust pcp with untagged
// frames, or DSCP 26 mapped to 0 — RoCE is dropped and the table must say
// FAIL with the reason; before, it said "0.000 % PASS" for the class that
// carried nothing. The matched configuration passes.
func TestHealthJudgesRoCE(t *testing.T) {
	base := `
name: h
duration: 2ms
topology: {kind: single-switch, hosts: 9}
host: {cc: none, qp: {timeout: 10}}
traffic: {generators: [{kind: incast, senders: 8, receiver: h8, bytes: 2MiB}]}
switch:
  buffer: 2MiB
`
	for name, sw := range map[string]string{
		"pfc on 4":       "  pfc: {priorities: [4]}\n",
		"trust pcp":      "  trust: pcp\n",
		"dscp 26 to 0":   "  dscp_to_priority: {26: 0}\n",
		"matched (PASS)": "",
	} {
		s, err := scenario.Load(name, []byte(base+sw))
		if err != nil {
			t.Fatal(err)
		}
		r := run(t, s)
		var b strings.Builder
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		var row string
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.Contains(l, "loss of RoCE packets") {
				row = l
			}
		}
		if name == "matched (PASS)" {
			if !r.Health.LossRate.Pass || r.Totals.Dropped.Packets != 0 || !strings.HasSuffix(row, "PASS") {
				t.Errorf("%s: %q, %d drops", name, row, r.Totals.Dropped.Packets)
			}
			continue
		}
		if r.Health.LossRate.Pass || r.Totals.Dropped.Packets == 0 || r.Scenario.RoCELossless ||
			!strings.Contains(row, "FAIL: RoCE rides priority") || r.Health.LossRate.Value == 0 {
			t.Errorf("%s: %q (loss %.4f, %d dropped, RoCE on %v lossless %v)", name, row, r.Health.LossRate.Value,
				r.Totals.Dropped.Packets, r.Scenario.RoCEPriorities, r.Scenario.RoCELossless)
		}
		t.Logf("%s: %s", name, strings.TrimSpace(row))
	}
}

// Side by side, a target's note would stretch its variant's column past
// any screen (storage-read's lossy variant was 150 columns wide): the cell
// carries a mark and the note follows the table, named by variant.
func TestCompareHealthNotesBelow(t *testing.T) {
	pass := metrics.NewHealth(1, 0.95, 0, 0)
	noted := pass
	noted.LossRate = metrics.Target{Value: 0.05, Pass: false, Note: "RoCE rides priorities 1,3, not all of which PFC protects"}
	noted.P99LatencyUS = metrics.NotApplicable(metrics.TargetP99LatencyUS, "no RoCE data packet was delivered")
	c := NewComparison("c")
	c.Variants = []Variant{{Name: "lossless", Run: &Run{Health: pass}}, {Name: "lossy", Run: &Run{Health: noted}}}
	var b strings.Builder
	c.writeHealth(&b)
	out := b.String()
	for _, want := range []string{
		"  P99 latency (RoCE)          1.00 us PASS  n/a [1]          < 10 us\n",
		"  loss of RoCE packets        0.000 % PASS  5.000 % FAIL [2] = 0\n",
		"  [1] lossy: no RoCE data packet was delivered\n",
		"  [2] lossy: RoCE rides priorities 1,3, not all of which PFC protects\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}

// Variants whose counters all stay at zero (a wrong switch DSCP map that
// no congestion exposes) say so, instead of a table header over no rows.
func TestCompareCountersNoneMoved(t *testing.T) {
	c := NewComparison("c")
	c.Variants = []Variant{{Name: "a", Run: &Run{Totals: &twin.Totals{}}}, {Name: "b", Run: &Run{Totals: &twin.Totals{}}}}
	var b strings.Builder
	c.writeCounters(&b)
	if want := "\nCounters that explain the change: none moved in any variant (no ECN marks, CNPs, pauses or retransmissions)\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
