package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/scenario"
	"rocelab/internal/unit"
	"rocelab/tools/internal/agree"
	"rocelab/tools/internal/fields"
)

// A connection without a size runs until -end and never completes, so
// htsim prints no "finished at" line for it. What it carried is in
// htsim's sink logger: run with -log sink (and -logtime MS, 0.25 by
// default), htsim_roce and htsim_hpcc sample every sink's cumulative ACK
// each period into their logfile (-o, logout.dat), and parse_output
// -ascii prints each sample as
//
//	0.000100000 Type ROCE_SINK ID 9870 Ev RATE CAck 266240 Rate 2662400000
//
// (HPCC_SINK for htsim_hpcc; loggers.cpp, RoceSinkLoggerSampling): the
// time in seconds, the sink's object id and the bytes it has received in
// order. The sinks are made in the matrix's order and numbered as they
// are, so the k-th id in ascending order is the k-th connection, the
// k-th flow of the imported scenario. Which connection a sink ends is in
// the logfile's text preamble only (its name, Roce_sink_SRC_DST=ID):
// given those lines too, each sink is checked against its flow and the
// goodputs are compared flow by flow as well.
//
// Neither the samples nor the names tell one seed's run of a matrix from
// another's (the sinks, their ids and their endpoints are the same): the
// seed is only in htsim's standard output, "random seed N", printed when
// -seed is given (main_roce.cpp:189, main_hpcc.cpp:177). Given that line
// too, the seed is checked against the scenario's, which from-htsim
// writes from -seed; without it, compare says the seed was not checked.

// sinkSample is one sink-logger line: when (us), whose (the sink's id)
// and the in-order bytes received by then.
type sinkSample struct {
	us    float64
	id    int
	bytes int64
}

// sinkName is one sink's name in the logfile's text preamble (logfile.cpp,
// writeName): ": Roce_sink_SRC_DST=ID" or ": HPCC_sink_SRC_DST=ID",
// parse_output -ascii prints none of them, so they come from the logfile
// itself (grep -a '^: .*_sink_' LOGFILE, appended). line is where it was.
type sinkName struct {
	src, dst, line int
}

// sinkLog is what one file holds of a run's sinks: their samples, their
// kind (ROCE_SINK: htsim_roce, HPCC_SINK: htsim_hpcc), their names by id
// (none when the preamble's lines were not given).
type sinkLog struct {
	samples []sinkSample
	kind    string
	names   map[int]sinkName
	seed    runSeed
}

// runSeed is htsim's "random seed N" line: N, and where it was (line 0:
// none read).
type runSeed struct {
	n         uint64
	line, col int
}

// sinkKinds are the sink records by the prefix of their preamble names.
var sinkKinds = map[string]string{"Roce_sink_": "ROCE_SINK", "HPCC_sink_": "HPCC_SINK"}

// sinkFields are a sink line's fixed words by field index, in the line's
// order, so that a line wrong in several is told of its first.
var sinkFields = []struct {
	k    int
	want string
}{{3, "ID"}, {5, "Ev"}, {6, "RATE"}, {7, "CAck"}}

