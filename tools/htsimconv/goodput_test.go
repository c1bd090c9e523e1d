package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/tools/internal/agree"
)

// parse_output -ascii's sink samples are read whatever else the file
// holds; a sink line it cannot read is refused at its line and column.
func TestReadSinkSamples(t *testing.T) {
	const good = "# a comment\n0.000100000 Type ROCE_SINK ID 9870 Ev RATE CAck 12288 Rate 122880000\n" +
		"0.000100000 Type QUEUE_RECORD ID 4 Ev CUM_TRAFFIC 1 2 3\n0.000200000 Type HPCC_SINK ID 9873 Ev RATE CAck 57344 Rate 1\n"
	x, err := readSinkSamples("s.txt", strings.NewReader(strings.ReplaceAll(good, "HPCC_SINK", "ROCE_SINK")))
	if err != nil {
		t.Fatal(err)
	}
	if want := []sinkSample{{100, 9870, 12288}, {200, 9873, 57344}}; fmt.Sprint(x.samples) != fmt.Sprint(want) || x.kind != "ROCE_SINK" {
		t.Errorf("read %v, expected %v", x, want)
	}
	for _, c := range []struct{ text, want string }{
		{"0.0001 Type ROCE_SINK ID x Ev RATE CAck 1 Rate 1\n", "s.txt:1:26: \"x\": expected the sink's id"},
		{"0.0001 Type ROCE_SINK ID 1 Ev RATE CAck -1 Rate 1\n", "s.txt:1:41: \"-1\": expected the bytes received"},
		{"0.0001 Type ROCE_SINK ID 1 Ev RATE CAck\n", "s.txt:1:40: the line's end: expected the bytes received"},
		{"NaN Type ROCE_SINK ID 1 Ev RATE CAck 1 Rate 1\n", "s.txt:1:1: \"NaN\": expected the sample's time in seconds"},
		{"\n0.0001  Type ROCE_SINK ID 1 Ev RATE Seq 1\n", "s.txt:2:37: \"Seq\": expected \"CAck\""},
	} {
		if _, err := readSinkSamples("s.txt", strings.NewReader(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, expected %q", c.text, err, c.want)
		}
	}
}

// A sink line wrong in several fixed words is told of its first, the
// same every run.
func TestReadSinkSamplesFirstWrongWord(t *testing.T) {
	for range 40 {
		_, err := readSinkSamples("s.txt", strings.NewReader("0.0001 Type ROCE_SINK IX 1 Xv RATE Seq 1 Rate 1\n"))
		if err == nil || !strings.Contains(err.Error(), "s.txt:1:23: \"IX\": expected \"ID\"") {
			t.Fatalf("%v, expected the first wrong word, ID at column 23", err)
		}
	}
}

// Each sink's bytes are taken at the last sampling time, in the order of
// the sinks' ids; a sink the last sampling lacks is an error.
func TestLastSamples(t *testing.T) {
	ids, b, us, err := lastSamples("s.txt", []sinkSample{{100, 9, 1}, {100, 6, 2}, {200, 9, 30}, {200, 6, 40}})
	if err != nil || us != 200 || fmt.Sprint(b) != "[40 30]" || fmt.Sprint(ids) != "[6 9]" {
		t.Errorf("got %v at %v us (%v), expected [40 30] at 200", b, us, err)
	}
	if _, _, _, err := lastSamples("s.txt", []sinkSample{{100, 9, 1}, {100, 6, 2}, {200, 9, 30}}); err == nil || !strings.Contains(err.Error(), "sink 6 has no sample at 200.000 us") {
		t.Errorf("a sink missing at the last time: %v", err)
	}
	if _, _, _, err := lastSamples("s.txt", []sinkSample{{200, 9, 1}, {200, 9, 2}}); err == nil || !strings.Contains(err.Error(), "sink 9 sampled twice") {
		t.Errorf("a sink twice: %v", err)
	}
}

// htsim prints no "finished at" line for a connection without a size
// (sent until -end): compare takes the goodputs by htsim's last sink
// sample (parse_output -ascii) where it had refused the run for lack of
// completions. csg-htsim's collateral incast, 64 such connections into
// host 0, seed 1, on htsim_roce and on htsim_hpcc (HPCC_SINK samples).
func TestCompareUntilEnd(t *testing.T) {
	var yaml string
	for rec, most := range map[string]string{
		"testdata/htsim/until-coll432-seed1.txt":      "goodput most (Gb/s)              3.44         4.10   +19.0%",
		"testdata/htsim/until-coll432-hpcc-seed1.txt": "goodput most (Gb/s)              4.59         4.10   -10.7%",
	} {
		var y bytes.Buffer
		if err := fromHtsim(recordedArgs(t, rec, "testdata/matrices/collateral-incast.cm"), nil, &y); err != nil {
			t.Fatal(err)
		}
		yaml = filepath.Join(t.TempDir(), "coll.yaml")
		if err := os.WriteFile(yaml, y.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := compareCmd([]string{yaml, rec}, &out, &out); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"collateral-incast: 64 flows, goodput by 200.0 us", "goodput mean (Gb/s)              1.48         1.47    -0.3%", most, "flow by flow (64 flows htsim delivered to): |diff| mean "} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%s: compare lacks %q:\n%s", rec, want, out.String())
			}
		}
	}
	// Samples of another run (the permutation's 432 sinks) are refused.
	err := compareCmd([]string{yaml, "testdata/htsim/until-perm432-seed1.txt"}, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "432 sinks sampled, the scenario has 64 flows") {
		t.Errorf("another run's samples: %v", err)
	}
}

