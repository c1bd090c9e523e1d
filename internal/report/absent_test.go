package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/metrics"
	"rocelab/internal/twin"
	"rocelab/internal/unit"
)

// An engine that models less (a flow-level one) leaves fields absent and
// names what it leaves out: the report says so and prints no zeros for
// them, in text, in JSON and in --out files.
func TestAbsentIsNotZero(t *testing.T) {
	fct := 12.5
	o := &twin.Observation{
		Engine:   twin.EngineInfo{Name: "sketch", Reason: "asked for by name", NotModelled: []string{"per-packet latency", "port counters"}},
		Scenario: twin.Setup{Name: "sparse", Topology: "single-switch", Hosts: 2, Switches: 1, Links: 2, MTU: 4096},
		Sim:      twin.Sim{End: 20 * unit.Microsecond, Completed: true, Events: 3},
		Health:   metrics.NewHealth(0, 0.95, 0, 0),
		Flows:    []twin.Flow{{ID: 0, Name: "f", Src: "h0", Dst: "h1", Bytes: 1 << 20, FCTUS: &fct, GoodputGbps: 671, Delivered: 1 << 20, Status: "ok"}},
		Ports:    []twin.Port{{Name: "sw0/p0", Peer: "h0/p0", Switch: true}, {Name: "h0/p0", Peer: "sw0/p0"}},
		NICs:     []twin.NIC{{Name: "h0", Port: 1, Rate: 100 * unit.Gbps}},
	}
	r := New(o)
	var text, js bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"engine sketch: asked for by name\n", "not modelled by the sketch engine: per-packet latency; port counters\n", "Flows (1)"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(text.String(), "Totals") || strings.Contains(text.String(), "One-way latency") {
		t.Errorf("text shows what was not modelled:\n%s", text.String())
	}
	for _, want := range []string{`"totals": null`, `"latency": null`, `"counters": null`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
	dir := t.TempDir()
	if err := r.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"result.json", "summary.txt", "flows.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	for _, sub := range []string{"ethtool", "hw_counters"} {
		if ents, _ := os.ReadDir(filepath.Join(dir, sub)); len(ents) != 0 {
			t.Errorf("%s/ holds %d files of counters that were not modelled", sub, len(ents))
		}
	}
}