// readSinkSamples reads the ROCE_SINK and HPCC_SINK lines of
// parse_output -ascii and the sinks' preamble names; other records and
// lines are skipped. A sink line it cannot read, or of the other kind
// than the file's first, is an error at its line and column.
func readSinkSamples(file string, r io.Reader) (sinkLog, error) {
	var x sinkLog
	kindAt := 0
	kind := func(line, col int, k string) error {
		if x.kind == "" {
			x.kind, kindAt = k, line
		}
		if k != x.kind {
			return fmt.Errorf("%s:%d:%d: a %s sink: expected %s, as line %d's (one run's sinks, of htsim_roce or of htsim_hpcc)", file, line, col, k, x.kind, kindAt)
		}
		return nil
	}
	err := fields.Lines(file, r, func(line int, fs []string, cols []int) error {
		if len(fs) == 2 && fs[0] == ":" {
			return x.readName(file, line, fs[1], cols[1], kind)
		}
		if len(fs) >= 2 && fs[0] == "random" && fs[1] == "seed" {
			return x.readSeed(file, line, fs, cols)
		}
		if len(fs) < 3 || fs[1] != "Type" || fs[2] != "ROCE_SINK" && fs[2] != "HPCC_SINK" {
			return nil
		}
		if err := kind(line, cols[2], fs[2]); err != nil {
			return err
		}
		bad := func(k int, what string) error {
			at, got := cols[len(cols)-1]+len(fs[len(fs)-1]), "the line's end"
			if k < len(fs) {
				at, got = cols[k], strconv.Quote(fs[k])
			}
			return fmt.Errorf("%s:%d:%d: %s: expected %s (parse_output -ascii's \"T Type %s ID N Ev RATE CAck BYTES Rate R\")", file, line, at, got, what, fs[2])
		}
		for _, f := range sinkFields {
			if f.k >= len(fs) || fs[f.k] != f.want {
				return bad(f.k, strconv.Quote(f.want))
			}
		}
		sec, err := strconv.ParseFloat(fs[0], 64)
		if err != nil || sec < 0 || math.IsNaN(sec) || math.IsInf(sec, 0) {
			return bad(0, "the sample's time in seconds")
		}
		id, err := strconv.Atoi(fs[4])
		if err != nil || id < 0 {
			return bad(4, "the sink's id, a whole number")
		}
		n, err := int64(0), error(nil)
		if len(fs) > 8 {
			n, err = strconv.ParseInt(fs[8], 10, 64)
		}
		if len(fs) <= 8 || err != nil || n < 0 {
			return bad(8, "the bytes received, a whole number")
		}
		x.samples = append(x.samples, sinkSample{sec * 1e6, id, n})
		return nil
	})
	return x, err
}

// readSeed reads htsim's "random seed N" line (N as htsim printed it, the
// atoi of -seed); a second line of another seed is two runs' output.
func (x *sinkLog) readSeed(file string, line int, fs []string, cols []int) error {
	var n uint64
	err := errors.New("no seed")
	if len(fs) > 2 {
		n, err = strconv.ParseUint(fs[2], 10, 64)
	}
	if len(fs) != 3 || err != nil {
		at, got := cols[len(cols)-1]+len(fs[len(fs)-1]), "the line's end"
		switch {
		case err == nil: // a word after the seed
			at, got = cols[3], strconv.Quote(fs[3])
		case len(fs) > 2:
			at, got = cols[2], strconv.Quote(fs[2])
		}
		return fmt.Errorf("%s:%d:%d: %s: expected the seed, a whole number alone (htsim's \"random seed N\")", file, line, at, got)
	}
	if x.seed.line != 0 && x.seed.n != n {
		return fmt.Errorf("%s:%d:%d: random seed %d, line %d's %d: expected one run's output", file, line, cols[2], n, x.seed.line, x.seed.n)
	}
	if x.seed.line == 0 {
		x.seed = runSeed{n, line, cols[2]}
	}
	return nil
}

// readName reads one preamble name, word at column col; a preamble name
// of anything but a sink is skipped.
func (x *sinkLog) readName(file string, line int, word string, col int, kind func(line, col int, k string) error) error {
	prefix, k := "", ""
	for p, kk := range sinkKinds {
		if strings.HasPrefix(word, p) {
			prefix, k = p, kk
		}
	}
	if k == "" {
		return nil
	}
	if err := kind(line, col, k); err != nil {
		return err
	}
	ends, id, ok := strings.Cut(word[len(prefix):], "=")
	src, dst, ok2 := strings.Cut(ends, "_")
	a, err1 := strconv.Atoi(src)
	b, err2 := strconv.Atoi(dst)
	n, err3 := strconv.Atoi(id)
	if !ok || !ok2 || err1 != nil || err2 != nil || err3 != nil || a < 0 || b < 0 || n < 0 {
		return fmt.Errorf("%s:%d:%d: %q: expected %sSRC_DST=ID (the logfile preamble's name of a sink)", file, line, col, word, prefix)
	}
	if _, dup := x.names[n]; dup {
		return fmt.Errorf("%s:%d:%d: sink %d named twice (line %d): expected one run's sink names", file, line, col, n, x.names[n].line)
	}
	if x.names == nil {
		x.names = map[int]sinkName{}
	}
	x.names[n] = sinkName{a, b, line}
	return nil
}

