package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"

	"rocelab/internal/scenario"
	"rocelab/internal/twin"
	"rocelab/internal/unit"
	"rocelab/tools/internal/agree"
	"rocelab/tools/internal/fields"
)

// ns3Flow is one line of ns-3's fct.txt: "sip dip sport dport size
// start_time fct standalone_fct", addresses in hex, times in ns.
type ns3Flow struct {
	src, dst, sport        int
	size                   int64
	start, fct, standalone float64 // µs
	line                   int
}

// readFCT reads ns-3's fct.txt, named file in messages. Lines starting
// with # are comments (the recorded copies in testdata carry their source
// there). The flows that start at or after cut (ns of ns-3's clock; a
// scenario cut in time runs none of them) are checked, counted in beyond
// and not kept.
func readFCT(file string, r io.Reader, cut int64) (out []ns3Flow, beyond int, err error) {
	err = fields.Lines(file, r, func(line int, f []string, _ []int) error {
		if len(f) != 8 {
			return fmt.Errorf("%s:%d:1: expected fct.txt's 8 fields (sip dip sport dport size start_time fct standalone_fct), got %d", file, line, len(f))
		}
		var v [8]int64
		for i, s := range f {
			base := 10
			if i < 2 {
				base = 16
			}
			x, err := strconv.ParseInt(s, base, 64)
			if err != nil || x < 0 {
				return fmt.Errorf("%s:%d:%d: field %d: expected a non-negative integer (base %d), got %q", file, line, col(f, i), i+1, base, s)
			}
			v[i] = x
		}
		if v[5] >= cut {
			beyond++
			return nil
		}
		out = append(out, ns3Flow{src: nodeOf(v[0]), dst: nodeOf(v[1]), sport: int(v[2]), size: v[4], start: float64(v[5]) / 1e3, fct: float64(v[6]) / 1e3, standalone: float64(v[7]) / 1e3, line: line})
		return nil
	})
	if err == nil && len(out)+beyond == 0 {
		err = fmt.Errorf("%s: no flow completions", file)
	}
	return out, beyond, err
}

// nodeOf is the ns-3 node id of a host address (third.cc's
// node_id_to_ip: 11.x.y.1 with x·256 + y the id).
func nodeOf(ip int64) int { return int(ip>>8) & 0xffff }

// col is the column at which field i of a whitespace-split line starts,
// counting single spaces (the files are machine-written).
func col(f []string, i int) int {
	c := 1
	for _, s := range f[:i] {
		c += len(s) + 1
	}
	return c
}

// readPauses reads ns-3's pfc.txt ("time node node_type ifindex type",
// type 1 a pause received, 0 a resume), named file in messages, and
// returns the pauses received and the time ports were held, in µs, a
// pause unresolved at the end counting up to the last event.
func readPauses(file string, r io.Reader) (pauses, error) {
	var p pauses
	since := map[[2]int64]int64{}
	var last int64
	err := fields.Lines(file, r, func(line int, f []string, _ []int) error {
		if len(f) != 5 {
			return fmt.Errorf("%s:%d:1: expected pfc.txt's 5 fields (time node node_type ifindex type), got %d", file, line, len(f))
		}
		var v [5]int64
		for i, s := range f {
			x, err := strconv.ParseInt(s, 10, 64)
			if err != nil || x < 0 || i == 4 && x > 1 {
				return fmt.Errorf("%s:%d:%d: field %d: expected a non-negative integer (type 0 or 1), got %q", file, line, col(f, i), i+1, s)
			}
			v[i] = x
		}
		if v[0] < last {
			return fmt.Errorf("%s:%d:1: time %d before the previous line's %d: pfc.txt is written in time order", file, line, v[0], last)
		}
		k := [2]int64{v[1], v[3]}
		last = v[0]
		if v[4] == 1 {
			p.n++
			if _, ok := since[k]; !ok {
				since[k] = v[0]
			}
		} else if t, ok := since[k]; ok {
			p.held += float64(v[0]-t) / 1e3
			delete(since, k)
		}
		return nil
	})
	for _, t := range since {
		p.held += float64(last-t) / 1e3
	}
	return p, err
}

// pauses are the PFC pauses ports received and how long they held them
// (µs).
type pauses struct {
	n    int
	held float64
}

