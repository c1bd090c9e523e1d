package ingest

import (
	"math"
	"slices"
	"sort"
)

// finish infers the collective when no banner or binary named it.
func (r *TestRun) finish() {
	if r.Collective != "" || r.FooterOnly() {
		return
	}
	c := r.inferCollective()
	if len(c) == 1 {
		r.Collective, r.CollectiveFrom = c[0], FromColumns
		return
	}
	r.Candidates = c
}

// NRanks is the number of ranks: the rank lines counted, or more when a
// rank line shows a higher rank (an excerpt that starts mid-list), or,
// without rank lines, the communicator size NCCL's init lines show; 0 if
// none.
func (r *TestRun) NRanks() int { return max(r.RankCount, r.RankSpan, r.CommRanks) }

// RanksPartial reports whether rank lines are missing: a rank line shows a
// rank the lines counted do not reach (a paste that starts at "Rank 71").
// The hosts seen are then some of the job's, not all.
func (r *TestRun) RanksPartial() bool { return r.RankSpan > r.RankCount }

// RanksPerHost returns how many ranks each host runs, as host-sorted
// pairs, from the rank lines; nothing when the rank lines are partial,
// since the hosts and counts they show are not the job's.
func (r *TestRun) RanksPerHost() (hosts []string, counts []int) {
	if r.RanksPartial() {
		return nil, nil
	}
	for h := range r.hostSeen {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	for _, h := range hosts {
		counts = append(counts, r.hostSeen[h])
	}
	return hosts, counts
}

// busbw factors of the collectives for n ranks.
func busFactor(coll string, n int) float64 {
	fn := float64(n)
	switch coll {
	case "all_reduce":
		return 2 * (fn - 1) / fn
	case "all_gather", "reduce_scatter", "alltoall", "alltoallv", "gather", "scatter":
		return (fn - 1) / fn
	}
	return 1
}

// factorReaches reports whether collective c has a busbw factor near
// ratio for some rank count of 2 or more: 2(n-1)/n spans [1, 2), (n-1)/n
// spans [0.5, 1), and the others are 1; tol is how far the printed ratio
// may be from the true one. It narrows a table whose rank lines were not
// pasted.
func factorReaches(c string, ratio, tol float64) bool {
	lo, hi := 1.0, 1.0
	switch busFactor(c, 2) {
	case 1:
		if c == "all_reduce" {
			lo, hi = 1, 2
		}
	case 0.5:
		lo, hi = 0.5, 1
	}
	return ratio >= lo-tol && ratio <= hi+tol
}

// inferCollective narrows the collective from the columns: the busbw/algbw
// factor for the rank count, the redop and root columns, and the N/A that
// sendrecv and alltoall print for in-place #wrong.
func (r *TestRun) inferCollective() []string {
	all := []string{"all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast", "reduce", "sendrecv", "gather", "scatter"}
	var redop string
	root, inNA, inChecked := -1, false, false
	for _, row := range r.Rows {
		redop, root = row.Redop, row.Root
		inNA = inNA || (row.Out.Wrong >= 0 && row.In.Wrong < 0 && row.In.ErrorText == "")
		inChecked = inChecked || row.In.Wrong >= 0
	}
	var out []string
	for _, c := range all {
		if !r.columnsAllow(c, redop, root, inNA) {
			continue
		}
		if inChecked && (c == "sendrecv" || c == "alltoall") {
			// Their in-place half prints N/A for #wrong.
			continue
		}
		if ratio, tol, ok := r.busRatio(); ok {
			if n := r.NRanks(); n > 1 && math.Abs(ratio-busFactor(c, n)) > tol {
				continue
			}
			if r.NRanks() == 0 && !factorReaches(c, ratio, tol) {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// columnsAllow reports whether a collective could print these columns; the
// columns are known from the header or, in an excerpt without one, from
// the rows.
func (r *TestRun) columnsAllow(c, redop string, root int, inNA bool) bool {
	if r.layout.oneHalf {
		// mscclpp-test runs alltoall and sendrecv out of place, so their
		// in-place #wrong reads as N/A, as in nccl-tests.
		return mscclppRuns(c) && (!inNA || c == "sendrecv" || c == "alltoall")
	}
	rooted := c == "broadcast" || c == "reduce" || c == "gather" || c == "scatter"
	reducing := c == "all_reduce" || c == "reduce_scatter" || c == "reduce"
	if r.HasRoot && (root >= 0) != rooted {
		return false
	}
	if !r.HasRoot && r.layout.known && rooted {
		// Old tables print a root column only for rooted collectives.
		return false
	}
	if r.HasRedop && redop != "" && redop != "none" && !reducing && c != "sendrecv" {
		return false
	}
	if r.HasRedop && redop == "none" && reducing {
		return false
	}
	if !r.HasRedop && r.layout.known && reducing {
		return false
	}
	if inNA && c != "sendrecv" && c != "alltoall" {
		return false
	}
	if !r.HasRedop && r.layout.known && c != "all_gather" && c != "broadcast" {
		// Tables without a redop column predate the other collectives.
		return false
	}
	return true
}

// busRatio is busbw/algbw on the row where both are most precise, and how
// far that ratio may be from the collective's factor. nccl-tests prints
// both with two decimals, so each is off by at most 0.005 and the ratio by
// at most ratio × (0.005/busbw + 0.005/algbw): 0.98 from busbw 2.05 over
// algbw 2.09 is 0.976-0.986 and rules out a factor of 1 (sendrecv), which
// a fixed margin did not. The margin is at most 0.03, the fixed one.
func (r *TestRun) busRatio() (ratio, tol float64, ok bool) {
	best := -1
	for i, row := range r.Rows {
		if a := row.Measured().AlgBW; a >= 1 && (best < 0 || a > r.Rows[best].Measured().AlgBW) {
			best = i
		}
	}
	if best < 0 {
		return 0, 0, false
	}
	h := r.Rows[best].Measured()
	ratio = h.BusBW / h.AlgBW
	tol = 0.03
	if h.BusBW >= 1 {
		tol = min(tol, ratio*(0.005/h.BusBW+0.005/h.AlgBW)+0.001)
	}
	return ratio, tol, true
}

// Measured is the row's out-of-place half, or its in-place half when the
// table measured only that (mscclpp-test's allreduce and allgather).
func (r TestRow) Measured() TestHalf {
	if r.Out.Time <= 0 && r.In.Time > 0 {
		return r.In
	}
	return r.Out
}

// PlateauMinSize is the smallest message size a bandwidth plateau may rest
// on: below it, latency rather than bandwidth sets the time.
const PlateauMinSize = 64 << 20

// Plateau is the busbw a run reaches at its largest sizes.
type Plateau struct {
	// BusBW is the median and Max the largest best-of-both-halves busbw
	// (GB/s) over the plateau rows; Min the smallest.
	BusBW, Min, Max float64
	// MinSize and MaxSize bound the plateau rows' sizes (bytes).
	MinSize, MaxSize int64
	// Rows are the plateau rows, largest size last.
	Rows []TestRow
}

// Plateau returns the busbw of the largest sizes: the rows of at least
// PlateauMinSize within a factor 4 of the largest size (the last three
// steps of a doubling sweep). A run that swept the sizes once per data
// type, reduction op or root (-d all, -o all, -r) has the plateau of its
// fastest sweep: the path carries what any sweep reached, and a slower
// one is bounded by its reduction's arithmetic (int8, fp8), not by the
// path. It returns false when the table stops below PlateauMinSize.
func (r *TestRun) Plateau() (Plateau, bool) {
	var best Plateau
	found := false
	for _, rows := range sweeps(r.Rows) {
		if p, ok := plateauOf(rows); ok && (!found || p.BusBW > best.BusBW) {
			best, found = p, true
		}
	}
	return best, found
}

// Sweeps returns the run's rows split into the size sweeps of each data
// type, reduction op and root (-d all, -o all, -r -1), each in table order.
func (r *TestRun) Sweeps() [][]TestRow { return sweeps(r.Rows) }

// sweeps splits rows into the size sweeps of each data type, reduction op
// and root, in the order they first appear; one sweep for most runs.
func sweeps(rows []TestRow) [][]TestRow {
	if len(rows) == 0 || !slices.ContainsFunc(rows, func(x TestRow) bool { return !sameSweep(x, rows[0]) }) {
		return [][]TestRow{rows}
	}
	var out [][]TestRow
	for _, row := range rows {
		i := slices.IndexFunc(out, func(s []TestRow) bool { return sameSweep(s[0], row) })
		if i < 0 {
			out = append(out, nil)
			i = len(out) - 1
		}
		out[i] = append(out[i], row)
	}
	return out
}

// wrong reports whether either half of the row counted wrong elements.
func (r TestRow) wrong() bool { return r.Out.Wrong > 0 || r.In.Wrong > 0 }

// plateauOf is Plateau over the rows of one sweep.
func plateauOf(rows []TestRow) (Plateau, bool) {
	var p Plateau
	var largest int64
	for _, row := range rows {
		largest = max(largest, row.Size)
	}
	if largest < PlateauMinSize {
		return p, false
	}
	for _, row := range rows {
		if row.Size >= PlateauMinSize && row.Size >= largest/4 {
			p.Rows = append(p.Rows, row)
		}
	}
	// Rows that returned wrong data measure a fault, not the path: the
	// plateau rests on the clean rows when there are any.
	if clean := slices.DeleteFunc(slices.Clone(p.Rows), TestRow.wrong); len(clean) > 0 {
		p.Rows = clean
	}
	sort.SliceStable(p.Rows, func(i, j int) bool { return p.Rows[i].Size < p.Rows[j].Size })
	bw := make([]float64, len(p.Rows))
	for i, row := range p.Rows {
		bw[i] = row.BestBusBW()
	}
	sort.Float64s(bw)
	p.Min, p.Max = bw[0], bw[len(bw)-1]
	if n := len(bw); n%2 == 1 {
		p.BusBW = bw[n/2]
	} else {
		p.BusBW = (bw[n/2-1] + bw[n/2]) / 2
	}
	p.MinSize, p.MaxSize = p.Rows[0].Size, p.Rows[len(p.Rows)-1].Size
	return p, true
}

// LargestSize returns the largest message size in the table, 0 if none.
func (r *TestRun) LargestSize() int64 {
	var m int64
	for _, row := range r.Rows {
		m = max(m, row.Size)
	}
	return m
}