// The sink samples must be of the run the scenario was imported from:
// of its program (ROCE_SINK for htsim_roce's cc none, HPCC_SINK for
// htsim_hpcc's cc hpcc, never both) and, where the logfile preamble's
// sink names are given, each sink ending its flow's endpoints; a file of
// both sink samples and "finished at" lines, or of neither, is refused.
func TestCompareSinksOfTheRun(t *testing.T) {
	const rec = "testdata/htsim/until-coll432-seed1.txt"
	var y bytes.Buffer
	if err := fromHtsim(recordedArgs(t, rec, "testdata/matrices/collateral-incast.cm"), nil, &y); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	yaml := filepath.Join(dir, "coll.yaml")
	if err := os.WriteFile(yaml, y.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	var unnamed strings.Builder
	for l := range strings.Lines(string(text)) {
		if !strings.HasPrefix(l, ": ") {
			unnamed.WriteString(l)
		}
	}
	const flowLine = "Flow Roce_368_0 9869 finished at 100 total bytes 4096\n"
	for _, c := range []struct{ name, file, text, want string }{
		{"another program's sinks", "testdata/htsim/until-coll432-hpcc-seed1.txt", "", "HPCC_SINK samples, the scenario's host.cc is none: expected hpcc"},
		{"sinks of other flows", "", strings.Replace(string(text), ": Roce_sink_369_0=9873", ": Roce_sink_370_0=9873", 1), "s.txt:133: sink 9873 carries 370->0, the scenario's flow c2 (2 of 64) h369->h0"},
		{"a sink unnamed", "", strings.Replace(string(text), ": Roce_sink_369_0=9873\n", "", 1), "s.txt: 63 sinks named, 64 sampled"},
		{"both sink kinds", "", string(text) + "0.0002 Type HPCC_SINK ID 1 Ev RATE CAck 1 Rate 1\n", "s.txt:196:13: a HPCC_SINK sink: expected ROCE_SINK, as line 4's"},
		{"both sink names", "", string(text) + ": HPCC_sink_1_0=5\n", "s.txt:196:3: a HPCC_SINK sink: expected ROCE_SINK, as line 4's"},
		{"finished among samples", "", string(text) + flowLine, "s.txt:196:1: a \"finished at\" line among ROCE_SINK samples"},
		{"no sink lines", "", "0.0001 Type QUEUE_RECORD ID 4 Ev CUM_TRAFFIC 1 2 3\n", "no \"Flow ... finished at T\" lines and no ROCE_SINK/HPCC_SINK lines"},
		{"unnamed", "", unnamed.String(), ""},
	} {
		file := c.file
		if file == "" {
			file = filepath.Join(dir, "s.txt")
			if err := os.WriteFile(file, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var out bytes.Buffer
		err := compareCmd([]string{yaml, file}, &out, &out)
		if c.want == "" {
			if err != nil || !strings.Contains(out.String(), "flow by flow: not compared (no sink names") {
				t.Errorf("%s: %v, expected the statistics alone:\n%s", c.name, err, out.String())
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, expected %q", c.name, err, c.want)
		}
	}
}

// TestAgreesWithHtsimUntilEnd holds the goodputs of csg-htsim's two
// example matrices whose connections have no size (sent until -end,
// never finished: no completion time to compare) to htsim_roce's
// recorded sink samples (testdata/htsim/until-*, 3 pinned seeds each),
// each statistic averaged over the seeds. A flow's goodput is the bytes
// its sink received in order by htsim's last sample (200 us), over that
// time. The least flow's is logged only: over 200 us it is a handful of
// packets, which one hash draw moves by half.
func TestAgreesWithHtsimUntilEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the 432-host permutation three times")
	}
	for _, c := range []struct {
		base, matrix           string
		mean, p50, most, least float64
	}{
		// measured: mean -0.3 %, median +0.0 %, most +0.0 %, least -16.7 %
		{"until-coll432", "collateral-incast.cm", 0.02, 0.05, 0.03, 0},
		// measured: mean -3.0 %, median -4.6 %, most -0.6 %, least -8.2 %
		{"until-perm432", "permutation-permutation.cm", 0.05, 0.08, 0.02, 0},
	} {
		var h, r [4]float64
		const seeds = 3
		for seed := 1; seed <= seeds; seed++ {
			file := fmt.Sprintf("testdata/htsim/%s-seed%d.txt", c.base, seed)
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			x, err := readSinkSamples(file, f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			hg, rg, _, _, err := goodputRun(file, x, importRecorded(t, file, "testdata/matrices/"+c.matrix))
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range goodputMetrics(hg, rg) {
				h[i] += m.Other / seeds
				r[i] += m.Rocelab / seeds
			}
		}
		var ms []agree.Metric
		for i, m := range goodputMetrics([]float64{1}, []float64{1}) {
			m.Other, m.Rocelab, m.Bound = h[i], r[i], []float64{c.mean, c.p50, c.least, c.most}[i]
			if math.IsNaN(m.Diff()) {
				t.Fatalf("%s %s: htsim %v, rocelab %v", c.base, m.Name, h[i], r[i])
			}
			ms = append(ms, m)
		}
		agree.Hold(t, c.base, "htsim", ms)
	}
}

func FuzzReadSinkSamples(f *testing.F) {
	f.Add("0.000100000 Type ROCE_SINK ID 9870 Ev RATE CAck 12288 Rate 122880000\n")
	f.Add("0.0002 Type HPCC_SINK ID 1 Ev RATE CAck 99999999999999999999 Rate 1\n")
	f.Add("1e400 Type ROCE_SINK ID 1 Ev RATE CAck 1 Rate 1\n0 Type ROCE_SINK\n")
	f.Add("-0 Type ROCE_SINK ID -3 Ev RATE CAck 5\n")
	f.Add(": Roce_sink_368_0=9870\n: Roce_368_0=9869\n: HPCC_sink_1_2=3\n")
	f.Add(": Roce_sink_1=2\n: Roce_sink_1_2=x\n: Roce_sink_1_2=3\n: Roce_sink_2_1=3\n")
	f.Add("random seed 1\n0.0001 Type ROCE_SINK ID 1 Ev RATE CAck 5 Rate 1\nrandom seed 1\nrandom seed 18446744073709551616\n")
	f.Add("random seed\nrandom seed -1\nrandom seed 2 3\n")
	f.Fuzz(func(t *testing.T, text string) {
		x, err := readSinkSamples("s.txt", strings.NewReader(text))
		if err != nil {
			return
		}
		for _, s := range x.samples {
			if s.us < 0 || math.IsNaN(s.us) || math.IsInf(s.us, 0) || s.id < 0 || s.bytes < 0 {
				t.Fatalf("read %+v", s)
			}
		}
		for id, n := range x.names {
			if id < 0 || n.src < 0 || n.dst < 0 {
				t.Fatalf("read name %d %+v", id, n)
			}
		}
		if _, b, us, err := lastSamples("s.txt", x.samples); err == nil && len(x.samples) > 0 && (len(b) == 0 || us < 0) {
			t.Fatalf("last samples %v at %v us", b, us)
		}
	})
}