// readFile opens file and reads it with read.
func readFile[T any](file string, read func(string, io.Reader) (T, error)) (T, error) {
	r, err := os.Open(file)
	if err != nil {
		var zero T
		return zero, err
	}
	defer r.Close()
	return read(file, r)
}

// comparison is one scenario run on both simulators.
type comparison struct {
	name string
	// FCTs in µs, by flow in flow.txt's order, and their ratio.
	ns3, rocelab, ratio []float64
	// flows is each flow's size and completions, for slowdowns.
	flows []agree.FlowResult
	// the last completion of each
	ns3End, rocelabEnd float64
	// PFC pauses; ns3Pauses is nil without a pfc.txt
	ns3Pauses     *pauses
	rocelabPauses pauses
	// the scenario's flows, and those each run left unfinished (ns-3:
	// without an fct.txt line), which the statistics leave out
	flowCount                        int
	ns3Unfinished, rocelabUnfinished int
	// ns3Beyond are fct.txt's lines of flows a cut scenario leaves out
	// (from-ns3's cutMark, ns-3's clock cut); ns3PastCut the compared
	// flows ns-3 finished after the cut, where the flows the scenario
	// leaves out loaded them in ns-3 and not in rocelab
	ns3Beyond, ns3PastCut int
	cut                   int64
	cutting               bool
	// the first flow, in the scenario's order, each run alone completed,
	// ns3Only's end in the scenario's time; and the scenario's duration
	ns3Only, rocelabOnly *lone
	duration             unit.Time
	// ranPast is the scenario's own duration when rocelab ran on to a
	// qlen.txt dump after it (0: it did not), as ns-3's run did
	ranPast unit.Time
	// the run and rocelab's observation of it, and ns-3's clock at the
	// scenario's time 0 (ns), for the queue lengths (withQlen)
	s    *scenario.Scenario
	o    twin.Observation
	off  int64
	qlen *qlenComparison
	// qlenNote says why the table has no queue lengths, "" when it has
	// them or no qlen.txt was given
	qlenNote string
}

// lone is a flow one run completed and the other did not, and when it
// ended (µs from the scenario's start).
type lone struct {
	f   flow
	end float64
}

// end is the scenario's duration in µs.
func (c *comparison) end() float64 { return c.duration.Seconds() * 1e6 }

// nearEnd is the part of the scenario's duration after which a completion
// is near its end, where a run SIMULATOR_STOP_TIME cut short stops.
const nearEnd = 0.9

// compare runs the scenario on rocelab and matches its flows with ns-3's
// fct.txt lines by source, destination and sport; pfcFile, when given and
// present, is ns-3's pfc.txt. hostIDs gives each host's ns-3 node id
// (topology.txt's hosts in node order, as from-ns3 numbers them); nil
// when host i is node i, as ns3conv writes the topology.
func compare(file string, seed uint64, fctFile, pfcFile string, hostIDs []int) (*comparison, error) {
	return compareQueues(file, seed, fctFile, pfcFile, hostIDs, nil)
}

