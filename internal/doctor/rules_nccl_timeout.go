package doctor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/ingest"
)

// PyTorch's ProcessGroupNCCL watchdog: the job-level symptom of a
// collective that never completed, printed beside (or instead of) the NCCL
// errors that explain it.

// ncclTimeoutRules are the rules over collective timeouts.
func ncclTimeoutRules() []Rule {
	return []Rule{
		{IDs: []string{"nccl.collective.timeout"}, Check: checkCollectiveTimeouts},
	}
}

// checkCollectiveTimeouts reports the collectives the watchdog timed out:
// which operation and sequence number, after how long, on which ranks,
// and whether the incident holds NCCL errors that explain them.
func checkCollectiveTimeouts(inc *Incident) []Finding {
	var ts []ingest.CollectiveTimeout
	var progress []ingest.WatchdogProgress
	var stuck []ingest.WatchdogStuck
	ncclErrors := 0
	for _, l := range All[*ingest.NCCLLog](inc) {
		ts = append(ts, l.Timeouts...)
		progress = append(progress, l.Progress...)
		stuck = append(stuck, l.Stuck...)
		ncclErrors += l.CompletionCount + l.SetupCount + l.AsyncEventCount
	}
	if len(ts) == 0 {
		return stuckAlone(stuck)
	}
	var ev evidence
	var ops, seqs, ranks []string
	var timeoutMS, ranMS int64 = -1, -1
	for _, t := range ts {
		ev.add(t.Evidence)
		ops = append(ops, t.OpType)
		if t.SeqNum >= 0 {
			seqs = append(seqs, strconv.FormatInt(t.SeqNum, 10))
		}
		if r := jobRank(t.Global, t.Rank); r >= 0 {
			ranks = append(ranks, strconv.Itoa(r))
		}
		timeoutMS, ranMS = max(timeoutMS, t.TimeoutMS), max(ranMS, t.RanMS)
	}
	// A rank whose watchdog stopped at one of those collectives reports the
	// timeout too, whether or not its own timeout line is in the input
	// ("[PG ID 1 PG GUID 1 Rank 0]  failure detected by watchdog at work
	// sequence id: 2847", hiyouga/LlamaFactory#8261).
	// Each process group numbers its collectives on its own: a progress
	// line matches a timeout of its own group, or one whose group is not
	// known.
	progress = progressOfOneLog(progress)
	at := map[string]bool{}
	var groups []string
	for _, t := range ts {
		if t.SeqNum >= 0 {
			g := timeoutGroup(t, progress)
			at[g+"/"+strconv.FormatInt(t.SeqNum, 10)] = true
			if g != "" {
				groups = append(groups, g)
			}
		}
	}
	for _, p := range progress {
		seq := "/" + strconv.FormatInt(p.At, 10)
		if r := jobRank(p.Global, p.Rank); r >= 0 && p.At >= 0 && (at[progressGroup(p)+seq] || at[seq]) {
			ranks = append(ranks, strconv.Itoa(r))
		}
	}
	ops, seqs, ranks, groups = distinct(ops), distinct(seqs), distinct(ranks), distinct(groups)
	slices.SortFunc(ranks, func(a, b string) int { return atoi(a) - atoi(b) })
	what := list(ops, 3)
	if len(seqs) > 0 {
		what += " (SeqNum " + list(seqs, 3) + ")"
	}
	title := "Collective timed out: " + what
	if timeoutMS > 0 {
		title += " did not complete within " + seconds(float64(timeoutMS)/1000)
	}
	if len(ranks) > 0 {
		title += " on rank" + map[bool]string{true: " ", false: "s "}[len(ranks) == 1] + list(ranks, 8)
	}
	mismatch := mismatchedCollectives(ts)
	if mismatch != "" {
		title += ": the ranks wait in different collectives"
	}
	mech := "PyTorch's ProcessGroupNCCL watchdog aborts the job when a collective has not completed within the process group's timeout: the ranks that report it waited for peers whose data never arrived. Every rank of the group must launch the collective and the network must deliver it; a rank that crashed, hung or fell behind (a stalled data loader, an out-of-memory error, a different code path), or a connection that stopped delivering (a queue pair in the error state after its retries ran out, a link down, a PFC deadlock) leaves the others waiting."
	switch {
	case len(seqs) > 1 && len(groups) > 1:
		mech += fmt.Sprintf(" The ranks time out at different sequence numbers (%s), but in %d process groups, each numbering its collectives on its own: the numbers do not say that the ranks are at different points of the job.", list(seqs, 4), len(groups))
	case len(seqs) > 1:
		mech += fmt.Sprintf(" The ranks time out at different sequence numbers (%s): they are not at the same point of the job, which points at a rank that stopped or diverged rather than at one slow transfer.", list(seqs, 4))
	}
	if ranMS > 0 && timeoutMS > 0 {
		mech += fmt.Sprintf(" The collective ran %s against a timeout of %s.", seconds(float64(ranMS)/1000), seconds(float64(timeoutMS)/1000))
	}
	if mismatch != "" {
		mech += " " + mismatch + ": if these ranks share the process group (PyTorch numbers each group's collectives on its own), they called different collectives at the same point of the program, and as NCCL matches collectives by their order alone each waits for peers that will never join it; the program diverged (a collective under a rank-dependent branch, an uneven last batch, a save or evaluation step only some ranks run), which no network setting fixes."
	}
	mech += watchdogProgress(progress, &ev)
	if st := stuckRanks(stuck, &ev); st != "" {
		mech = strings.TrimSuffix(mech, ".") + "; on " + st + " PyTorch's heartbeat monitor found the watchdog thread itself blocked in a CUDA or NCCL call that did not return, and aborts those processes."
	}
	if ncclErrors > 0 {
		mech += fmt.Sprintf(" This incident also holds %s from NCCL's IB transport: those findings are the likely cause, the timeout their consequence.", plural(ncclErrors, "error line", "error lines"))
	} else {
		mech += " The inputs hold no NCCL transport error that explains it: a rank that stopped, or logs of the other ranks, are what is missing."
	}
	fix := "Find the rank that stopped first: compare each rank's 'last completed NCCL work' (set TORCH_NCCL_DUMP_ON_TIMEOUT=1 for the flight recorder's per-rank dump), look for the ranks that did not report the timeout, and read every rank's NCCL_DEBUG=WARN output and the RDMA counters (retransmissions, discards, pause) of their hosts for the same minutes. Raising the timeout hides a hang; it does not fix it."
	if mismatch != "" {
		fix = "Make every rank of the group issue the same collectives in the same order with the same sizes: find the code that runs a collective on some ranks only (TORCH_DISTRIBUTED_DEBUG=DETAIL checks each collective's type and shape across ranks and names the first mismatch). " + fix
	}
	return []Finding{{
		ID: "nccl.collective.timeout", Severity: Error, Layer: LayerNCCL,
		Title:     title,
		Evidence:  ev.sorted(),
		Mechanism: mech,
		Fix:       fix,
	}}
}

