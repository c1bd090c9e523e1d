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
	ncclErrors := 0
	for _, l := range All[*ingest.NCCLLog](inc) {
		ts = append(ts, l.Timeouts...)
		ncclErrors += l.CompletionCount + l.SetupCount + l.AsyncEventCount
	}
	if len(ts) == 0 {
		return nil
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
		if t.Rank >= 0 {
			ranks = append(ranks, strconv.Itoa(t.Rank))
		}
		timeoutMS, ranMS = max(timeoutMS, t.TimeoutMS), max(ranMS, t.RanMS)
	}
	ops, seqs, ranks = distinct(ops), distinct(seqs), distinct(ranks)
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
	mech := "PyTorch's ProcessGroupNCCL watchdog aborts the job when a collective has not completed within the process group's timeout: the ranks that report it waited for peers whose data never arrived. Every rank of the group must launch the collective and the network must deliver it; a rank that crashed, hung or fell behind (a stalled data loader, an out-of-memory error, a different code path), or a connection that stopped delivering (a queue pair in the error state after its retries ran out, a link down, a PFC deadlock) leaves the others waiting."
	if len(seqs) > 1 {
		mech += fmt.Sprintf(" The ranks time out at different sequence numbers (%s): they are not at the same point of the job, which points at a rank that stopped or diverged rather than at one slow transfer.", list(seqs, 4))
	}
	if ranMS > 0 && timeoutMS > 0 {
		mech += fmt.Sprintf(" The collective ran %s against a timeout of %s.", seconds(float64(ranMS)/1000), seconds(float64(timeoutMS)/1000))
	}
	if ncclErrors > 0 {
		mech += fmt.Sprintf(" This incident also holds %s from NCCL's IB transport: those findings are the likely cause, the timeout their consequence.", plural(ncclErrors, "error line", "error lines"))
	} else {
		mech += " The inputs hold no NCCL transport error that explains it: a rank that stopped, or logs of the other ranks, are what is missing."
	}
	fix := "Find the rank that stopped first: compare each rank's 'last completed NCCL work' (set TORCH_NCCL_DUMP_ON_TIMEOUT=1 for the flight recorder's per-rank dump), look for the ranks that did not report the timeout, and read every rank's NCCL_DEBUG=WARN output and the RDMA counters (retransmissions, discards, pause) of their hosts for the same minutes. Raising the timeout hides a hang; it does not fix it."
	return []Finding{{
		ID: "nccl.collective.timeout", Severity: Error, Layer: LayerNCCL,
		Title:     title,
		Evidence:  ev.sorted(),
		Mechanism: mech,
		Fix:       fix,
	}}
}

// atoi is strconv.Atoi for strings known to be digits.
func atoi(s string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(s))
	return n
}