// compareQueues is compare for a run whose qlen.txt dump is d (nil:
// none): rocelab's queues are sampled over its window (qlenSampling, when
// finer than the scenario's interval: sampling changes nothing the run
// does), and rocelab runs on to the dump when it is after the scenario's
// end, as ns-3 did (ns3conv -qlen stops ns-3 a sample after the first
// 100 ms dump at or after the end).
func compareQueues(file string, seed uint64, fctFile, pfcFile string, hostIDs []int, d *qlenDump) (*comparison, error) {
	s, err := scenario.LoadFile(file)
	if err != nil {
		return nil, err
	}
	s.Seed = seed
	if every := qlenSampling(d); every > 0 && every < s.SampleInterval {
		s.SampleInterval = every
	}
	var bad mismatches
	order := flows(s, &bad)
	if err := bad.err(file); err != nil {
		return nil, err
	}
	// a flow file from-ns3 cut in time: ns-3's flows from the cut on are
	// not the scenario's
	cut, cutting := scenarioCut(file)
	before := int64(math.MaxInt64)
	if cutting {
		before = cut
	}
	beyond := 0
	got, err := readFile(fctFile, func(f string, r io.Reader) ([]ns3Flow, error) {
		flows, n, err := readFCT(f, r, before)
		beyond = n
		return flows, err
	})
	if err != nil {
		return nil, err
	}
	byKey := map[[3]int]ns3Flow{}
	for _, g := range got {
		k := [3]int{g.src, g.dst, g.sport}
		if p, ok := byKey[k]; ok {
			return nil, fmt.Errorf("%s:%d:1: nodes %d -> %d, sport %d: a second line for this flow (first at line %d): not one run's fct.txt", fctFile, g.line, g.src, g.dst, g.sport, p.line)
		}
		byKey[k] = g
	}
	node := func(h int) int { return h }
	if hostIDs != nil {
		node = func(h int) int {
			if h < len(hostIDs) {
				return hostIDs[h]
			}
			return -1
		}
	}
	c := &comparison{name: s.Name, flowCount: len(order), duration: s.Duration, ns3Beyond: beyond, cut: cut, cutting: cutting}
	// ns-3's clock at the scenario's time 0, by the first flow ns-3 ran
	if i := slices.IndexFunc(order, func(f flow) bool { _, ok := byKey[[3]int{node(f.Src), node(f.Dst), f.sport}]; return ok }); i >= 0 {
		f := order[i]
		c.off = int64(math.Round(byKey[[3]int{node(f.Src), node(f.Dst), f.sport}].start*1e3)) - int64(f.Start/unit.Nanosecond)
	}
	if d != nil {
		if end := unit.Time(d.time-c.off) * unit.Nanosecond; end > s.Duration {
			c.ranPast, s.Duration, c.duration = s.Duration, end, end
		}
	}
	o, err := agree.RunToEnd(s)
	if err != nil {
		return nil, err
	}
	c.s, c.o = s, o
	fct := map[string]float64{}
	for _, f := range o.Flows {
		if f.FCTUS != nil {
			fct[f.Name] = *f.FCTUS
		}
	}
	hint := ""
	if hostIDs == nil {
		hint = ", or the scenario's hosts are not ns-3's first node ids (a scenario from-ns3 wrote from a topology that interleaves hosts and switches or has nodes without links: give -topology TOPOLOGY.txt)"
	}
	matched := map[[3]int]bool{}
	ns3Last := 0.0
	for _, f := range order {
		key := [3]int{node(f.Src), node(f.Dst), f.sport}
		g, ok := byKey[key]
		matched[key] = ok
		r, done := fct[f.Name]
		if ok && g.size != int64(f.Bytes) {
			return nil, fmt.Errorf("%s: flow h%d -> h%d sport %d sent %d bytes, the scenario's %s %d: not this scenario's output", fctFile, f.Src, f.Dst, f.sport, g.size, f.Name, int64(f.Bytes))
		}
		// A run that SIMULATOR_STOP_TIME (the scenario's duration) cuts
		// short leaves flows unfinished in either: ns-3 writes no line
		// for them. The statistics are of the flows both completed.
		if !ok {
			c.ns3Unfinished++
		}
		if !done {
			c.rocelabUnfinished++
		}
		// ends in the scenario's time (ns-3's clock starts elsewhere)
		start := f.Start.Seconds() * 1e6
		if ok {
			ns3Last = max(ns3Last, start+g.fct)
		}
		switch {
		case ok && !done && c.ns3Only == nil:
			c.ns3Only = &lone{f, start + g.fct}
		case !ok && done && (c.rocelabOnly == nil || start+r < c.rocelabOnly.end):
			// the one rocelab finished earliest: the surest
			// disagreement
			c.rocelabOnly = &lone{f, start + r}
		}
		if !ok || !done {
			continue
		}
		if cutting && int64(math.Round((g.start+g.fct)*1e3)) > cut {
			c.ns3PastCut++
		}
		c.ns3 = append(c.ns3, g.fct)
		c.rocelab = append(c.rocelab, r)
		c.ratio = append(c.ratio, r/g.fct)
		c.flows = append(c.flows, agree.FlowResult{Size: g.size, Base: g.standalone, Other: g.fct, Rocelab: r})
		c.ns3End = max(c.ns3End, g.start+g.fct)
		c.rocelabEnd = max(c.rocelabEnd, start+r)
	}
	// Both ends count from each run's first start: an ns-3 flow file
	// starts after its 2 s warm-up, an imported scenario at 0.
	if len(order) > 0 {
		first := slices.MinFunc(got, func(a, b ns3Flow) int { return cmp.Compare(a.start, b.start) }).start
		c.ns3End -= first
		c.rocelabEnd -= slices.MinFunc(order, func(a, b flow) int { return cmp.Compare(a.Start, b.Start) }).Start.Seconds() * 1e6
	}
	stray := slices.IndexFunc(got, func(g ns3Flow) bool { return !matched[[3]int{g.src, g.dst, g.sport}] })
	switch {
	case stray >= 0:
		g := got[stray]
		return nil, fmt.Errorf("%s:%d:1: nodes %d -> %d, sport %d: no flow of the scenario (matched by source, destination and sport): not this scenario's output%s", fctFile, g.line, g.src, g.dst, g.sport, hint)
	case c.rocelabOnly != nil && c.rocelabOnly.end < nearEnd*c.end() && ns3Last < nearEnd*c.end():
		// A run SIMULATOR_STOP_TIME cut short completes flows up to near
		// its end; this one's last line is well before, yet it has none
		// for a flow rocelab finished well before the end.
		f := c.rocelabOnly.f
		return nil, fmt.Errorf("%s: no line for flow %s (h%d -> h%d, nodes %d -> %d, sport %d), which rocelab finished at %.1f us of the scenario's %v, and ns-3's last line ends at %.1f us, well before SIMULATOR_STOP_TIME: not a run cut short but a real disagreement (or not this scenario's run)", fctFile, f.Name, f.Src, f.Dst, node(f.Src), node(f.Dst), f.sport, c.rocelabOnly.end, s.Duration, ns3Last)
	case len(c.ns3) == 0:
		return nil, fmt.Errorf("%s: no flow completed in both runs (ns-3 %d of %d, rocelab %d by the scenario's end, %v): nothing to compare", fctFile, len(order)-c.ns3Unfinished, len(order), len(order)-c.rocelabUnfinished, s.Duration)
	}
	c.rocelabPauses = rocelabPauses(o)
	if _, err := os.Stat(pfcFile); pfcFile != "" && err == nil {
		p, err := readFile(pfcFile, readPauses)
		if err != nil {
			return nil, err
		}
		c.ns3Pauses = &p
	}
	return c, nil
}