const stuckWhy = "it made no progress for longer than TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC because a CUDA or NCCL call it made (an event query, a communicator abort) did not return, which is what a GPU kernel waiting on data from a peer that never sends does to every call behind it."

// stuckRanks describes the ranks whose watchdog got stuck ("ranks 5 and 7
// (480 s)") and adds their lines to ev; "" when there are none.
func stuckRanks(stuck []ingest.WatchdogStuck, ev *evidence) string {
	if len(stuck) == 0 {
		return ""
	}
	var ranks []string
	secs := -1
	for _, s := range stuck {
		ev.add(s.Evidence)
		if s.Rank >= 0 {
			ranks = append(ranks, strconv.Itoa(s.Rank))
		}
		secs = max(secs, s.Seconds)
	}
	ranks = distinct(ranks)
	slices.SortFunc(ranks, func(a, b string) int { return atoi(a) - atoi(b) })
	who := plural(len(stuck), "rank", "ranks")
	if len(ranks) > 0 {
		who = "rank" + map[bool]string{true: " ", false: "s "}[len(ranks) == 1] + list(ranks, 8)
	}
	return fmt.Sprintf("%s (%d s)", who, secs)
}

// stuckAlone reports the heartbeat monitor's lines when no watchdog timeout
// line is in the inputs: the ranks hang inside NCCL or CUDA.
func stuckAlone(stuck []ingest.WatchdogStuck) []Finding {
	var ev evidence
	st := stuckRanks(stuck, &ev)
	if st == "" {
		return nil
	}
	return []Finding{{
		ID: "nccl.collective.timeout", Severity: Error, Layer: LayerNCCL,
		Title:     "PyTorch's watchdog got stuck on " + st + ": the ranks hang inside an NCCL or CUDA call",
		Evidence:  ev.sorted(),
		Mechanism: "PyTorch's heartbeat monitor watches the ProcessGroupNCCL watchdog thread; " + stuckWhy + " The monitor then aborts the process. No collective timeout line is in the inputs: read the other ranks' logs for the first one that stopped, and its NCCL WARN lines.",
		Fix:       "Find why NCCL stopped progressing: the ranks' NCCL_DEBUG=WARN output and the RDMA counters of their hosts for the same minutes, and TORCH_NCCL_DUMP_ON_TIMEOUT=1 for the flight recorder's per-rank state. A longer TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC only delays the abort.",
	}}
}

