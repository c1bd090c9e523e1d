package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/scenario"
	"rocelab/internal/unit"
)

// cutNoteRoom is what the head keeps for the note of a cut flow file.
const cutNoteRoom = 1024

// cutMark is the note's machine-read part: ns-3's clock (ns) from which
// the scenario runs no flow, which ns3conv compare reads back.
var cutMark = regexp.MustCompile(`\(ns3conv cut: (\d+) ns\)`)

// scenarioCut reads a scenario file's cut (cutMark): ns-3's clock (ns)
// from which it runs no flow; false when it is not cut (or not read,
// which loading it says).
func scenarioCut(file string) (int64, bool) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return 0, false
	}
	m := cutMark.FindSubmatch(raw)
	if m == nil {
		return 0, false
	}
	cut, err := strconv.ParseInt(string(m[1]), 10, 64)
	return cut, err == nil
}

// flowLines writes each flow on a line of its own, as short as it reads
// (named flow0.. by its place), after head, the scenario up to its
// flows. A flow file longer than a scenario may be (scenario.MaxFileSize:
// some 20,000 flows) is cut in time: the scenario runs the flows that
// start before the first that does not fit, and its head says from when
// (cutMark), so that compare leaves ns-3's later flows out.
// third.cc assumes a flow file sorted by start (it reads the next line
// at the last one's start): on an unsorted one its sports shift.
func flowLines(head, fp string, flows []ns3FlowLine, ff ns3Flows, t *ns3Topology, first unit.Time) (string, error) {
	line := func(x ns3FlowLine) string {
		s := fmt.Sprintf("  - {src: %s, dst: %s, bytes: %d", t.name[x.src], t.name[x.dst], x.size)
		if x.start > first {
			s += fmt.Sprintf(", start: %s", x.start-first)
		}
		return s + "}\n"
	}
	all := make([]string, len(flows))
	whole := len(head)
	for i, x := range flows {
		all[i] = line(x)
		whole += len(all[i])
	}
	cut, cutting := ff.beyondStart, ff.beyond > 0
	if !cutting && whole <= int(scenario.MaxFileSize) {
		return head + strings.Join(all, ""), nil
	}
	// a cut is certain: the head keeps room for its note
	lines := make([]string, 0, len(flows))
	size := len(head)
	for i, l := range all {
		if size+len(l) > int(scenario.MaxFileSize)-cutNoteRoom {
			rest := slices.MinFunc(flows[i:], func(a, b ns3FlowLine) int { return cmp.Compare(a.start, b.start) }).start
			if !cutting || rest < cut {
				cut = rest
			}
			cutting = true
			break
		}
		size += len(l)
		lines = append(lines, l)
	}
	var kept []string
	for i, l := range lines {
		if flows[i].start < cut {
			kept = append(kept, l)
		}
	}
	total := len(flows) + ff.beyond
	if len(kept) == 0 {
		return "", fmt.Errorf("%s:1:1: %d flows, more than a scenario holds (%v, about %d such lines), and none starts before %v of ns-3's clock, where the first that does not fit starts: no flows of an earlier time fit to run; give ns-3 and rocelab a flow file of fewer flows at once",
			fp, total, scenario.MaxFileSize, len(lines), cut)
	}
	note := fmt.Sprintf("# Differs: %s lists %d flows, more than a scenario holds (%v, about %d of these lines): this one runs the %d that start before %v of ns-3's clock (ns3conv cut: %d ns), ns-3 all of them, so flows still running then meet traffic this run leaves out; ns3conv compare leaves out ns-3's lines of the flows from then on.\n",
		filepath.Base(fp), total, scenario.MaxFileSize, len(lines), len(kept), cut, int64(cut/unit.Nanosecond))
	i := strings.Index(head, "\nname: ") + 1
	return head[:i] + note + head[i:] + strings.Join(kept, ""), nil
}