var pauseCounter = regexp.MustCompile(`^rx_prio\d_pause_(transition|duration)$`)

// withQlen adds ns-3's queue lengths (d, qlen.txt's last dump at or
// before the scenario's cut, read from file; after, the first dump past
// the cut) to the comparison, their ports read by topology t, that
// run's topology.txt: a qlen.txt without a dump (or none before the
// cut), or no topology to read its ports by, is told in the table rather
// than compared.
func (c *comparison) withQlen(file string, d *qlenDump, after int64, t *ns3Topology) error {
	var err error
	switch {
	case d == nil && after > 0:
		c.qlenNote = fmt.Sprintf("%s not compared: its first dump, at %d ns of ns-3's clock, is past the scenario's cut at %d ns, so ns-3's queues held flows the scenario leaves out (a dump holds every sample from QLEN_MON_START: set the monitor to dump before the cut)", filepath.Base(file), after, c.cut)
		return nil
	case d == nil:
		c.qlenNote = fmt.Sprintf("%s holds no dump: ns-3's monitor writes one at each multiple of 100 ms from QLEN_MON_START to QLEN_MON_END (ns3conv sets them after the run; for queue lengths set QLEN_MON_START to the first flow's start and QLEN_MON_END, and SIMULATOR_STOP_TIME past it, to a multiple of 100 ms after the last)", filepath.Base(file))
		return nil
	case t == nil:
		c.qlenNote = fmt.Sprintf("%s not compared: give -topology TOPOLOGY.txt (or keep ns3conv's topology.txt in the output directory) to read its ports by", filepath.Base(file))
		return nil
	}
	if after > 0 {
		c.qlenNote = fmt.Sprintf("%s's dump at %d ns of ns-3's clock, the last at or before the scenario's cut at %d ns; those from %d ns on held flows the scenario leaves out", filepath.Base(file), d.time, c.cut, after)
	}
	c.qlen, err = compareQlen(file, d, t, c.s, c.o, c.off)
	return err
}

// rocelabPauses sums the pause episodes every port received (ns-3 pauses
// until it resumes, so an episode is its pause) and the time they held.
func rocelabPauses(o twin.Observation) (p pauses) {
	for _, port := range o.Ports {
		for _, c := range port.Counters {
			switch m := pauseCounter.FindStringSubmatch(c.Name); {
			case m == nil:
			case m[1] == "transition":
				p.n += int(c.Value)
			default:
				p.held += float64(c.Value)
			}
		}
	}
	return p
}

