package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/twin"
)

// byFlow pairs htsim's lines with rocelab's flows by source and
// destination, in rocelab's order whatever htsim's, counts htsim's time
// from the flow's start in rocelab, and gives up when a pair carries two
// flows or the two sides hold different flows.
func TestByFlow(t *testing.T) {
	fct := func(v float64) *float64 { return &v }
	flows := []twin.Flow{
		{Src: "h1", Dst: "h2", Bytes: 100, StartUS: 5, FCTUS: fct(20)},
		{Src: "h3", Dst: "h2", Bytes: 300, FCTUS: fct(40)},
	}
	hf := []htsimFinish{{name: "HPCC_3_2", us: 42}, {name: "Roce_1_2", us: 30}}
	got, ok := byFlow(hf, twin.Observation{Flows: flows})
	if !ok || len(got) != 2 {
		t.Fatalf("got %v, %v", got, ok)
	}
	if g := got[0]; g.Size != 100 || g.Other != 25 || g.Rocelab != 20 {
		t.Errorf("first: %+v (htsim's 30 us less rocelab's start at 5)", g)
	}
	if g := got[1]; g.Size != 300 || g.Other != 42 || g.Rocelab != 40 {
		t.Errorf("second: %+v", g)
	}
	for name, c := range map[string]struct {
		hf    []htsimFinish
		flows []twin.Flow
	}{
		"pair twice":   {[]htsimFinish{{name: "Roce_1_2", us: 30}, {name: "Roce_1_2", us: 31}}, []twin.Flow{flows[0], flows[0]}},
		"other flow":   {[]htsimFinish{{name: "Roce_1_2", us: 30}, {name: "Roce_4_2", us: 31}}, flows},
		"line twice":   {[]htsimFinish{{name: "Roce_1_2", us: 30}, {name: "Roce_1_2", us: 31}}, flows},
		"line missing": {hf[:1], flows},
	} {
		if got, ok := byFlow(c.hf, twin.Observation{Flows: c.flows}); ok {
			t.Errorf("%s: paired %v", name, got)
		}
	}
}

// A run that htsim's -end cuts short prints lines for the flows it
// completed only, and rocelab's run of the same scenario ends with flows
// unfinished too: compare says so and compares the first completions of
// each side, as many on both (htsim's 1, not rocelab's 2), where it had
// refused the run ("flow c1 did not complete"). The run is htsim_roce's
// of csg-htsim's incast.cm (15 -> 1 of 2 MB) to -end 1000.
func TestCompareRunCutShort(t *testing.T) {
	const rec = "testdata/htsim/end-incast16-seed1.txt"
	var y bytes.Buffer
	if err := fromHtsim(recordedArgs(t, rec, "testdata/matrices/incast.cm"), nil, &y); err != nil {
		t.Fatal(err)
	}
	yaml := filepath.Join(t.TempDir(), "incast.yaml")
	if err := os.WriteFile(yaml, y.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, warn bytes.Buffer
	if err := compareCmd([]string{yaml, rec}, &out, &warn); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"warning: rocelab completed 2 of the scenario's 15 flows by its end (1ms", "warning: htsim completed 1 flows, the scenario has 15"} {
		if !strings.Contains(warn.String(), want) {
			t.Errorf("compare's warnings lack %q:\n%s", want, warn.String())
		}
	}
	// the warnings go to stderr, the table alone to stdout (they went
	// to stdout with it)
	for _, want := range []string{"incast: 1 of 15 flows", "flows completed                     1            2\n", "last completion (us)            484.6        490.4    +1.2%"} {
		if !strings.Contains(out.String(), want) || strings.Contains(out.String(), "warning") {
			t.Errorf("compare lacks %q or has a warning:\n%s", want, out.String())
		}
	}
}