// atoi is strconv.Atoi for strings known to be digits.
func atoi(s string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(s))
	return n
}

// mismatchedCollectives describes the sequence numbers at which ranks time
// out in collectives that differ in type or size, "" when none do.
func mismatchedCollectives(ts []ingest.CollectiveTimeout) string {
	bySeq := map[int64][]ingest.CollectiveTimeout{}
	var seqs []int64
	for _, t := range ts {
		if t.SeqNum < 0 || t.OpType == "" {
			continue
		}
		if _, ok := bySeq[t.SeqNum]; !ok {
			seqs = append(seqs, t.SeqNum)
		}
		bySeq[t.SeqNum] = append(bySeq[t.SeqNum], t)
	}
	slices.Sort(seqs)
	for _, seq := range seqs {
		var kinds []string
		for _, t := range bySeq[seq] {
			k := t.OpType
			if t.NumelIn >= 0 {
				k += fmt.Sprintf(" of %d elements", t.NumelIn)
			}
			if t.Rank >= 0 {
				k = "rank " + strconv.Itoa(t.Rank) + " in " + k
			}
			kinds = append(kinds, k)
		}
		if distinctOps(bySeq[seq]) > 1 {
			return fmt.Sprintf("At SeqNum %d %s", seq, list(distinct(kinds), 4))
		}
	}
	return ""
}

// distinctOps counts the different (type, size) pairs among ts.
func distinctOps(ts []ingest.CollectiveTimeout) int {
	seen := map[string]bool{}
	for _, t := range ts {
		seen[t.OpType+"/"+strconv.FormatInt(t.NumelIn, 10)] = true
	}
	return len(seen)
}

// progressOfOneLog keeps the progress lines of the log that has the most:
// sequence numbers of different jobs (or of logs merged into one incident)
// do not compare.
func progressOfOneLog(ps []ingest.WatchdogProgress) []ingest.WatchdogProgress {
	byFile := map[string][]ingest.WatchdogProgress{}
	var best string
	for _, p := range ps {
		f := p.Evidence.File
		byFile[f] = append(byFile[f], p)
		if len(byFile[f]) > len(byFile[best]) || len(byFile[f]) == len(byFile[best]) && f < best {
			best = f
		}
	}
	return byFile[best]
}

// progressGroup names the process group a progress line is of: its
// job-wide GUID when printed, else its id ("" when neither is).
func progressGroup(p ingest.WatchdogProgress) string {
	if p.GUID != "" {
		return "PG GUID " + p.GUID
	}
	if p.PG != "" {
		return "PG " + p.PG
	}
	return ""
}

// timeoutGroup names the process group a timeout is of: the group its
// line prints, else that of the progress line the same process printed
// for the same sequence number ("" when neither says).
func timeoutGroup(t ingest.CollectiveTimeout, progress []ingest.WatchdogProgress) string {
	if g := progressGroup(ingest.WatchdogProgress{PG: t.PG, GUID: t.GUID}); g != "" {
		return g
	}
	for _, p := range progress {
		if p.Evidence.File == t.Evidence.File && p.At == t.SeqNum && jobRank(p.Global, p.Rank) == jobRank(t.Global, t.Rank) {
			return progressGroup(p)
		}
	}
	return ""
}

// jobRank is the rank to name a reporting process by: PyTorch's own
// "[rankN]:" tag when there is one (the job-wide rank), else the rank the
// line prints (its rank within the process group).
func jobRank(global, rank int) int {
	if global >= 0 {
		return global
	}
	return rank
}