// print writes the comparison as a table to w, and its warnings (flows
// one side left unfinished) to warn.
func (c *comparison) print(w, warn io.Writer) {
	n, r, q := agree.Summarise(c.ns3), agree.Summarise(c.rocelab), agree.Summarise(c.ratio)
	if c.ns3Unfinished > 0 || c.rocelabUnfinished > 0 {
		fmt.Fprintf(warn, "warning: ns-3 completed %d of the scenario's %d flows, rocelab %d by the scenario's end (%v); the statistics are of the %d both completed\n",
			c.flowCount-c.ns3Unfinished, c.flowCount, c.flowCount-c.rocelabUnfinished, c.duration, len(c.ns3))
	}
	if c.ns3Beyond > 0 {
		fmt.Fprintf(warn, "warning: the scenario runs a flow file from-ns3 cut in time (its head says where): %d of fct.txt's lines are of flows it leaves out, which loaded ns-3's run from the cut on\n", c.ns3Beyond)
	}
	if c.ns3PastCut > 0 {
		fmt.Fprintf(warn, "warning: %d of the %d flows compared ran past the cut in ns-3 (finished after %d ns of its clock), where ns-3's flows from the cut on met them and the scenario has none: their FCTs are in the statistics, but not like for like\n", c.ns3PastCut, len(c.ns3), c.cut)
	}
	if c.ranPast > 0 {
		fmt.Fprintf(warn, "note: rocelab ran to %v, the last qlen.txt dump, past the scenario's %v, as ns-3 ran to it\n", c.duration, c.ranPast)
	}
	if o := c.rocelabOnly; o != nil {
		why := "near the end, where a run SIMULATOR_STOP_TIME cut short stops"
		if o.end < nearEnd*c.end() {
			why = "well before the end, yet ns-3's last line is near SIMULATOR_STOP_TIME: ns-3 had not finished it when it stopped"
		}
		fmt.Fprintf(warn, "warning: ns-3 has no line for flow %s (h%d -> h%d, sport %d), which rocelab finished at %.1f us of the scenario's %v: %s\n", o.f.Name, o.f.Src, o.f.Dst, o.f.sport, o.end, c.duration, why)
	}
	if o := c.ns3Only; o != nil {
		fmt.Fprintf(warn, "warning: rocelab had not finished flow %s (h%d -> h%d, sport %d) by the scenario's end, %v; ns-3 finished it at %.1f us\n", o.f.Name, o.f.Src, o.f.Dst, o.f.sport, c.duration, o.end)
	}
	fmt.Fprintf(w, "%s: %d flows\n%-22s %12s %12s %8s\n", c.name, len(c.ns3), "statistic", "ns-3", "rocelab", "diff")
	row := func(name string, a, b float64) {
		fmt.Fprintf(w, "%-22s %12.1f %12.1f %+7.1f%%\n", name, a, b, 100*(b/a-1))
	}
	row("FCT mean (us)", n.Mean, r.Mean)
	row("FCT median (us)", n.P50, r.P50)
	row("FCT p99 (us)", n.P99, r.P99)
	row("FCT max (us)", n.Max, r.Max)
	row("last completion (us)", c.ns3End, c.rocelabEnd)
	fmt.Fprintf(w, "per-flow FCT ratio rocelab/ns-3: median %.3f, p99 %.3f, max %.3f\n", q.P50, q.P99, q.Max)
	if len(c.flows) >= agree.MinSlowdownFlows {
		agree.PrintSlowdowns(w, "ns-3", "slowdown (FCT / ns-3's standalone FCT)", agree.Slowdowns(c.flows))
	}
	if p := c.ns3Pauses; p != nil {
		fmt.Fprintf(w, "PFC pauses received: ns-3 %d (held %.1f us), rocelab %d (held %.0f us)\n", p.n, p.held, c.rocelabPauses.n, c.rocelabPauses.held)
	}
	if c.qlen != nil {
		c.qlen.print(w)
	}
	if c.qlenNote != "" {
		fmt.Fprintf(w, "queue lengths: %s\n", c.qlenNote)
	}
}
