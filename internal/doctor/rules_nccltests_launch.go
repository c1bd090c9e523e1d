package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
)

// Rules about how an nccl-tests benchmark was launched and how it ended,
// and about what the parser could not keep.

func ncclTestsLaunchRules() []Rule {
	return []Rule{
		{IDs: []string{"nccltests.ranks.split"}, Check: checkRanksSplit},
		{IDs: []string{"nccltests.failed"}, Check: checkTestsFailed},
		{IDs: []string{"input.partial"}, Check: checkTestsCaps},
	}
}

// checkRanksSplit finds outputs of independent single-process jobs that
// were meant to be one multi-process run: several "Rank 0" lines in one
// preamble, banners printed back to back, sizes interleaved out of order.
func checkRanksSplit(inc *Incident) []Finding {
	var fs []Finding
	for _, t := range All[*ingest.NCCLTests](inc) {
		var ev evidence
		var why []string
		zeros := 0
		for _, r := range t.Runs {
			if len(r.RankZero) > 1 {
				zeros += len(r.RankZero)
				ev.add(r.RankZero[:min(3, len(r.RankZero))]...)
			}
			if r.Backsteps > 0 {
				ev.add(r.FirstBackstep)
				why = append(why, fmt.Sprintf("message sizes go back %s inside one table (several processes' tables interleaved)", plural(r.Backsteps, "time", "times")))
			}
		}
		if zeros > 0 {
			why = append([]string{fmt.Sprintf("%d \"Rank 0\" lines in one preamble (each process thinks it is rank 0 of its own job)", zeros)}, why...)
		}
		if len(t.BackToBack) > 0 {
			ev.add(t.BackToBack[:min(2, len(t.BackToBack))]...)
			why = append(why, fmt.Sprintf("%s printed right after another (every process prints its own preamble)", plural(len(t.BackToBack)+1, "banner", "banners")))
		}
		if len(why) == 0 {
			continue
		}
		fs = append(fs, Finding{
			ID: "nccltests.ranks.split", Severity: Error, Layer: LayerNCCL,
			Title:    fmt.Sprintf("nccl-tests ran as independent single-process jobs, not one multi-process run: %s", list(why, 3)),
			Evidence: ev.sorted(),
			Mechanism: "nccl-tests joins processes into one NCCL communicator only when built with MPI (make MPI=1): without it, every process mpirun or srun starts is a job of its own that sees only its -g GPUs, prints its own banner and calls itself rank 0, and no byte crosses the network. " +
				"The bandwidth printed is then intra-node (or nothing), so judging the fabric from it is meaningless; with -g N and several processes per node the processes also fight over the same GPUs.",
			Fix: "Rebuild with MPI: `make clean && make MPI=1 MPI_HOME=<mpi> CUDA_HOME=<cuda> NCCL_HOME=<nccl>`, and launch one process per GPU: `mpirun -np <nodes×gpus> -N <gpus per node> ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1` (or -np <nodes> with -g <gpus per node>). The preamble must then list ranks 0..N-1 across the hosts.",
		}.per(t.Source(), "file", "nccl-tests launched as independent jobs"))
	}
	return fs
}

// splitRun reports whether run r of t shows the signs checkRanksSplit
// reports: its processes ran as independent jobs.
func splitRun(t *ingest.NCCLTests, r *ingest.TestRun) bool {
	return len(r.RankZero) > 1 || r.Backsteps > 0 || len(t.BackToBack) > 0
}

// checkTestsCaps reports nccl-tests runs, rows or rank lines beyond the
// parser's bounds.
func checkTestsCaps(inc *Incident) []Finding {
	var ev []Evidence
	for _, t := range All[*ingest.NCCLTests](inc) {
		if t.Omitted > 0 {
			ev = append(ev, Evidence{File: t.Source(), Text: fmt.Sprintf("%d nccl-tests runs or rows beyond the limits of %d runs per input and %d rows per run", t.Omitted, ingest.MaxTestRuns, ingest.MaxTestRows)})
		}
	}
	if len(ev) == 0 {
		return nil
	}
	return []Finding{{
		ID: "input.partial", Severity: Warn, Layer: LayerInput,
		Title:     "some nccl-tests runs were not read",
		Evidence:  ev,
		Mechanism: "rocelab keeps a bounded number of nccl-tests runs and rows per input so that memory stays bounded; the rest were skipped, never merged into another run, and findings rest on the runs kept.",
		Fix:       "Split the input, or pass the runs of interest.",
	}}
}

// checkTestsFailed reports an nccl-tests run that stopped on a failed NCCL
// or CUDA call, one finding per distinct error.
func checkTestsFailed(inc *Incident) []Finding {
	var fs []Finding
	for _, t := range All[*ingest.NCCLTests](inc) {
		var byError tally[ingest.TestFailure]
		for _, f := range t.Failures {
			g := byError.add(f.Call+"\x00"+f.Where+"\x00"+f.Message, f, 1, f.Host)
			if len(g.ev.list) < 3 {
				g.ev.add(f.Evidence)
			}
		}
		for _, g := range byError.groups {
			f := g.first
			where := g.onHosts(" on ")
			if g.n > 1 {
				where += fmt.Sprintf(" (%d processes)", g.n)
			}
			fs = append(fs, Finding{
				ID: "nccltests.failed", Severity: Error, Layer: LayerNCCL,
				Title:     fmt.Sprintf("nccl-tests stopped: %s call failed at %s with '%s'%s", map[string]string{"NCCL": "an NCCL", "CUDA": "a CUDA"}[f.Call], f.Where, f.Message, where),
				Evidence:  g.ev.sorted(),
				Mechanism: "nccl-tests checks every NCCL and CUDA call and stops the whole test at the first one that fails: the sizes printed before the failure were measured, the rest never ran. " + failureCause(f),
				Fix:       "Rerun with NCCL_DEBUG=INFO (and NCCL_DEBUG_SUBSYS=INIT,NET) and give the log to rocelab diagnose: the NCCL WARN line printed just before the failure names the call that failed and why.",
			}.per(t.Source(), "file", "nccl-tests stopped on a failed call"))
		}
	}
	return fs
}

// failureCause says what NCCL's error class usually means.
func failureCause(f ingest.TestFailure) string {
	m := strings.ToLower(f.Message)
	switch {
	case f.Call == "CUDA" || strings.Contains(m, "cuda error"):
		return "'unhandled cuda error' is a CUDA call failing under NCCL: GPU memory exhausted (maxBytes near the GPU's memory, or other processes on the GPU), a driver or peer-to-peer access problem, or a GPU fault (dmesg Xid)."
	case strings.Contains(m, "system error"):
		return "'unhandled system error' is a system call failing under NCCL: a socket or InfiniBand verbs call (connection refused or timed out, ibv_modify_qp failing on a wrong GID index or an unreachable peer), shared memory (/dev/shm too small in a container) or a missing device."
	case strings.Contains(m, "remote process exited") || strings.Contains(m, "network error"):
		return "'remote process exited or there was a network error' means a peer died or the network between the ranks broke (a completion error such as IBV_WC_RETRY_EXC_ERR on RoCE)."
	case strings.Contains(m, "invalid usage") || strings.Contains(m, "invalid argument"):
		return "'invalid usage' is a mismatch in how the ranks called NCCL: different sizes or counts, a rank count that does not match the launch, or devices used twice."
	case strings.Contains(m, "internal error"):
		return "'internal error' is NCCL failing in its own setup, often a topology or plugin it cannot handle (or, on ROCm, an RCCL/driver mismatch)."
	}
	return "The error string names NCCL's error class; the NCCL WARN line before it names the cause."
}