// progressGroups splits the progress lines that say how far a rank got by
// their process group, in the order the groups first appear.
func progressGroups(ps []ingest.WatchdogProgress) (order []string, by map[string][]ingest.WatchdogProgress) {
	by = map[string][]ingest.WatchdogProgress{}
	for _, p := range ps {
		if p.Completed < 0 {
			continue
		}
		g := progressGroup(p)
		if _, ok := by[g]; !ok {
			order = append(order, g)
		}
		by[g] = append(by[g], p)
	}
	return order, by
}

// watchdogProgress says what the watchdog's progress lines tell of the
// ranks: which ranks finished least, or that all stopped at the same
// work, and adds the lines that show it to ev. Each process group numbers
// its collectives on its own, so only the lines of one group compare.
func watchdogProgress(ps []ingest.WatchdogProgress, ev *evidence) string {
	order, by := progressGroups(ps)
	switch len(order) {
	case 0:
		return ""
	case 1:
		return groupProgress(by[order[0]], ev)
	}
	var parts []string
	for i, g := range order {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("%d more", len(order)-i))
			break
		}
		parts = append(parts, "in "+g+" "+strings.TrimPrefix(briefProgress(by[g], ev), " "))
	}
	return fmt.Sprintf(" The watchdog's progress lines are of %d process groups, which number their collectives apart, so their work numbers do not compare across groups: %s.", len(order), strings.Join(parts, "; "))
}

// briefProgress says how far the ranks of one group got ("rank 13
// completed work 215 (enqueued 220)", "ranks 0, 2 completed work 56")
// and adds their lines to ev.
func briefProgress(ps []ingest.WatchdogProgress, ev *evidence) string {
	lo := int64(-1)
	for _, p := range ps {
		if lo < 0 || p.Completed < lo {
			lo = p.Completed
		}
	}
	var ranks []string
	enq := int64(-1)
	for _, p := range ps {
		if p.Completed != lo {
			continue
		}
		ev.add(p.Evidence)
		if r := jobRank(p.Global, p.Rank); r >= 0 {
			ranks = append(ranks, strconv.Itoa(r))
		}
		enq = max(enq, p.Enqueued)
	}
	ranks = distinct(ranks)
	slices.SortFunc(ranks, func(a, b string) int { return atoi(a) - atoi(b) })
	who := "a rank"
	if len(ranks) > 0 {
		who = "rank" + map[bool]string{true: " ", false: "s "}[len(ranks) == 1] + list(ranks, 6)
	}
	s := fmt.Sprintf("%s completed work %d", who, lo)
	if enq > lo {
		s += fmt.Sprintf(" (enqueued up to %d)", enq)
	}
	return s
}

// groupProgress is watchdogProgress for the lines of one process group.
func groupProgress(ps []ingest.WatchdogProgress, ev *evidence) string {
	last := map[int]ingest.WatchdogProgress{}
	for _, p := range ps {
		last[jobRank(p.Global, p.Rank)] = p
	}
	lo, hi := int64(-1), int64(-1)
	for _, p := range last {
		if lo < 0 || p.Completed < lo {
			lo = p.Completed
		}
		hi = max(hi, p.Completed)
	}
	var behind []string
	for r, p := range last {
		if p.Completed == lo && r >= 0 {
			behind = append(behind, strconv.Itoa(r))
		}
		if p.Completed == lo {
			ev.add(p.Evidence)
		}
	}
	behind = distinct(behind)
	slices.SortFunc(behind, func(a, b string) int { return atoi(a) - atoi(b) })
	if len(last) == 1 {
		for r, p := range last {
			if r < 0 || p.Enqueued < p.At || p.At < 0 {
				break
			}
			return fmt.Sprintf(" The watchdog's progress line shows rank %d completed work %d and had enqueued up to %d: it launched the collective that timed out (work %d) and waited for its peers.", r, p.Completed, p.Enqueued, p.At)
		}
		return ""
	}
	if lo == hi {
		return fmt.Sprintf(" The watchdog's progress lines show %s completed work %d and no further: they are stuck on the same collective, held by a rank that is not reporting here or by a connection between them.", plural(len(last), "rank", "ranks"), lo)
	}
	who := "rank"
	if len(behind) > 1 {
		who = "ranks"
	}
	return fmt.Sprintf(" The watchdog's progress lines differ: %s %s completed only work %d where others reached %d; the ranks behind are where the stall began.", who, list(behind, 6), lo, hi)
}
