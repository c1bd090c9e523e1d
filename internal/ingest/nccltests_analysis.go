package ingest

import (
	"math"
	"slices"
	"sort"
)

// finish infers the collective when no banner or binary named it.
func (r *TestRun) finish() {
	r.placeUnprintedHost()
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

// placeUnprintedHost keeps rank lines without "on <host>" on one host
// only when one process printed them all (nccl-tests -g N: a process runs
// on one node); the ranks of several processes, or of more lines than
// were kept, may sit on several nodes, so their host is not known.
func (r *TestRun) placeUnprintedHost() {
	if _, ok := r.hostSeen[hostNotPrinted]; !ok {
		return
	}
	pid := -1
	for _, k := range r.Ranks {
		if k.Host != hostNotPrinted {
			continue
		}
		if pid >= 0 && k.PID != pid || r.RankCount > len(r.Ranks) {
			delete(r.hostSeen, hostNotPrinted)
			return
		}
		pid = k.PID
	}
}

// NRanks is the number of ranks: the rank lines counted, or more when a
// rank line shows a higher rank (an excerpt that starts mid-list), or,
// without rank lines, the communicator size NCCL's init lines show, or
// the ranks of a command line that runs the binary without a launcher, or
// the ranks the count column of a per-rank count collective implies, or
// those the busbw/algbw ratio implies (RatioRanks); 0 if none.
func (r *TestRun) NRanks() int {
	if n := r.listedRanks(); n > 0 {
		return n
	}
	if n := r.countRanks(); n > 0 {
		return n
	}
	n, _, _ := r.RatioRanks()
	return n
}

// RanksFromCount reports whether NRanks comes from the count column
// alone: nothing names the ranks, nor the hosts they ran on.
func (r *TestRun) RanksFromCount() bool { return r.listedRanks() == 0 && r.countRanks() > 0 }

// RanksFromRatio reports whether NRanks comes from the busbw/algbw ratio
// alone: nothing names the ranks and the count column does not give them.
func (r *TestRun) RanksFromRatio() bool {
	n, _, _ := r.RatioRanks()
	return r.listedRanks() == 0 && r.countRanks() == 0 && n > 0
}

// RatioRanks is the rank count the busbw/algbw ratio of a named
// collective gives (nccl-tests doc/PERFORMANCE.md): all_reduce's
// 2(n-1)/n, or (n-1)/n for all_gather, reduce_scatter, alltoall, gather
// and scatter; 1.875 on every row is all_reduce on 16 ranks. lo and hi
// bound the ratio every row agrees on (busRatio). 0 when the rows
// disagree, when the bounds fit no rank count or more than one (a table
// of small sizes, whose two-decimal figures say little), when no row's
// busbw bounds the ratio above 0 (a 1-rank run prints busbw 0.00, and
// 0.00 over algbw 0.01 fits all_reduce's 1 on 2 ranks), or for the
// collectives whose factor is 1 on any rank count (broadcast, reduce,
// sendrecv).
func (r *TestRun) RatioRanks() (n int, lo, hi float64) {
	c := r.Collective
	if c == "" || busFactor(c, 2) == busFactor(c, 3) {
		return 0, 0, 0
	}
	lo, hi, agreed, ok := r.ratioBounds()
	if !ok || !agreed || lo <= 0 {
		return 0, 0, 0
	}
	for k := 2; k <= maxRanks; k++ {
		f := busFactor(c, k)
		if f > hi {
			break
		}
		if f >= lo {
			if n > 0 {
				return 0, 0, 0
			}
			n = k
		}
	}
	return n, lo, hi
}

// listedRanks is NRanks from what names the ranks (rank lines, NCCL's
// init lines, a launcher-less command line), not from the count column.
func (r *TestRun) listedRanks() int {
	if n := max(r.RankCount, r.RankSpan, r.CommRanks); n > 0 {
		return n
	}
	return r.DirectRanks
}

// countRanks is the rank count a table without rank lines shows in its
// count column: every row of a per-rank count collective (all_gather,
// alltoall, ...) has a size of count × type size × ranks, so a scatter
// row of 2147483648 B and 33554432 floats ran on 16 ranks. 0 when the
// rows do not all give one count above 1.
func (r *TestRun) countRanks() int {
	n := int64(0)
	for _, row := range r.Rows {
		k := row.countRatio()
		if k == 0 {
			continue
		}
		if k < 0 || n > 0 && k != n {
			return 0
		}
		n = k
	}
	if n < 2 || n > maxRanks {
		return 0
	}
	return int(n)
}

// countRatio is the row's size over count × type size: 1 for a whole
// count, the rank count for a per-rank one; 0 when the row does not tell
// (a zero size or count, an unknown type), -1 when the size is no
// multiple of it.
func (row TestRow) countRatio() int64 {
	ts := int64(TypeSize(row.Type))
	if row.Size <= 0 || row.Count <= 0 || ts == 0 {
		return 0
	}
	if unit := row.Count * ts; row.Size%unit == 0 {
		return row.Size / unit
	}
	return -1
}

// RanksPartial reports whether rank lines are missing: a rank line shows a
// rank the lines counted do not reach (a paste that starts at "Rank 71").
// The hosts seen are then some of the job's, not all.
func (r *TestRun) RanksPartial() bool { return r.RankSpan > r.RankCount }

// RanksPerHost returns how many ranks each host runs, as host-sorted
// pairs, from the rank lines; nothing when the rank lines are partial,
// since the hosts and counts they show are not the job's, unless the
// lines kept are each host's first and last rank of a block layout
// (blockHosts).
func (r *TestRun) RanksPerHost() (hosts []string, counts []int) {
	if r.RanksPartial() {
		return r.blockHosts()
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

// blockHosts reads rank lines a page elided to each host's first and
// last ("Rank 0" and "Rank 7" on one host, "Rank 8" and "Rank 15" on the
// next, as vendor guides print a 16-rank run): with ranks placed in
// blocks of G = span/hosts, as mpirun -npernode and srun lay them out,
// the i-th host (by its lowest rank) runs ranks iG to iG+G-1. It holds
// only when every host shows both ends of its block, every line kept
// sits in its host's block, one GPU a process, its device is its place
// in the block, and the ranks the busbw/algbw ratio or NCCL's init lines
// give (when they give any) are the span shown; otherwise nothing, as for
// any partial listing.
func (r *TestRun) blockHosts() (hosts []string, counts []int) {
	if r.RankCount != len(r.Ranks) || len(r.hostSeen) < 2 || r.RankSpan%len(r.hostSeen) != 0 {
		return nil, nil
	}
	if n, _, _ := r.RatioRanks(); n > 0 && n != r.RankSpan || r.CommRanks > 0 && r.CommRanks != r.RankSpan {
		return nil, nil // the lines shown do not end where the job does
	}
	g := r.RankSpan / len(r.hostSeen)
	first := map[string]int{}
	for _, k := range r.Ranks {
		if f, ok := first[k.Host]; !ok || k.Rank < f {
			first[k.Host] = k.Rank
		}
	}
	ends := map[string]int{} // bit 1: the block's first rank shown, bit 2: its last
	for _, k := range r.Ranks {
		block := first[k.Host] / g
		if k.Rank/g != block || r.NThread*r.NGpus == 1 && k.Device != k.Rank%g {
			return nil, nil
		}
		switch k.Rank % g {
		case 0:
			ends[k.Host] |= 1
		case g - 1:
			ends[k.Host] |= 2
		}
	}
	for h := range r.hostSeen {
		if ends[h] != 3 {
			return nil, nil
		}
	}
	blocks := map[int]bool{}
	for h := range r.hostSeen {
		hosts = append(hosts, h)
		blocks[first[h]/g] = true
	}
	if len(blocks) != len(hosts) {
		return nil, nil // two hosts in one block
	}
	sort.Strings(hosts)
	for range hosts {
		counts = append(counts, g)
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

// factorReaches reports whether collective c has a busbw factor within
// [lo, hi] for some rank count of 2 or more: 2(n-1)/n spans [1, 2),
// (n-1)/n spans [0.5, 1), and the others are 1. It narrows a table whose
// rank lines were not pasted.
func factorReaches(c string, lo, hi float64) bool {
	flo, fhi := 1.0, 1.0
	switch busFactor(c, 2) {
	case 1:
		if c == "all_reduce" {
			flo, fhi = 1, 2
		}
	case 0.5:
		flo, fhi = 0.5, 1
	}
	return hi >= flo && lo <= fhi
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
		// A table cut to its out-of-place half (rowLayout.outOnly) has no
		// in-place #wrong to be N/A.
		inNA = inNA || (r.layout.outOnly == 0 && row.Out.Wrong >= 0 && row.In.Wrong < 0 && row.In.ErrorText == "")
		inChecked = inChecked || row.In.Wrong >= 0
	}
	// The ranks the count column implies stay out of the busbw factor:
	// nccl-tests of the NCCL 2.6 era printed all_gather's busbw equal to
	// its algbw (nccl#340), so only ranks the output names test it.
	perRank, known := r.countPerRank()
	n := r.listedRanks()
	var out []string
	for _, c := range all {
		if !r.columnsAllow(c, redop, root, inNA) {
			continue
		}
		if known && perRank != countsPerRank(c) && n != 1 {
			continue
		}
		if inChecked && (c == "sendrecv" || c == "alltoall") {
			// Their in-place half prints N/A for #wrong.
			continue
		}
		if lo, hi, ok := r.busRatio(); ok {
			if f := busFactor(c, n); n > 1 && (f < lo || f > hi) {
				continue
			}
			if n == 0 && !factorReaches(c, lo, hi) {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// countsPerRank reports whether collective c prints one rank's element
// count in the count column, its size being count × type size × ranks:
// nccl-tests prints the count it passes NCCL (src/common.cu), which for
// these collectives is the per-rank send or receive count.
func countsPerRank(c string) bool {
	switch c {
	case "all_gather", "reduce_scatter", "alltoall", "gather", "scatter":
		return true
	}
	return false
}

// countPerRank reports, from the rows that tell (countRatio), whether the
// size is a multiple of count × type size above 1 (a per-rank count:
// all_gather, alltoall, ...) or exactly count × type size (all_reduce,
// broadcast, reduce, sendrecv); known is false when no row tells or the
// rows disagree. On one rank the two read alike.
func (r *TestRun) countPerRank() (perRank, known bool) {
	var exact, multiple bool // size = count × type size; a multiple above 1
	for _, row := range r.Rows {
		switch k := row.countRatio(); {
		case k < 0:
			return false, false
		case k > 1:
			multiple = true
		case k > 0:
			exact = true
		}
	}
	if exact == multiple {
		return false, false
	}
	return multiple, true
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
	if r.HasRedop && (redop == "none" || redop == "" && len(r.Rows) > 0) && (reducing || c == "sendrecv") {
		// sendrecv_perf runs over the -o operations (src/sendrecv.cu
		// SendRecvRunTest) and prints the op's name, "sum" by default:
		// never "none", which the collectives that move data without an
		// operation print, nor the blank some versions print instead.
		return false
	}
	if c == "all_gather" && r.HasRedop && !r.HasRoot && r.layout.known && redop == "" && len(r.Rows) > 0 {
		// all_gather_perf printed no redop column until nccl-tests
		// 51af557 (2022-08), and "none" with a root column after it: a
		// blank redop in a table without a root column is alltoall's.
		return false
	}
	if !r.HasRedop && r.layout.known && reducing {
		return false
	}
	if inNA && c != "sendrecv" && c != "alltoall" {
		return false
	}
	if !r.HasRedop && r.layout.known && c != "all_gather" && c != "broadcast" && c != "sendrecv" {
		// Tables without a redop column predate the other collectives,
		// but for the first sendrecv_perf's, which printed neither a
		// redop nor a root column (nccl-tests#104).
		return false
	}
	return true
}

// busRatio bounds busbw/algbw, the collective's factor, by every row's
// printed pair. nccl-tests prints both with two decimals, so each is off
// by at most 0.005 and a row bounds the ratio to [(busbw-0.005)/(algbw+0.005),
// (busbw+0.005)/(algbw-0.005)]: 0.98 from busbw 2.05 over algbw 2.09 is
// 0.976-0.986 and rules out a factor of 1 (sendrecv). Small sizes bound it
// too: busbw 0.09 over algbw 0.05 is 1.55-2.11, not sendrecv's 1 either,
// which a test of the largest row alone missed in a table that stops at
// 2KiB. The rows' bounds are intersected; rows that disagree with the
// others (no common ratio) leave the most precise row's bounds.
func (r *TestRun) busRatio() (lo, hi float64, ok bool) {
	lo, hi, _, ok = r.ratioBounds()
	return lo, hi, ok
}

// ratioBounds is busRatio, with agreed set when every row's bounds
// overlap (lo and hi are then their intersection, not the most precise
// row's).
func (r *TestRun) ratioBounds() (lo, hi float64, agreed, ok bool) {
	const half, slack = 0.005, 0.001
	lo, hi = 0, math.Inf(1)
	best, bestLo, bestHi := -1.0, 0.0, 0.0
	for _, row := range r.Rows {
		h := row.Measured()
		if h.BusBW <= 0 && h.AlgBW <= 0 {
			continue
		}
		rlo := max(h.BusBW-half, 0) / (h.AlgBW + half)
		rhi := math.Inf(1)
		if h.AlgBW > half {
			rhi = (h.BusBW + half) / (h.AlgBW - half)
		}
		rlo, rhi = rlo-slack, rhi+slack
		if h.AlgBW > best {
			best, bestLo, bestHi = h.AlgBW, rlo, rhi
		}
		lo, hi = max(lo, rlo), min(hi, rhi)
	}
	switch {
	case best < 0 || math.IsInf(hi, 1) && lo <= 0:
		return 0, 0, false, false
	case lo > hi:
		return bestLo, bestHi, false, true
	}
	return lo, hi, true, true
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
