package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

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
// k-th flow of the imported scenario.

// sinkSample is one sink-logger line: when (us), whose (the sink's id)
// and the in-order bytes received by then.
type sinkSample struct {
	us    float64
	id    int
	bytes int64
}

// sinkFields are a sink line's fixed words by field index, in the line's
// order, so that a line wrong in several is told of its first.
var sinkFields = []struct {
	k    int
	want string
}{{3, "ID"}, {5, "Ev"}, {6, "RATE"}, {7, "CAck"}}

// readSinkSamples reads the ROCE_SINK and HPCC_SINK lines of
// parse_output -ascii; other records and lines are skipped. A sink line
// it cannot read is an error at its line and column.
func readSinkSamples(file string, r io.Reader) ([]sinkSample, error) {
	var x []sinkSample
	err := fields.Lines(file, r, func(line int, fs []string, cols []int) error {
		if len(fs) < 3 || fs[1] != "Type" || fs[2] != "ROCE_SINK" && fs[2] != "HPCC_SINK" {
			return nil
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
		x = append(x, sinkSample{sec * 1e6, id, n})
		return nil
	})
	return x, err
}

// lastSamples is each sink's bytes at the latest sampling time, in the
// order of the sinks' ids (the matrix's order), and that time in us. Every
// sink is sampled each period, so a sink without a sample then is an
// error: not one run's samples, or a file cut short.
func lastSamples(file string, x []sinkSample) ([]int64, float64, error) {
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
				return nil, 0, fmt.Errorf("%s: sink %d sampled twice at %.3f us: expected one run's sink samples", file, s.id, last)
			}
			at[s.id] = s.bytes
		}
	}
	ids := slices.Sorted(func(yield func(int) bool) {
		for id := range all {
			if !yield(id) {
				return
			}
		}
	})
	out := make([]int64, len(ids))
	for i, id := range ids {
		b, ok := at[id]
		if !ok {
			return nil, 0, fmt.Errorf("%s: sink %d has no sample at %.3f us, the last sampling time, where the other %d have: expected one run's whole sink samples", file, id, last, len(at))
		}
		out[i] = b
	}
	return out, last, nil
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
// and returns each side's goodputs (Gb/s) by then, flow for flow: htsim's
// from its sink samples, paired with the scenario's flows in order, and
// that time (us).
func goodputRun(file string, x []sinkSample, s *scenario.Scenario) (h, r []float64, us float64, err error) {
	hb, us, err := lastSamples(file, x)
	if err != nil {
		return nil, nil, 0, err
	}
	switch end := unit.Time(math.Round(us * float64(unit.Microsecond))); {
	case len(hb) != len(s.Flows):
		return nil, nil, 0, fmt.Errorf("%s: %d sinks sampled, the scenario has %d flows: expected the sink samples of the run the scenario was imported from (from-htsim keeps the matrix's order)", file, len(hb), len(s.Flows))
	case end <= 0:
		return nil, nil, 0, fmt.Errorf("%s: the last sample is at 0 us: nothing delivered to compare", file)
	case end > s.Duration:
		return nil, nil, 0, fmt.Errorf("%s: sampled at %.3f us, past the scenario's end (%v): expected the samples of its run", file, us, s.Duration)
	default:
		s.Duration = end
	}
	o, err := agree.RunToEnd(s)
	if err != nil {
		return nil, nil, 0, err
	}
	rb := make([]int64, len(o.Flows))
	for i, f := range o.Flows {
		rb[i] = f.Delivered
	}
	return goodputs(hb, us), goodputs(rb, us), us, nil
}

// compareGoodput prints goodputRun's statistics.
func compareGoodput(w io.Writer, file string, x []sinkSample, s *scenario.Scenario) error {
	h, r, us, err := goodputRun(file, x, s)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %d flows, goodput by %.1f us (htsim's last sink sample: bytes delivered in order, over that time)\n%-24s %12s %12s %8s\n", s.Name, len(h), us, "statistic", "htsim", "rocelab", "diff")
	for _, m := range goodputMetrics(h, r) {
		fmt.Fprintf(w, "%-24s %12.2f %12.2f %+7.1f%%\n", m.Name, m.Other, m.Rocelab, 100*m.Diff())
	}
	return nil
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
