package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/scenario"
	"rocelab/internal/twin"
	"rocelab/tools/internal/agree"
	"rocelab/tools/internal/fields"
)

// readFinishes reads the completion times, in microseconds, of htsim's
// "Flow NAME ID finished at T total bytes B" lines (htsim_roce) or "Flow
// NAME finished at T total bytes B" (htsim_hpcc, hpcc.cpp:211); other
// lines of its output are skipped, as are comments.
func readFinishes(file string, r io.Reader) ([]float64, error) {
	fs, err := readFlowLines(file, r)
	return finishTimes(fs), err
}

// finishTimes is the completion times of flow lines, in their order.
func finishTimes(fs []htsimFinish) []float64 {
	x := make([]float64, len(fs))
	for i, f := range fs {
		x[i] = f.us
	}
	return x
}

// htsimFinish is one "Flow NAME [ID] finished at T" line: the flow's name
// (htsim_roce's Roce_SRC_DST, htsim_hpcc's HPCC_SRC_DST) and its
// completion time in microseconds.
type htsimFinish struct {
	name      string
	us        float64
	line, col int
}

// errNoFinishes is readFlowLines' error for a file without a flow line.
var errNoFinishes = errors.New("no \"Flow ... finished at T\" lines")

func readFlowLines(file string, r io.Reader) ([]htsimFinish, error) {
	var x []htsimFinish
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		fs, cols := fields.At(sc.Text())
		if len(fs) > 0 && fs[0] == "Flow" && len(fs) >= 5 && fs[2] == "finished" && fs[3] == "at" {
			fs = slices.Insert(fs, 2, "") // htsim_hpcc prints no id
		}
		if len(fs) < 6 || fs[0] != "Flow" || fs[3] != "finished" || fs[4] != "at" {
			continue
		}
		v, err := strconv.ParseFloat(fs[5], 64)
		if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s:%d: finished at %q: expected microseconds", file, line, fs[5])
		}
		x = append(x, htsimFinish{fs[1], v, line, cols[0]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if len(x) == 0 {
		return nil, fmt.Errorf("%s: %w: htsim_roce and htsim_hpcc print one per completed flow on their standard output; for connections without a size, which run until -end, give the run's sink samples (htsim with -log sink, then parse_output LOGFILE -ascii)", file, errNoFinishes)
	}
	return x, nil
}

// compareCmd runs a scenario on rocelab and prints its completion times
// beside those of htsim's output for the same run, or, given htsim's sink
// samples (parse_output -ascii), the goodputs by the last of them; its
// warnings (flows a side left unfinished) go to warn.
func compareCmd(args []string, w, warn io.Writer) error {
	fs := flag.NewFlagSet("htsimconv compare", flag.ContinueOnError)
	seed := fs.Uint64("seed", 0, "rocelab's seed (not given: the scenario's)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	seedGiven := false
	fs.Visit(func(f *flag.Flag) { seedGiven = seedGiven || f.Name == "seed" })
	if fs.NArg() != 2 {
		return errors.New("compare: expected a scenario file and htsim_roce's standard output (or its sink samples: parse_output LOGFILE -ascii)")
	}
	s, err := scenario.LoadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	runSeed, known, why, err := seedToHold(fs.Arg(0), s.Seed, *seed, seedGiven)
	if err != nil {
		return err
	}
	if seedGiven {
		s.Seed = *seed
	}
	out, err := os.ReadFile(fs.Arg(1))
	if err != nil {
		return err
	}
	samples, err := readSinkSamples(fs.Arg(1), bytes.NewReader(out))
	if err != nil {
		return err
	}
	hf, ferr := readFlowLines(fs.Arg(1), bytes.NewReader(out))
	switch {
	case len(samples.samples) > 0 && len(hf) > 0:
		return fmt.Errorf("%s:%d:%d: a \"finished at\" line among %s samples: expected one of htsim's standard output (its \"finished at\" lines) or the sink samples of parse_output -ascii, not both", fs.Arg(1), hf[0].line, hf[0].col, samples.kind)
	case ferr != nil && !errors.Is(ferr, errNoFinishes):
		return ferr
	case len(samples.samples) == 0 && ferr != nil:
		return fmt.Errorf("%s: no \"Flow ... finished at T\" lines and no ROCE_SINK/HPCC_SINK lines: expected htsim_roce's or htsim_hpcc's standard output, or, for connections without a size (run until -end), the sink samples of a run with -log sink (parse_output LOGFILE -ascii)", fs.Arg(1))
	}
	if err := checkSeed(w, fs.Arg(1), samples.seed, runSeed, known, why); err != nil {
		return err
	}
	if len(samples.samples) > 0 {
		return compareGoodput(w, fs.Arg(1), samples, s)
	}
	h := finishTimes(hf)
	o, err := agree.RunToEnd(s)
	if err != nil {
		return err
	}
	// A run that -end cuts short leaves flows unfinished in either: htsim
	// prints none for them. The statistics are then of the first k
	// completions of each side, k the smaller count, so that both cover
	// as many flows.
	var r []float64
	for _, f := range o.Flows {
		if f.FCTUS != nil {
			r = append(r, f.StartUS+*f.FCTUS)
		}
	}
	if len(r) != len(o.Flows) {
		fmt.Fprintf(warn, "warning: rocelab completed %d of the scenario's %d flows by its end (%v, htsim's -end)\n", len(r), len(o.Flows), s.Duration)
	}
	if len(h) != len(o.Flows) {
		fmt.Fprintf(warn, "warning: htsim completed %d flows, the scenario has %d: not the same run, or htsim's -end cut it short\n", len(h), len(o.Flows))
	}
	if len(r) == 0 {
		return fmt.Errorf("compare: rocelab completed none of the %d flows by the scenario's end (%v): nothing to compare", len(o.Flows), s.Duration)
	}
	k := min(len(h), len(r))
	first := func(x []float64) []float64 { return slices.Sorted(slices.Values(x))[:k] }
	hs, rs := agree.Summarise(first(h)), agree.Summarise(first(r))
	fmt.Fprintf(w, "%s: %d of %d flows (the first to complete on each side); completion times from the start of the run\n%-24s %12s %12s %8s\n", s.Name, k, len(o.Flows), "statistic", "htsim", "rocelab", "diff")
	fmt.Fprintf(w, "%-24s %12d %12d\n", "flows completed", len(h), len(r))
	for _, m := range []struct {
		name string
		a, b float64
	}{{"completion mean (us)", hs.Mean, rs.Mean}, {"completion median (us)", hs.P50, rs.P50}, {"completion p99 (us)", hs.P99, rs.P99}, {"last completion (us)", hs.Max, rs.Max}} {
		fmt.Fprintf(w, "%-24s %12.1f %12.1f %+7.1f%%\n", m.name, m.a, m.b, 100*(m.b/m.a-1))
	}
	// Buckets by size rank need sizes to rank: among flows of one size
	// the split would be the order of the flows.
	if fl, ok := byFlow(hf, o); ok && len(fl) >= agree.MinSlowdownFlows && slices.ContainsFunc(fl, func(f agree.FlowResult) bool { return f.Size != fl[0].Size }) {
		agree.PrintSlowdowns(w, "htsim", "FCT (us; htsim has no standalone FCT to divide by)", agree.Slowdowns(fl))
	}
	return nil
}

// fromHtsimHead begins the scenarios from-htsim writes (writeScenario).
const fromHtsimHead = "# The rocelab scenario of an htsim_"

// seedToHold gives the seed htsim's "random seed N" line is held to and
// why: compare's -seed where given (the run is compared under it), else
// the scenario's when from-htsim wrote it (htsim's -seed); not known when
// neither, as a scenario written by hand (seed 1 by default) says nothing
// of the seed htsim ran under. 0 is a seed like any other.
func seedToHold(file string, scenarioSeed, flagSeed uint64, flagGiven bool) (seed uint64, known bool, why string, err error) {
	if flagGiven {
		return flagSeed, true, "compare's -seed", nil
	}
	head, err := os.ReadFile(file)
	if err != nil {
		return 0, false, "", err
	}
	if bytes.HasPrefix(head, []byte(fromHtsimHead)) {
		return scenarioSeed, true, "the scenario's (from-htsim writes htsim's -seed there)", nil
	}
	return 0, false, "", nil
}

// checkSeed holds htsim's "random seed N" line, where the file has one,
// to want, the seed the run is compared under (seedToHold; known false
// when nothing tells it), and says which: runs of one matrix under two
// seeds have the same flows, sinks and endpoints, and only that line
// tells them apart.
func checkSeed(w io.Writer, file string, x runSeed, want uint64, known bool, why string) error {
	switch {
	case x.line == 0:
		fmt.Fprintf(w, "seed: not checked (no \"random seed N\" line, which htsim prints on its standard output when given -seed: without it one seed's run of the matrix is not told from another's)\n")
	case !known:
		fmt.Fprintf(w, "seed: not checked (htsim's is %d, line %d; the scenario was not written by from-htsim, so its seed is not htsim's: give compare -seed %d to hold the line to it)\n", x.n, x.line, x.n)
	case x.n != want:
		return fmt.Errorf("%s:%d:%d: random seed %d, but %s is %d: expected the output of the run compared under it", file, x.line, x.col, x.n, why, want)
	default:
		fmt.Fprintf(w, "seed %d: htsim's (line %d) and %s\n", x.n, x.line, why)
	}
	return nil
}

// flowPair is a rocelab flow's source and destination as an htsim
// flow's name ends them (SRC_DST, htsimPair), the key that pairs the two.
func flowPair(f twin.Flow) string {
	return strings.TrimPrefix(f.Src, "h") + "_" + strings.TrimPrefix(f.Dst, "h")
}

// htsimPair is an htsim flow's source and destination from its name
// (Roce_SRC_DST, HPCC_SRC_DST).
func htsimPair(name string) string {
	_, pair, _ := strings.Cut(name, "_")
	return pair
}

// byFlow pairs htsim's flow lines with rocelab's flows by source and
// destination (htsim names a flow Roce_SRC_DST or HPCC_SRC_DST), in
// rocelab's order of flows (htsim prints them as they finish, an order
// that would sort flows of one size by htsim's own times), each flow's
// completion time counted from its start in rocelab (htsim starts every
// flow at 0); false when a pair carries several flows or one side lacks
// a flow (or did not complete it), which no single pairing then tells
// apart.
func byFlow(hf []htsimFinish, o twin.Observation) ([]agree.FlowResult, bool) {
	finish := map[string]float64{}
	for _, x := range hf {
		pair := htsimPair(x.name)
		if _, ok := finish[pair]; ok {
			return nil, false
		}
		finish[pair] = x.us
	}
	if len(finish) != len(o.Flows) {
		return nil, false
	}
	out := make([]agree.FlowResult, 0, len(o.Flows))
	for _, f := range o.Flows {
		pair := flowPair(f)
		us, ok := finish[pair]
		if !ok || f.FCTUS == nil {
			return nil, false
		}
		delete(finish, pair)
		out = append(out, agree.FlowResult{Size: f.Bytes, Other: us - f.StartUS, Rocelab: *f.FCTUS})
	}
	return out, true
}
