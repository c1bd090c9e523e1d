package doctor

import (
	"fmt"

	"rocelab/internal/ingest"
)

// Rules about how an nccl-tests benchmark was launched, and about what the
// parser could not keep.

func ncclTestsLaunchRules() []Rule {
	return []Rule{
		{IDs: []string{"nccltests.ranks.split"}, Check: checkRanksSplit},
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