// Runs of one matrix under two seeds have the same flows, sinks and
// endpoints: only htsim's "random seed N" line (its standard output, given
// -seed) tells them apart. Appended to the file compare reads, it is held
// to the scenario's seed, a mismatch refused at its line and column
// before anything runs (it had compared seed 2's sink samples with seed
// 1's scenario as the same run); without it compare says the seed was not
// checked; compare's own -seed changes rocelab's seed alone. htsim_roce's
// whole standard output (testdata/htsim/gen-ar16s-seed1-stdout.txt) is
// checked as it is.
func TestCompareSeedOfTheRun(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	imported := func(rec, matrix string) string {
		var y bytes.Buffer
		if err := fromHtsim(recordedArgs(t, rec, matrix), nil, &y); err != nil {
			t.Fatal(err)
		}
		return write(filepath.Base(rec)+".yaml", y.Bytes())
	}
	read := func(rec string) []byte {
		b, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	const sinks = "testdata/htsim/until-coll432-seed1.txt"
	samples := read(sinks)
	lines := bytes.Count(samples, []byte("\n"))
	yaml := imported(sinks, "testdata/matrices/collateral-incast.cm")
	other := write("seed2.txt", append(samples, "random seed 2\n"...))
	err := compareCmd([]string{yaml, other}, &bytes.Buffer{}, &bytes.Buffer{})
	if want := fmt.Sprintf("seed2.txt:%d:13: random seed 2, but the scenario's (from-htsim writes htsim's -seed there) is 1", lines+1); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("seed 2's samples against seed 1's scenario: %v, expected %q", err, want)
	}

	// htsim_roce's whole standard output (gen-ar16s, seed 1) carries the
	// line itself, at line 12 of the record: compare checks it as is.
	const whole = "testdata/htsim/gen-ar16s-seed1-stdout.txt"
	for seed, want := range map[string]string{"1": "seed 1: htsim's (line 12) and the scenario's", "2": "gen-ar16s-seed1-stdout.txt:12:13: random seed 1, but the scenario's (from-htsim writes htsim's -seed there) is 2",
		"0": "gen-ar16s-seed1-stdout.txt:12:13: random seed 1, but the scenario's (from-htsim writes htsim's -seed there) is 0"} {
		args := recordedArgs(t, "testdata/htsim/gen-ar16s-seed1.txt", "testdata/htsim/gen-ar16s.cm")
		args[slices.Index(args, "-seed")+1] = seed
		var y, w bytes.Buffer
		if err := fromHtsim(args, nil, &y); err != nil {
			t.Fatal(err)
		}
		err := compareCmd([]string{write("ar16s-"+seed+".yaml", y.Bytes()), whole}, &w, &w)
		if got := w.String() + fmt.Sprint(err); !strings.Contains(got, want) {
			t.Errorf("htsim's whole output against the scenario of seed %s: %s, expected %q", seed, got, want)
		}
	}

	const rec = "testdata/htsim/end-incast16-seed1.txt"
	out := read(rec)
	n := bytes.Count(out, []byte("\n"))
	yaml = imported(rec, "testdata/matrices/incast.cm")
	for _, c := range []struct {
		name, tail string
		args       []string
		want       string
		fails      bool
	}{
		{"same seed", "random seed 1\n", nil, fmt.Sprintf("seed 1: htsim's (line %d) and the scenario's", n+1), false},
		{"compared under another seed", "random seed 1\n", []string{"-seed", "7"}, fmt.Sprintf(":%d:13: random seed 1, but compare's -seed is 7", n+1), true},
		{"compared under its seed", "random seed 7\n", []string{"-seed", "7"}, fmt.Sprintf("seed 7: htsim's (line %d) and compare's -seed", n+1), false},
		{"no seed line", "", nil, "seed: not checked (no \"random seed N\" line", false},
		{"two runs", "random seed 1\nrandom seed 4\n", nil, fmt.Sprintf(":%d:13: random seed 4, line %d's 1: expected one run's output", n+2, n+1), true},
		{"not a number", "random seed x\n", nil, fmt.Sprintf(":%d:13: \"x\": expected the seed", n+1), true},
		{"no number", "random seed\n", nil, fmt.Sprintf(":%d:12: the line's end: expected the seed", n+1), true},
		{"two numbers", "random seed 2 3\n", nil, fmt.Sprintf(":%d:15: \"3\": expected the seed, a whole number alone", n+1), true},
		{"other seed", "random seed 3\n", nil, "random seed 3, but the scenario's (from-htsim writes htsim's -seed there) is 1", true},
		{"compared under seed 0", "random seed 1\n", []string{"-seed", "0"}, fmt.Sprintf(":%d:13: random seed 1, but compare's -seed is 0", n+1), true},
	} {
		file := write("out.txt", append(slices.Clone(out), c.tail...))
		var w bytes.Buffer
		err := compareCmd(append(slices.Clone(c.args), yaml, file), &w, &w)
		got := w.String()
		if err != nil {
			got = err.Error()
		}
		if (err != nil) != c.fails || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q (error %v), expected %q", c.name, got, err, c.want)
		}
	}
}

// A scenario written by hand (tools/htsimconv/scenarios/, no seed: line,
// so seed 1) converted to a matrix and run on htsim with -seed 2 is
// compared with compare -seed 2 (docs/engine.md): htsim's "random seed 2"
// is held to compare's -seed, and without -seed it is not checked, the
// scenario's seed not being htsim's. compare had held it to the
// scenario's seed 1 and refused the run (":131:13: random seed 2, the
// scenario's seed is 1").
func TestCompareSeedOfAHandWrittenScenario(t *testing.T) {
	out, err := os.ReadFile("testdata/htsim/incast127-seed2.txt")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "incast127-seed2.txt")
	if err := os.WriteFile(file, append(out, "random seed 2\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	n := bytes.Count(out, []byte("\n")) + 1
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-seed", "2"}, fmt.Sprintf("seed 2: htsim's (line %d) and compare's -seed", n)},
		{nil, fmt.Sprintf("seed: not checked (htsim's is 2, line %d; the scenario was not written by from-htsim", n)},
	} {
		var w bytes.Buffer
		err := compareCmd(append(c.args, "scenarios/agree-incast127.yaml", file), &w, &w)
		if err != nil || !strings.Contains(w.String(), c.want) {
			t.Errorf("compare %v: %v\n%s\nexpected %q", c.args, err, w.String(), c.want)
		}
	}
}