// lastSamples is each sink's bytes at the latest sampling time, in the
// order of the sinks' ids (the matrix's order), those ids, and that time
// in us. Every sink is sampled each period, so a sink without a sample
// then is an error: not one run's samples, or a file cut short.
func lastSamples(file string, x []sinkSample) ([]int, []int64, float64, error) {
	last := 0.0
	for _, s := range x {
		last = max(last, s.us)
	}
	at := map[int]int64{}
	all := map[int]bool{}
	for _, s := range x {
		all[s.id] = true
		if s.us == last {
			if _, dup := at[s.id]; dup {
				return nil, nil, 0, fmt.Errorf("%s: sink %d sampled twice at %.3f us: expected one run's sink samples", file, s.id, last)
			}
			at[s.id] = s.bytes
		}
	}
	ids := slices.Sorted(maps.Keys(all))
	out := make([]int64, len(ids))
	for i, id := range ids {
		b, ok := at[id]
		if !ok {
			return nil, nil, 0, fmt.Errorf("%s: sink %d has no sample at %.3f us, the last sampling time, where the other %d have: expected one run's whole sink samples", file, id, last, len(at))
		}
		out[i] = b
	}
	return ids, out, last, nil
}

// sinkCC is the host.cc of the scenario each sink kind's program imports
// to (fromhtsim.go: htsim_roce's RoCE has none).
var sinkCC = map[string]string{"ROCE_SINK": "none", "HPCC_SINK": "hpcc"}

// pairSinks checks the sinks are those of the run s was imported from:
// the program's (the sink kind against host.cc) and, where the file names
// the sinks, the k-th sink by id is the k-th flow's, source and
// destination alike. It says whether the sinks were named.
func pairSinks(file string, x sinkLog, ids []int, s *scenario.Scenario) (bool, error) {
	if cc := s.Host.NIC.CC; sinkCC[x.kind] != cc {
		return false, fmt.Errorf("%s: %s samples, the scenario's host.cc is %s: expected %s for them (htsim_roce's sinks are ROCE_SINK and import to cc none, htsim_hpcc's HPCC_SINK to cc hpcc)", file, x.kind, cc, sinkCC[x.kind])
	}
	if len(x.names) == 0 {
		return false, nil
	}
	if len(x.names) != len(ids) {
		return false, fmt.Errorf("%s: %d sinks named, %d sampled: expected the names and the samples of one run", file, len(x.names), len(ids))
	}
	for k, id := range ids {
		n, ok := x.names[id]
		if !ok {
			return false, fmt.Errorf("%s: sink %d is sampled but not named: expected the names and the samples of one run", file, id)
		}
		if f := s.Flows[k]; n.src != f.Src || n.dst != f.Dst {
			return false, fmt.Errorf("%s:%d: sink %d carries %d->%d, the scenario's flow %s (%d of %d) h%d->h%d: expected the sinks of the run the scenario was imported from", file, n.line, id, n.src, n.dst, f.Name, k+1, len(ids), f.Src, f.Dst)
		}
	}
	return true, nil
}

// goodputs is each flow's goodput in Gb/s: bytes delivered by us.
func goodputs(bytes []int64, us float64) []float64 {
	x := make([]float64, len(bytes))
	for i, b := range bytes {
		x[i] = float64(b) * 8 / (us * 1e3)
	}
	return x
}

