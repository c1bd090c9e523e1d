package scenario

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/twin"
)

// testdata/engineer holds the scenarios an engineer new to rocelab wrote
// from the README and docs alone (a 2 × 8 H100 rail-optimised cluster, a
// wrong switch DSCP map, a 2:1 leaf-spine with an incast beside the job, a
// vendor's ECN thresholds, a link flap and loss under training, a stuck
// NIC's pause storm, mixed 100G/400G, NCCL knobs, an ECN sweep, a job too
// large for packet mode). Every one loads with no warning, and the cheap
// ones run to figures an engineer can check by hand.
func TestEngineerScenariosLoad(t *testing.T) {
	files, _ := filepath.Glob("testdata/engineer/*.yaml")
	if len(files) < 8 {
		t.Fatalf("%d engineer scenarios, want at least 8", len(files))
	}
	for _, f := range files {
		s, err := LoadFile(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(s.Warnings) > 0 {
			t.Errorf("%s: warnings %v", f, s.Warnings)
		}
	}
}

// runEngineer runs one variant (or the scenario) of an engineer scenario
// on the packet engine.
func runEngineer(t *testing.T, file, variant string) twin.Observation {
	t.Helper()
	s, err := LoadFile(filepath.Join("testdata/engineer", file))
	if err != nil {
		t.Fatal(err)
	}
	if variant != "" {
		var v *Scenario
		for _, x := range s.Variants {
			if x.Variant == variant {
				v = x
			}
		}
		if v == nil {
			t.Fatalf("%s: no variant %s", file, variant)
		}
		s = v
	}
	j := s.Job()
	o, err := twin.Run(&j, &twin.Config{Engine: twin.Packet, Limits: defaultLimits})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// Mixed speeds: a 400G host to a 400G host runs at 400G × 4096/4178
// (392.15 Gb/s), a 100G host into a 400G one at its own line rate
// (98.04 Gb/s); nothing is lost and PFC never pauses.
func TestEngineerMixedSpeeds(t *testing.T) {
	o := runEngineer(t, "mixed.yaml", "")
	want := map[string]float64{"big-to-big": 400 * 4096.0 / 4178, "small-to-big": 100 * 4096.0 / 4178}
	for _, f := range o.Flows {
		if w, ok := want[f.Name]; ok && math.Abs(f.GoodputGbps/w-1) > 0.005 {
			t.Errorf("%s: %.3f Gb/s, want %.3f", f.Name, f.GoodputGbps, w)
		}
	}
	if o.Totals.Dropped.Packets != 0 || o.Health.PFCPauseRatio.Value != 0 {
		t.Errorf("dropped %d, pause %v", o.Totals.Dropped.Packets, o.Health.PFCPauseRatio.Value)
	}
}

// A vendor guide's ECN thresholds (Kmin 5 KB, Kmax 200 KB, Pmax 1%) on an
// 8:1 incast: DCQCN marks and cuts, PFC never pauses and nothing drops;
// with ECN off the same incast is held by PFC alone (pause > 0.1%) and
// the queue grows to the PFC threshold (p99 above 1 ms).
func TestEngineerVendorECN(t *testing.T) {
	on, off := runEngineer(t, "dcqcn-vendor.yaml", "vendor-guide"), runEngineer(t, "dcqcn-vendor.yaml", "ecn-off")
	if on.Totals.ECNMarked == 0 || on.Health.PFCPauseRatio.Value != 0 || on.Totals.Dropped.Packets != 0 {
		t.Errorf("vendor-guide: marks %d pause %v dropped %d", on.Totals.ECNMarked, on.Health.PFCPauseRatio.Value, on.Totals.Dropped.Packets)
	}
	if off.Totals.ECNMarked != 0 || off.Health.PFCPauseRatio.Value < 0.001 || off.Totals.Dropped.Packets != 0 || off.Health.P99LatencyUS.Value < 1000 {
		t.Errorf("ecn-off: marks %d pause %v dropped %d p99 %v", off.Totals.ECNMarked, off.Health.PFCPauseRatio.Value, off.Totals.Dropped.Packets, off.Health.P99LatencyUS.Value)
	}
}

// PFC off in an ECN sweep: the loss target fails for the priority, not
// for a drop, when DCQCN keeps the queue under the buffer.
func TestEngineerSweepPFCOff(t *testing.T) {
	o := runEngineer(t, "sweep.yaml", "pfc-off")
	if o.Health.LossRate.Pass || !strings.Contains(o.Health.LossRate.Note, "which PFC does not protect") {
		t.Errorf("loss target %+v", o.Health.LossRate)
	}
}

// A frame a loss fault takes is counted where it arrives as a bad FCS
// (rx_crc_errors_phy), on either engine: the ports' counts add up to the
// run's link_loss drops, and a run without loss lists no such counter.
func TestLinkLossCountsFCS(t *testing.T) {
	for _, e := range []string{twin.Packet, twin.Fluid} {
		j := example(t, "lossy-link").Job()
		o, err := twin.Run(&j, &twin.Config{Engine: e, Limits: defaultLimits})
		if err != nil {
			t.Fatal(err)
		}
		var crc float64
		for _, p := range o.Ports {
			crc += counter(p.Counters, "rx_crc_errors_phy")
		}
		if want := float64(o.Totals.DropsByReason["link_loss"]); crc == 0 || crc != want {
			t.Errorf("%s: rx_crc_errors_phy %v over the ports, link_loss drops %v", e, crc, want)
		}
	}
	j := example(t, "single-flow").Job()
	o, err := twin.Run(&j, &twin.Config{Engine: twin.Packet, Limits: defaultLimits})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range o.Ports {
		for _, c := range p.Counters {
			if c.Name == "rx_crc_errors_phy" {
				t.Errorf("%s lists rx_crc_errors_phy in a run without loss", p.Name)
			}
		}
	}
}

// A link_down fault counts one link_down_events_phy at both ends of the
// link it takes down (retry-exceeded: leaf0-spine0 and h5's cable), and
// no other port lists one.
func TestLinkDownCountsEvents(t *testing.T) {
	j := example(t, "retry-exceeded").Job()
	o, err := twin.Run(&j, &twin.Config{Engine: twin.Packet, Limits: defaultLimits})
	if err != nil {
		t.Fatal(err)
	}
	var down []string
	for _, p := range o.Ports {
		if n := counter(p.Counters, "link_down_events_phy"); n > 0 {
			down = append(down, fmt.Sprintf("%s=%v", p.Name, n))
		}
	}
	if got, want := strings.Join(down, " "), "leaf0/p4=1 leaf1/p1=1 spine0/p0=1 h5/p0=1"; got != want {
		t.Errorf("link_down_events_phy on %s, want %s", got, want)
	}
}
