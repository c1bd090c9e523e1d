package doctor

import (
	"fmt"
	"strconv"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// A collective's time grows with its message size. A size that takes many
// times longer than a larger size of the same table did not run out of
// bandwidth: it waited.

// ncclTestsStallRules are the rules over time inversions in nccl-tests
// tables.
func ncclTestsStallRules() []Rule {
	return []Rule{
		{IDs: []string{"nccltests.time.stall"}, Check: checkStalls},
	}
}

// A row stalls when its time is more than stallRatio times, and at least
// stallMinUS more than, the fastest larger size of its table.
const (
	stallRatio = 5.0
	stallMinUS = 1000.0
)

// rowTime is the shorter of a row's out-of-place and in-place times (µs):
// a stall only one half shows is a one-off, not the size's behaviour.
func rowTime(r ingest.TestRow) float64 {
	switch {
	case r.Out.Time <= 0:
		return r.In.Time
	case r.In.Time <= 0:
		return r.Out.Time
	}
	return min(r.Out.Time, r.In.Time)
}

// stallSpan is a run of consecutive stalled rows and the row they are
// measured against: the fastest larger row, or, when smaller is set, the
// smaller row with the best rate (bytes per µs), whose rate the stalled
// rows fall far below although they are larger.
type stallSpan struct {
	from, to int // row indices, inclusive
	ref      int
	smaller  bool
}

// expected is the time row i would take at the reference row's rate, or
// the reference's own time when that is a larger row.
func (s stallSpan) expected(rows []ingest.TestRow, i int) float64 {
	t := rowTime(rows[s.ref])
	if s.smaller {
		t *= float64(rows[i].Size) / float64(rows[s.ref].Size)
	}
	return t
}

// stalls finds the spans of rows that took far longer than a larger size.
// Tables whose sizes step back (interleaved outputs) are not judged.
func stalls(r *ingest.TestRun) []stallSpan {
	rows := r.Rows
	if r.Backsteps > 0 || len(rows) < 3 {
		return nil
	}
	// best[i] is the index of the fastest row after i.
	best := make([]int, len(rows))
	best[len(rows)-1] = -1
	for i := len(rows) - 2; i >= 0; i-- {
		best[i] = i + 1
		if b := best[i+1]; b >= 0 && rowTime(rows[b]) < rowTime(rows[i+1]) {
			best[i] = b
		}
	}
	var out []stallSpan
	rate := -1 // the smaller row with the best rate so far
	for i := 0; i < len(rows); i++ {
		t := rowTime(rows[i])
		cand, ok := stallSpan{from: i, to: i, ref: best[i]}, false
		if i < len(rows)-1 {
			m := rowTime(rows[cand.ref])
			ok = m > 0 && t > stallRatio*m && t-m >= stallMinUS && rows[cand.ref].Size > rows[i].Size
		}
		if !ok && rate >= 0 && rows[rate].Size > 0 && rows[i].Size > rows[rate].Size {
			cand = stallSpan{from: i, to: i, ref: rate, smaller: true}
			e := cand.expected(rows, i)
			ok = e > 0 && t > stallRatio*e && t-e >= stallMinUS && recovers(rows, i)
		}
		if t > 0 && rows[i].Size > 0 && (rate < 0 || float64(rows[i].Size)/t > float64(rows[rate].Size)/rowTime(rows[rate])) {
			rate = i
		}
		if !ok {
			continue
		}
		if n := len(out); n > 0 && out[n-1].to == i-1 && out[n-1].smaller == cand.smaller {
			out[n-1].to = i
			if !cand.smaller && rowTime(rows[cand.ref]) < rowTime(rows[out[n-1].ref]) {
				out[n-1].ref = cand.ref
			}
			continue
		}
		out = append(out, cand)
	}
	return out
}

// recovers reports whether a larger row than i reaches at least
// stallRatio times row i's rate: a dip the larger sizes climb out of is a
// wait, while a rate that stays low from some size on is the run's rate
// there (a protocol, algorithm or path NCCL switches to), which the
// plateau judges.
func recovers(rows []ingest.TestRow, i int) bool {
	r := float64(rows[i].Size) / rowTime(rows[i])
	for _, row := range rows[i+1:] {
		if t := rowTime(row); t > 0 && row.Size > rows[i].Size && float64(row.Size)/t >= stallRatio*r {
			return true
		}
	}
	return false
}

// ms formats microseconds as milliseconds.
func ms(us float64) string { return strconv.FormatFloat(us/1000, 'f', 2, 64) + " ms" }

// checkStalls reports, per table, the sizes that took many times longer
// than a larger size.
func checkStalls(inc *Incident) []Finding {
	var fs []Finding
	for _, nt := range All[*ingest.NCCLTests](inc) {
		for ri := range nt.Runs {
			r := nt.Runs[ri]
			spans := stalls(r)
			if len(spans) == 0 {
				continue
			}
			s := spans[0]
			rows := r.Rows
			lo, hi := rowTime(rows[s.from]), rowTime(rows[s.from])
			var ev evidence
			for i := s.from; i <= s.to; i++ {
				lo, hi = min(lo, rowTime(rows[i])), max(hi, rowTime(rows[i]))
				ev.add(rows[i].Evidence)
			}
			ref := rows[s.ref]
			ev.add(ref.Evidence)
			sizes := unit.Bytes(rows[s.from].Size).Human()
			if s.to > s.from {
				sizes += "-" + unit.Bytes(rows[s.to].Size).Human()
			}
			took := ms(lo)
			if hi > lo {
				took = ms(lo) + "-" + ms(hi)
			}
			name := r.Collective
			if name == "" {
				name = "table"
			}
			name = toolName(r) + " " + name
			title := fmt.Sprintf("%s: %s took %s, %.0fx the %s of the larger %s: the transfer stalls at those sizes",
				name, sizes, took, lo/rowTime(ref), ms(rowTime(ref)), unit.Bytes(ref.Size).Human())
			if s.smaller {
				title = fmt.Sprintf("%s: %s took %s, %.0fx what the rate of the smaller %s (%s) gives: the transfer stalls at those sizes",
					name, sizes, took, rowTime(rows[s.from])/s.expected(rows, s.from), unit.Bytes(ref.Size).Human(), ms(rowTime(ref)))
			}
			if len(spans) > 1 {
				title += fmt.Sprintf(" (and %s more)", plural(len(spans)-1, "span", "spans"))
			}
			fs = append(fs, Finding{
				ID: "nccltests.time.stall", Severity: Warn, Layer: LayerNCCL,
				Title:    title,
				Evidence: ev.sorted(),
				Mechanism: "A collective's time grows with its message size, so a size that takes many times longer than a larger size of the same run did not run out of bandwidth: it waited. " +
					"Such stalls come from a protocol or algorithm that NCCL (or RCCL, or a net plugin's eager/rendezvous switch) selects only at those sizes and that stalls on this system, from lost packets recovered only after a timeout, or from other traffic during those iterations. " +
					"The busbw of these sizes, and the table's 'Avg bus bandwidth', measure the stall, not the network's rate.",
				Fix: "Rerun the affected sizes alone with more iterations (e.g. `-b " + unit.Bytes(rows[s.from].Size).String() + " -e " + unit.Bytes(rows[s.to].Size).String() + " -n 100`) to see whether the stall repeats; pin NCCL_PROTO (Simple, LL128, LL) and NCCL_ALGO (Ring, Tree) in turn to find the choice that stalls; compare the NICs' retransmission and discard counters (ethtool -S, hw_counters) before and after the run.",
			})
		}
	}
	return fs
}