// goodputRun runs the scenario on rocelab to htsim's last sampling time
// and returns each side's goodputs (Gb/s) by then, in the order of the
// scenario's flows (htsim's sinks paired with them by id, pairSinks),
// that time (us), and whether the sinks were named (each checked against
// its flow's endpoints).
func goodputRun(file string, x sinkLog, s *scenario.Scenario) (h, r []float64, us float64, named bool, err error) {
	ids, hb, us, err := lastSamples(file, x.samples)
	if err != nil {
		return nil, nil, 0, false, err
	}
	switch end := unit.Time(math.Round(us * float64(unit.Microsecond))); {
	case len(hb) != len(s.Flows):
		return nil, nil, 0, false, fmt.Errorf("%s: %d sinks sampled, the scenario has %d flows: expected the sink samples of the run the scenario was imported from (from-htsim keeps the matrix's order)", file, len(hb), len(s.Flows))
	case end <= 0:
		return nil, nil, 0, false, fmt.Errorf("%s: the last sample is at 0 us: nothing delivered to compare", file)
	case end > s.Duration:
		return nil, nil, 0, false, fmt.Errorf("%s: sampled at %.3f us, past the scenario's end (%v): expected the samples of its run", file, us, s.Duration)
	default:
		s.Duration = end
	}
	if named, err = pairSinks(file, x, ids, s); err != nil {
		return nil, nil, 0, false, err
	}
	o, err := agree.RunToEnd(s)
	if err != nil {
		return nil, nil, 0, false, err
	}
	rb := make([]int64, len(o.Flows))
	for i, f := range o.Flows {
		rb[i] = f.Delivered
	}
	return goodputs(hb, us), goodputs(rb, us), us, named, nil
}

// compareGoodput prints goodputRun's statistics and, where the sinks are
// named, how far apart the two runs are flow by flow.
func compareGoodput(w io.Writer, file string, x sinkLog, s *scenario.Scenario) error {
	h, r, us, named, err := goodputRun(file, x, s)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %d flows, goodput by %.1f us (htsim's last sink sample: bytes delivered in order, over that time)\n%-24s %12s %12s %8s\n", s.Name, len(h), us, "statistic", "htsim", "rocelab", "diff")
	for _, m := range goodputMetrics(h, r) {
		fmt.Fprintf(w, "%-24s %12.2f %12.2f %+7.1f%%\n", m.Name, m.Other, m.Rocelab, 100*m.Diff())
	}
	if !named {
		fmt.Fprintf(w, "flow by flow: not compared (no sink names: append grep -a '^: .*_sink_' LOGFILE to pair each sink with its flow)\n")
		return nil
	}
	d := flowDiffs(h, r)
	if len(d) == 0 {
		fmt.Fprintf(w, "flow by flow: no flow delivered anything on htsim\n")
		return nil
	}
	ds := agree.Summarise(d)
	fmt.Fprintf(w, "flow by flow (%d flows htsim delivered to): |diff| mean %.1f%%, median %.1f%%, most %.1f%%\n", len(d), 100*ds.Mean, 100*ds.P50, 100*ds.Max)
	return nil
}

// flowDiffs is each flow's |rocelab/htsim - 1| in goodput, of the flows
// htsim delivered to.
func flowDiffs(h, r []float64) []float64 {
	var d []float64
	for i := range h {
		if h[i] > 0 {
			d = append(d, math.Abs(r[i]/h[i]-1))
		}
	}
	return d
}

// goodputMetrics are the statistics of two runs' goodputs (Gb/s): mean
// (the total over the flow count), median, least and most.
func goodputMetrics(h, r []float64) []agree.Metric {
	hs, rs := agree.Summarise(slices.Clone(h)), agree.Summarise(slices.Clone(r))
	return []agree.Metric{
		{Name: "goodput mean (Gb/s)", Other: hs.Mean, Rocelab: rs.Mean},
		{Name: "goodput median (Gb/s)", Other: hs.P50, Rocelab: rs.P50},
		{Name: "goodput least (Gb/s)", Other: slices.Min(h), Rocelab: slices.Min(r)},
		{Name: "goodput most (Gb/s)", Other: hs.Max, Rocelab: rs.Max},
	}
}
