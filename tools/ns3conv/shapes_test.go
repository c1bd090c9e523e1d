package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/scenario"
	"rocelab/tools/internal/agree"
)

// shapesDir holds the config.txt shapes a judge runs (run.py's per-cc
// configs at 100G and single keys changed on them) over one topology and
// flow file, with ns-3's recorded fct.txt and pfc.txt (its SOURCE).
const shapesDir = "testdata/shapes"

// importShape writes the rocelab scenario from-ns3 makes of
// testdata/shapes/config-NAME.txt into a temporary file.
func importShape(t *testing.T, name string) string {
	t.Helper()
	return importShapeOn(t, name, "")
}

// importShapeOn writes the rocelab scenario from-ns3 makes of
// testdata/shapes/config-NAME.txt run on the input in shapesDir/input
// (its topology.txt, flow.txt and trace.txt; "" for those beside the
// configs) into a temporary file, as ns-3 runs it there:
// cd shapesDir/input && third ../config-NAME.txt.
func importShapeOn(t *testing.T, name, input string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"config-" + name + ".txt", "topology.txt", "flow.txt", "trace.txt"} {
		from := filepath.Join(shapesDir, input, f)
		if strings.HasPrefix(f, "config-") {
			from = filepath.Join(shapesDir, f)
		}
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var y bytes.Buffer
	if err := fromNs3(filepath.Join(dir, "config-"+name+".txt"), &y); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(file, y.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// shapeRow is one config shape on one input: its recorded seeds and the
// bounds on rocelab's difference from ns-3 (episodes and held 0: neither
// pauses there; negative: both pause, too seldom for a ratio).
type shapeRow struct {
	name, input    string
	seeds          int
	mean, p50, max float64
	episodes, held float64
}

// holdShape runs the row's import for each recorded seed and holds the
// mean, median and last completion averaged over the seeds, and where
// ns-3 paused, the pause episodes and the time held.
func holdShape(t *testing.T, c shapeRow) {
	t.Helper()
	file := importShapeOn(t, c.name, c.input)
	dir := filepath.Join(shapesDir, c.input)
	var n, r agree.Seeds
	var np, rp pauses
	for seed := 1; seed <= c.seeds; seed++ {
		fct := fmt.Sprintf("%s/fct-%s-seed%d.txt", dir, c.name, seed)
		pfc := fmt.Sprintf("%s/pfc-%s-seed%d.txt", dir, c.name, seed)
		if _, err := os.Stat(pfc); err != nil {
			pfc = "" // ns-3's pfc.txt was empty
		}
		got, err := whole(compare(file, uint64(seed), fct, pfc, nil))
		if err != nil {
			t.Fatal(err)
		}
		n.Add(got.ns3)
		r.Add(got.rocelab)
		if got.ns3Pauses != nil {
			np.n += got.ns3Pauses.n
			np.held += got.ns3Pauses.held
		}
		rp.n += got.rocelabPauses.n
		rp.held += got.rocelabPauses.held
	}
	nm, rm := n.Mean(), r.Mean()
	ms := []agree.Metric{
		{Name: "mean", Other: nm.Mean, Rocelab: rm.Mean, Bound: c.mean},
		{Name: "p50", Other: nm.P50, Rocelab: rm.P50, Bound: c.p50},
		{Name: "max", Other: nm.Max, Rocelab: rm.Max, Bound: c.max},
	}
	switch {
	case c.episodes < 0:
		if np.n == 0 || rp.n == 0 {
			t.Errorf("pauses: ns-3 %d, rocelab %d, where the row expects a few in both", np.n, rp.n)
		}
		t.Logf("pauses, too few to compare: ns-3 %d (held %.1f us), rocelab %d (held %.1f us)", np.n, np.held, rp.n, rp.held)
	case c.episodes > 0:
		ms = append(ms,
			agree.Metric{Name: "pause episodes", Other: float64(np.n), Rocelab: float64(rp.n), Bound: c.episodes},
			agree.Metric{Name: "time held paused", Other: np.held, Rocelab: rp.held, Bound: c.held})
	case np.n > 0 || rp.n > 0:
		t.Errorf("pauses: ns-3 %d (held %.1f us), rocelab %d (held %.1f us), where the row expects none", np.n, np.held, rp.n, rp.held)
	}
	where := ""
	if c.input != "" {
		where = " on " + c.input
	}
	agree.Hold(t, fmt.Sprintf("config shape %s%s over %d seeds", c.name, where, c.seeds), "ns-3", ms)
}

// TestAgreesWithNs3ConfigShapes holds each shape's import to ns-3's
// recorded runs (holdShape) on hol16-pfc's flows. The payloads are
// run.py's 1000 B, which rocelab sends as 1024 with its longer frames
// (1106 B against ns-3's 1048, +3.1 % a byte, and ns-3 cuts each packet's
// 83.84 ns at 100G to 83: PFC alone lands +4.0 to +4.1 %), so the bounds
// sit above that. The rows that a converter bug moved, before their fix (one
// seed): timely-qcn0 imported as PFC alone, mean -28.3 %, median -40.5 %,
// last -22.1 %; timely-ack4 as ack_coalesce 4, mean +5.8 %, last +16.0 %;
// hp-qcn0, dctcp-qcn0 and dcqcn-units were refused.
func TestAgreesWithNs3ConfigShapes(t *testing.T) {
	for _, c := range []shapeRow{
		{"dcqcn", "", 6, 0.05, 0.04, 0.06, 0, 0},
		{"dcqcn_paper", "", 6, 0.05, 0.05, 0.06, 0, 0},
		{"dcqcn-buf4", "", 18, 0.05, 0.05, 0.05, 0.15, 0.15},
		{"dcqcn-knobs", "", 6, 0.06, 0.07, 0.06, 0, 0},
		{"hp", "", 1, 0.04, 0.03, 0.04, 0, 0},
		{"hp-qcn0", "", 1, 0.04, 0.03, 0.04, 0, 0},
		{"mixconfig", "", 1, 0.04, 0.03, 0.03, 0, 0},
		{"hpccPint", "", 1, 0.05, 0.10, 0.05, 0, 0},
		{"timely", "", 1, 0.04, 0.06, 0.03, 0, 0},
		{"timely-qcn0", "", 1, 0.04, 0.06, 0.03, 0, 0},
		{"timely-ack4", "", 1, 0.04, 0.06, 0.03, 0, 0},
		{"dctcp", "", 1, 0.06, 0.06, 0.05, 0, 0},
		{"dctcp-qcn0", "", 1, 0.05, 0.05, 0.05, 0, 0},
		{"pfc", "", 1, 0.05, 0.05, 0.05, 0, 0},
		{"pfc-buf4", "", 1, 0.05, 0.05, 0.05, 0.05, 0.05},
	} {
		t.Run(c.name, func(t *testing.T) { holdShape(t, c) })
	}
}

// TestAgreesWithNs3ConfigShapesInputs holds every shape on two more
// inputs (testdata/shapes/incast4 and perm8, ns3conv's files for
// scenarios/incast4-dcqcn.yaml and testdata/sweep/s4.yaml at seed 1), so
// that no shape's agreement rests on one input.
func TestAgreesWithNs3ConfigShapesInputs(t *testing.T) {
	for _, c := range []shapeRow{
		{"dcqcn", "incast4", 6, 0.04, 0.03, 0.06, 0, 0},            // +2.2, +1.5, +3.6
		{"dcqcn_paper", "incast4", 6, 0.02, 0.03, 0.03, 0, 0},      // +0.4, -1.2, +1.3
		{"dcqcn-buf4", "incast4", 6, 0.04, 0.04, 0.04, 0.04, 0.08}, // +2.4, +1.7, +2.0, +2.1, +5.8
		{"dcqcn-knobs", "incast4", 6, 0.05, 0.04, 0.05, 0, 0},      // +2.9, +2.5, +3.0
		{"hp", "incast4", 1, 0.06, 0.08, 0.04, 0, 0},               // +3.6, +6.0, +1.9
		{"hp-qcn0", "incast4", 1, 0.06, 0.08, 0.04, 0, 0},          // +3.6, +6.0, +1.9
		{"mixconfig", "incast4", 1, 0.04, 0.07, 0.04, 0, 0},        // +2.5, +5.3, +1.6
		{"hpccPint", "incast4", 1, 0.04, 0.06, 0.05, 0, 0},         // +2.3, +4.2, +2.7
		{"timely", "incast4", 1, 0.05, 0.06, 0.04, 0, 0},           // +2.9, +3.6, +2.1
		{"timely-qcn0", "incast4", 1, 0.05, 0.06, 0.04, 0, 0},      // +2.9, +3.6, +2.1
		{"timely-ack4", "incast4", 1, 0.05, 0.06, 0.04, 0, 0},      // +2.9, +3.6, +2.1
		{"dctcp", "incast4", 1, 0.06, 0.07, 0.06, 0, 0},            // +4.3, +4.6, +4.1
		{"dctcp-qcn0", "incast4", 1, 0.06, 0.06, 0.06, 0, 0},       // +4.3, +4.4, +4.1
		{"pfc", "incast4", 1, 0.06, 0.06, 0.06, 0, 0},              // +4.1, +4.1, +4.1
		{"pfc-buf4", "incast4", 1, 0.06, 0.06, 0.06, 0.09, 0.06},   // +4.1, +4.0, +4.1, +6.6, +3.7
		{"dcqcn", "perm8", 6, 0.08, 0.12, 0.07, 0, 0},              // +6.5, +9.6, +4.8
		{"dcqcn_paper", "perm8", 6, 0.08, 0.12, 0.04, 0, 0},        // +6.5, +9.6, +2.1
		{"dcqcn-buf4", "perm8", 6, 0.09, 0.12, 0.07, -1, -1},       // +6.6, +9.6, +5.4; pauses 4 against 10 (11.8 and 24.0 us)
		{"dcqcn-knobs", "perm8", 6, 0.08, 0.14, 0.03, 0, 0},        // +5.8, +12.3, +1.2
		{"hp", "perm8", 1, 0.03, 0.04, 0.04, 0, 0},                 // +0.9, -1.7, +2.3
		{"hp-qcn0", "perm8", 1, 0.03, 0.04, 0.04, 0, 0},            // +0.9, -1.7, +2.3
		{"mixconfig", "perm8", 1, 0.04, 0.04, 0.04, 0, 0},          // +2.5, +1.6, +2.4
		{"hpccPint", "perm8", 1, 0.08, 0.09, 0.07, 0, 0},           // +6.5, +7.3, +5.4
		{"timely", "perm8", 1, 0.07, 0.10, 0.05, 0, 0},             // +4.6, +8.4, +2.6
		{"timely-qcn0", "perm8", 1, 0.07, 0.10, 0.05, 0, 0},        // +4.6, +8.4, +2.6
		{"timely-ack4", "perm8", 1, 0.07, 0.10, 0.05, 0, 0},        // +4.6, +8.4, +2.6
		{"dctcp", "perm8", 1, 0.09, 0.11, 0.07, 0, 0},              // +6.8, +9.0, +5.5
		{"dctcp-qcn0", "perm8", 1, 0.09, 0.11, 0.07, 0, 0},         // +6.8, +9.0, +5.5
		{"pfc", "perm8", 1, 0.09, 0.12, 0.07, 0, 0},                // +6.9, +9.6, +5.5
		{"pfc-buf4", "perm8", 1, 0.09, 0.12, 0.07, 0.07, 0.06},     // +7.3, +9.6, +5.5, +4.9, +4.4
	} {
		t.Run(c.name+"/"+c.input, func(t *testing.T) { holdShape(t, c) })
	}
}

// Shapes ns-3 runs byte for byte alike import alike: rates in any of
// DataRate's units, ENABLE_QCN 0 under a control that reads no marks, an
// L2_ACK_INTERVAL up to a packet (it counts bytes). Their scenarios differ
// from the base's in the head's comments at most.
func TestConfigShapesImportAlike(t *testing.T) {
	for _, c := range []struct{ shape, as string }{
		{"dcqcn-units", "dcqcn"},
		{"timely-ack4", "timely"},
		{"timely-qcn0", "timely"},
		{"hp-qcn0", "hp"},
	} {
		body := func(name string) string {
			data, err := os.ReadFile(importShape(t, name))
			if err != nil {
				t.Fatal(err)
			}
			var keep []string
			for _, l := range strings.Split(string(data), "\n") {
				if !strings.HasPrefix(l, "#") {
					keep = append(keep, l)
				}
			}
			return strings.Join(keep, "\n")
		}
		got, want := body(c.shape), body(c.as)
		if strings.Contains(c.shape, "qcn0") {
			// the marks' thresholds stay, off
			want = strings.Replace(want, "  ecn: {kmin:", "  ecn: {enabled: false, kmin:", 1)
		}
		if got != want {
			t.Errorf("%s imports otherwise than %s:\n%s\nagainst\n%s", c.shape, c.as, got, want)
		}
	}
}

// What ns-3 runs otherwise than its config reads, or cannot run, is
// refused where it stands: run.py's DCQCN and TIMELY with a window
// (dcqcn_vwin, timely_vwin: rocelab's have none), and on run.py's DCQCN
// a value third.cc reads otherwise than written (a whole-number key with
// a fraction, PAUSE_TIME under 1, a fraction of KB in the marks), an ACK
// interval past a flow's first packet, a rate in no unit of DataRate.
// Before, BUFFER_SIZE 16.5, PAUSE_TIME 0.5 and KMIN 400.5 imported as
// written, and L2_ACK_INTERVAL 1001 as ack_coalesce 1001.
func TestConfigShapesRefused(t *testing.T) {
	for _, name := range []string{"dcqcn_vwin", "timely_vwin"} {
		err := fromNs3(filepath.Join(shapesDir, "config-"+name+".txt"), &bytes.Buffer{})
		want := "config-" + name + ".txt:32:9: HAS_WIN 1: a window besides the rate (run.py's dcqcn_vwin and timely_vwin; rocelab's DCQCN and TIMELY have none)"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, expected %q", name, err, want)
		}
	}
	base, err := os.ReadFile(filepath.Join(shapesDir, "config-dcqcn.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range []string{"topology.txt", "flow.txt", "trace.txt"} {
		data, err := os.ReadFile(filepath.Join(shapesDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ from, to, want string }{
		{"BUFFER_SIZE 32", "BUFFER_SIZE 16.5", `c.txt:55:13: BUFFER_SIZE "16.5": third.cc reads a whole number here: it takes "16" and skips ".5" as a word it does not know`},
		{"CC_MODE 1", "CC_MODE 1e0", `c.txt:15:9: CC_MODE "1e0": third.cc reads a whole number here: it takes "1" and skips "e0"`},
		{"ACK_HIGH_PRIO 1", "ACK_HIGH_PRIO 1\nPAUSE_TIME 0.5", "c.txt:47:12: PAUSE_TIME 0.5: ns-3 sends it as a whole number, 0, and a pause frame of time 0 resumes"},
		{"KMIN_MAP 2 100000000000 400", "KMIN_MAP 2 100000000000 400.5", `c.txt:53:10: KMIN_MAP "400.5" at 100000000000 bps: expected a whole number of KB`},
		{"L2_ACK_INTERVAL 1", "L2_ACK_INTERVAL 1001", "c.txt:29:17: L2_ACK_INTERVAL 1001: ns-3 counts it in bytes and ACKs a flow's packets only from that many bytes on"},
		{"L2_ACK_INTERVAL 1", "L2_ACK_INTERVAL 0", "c.txt:29:17: L2_ACK_INTERVAL 0: ns-3's receivers then ACK and its senders drop every ACK"},
		{"RATE_AI 20Mb/s", "RATE_AI 20Mbit/s", `c.txt:22:9: RATE_AI "20Mbit/s": expected a number and one of ns-3's rate units`},
		{"RATE_AI 20Mb/s", "RATE_AI 500000", "c.txt:22:9: RATE_AI: 0.5 is not a whole rpg_ai_rate"},
	} {
		text := strings.Replace(string(base), c.from, c.to, 1)
		if text == string(base) {
			t.Fatalf("config-dcqcn.txt has no %q", c.from)
		}
		f := filepath.Join(dir, "c.txt")
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := fromNs3(f, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, expected %q", c.to, err, c.want)
		}
	}
	// up to a packet's bytes, every packet is ACKed
	text := strings.Replace(string(base), "L2_ACK_INTERVAL 1\n", "L2_ACK_INTERVAL 1000\n", 1)
	if err := os.WriteFile(filepath.Join(dir, "c.txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var y bytes.Buffer
	if err := fromNs3(filepath.Join(dir, "c.txt"), &y); err != nil || !strings.Contains(y.String(), "ack_coalesce: 1,") {
		t.Errorf("L2_ACK_INTERVAL 1000 with 1000 B payloads: error %v, expected ack_coalesce 1 in\n%s", err, y.String())
	}
}

// TestNs3PausesWithRocelabFrames holds the DCQCN shape with the 4 MiB
// buffer (dcqcn-buf4) to ns-3 sending rocelab's frames: ns-3's packets of
// 1000 B are 1048 B on the wire (ns3DataHeaders), rocelab's of 1024 B
// 1106 B, so testdata/shapes/wire runs ns-3 at PACKET_PAYLOAD_SIZE 1058
// (1106 B packets) with each flow 1954 of them, as many as rocelab sends
// for 2 MB. There the pauses agree (seeds 1-60: episodes +0.0 %, time
// held -0.2 %), where against ns-3's own 1000 B they are +10.5 and
// +10.9 % (seeds 1-18; +9.8 and +9.4 % over seeds 1-200, ns-3 at 1024 B
// +8.1 and +8.3 % over 1-100): the pauses' excess is the longer frame's,
// which DCQCN's episodes carry over into more pauses than the 3.2 % it
// adds to a packet (docs/engine.md, "Config shapes").
func TestNs3PausesWithRocelabFrames(t *testing.T) {
	file := importShape(t, "dcqcn-buf4")
	var n, r pauses
	for seed := 1; seed <= 60; seed++ {
		s, err := scenario.LoadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		s.Seed = uint64(seed)
		o, err := agree.RunScenario(s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := readFile(fmt.Sprintf("%s/wire/pfc-dcqcn-buf4-wire-seed%d.txt", shapesDir, seed), readPauses)
		if err != nil {
			t.Fatal(err)
		}
		// The recordings are config-dcqcn-buf4-wire.txt's: nine flows of
		// 1954 packets of 1058 B, each finished.
		flows, err := readFile(fmt.Sprintf("%s/wire/fct-dcqcn-buf4-wire-seed%d.txt", shapesDir, seed), readAllFCT)
		if err != nil {
			t.Fatal(err)
		}
		if len(flows) != 9 || slices.ContainsFunc(flows, func(f ns3Flow) bool { return f.size != 1954*1058 || f.fct <= 0 }) {
			t.Fatalf("seed %d: %d flows finished, want 9 of %d B", seed, len(flows), 1954*1058)
		}
		ours := rocelabPauses(o)
		n.n += got.n
		n.held += got.held
		r.n += ours.n
		r.held += ours.held
	}
	agree.Hold(t, "dcqcn-buf4's pauses over 60 seeds, ns-3 sending rocelab's frames", "ns-3", []agree.Metric{
		{Name: "pause episodes", Other: float64(n.n), Rocelab: float64(r.n), Bound: 0.04},
		{Name: "time held paused", Other: n.held, Rocelab: r.held, Bound: 0.04},
	})
}
