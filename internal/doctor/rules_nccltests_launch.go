package doctor

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
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
		{IDs: []string{"nccltests.rows.unread"}, Check: checkRowsUnread},
		{IDs: []string{"nccltests.ranks.shared_gpu"}, Check: checkSharedGPU},
		{IDs: []string{"input.garbled"}, Check: checkTestsGarbled},
		{IDs: []string{"nccltests.version.mismatch"}, Check: checkBuildMismatch},
		{IDs: []string{"nccltests.option.ignored"}, Check: checkOptionIgnored},
	}
}

// checkTestsGarbled reports table rows whose columns are all there but
// one does not hold a number: where, and what its column holds.
func checkTestsGarbled(inc *Incident) []Finding {
	return garbledOf(inc, "nccl-tests output", func(a *ingest.NCCLTests) []ingest.Garble { return a.Garbled },
		"The row has a size, a count, a data type and as many columns as the table's header names, but a time, algbw or busbw that is not a number of at least 0, or a #wrong that is neither a count nor N/A: nccl-tests prints none of these, so the row was edited, or lines of several processes ran together into it. Its figures are left out of every judgement.",
		"Give the output as nccl-tests printed it (the job's stdout file, or the log with one process's lines per line), and check the row at the column named.")
}

// checkRowsUnread reports table rows that hold a size but too few columns
// to read, so that no run is judged on part of its rows unsaid. One short
// row after all the others is an output cut mid-row (info); short rows
// among whole ones, or no whole row, are a layout rocelab does not read
// (warn).
func checkRowsUnread(inc *Incident) []Finding {
	var fs []Finding
	for _, t := range All[*ingest.NCCLTests](inc) {
		for _, r := range t.Runs {
			n := len(r.Truncated)
			if n == 0 || r.JSON {
				continue
			}
			last := n == 1 && len(r.Rows) > 0 && r.Truncated[0].Line > r.Rows[len(r.Rows)-1].Evidence.Line
			f := Finding{
				ID: "nccltests.rows.unread", Severity: Warn, Layer: LayerNCCL,
				Title:     fmt.Sprintf("%s: %s not read (fewer columns than the table's header names), %s read", testName(r), plural(n, "row", "rows"), plural(len(r.Rows), "whole row", "whole rows")),
				Evidence:  r.Truncated[:min(3, n)],
				Mechanism: "Each row holds size, count, type, the redop and root columns the header names, then time, algbw, busbw and #wrong for the out-of-place and the in-place half. A row with fewer columns was cut (a paste or a log that ends mid-line, lines of several processes run together) or is of a layout rocelab does not read; its figures are left out of every judgement.",
				Fix:       "Give the whole output as nccl-tests printed it (the job's stdout file rather than a terminal copy), or check the row against the header.",
			}
			if last {
				f.Severity = Info
				f.Title = fmt.Sprintf("%s: the last row is cut short (the output ends mid-row); the %s before it are read", testName(r), plural(len(r.Rows), "whole row", "whole rows"))
			}
			fs = append(fs, f.per(t.Source()+" "+collName(r), "run", "nccl-tests rows not read"))
		}
	}
	return fs
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
			Title:    fmt.Sprintf("%s ran as independent single-process jobs, not one multi-process run: %s", fileTool(t), list(why, 3)),
			Evidence: ev.sorted(),
			Mechanism: "nccl-tests joins processes into one NCCL communicator only when built with MPI (make MPI=1): without it, every process mpirun or srun starts is a job of its own that sees only its -g GPUs, prints its own banner and calls itself rank 0, and no byte crosses the network. " +
				"The bandwidth printed is then intra-node (or nothing), so judging the fabric from it is meaningless; with -g N and several processes per node the processes also fight over the same GPUs. " +
				"An MPI build shows the same signs when NCCL_TESTS_SPLIT (or NCCL_TESTS_SPLIT_MASK, nccl-tests 2.14+) is set: it splits the job into several communicators, each printing its own preamble with ranks from 0, and each table measures one communicator's ranks, not the job's.",
			Fix: "Rebuild with MPI: `make clean && make MPI=1 MPI_HOME=<mpi> CUDA_HOME=<cuda> NCCL_HOME=<nccl>`, and launch one process per GPU: `mpirun -np <nodes×gpus> -N <gpus per node> ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1` (or -np <nodes> with -g <gpus per node>). The preamble must then list ranks 0..N-1 across the hosts. If NCCL_TESTS_SPLIT or NCCL_TESTS_SPLIT_MASK is set, unset it to measure the whole job.",
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
	return partialFinding(ev, "some nccl-tests runs were not read",
		"rocelab keeps a bounded number of nccl-tests runs and rows per input so that memory stays bounded; the rest were skipped, never merged into another run, and findings rest on the runs kept.",
		"Split the input, or pass the runs of interest.")
}

// checkTestsFailed reports an nccl-tests run that stopped on a failed NCCL
// or CUDA call, one finding per distinct error.
func checkTestsFailed(inc *Incident) []Finding {
	var fs []Finding
	for _, t := range All[*ingest.NCCLTests](inc) {
		var byError tally[ingest.TestFailure]
		wanted := map[*tallied[ingest.TestFailure]][]int{}
		// runs lists the runs each error stopped: a script's tests one
		// after another (or one test in a loop), each failing alike.
		runs := map[*tallied[ingest.TestFailure]][]failedRun{}
		optKey := "" // the last getopt refusal's
		for _, f := range t.Failures {
			key := f.Call + "\x00" + f.Where + "\x00" + f.Message
			if f.Signal > 0 {
				// One crash on several processes: the fault address
				// after ':' differs from process to process.
				key = strconv.Itoa(f.Signal) + "\x00" + strings.SplitN(f.Message, ":", 2)[0] + "\x00" + abortKey(f.Abort)
			}
			if f.Usage == ingest.UsageOption {
				// getopt's line and nccl-tests' "invalid option '?'" after
				// it tell one refusal; the first, getopt's, names the
				// option. Another option refused is another refusal.
				if strings.HasPrefix(f.Message, "invalid option '") && optKey != "" {
					key = optKey
				}
				optKey = key
			}
			g := byError.add(key, f, 1, f.Host)
			rs := runs[g]
			switch {
			case len(rs) == 0 || rs[len(rs)-1].run != f.Run:
				// The first line of each run, as a script's log shows them.
				runs[g] = append(rs, failedRun{run: f.Run, test: f.Test, n: 1})
				g.ev.add(f.Evidence)
			default:
				rs[len(rs)-1].n++
				if len(rs) == 1 && len(g.ev.list) < 3 {
					g.ev.add(f.Evidence)
				}
			}
			if f.GPUsWanted > 0 && !slices.Contains(wanted[g], f.GPUsWanted-1) {
				wanted[g] = append(wanted[g], f.GPUsWanted-1)
			}
		}
		for _, g := range byError.groups {
			f := g.first
			what := failureWhat(f)
			where := g.onHosts(" on ")
			switch {
			case len(wanted[g]) > 1:
				what = tooFewGPUs(f, g.n, wanted[g])
			case len(runs[g]) > 1:
				// The processes are counted run by run below.
			case g.n > 1 && f.Usage != ingest.UsageOption:
				where += fmt.Sprintf(" (%d processes)", g.n)
			}
			if len(runs[g]) > 1 {
				where += runsText(runs[g], f.Usage != ingest.UsageOption)
			}
			mech := failureMechanism(f, fileTool(t) == ingest.ToolRCCL)
			if f.Abort.Kind != "" {
				mech = abortCause(f.Abort, fileTool(t) == ingest.ToolRCCL)
			}
			w, warned := warnBefore(inc, t, f)
			log := logged(inc, t.Source())
			if log == logWarned && !warned && !setupBefore(inc, t, f) {
				log = logQuiet // its WARNs are an earlier run's or name no cause
			}
			fix := failureFix(f, log, fileTool(t) == ingest.ToolRCCL)
			var cause []Evidence // after the failure's own lines: the finding is about the failure
			kind, _ := cudaFailure(f)
			if _, _, stop := stopText(f); stop {
				kind = cudaFailureKind{}
			}
			if warned && f.Call == "NCCL" {
				fix = warnFix(w)
				if wk, ok := cudaFailure(ingest.TestFailure{Message: w.Message}); ok {
					mech += " The WARN before it: " + wk.cause
					fix, kind = wk.fix, wk
				}
				cause = append(cause, w.Evidence)
			}
			if note, ev := codeObjectText(t); note != "" && kind.codeObject() {
				mech += note
				fix = codeObjectFix(t.NoCodeObjectGfx)
				g.ev.add(ev)
			}
			crashFix := ""
			if note, cf, ok := crashText(f, rasOf(inc, t, f)); ok {
				mech += note
				if crashFix = cf; cf != "" {
					fix = cf
				}
				g.ev.add(f.CrashFrame)
			}
			if f.Abort.Kind != "" {
				fix = strings.TrimSpace(abortFix(f.Abort) + " " + crashFix)
				g.ev.add(f.Abort.Evidence)
			}
			if r, built, ok := laterRunOK(t, f); ok {
				mech += fmt.Sprintf(" A later run of the same test in this output, on %s %s (line %d), ran through: the failure follows the library the failed run loaded, %s %s, not the host.", libName(t), ncclCodeVersion(built), r.Rows[0].Evidence.Line, libName(t), ncclCodeVersion(failedLib(t, f)))
				fix = fmt.Sprintf("Use the build that ran (%s %s, and nccl-tests built against it), or report the failure on %s %s to the library's maintainers with the test's command line.", libName(t), ncclCodeVersion(built), libName(t), ncclCodeVersion(failedLib(t, f))) + " " + fix
				g.ev.add(r.Rows[0].Evidence)
			}
			title := fmt.Sprintf("%s stopped: %s%s", fileTool(t), what, where)
			if t.CrashOnly() {
				// A crash with no test output around it: any NCCL job's.
				title = "A" + strings.TrimPrefix(what, "a") + where
			}
			fs = append(fs, Finding{
				ID: "nccltests.failed", Severity: Error, Layer: LayerNCCL,
				Title:     title,
				Evidence:  append(g.ev.sorted(), cause...),
				Mechanism: mech,
				Fix:       fix,
			}.per(t.Source(), "file", "nccl-tests stopped on a failed call"))
		}
	}
	return fs
}

// failedRun is one run an error stopped, with the processes it stopped
// there.
type failedRun struct {
	run  int // ingest.TestFailure.Run
	test string
	n    int
}

// runsText names the runs one error stopped one after another, with the
// processes each lost when procs is set: ", in 2 tests one after another
// (alltoall: 8 processes, sendrecv: 3 processes)".
func runsText(rs []failedRun, procs bool) string {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = cmp.Or(r.test, "a test not named")
		if procs && r.n > 1 {
			names[i] += fmt.Sprintf(": %d processes", r.n)
		}
	}
	return fmt.Sprintf(", in %d tests one after another (%s)", len(rs), strings.Join(names, ", "))
}

// tooFewGPUs says what n processes that each found fewer GPUs than they
// needed asked for: the highest GPU index each needed (a process needs
// every index below it too), in order.
func tooFewGPUs(f ingest.TestFailure, n int, indices []int) string {
	slices.Sort(indices)
	idx := make([]string, len(indices))
	for i, x := range indices {
		idx[i] = strconv.Itoa(x)
	}
	return fmt.Sprintf("%d processes needed GPU indices up to %s (the highest each needed) but each sees only %s", n, list(idx, 8), plural(f.GPUsFound, "GPU", "GPUs"))
}

// failureWhat says what stopped the test: the failed call and its error,
// or the -T limit a collective ran past.
func failureWhat(f ingest.TestFailure) string {
	if f.Timeout > 0 {
		return fmt.Sprintf("a collective did not complete within its -T %d s timeout (%s)", f.Timeout, f.Where)
	}
	switch {
	case f.CommunicatorCheck():
		return "the communicator lacks what -D needs: " + f.Message
	case f.Usage == ingest.UsageDevice && strings.HasPrefix(f.Message, incompatibleDeviceAPI):
		return "the NCCL it loaded does not share the device API it was built for: " + f.Message
	case f.Usage != "":
		return "it refused its command line: " + f.Message
	}
	if f.GPUsWanted > 0 {
		return fmt.Sprintf("a process needed GPU index %d but sees only %s", f.GPUsWanted-1, plural(f.GPUsFound, "GPU", "GPUs"))
	}
	if f.Signal > 0 {
		if d := strings.TrimSpace(strings.SplitN(f.Message, ":", 2)[0]); d != "" {
			return fmt.Sprintf("a process died on signal %d (%s)%s%s", f.Signal, d, crashAt(f), abortWhat(f.Abort))
		}
		return fmt.Sprintf("a process died on signal %d%s%s", f.Signal, crashAt(f), abortWhat(f.Abort))
	}
	return fmt.Sprintf("%s call failed at %s with '%s'", map[string]string{"NCCL": "an NCCL", "CUDA": "a CUDA"}[f.Call], f.Where, f.Message)
}

// incompatibleDeviceAPI starts nccl-tests' refusal of a library whose
// device API is not the one it was compiled against.
const incompatibleDeviceAPI = "Incompatible NCCL versions. nccl-tests was compiled with NCCL "

// stopText gives the cause and fix of a stop that is not a failed call:
// the -T watchdog, a refused command line, a process dying on a signal.
func stopText(f ingest.TestFailure) (cause, fix string, ok bool) {
	switch {
	case f.Timeout > 0:
		return timeoutCause, timeoutFix, true
	case f.Usage != "":
		t := usageText[f.Usage]
		return t.cause, t.fix, true
	case f.Signal > 0:
		return signalCause, signalFix, true
	}
	return "", "", false
}

// failureMechanism says how the test stopped and what the cause means;
// rocm says the test is rccl-tests, on AMD GPUs.
func failureMechanism(f ingest.TestFailure, rocm bool) string {
	if cause, _, ok := stopText(f); ok {
		return cause
	}
	return "nccl-tests checks every NCCL and CUDA call and stops the whole test at the first one that fails: the sizes printed before the failure were measured, the rest never ran. " + failureCause(f, rocm)
}

// usageText explains each kind of refused command line.
var usageText = map[ingest.UsageKind]struct{ cause, fix string }{
	ingest.UsageSize: {
		"nccl-tests reads its arguments before anything else and every process exits on one it cannot use: -b (minbytes), -e (maxbytes) and -i (stepBytes) take a number with an optional K, M or G suffix (binary units: 8, 128M, 16G; no T, no other letters), and -b may not exceed -e. Nothing ran: no GPU, NCCL or network was touched, and the launcher reports the job as failed.",
		"Correct the flag the line names, e.g. `-b 8 -e 16G -f 2`; when a script or job template builds the command, check that the variable behind it expanded to such a size (not empty, not 1T or 1e9B).",
	},
	ingest.UsageOption: {
		"The binary does not have the option given: getopt names it (`invalid option -- 'x'`, `unrecognized option '--x'`, or one given without its value), and nccl-tests then prints `invalid option '?'` (getopt_long's return value, not the letter) and its usage and exits with status 0, so a launcher or script that checks only the exit status counts a run that measured nothing as passed. Options come with releases (the device-API -D and -V arrived in September 2025, with NCCL 2.28) and differ between nccl-tests, rccl-tests and vendor forks; nothing ran.",
		"Compare the command with the usage the same binary prints (`all_reduce_perf -h`): drop the option, or build a release that has it (`nccl-tests version` in the banner of a run names the release). Make the job fail when the output holds no `# Avg bus bandwidth` line rather than trusting the exit status.",
	},
	ingest.UsageDevice: {
		"nccl-tests' device-API runs (-D N: the collective written as a device kernel over NCCL's device communicator; -V its CTA count; -H the host RMA path) need NCCL 2.28 or later (-H: 2.29), symmetric buffer registration (-R 2), a test with an implementation of that number, and an NCCL of the same device-API generation as the one nccl-tests was built against (2.28 and 2.29 differ); the line names which was missing. The option checks exit before anything runs; the test's checks stop it after the communicators were created, before the first size. Those check how the kernel reaches its peers: all_reduce_perf's kernels (every -D > 0) load and store through CUDA P2P and so need all ranks in one NVLink domain, -D 3 and 4 also NVLink multimem (NVLS); alltoall_perf's -D 1 and 2 need the same P2P reach, -D 3 and 4 GIN (NCCL's GPU-initiated networking over the NICs). A device-API run across nodes therefore needs GIN: without it the communicator spans hosts that CUDA P2P cannot reach and the test refuses.",
		"Give -R 2 with -D or -H, and not -D and -H together; load NCCL 2.28+ (2.29+ for -H), the release nccl-tests was built against (`nccl-headers` and `nccl-library` in its version line must match); run a device kernel number the test has. all_reduce_perf needs CUDA P2P across all ranks for every -D > 0 (one NVLink domain; -D 3 and 4 also multimem, so NVSwitch with NVLS); alltoall_perf's -D 1 and 2 stay within one NVLink domain, its -D 3 and 4 need GIN (an NCCL and NIC with GPU-initiated networking). Across nodes run alltoall_perf -D 3 or 4 with GIN, or drop -D to measure NCCL's own implementation.",
	},
}

// timeoutCause and timeoutFix explain the -T watchdog's line; signalCause
// and signalFix a process that died on a signal.
const (
	signalCause = "A process died on a signal (UCX's error handler, loaded with Open MPI or HPC-X, or Open MPI's own prints the line and a backtrace under it): it did not stop on a failed call but crashed, and its peers then hang in or fail their next collective; signal 6 (Aborted) is a library ending the process itself, on a failed assert or fatal check whose message comes just before the report (glog's `F0721 ... util.h:139] Check failed: bind(...)` in uccl-project/uccl#172, a net plugin's own check). A segmentation fault inside NCCL or a library it loaded at init (a profiler, tuner or net plugin; RAS) is the program's fault, not the network's: NVIDIA/nccl#2112 is NCCL 2.30.3 crashing with the example profiler plugin loaded. Signal 7 (bus error) in shared memory is often /dev/shm too small in a container."
	signalFix   = "Read the backtrace under the line for the library it stops in (libnccl.so, libnccl-profiler*.so, libnccl-net*.so); rerun without the plugins (unset NCCL_PROFILER_PLUGIN, NCCL_TUNER_PLUGIN and NCCL_NET_PLUGIN) and, on NCCL 2.24 or later (which run a RAS thread in every process), with NCCL_RAS_ENABLE=0 to find the one that crashes, and try another NCCL release; for a bus error, give the container a larger /dev/shm (docker --shm-size, or --ipc=host)."

	timeoutCause = "With -T N, nccl-tests polls each collective's completion and, when one has not completed after N seconds and NCCL reported no asynchronous error, aborts the communicators (ncclCommAbort) and ends the test: the sizes printed before were measured, the rest never ran, and the collective hung without an error NCCL noticed. A peer that never entered the collective (a rank that died, or hung in setup), a queue pair that keeps retrying on a lossy or misrouted RoCE path (the NET/IB retry-exceeded WARN appears only when the retries run out, about 30 s at NCCL's defaults, or never when the timeout is shorter), a proxy thread stuck on a socket, or a GPU hang (dmesg Xid) all look like this."
	timeoutFix   = "Find the rank that stalled: rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and the same -T and read the last lines and WARNs of every rank (the host named printed the timeout; the culprit is often its peer); then test the path between the hosts with ib_write_bw -x <gid-index>, check PFC/ECN on the RoCE priority and dmesg for Xid lines. Raise -T only if the largest sizes legitimately take longer than it."
)

// A cudaFailureKind is a CUDA runtime error by a piece of its text, with
// what it means at a benchmark's start and what to do.
type cudaFailureKind struct{ text, cause, fix string }

// noCodeObject is the text of HIP's missing code object, whose note and
// fix name the gfx targets the output says HIP found no code object for
// (codeObjectText, codeObjectFix).
const noCodeObject = "invalid kernel file"

// codeObject reports whether c is HIP's missing code object.
func (c cudaFailureKind) codeObject() bool { return c.text == noCodeObject }

// cudaFailures are CUDA runtime errors nccl-tests' own CUDACHECK reports.
var cudaFailures = []cudaFailureKind{
	{"busy or unavailable",
		"'CUDA-capable device(s) is/are busy or unavailable' (cudaErrorDevicesUnavailable) is a GPU in the Exclusive Process compute mode that another process already holds a context on: two ranks on one GPU, a stale process, or a library started before the test (a CUDA-aware MPI or its libfabric/UCX layer) that opened a context on GPU 0 in every process.",
		"Check `nvidia-smi --query-gpu=index,compute_mode --format=csv` and `nvidia-smi` for other processes on the GPUs. Give each rank its own GPU (one process per GPU, -g 1), end stale processes, or set the compute mode to Default (`nvidia-smi -c 0`). If the MPI's GPU support opens the contexts, turn it off for the test (Open MPI with the OFI MTL: OMPI_MCA_mtl_ofi_disable_hmem=true)."},
	{"out of memory",
		"'out of memory' is GPU memory exhausted: maxBytes (-e) near the GPU's memory (the test allocates send and receive buffers of that size, more with -g), or other processes holding memory on the GPU.",
		"Lower -e (maxBytes), run fewer GPUs a process, and check `nvidia-smi` for other processes on the GPUs."},
	{"no cuda-capable device",
		"'no CUDA-capable device is detected' means the process sees no GPU: CUDA_VISIBLE_DEVICES empty or wrong, a container started without GPUs, or a driver that did not load.",
		"Check `nvidia-smi` and CUDA_VISIBLE_DEVICES in the environment the launcher gives each rank (containers: --gpus all, or the device plugin's resource request)."},
	{"illegal memory access",
		"'an illegal memory access was encountered' (cudaErrorIllegalAddress) is a kernel touching memory it may not: under NCCL, most often a GPU reaching a peer's buffer over a path that does not map it, such as nccl-tests' device-API kernels -D 1 and -D 2, which load and store to every peer through CUDA P2P and so work only within one NVLink domain (nccl-tests#355: -D 3 and -D 4, GIN, go across nodes); else a driver or NCCL bug, or a GPU fault (dmesg Xid 13, 31 or 43). The CUDA context is lost, so every later call fails.",
		"If the test ran a device-API kernel (-D) across nodes, use -D 0, or -D 3/-D 4 (GIN) where NCCL supports them; otherwise look for Xid lines in dmesg on the host named, rerun with NCCL_DEBUG=INFO, and update the driver and NCCL."},
	{"system not yet initialized",
		"'system not yet initialized' (cudaErrorSystemNotReady) is CUDA refusing to start on an NVSwitch system (HGX and DGX 8-GPU boards, H20 and H100 VMs with their NVSwitches passed through) whose fabric is not up: the nvidia-fabricmanager service is stopped, not enabled to start at boot, or of another version than the driver, so no GPU of the node can run anything (nccl-tests#264, #338). NCCL and the network are not involved yet.",
		"On the host named: `systemctl status nvidia-fabricmanager` and its journal; install the Fabric Manager of exactly the driver's version (`nvidia-smi` Driver Version), then `systemctl enable --now nvidia-fabricmanager`; `nvidia-smi -q | grep -A 2 Fabric` must say State: Completed. In VMs the fabric is managed where the NVSwitches are (the guest with them passed through, or the host's service VM)."},
	{"uncorrectable ecc",
		"'uncorrectable ECC error encountered' (cudaErrorECCUncorrectable) is a double-bit error in the GPU's memory: a hardware fault on that GPU, not NCCL or the network. The CUDA context is lost, and the error repeats until the GPU is reset and the bad row remapped (or the GPU replaced).",
		"On the host named: `nvidia-smi -q -d ECC,ROW_REMAPPER` and dmesg (Xid 48, 63, 64, 94, 95); drain the node, reset the GPU (`nvidia-smi -r`, or reboot) so the row remap takes effect, and replace the GPU if remapping failed or errors return."},
	{noCodeObject,
		"'invalid kernel file' (hipErrorInvalidKernelFile) is HIP finding no code object for some device it can see: RCCL (or rccl-tests) was built for gfx targets that leave a visible device out, and that device need not be one the test uses. On ROCm/rccl#876 two RX 7900 XTX (gfx1100) failed so because HIP also saw the CPU's integrated GPU (gfx1036), which RCCL had no code object for; HIP says \"Unable to find code object for all current devices\" and, at AMD_LOG_LEVEL=1, names the gfx target it did not find.",
		codeObjectFix(nil)},
	{"no kernel image is available",
		"'no kernel image is available for execution on the device' (cudaErrorNoKernelImageForDevice) is a binary built without code for this GPU's architecture: nccl-tests (or NCCL) compiled with NVCC_GENCODE for other compute capabilities and no PTX to compile from.",
		"Rebuild nccl-tests (and NCCL, if built from source) for the GPU: `make NVCC_GENCODE=\"-gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90\"` with the GPU's compute capability (`nvidia-smi --query-gpu=compute_cap --format=csv`)."},
	{"driver version is insufficient",
		"'CUDA driver version is insufficient for CUDA runtime version' (cudaErrorInsufficientDriver) is nccl-tests built against a newer CUDA than the node's driver supports.",
		"Build nccl-tests with the CUDA the driver supports (`nvidia-smi` shows its highest CUDA version), or upgrade the driver (or add the CUDA forward-compatibility package on data-center GPUs)."},
	{"unsupported display driver / cuda driver combination",
		"'system has unsupported display driver / cuda driver combination' (cudaErrorSystemDriverMismatch) is the user-space CUDA driver (libcuda.so) of another version than the loaded kernel module: a driver upgraded without a reboot, or a container that brought its own libcuda.",
		"Compare `cat /proc/driver/nvidia/version` with the libcuda.so the process loads; reboot after a driver upgrade, and let the container runtime inject the host's driver libraries instead of shipping them in the image."},
	{"invalid device ordinal",
		"'invalid device ordinal' (or, since nccl-tests' own check of September 2025, 'Invalid number of GPUs: N requested but only M were found') is a rank asking for a GPU index its node does not have: each process takes the GPUs from local rank × -t × -g on, so more ranks (or -g GPUs per rank) on a node than it has visible GPUs, or a launcher that shows each process only its own GPU (srun --gpus-per-task=1, CUDA_VISIBLE_DEVICES per rank) while nccl-tests still counts from the local rank.",
		"Launch at most as many ranks × -g as each node has GPUs (`mpirun -N <gpus per node>`, srun --ntasks-per-node), and check CUDA_VISIBLE_DEVICES; when the launcher gives each process one GPU of its own, set NCCL_TESTS_DEVICE=0 so each uses the first (only) GPU it sees, or let every process see all of the node's GPUs (--gres=gpu:N)."},
}

// codeObjectFix is the fix of HIP's missing code object, naming the gfx
// targets without one when the output gives them.
func codeObjectFix(gfx []string) string {
	which := "the one"
	if len(gfx) > 0 {
		which = strings.Join(gfx, " and ") + ", the one"
	}
	return "List every device HIP sees (`rocminfo | grep gfx`). Hide " + which + " RCCL has no code object for (HIP_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES listing only the GPUs the test uses; an integrated GPU can also be disabled in the BIOS), or build RCCL and rccl-tests for every gfx target rocminfo lists (cmake -DGPU_TARGETS=\"gfx1100;gfx1036\", make GPU_TARGETS=...)."
}

// cudaFailure returns the entry of cudaFailures that f's message names.
func cudaFailure(f ingest.TestFailure) (cudaFailureKind, bool) {
	m := strings.ToLower(f.Message)
	if f.GPUsWanted > 0 {
		// nccl-tests' own check of what CUDA would refuse as an invalid
		// device ordinal.
		m = "invalid device ordinal"
	}
	for _, c := range cudaFailures {
		if strings.Contains(m, c.text) {
			return c, true
		}
	}
	return cudaFailureKind{}, false
}

// logState is what the NCCL log read from the same input as a test holds.
type logState int

const (
	logNone   logState = iota // no NCCL log lines
	logQuiet                  // NCCL INFO lines of its setup, no WARN
	logWarned                 // a WARN line
)

// logged says what the NCCL log read from src holds.
func logged(inc *Incident, src string) logState {
	st := logNone
	for _, l := range All[*ingest.NCCLLog](inc) {
		switch {
		case l.Source() != src:
		case l.WarningCount > 0 || l.SetupCount > 0:
			// A setup error is a WARN, or (NCCL 2.21/2.22's GID type read)
			// a return chain NCCL printed without one.
			return logWarned
		case len(l.Channels) > 0 || len(l.Networks) > 0 || len(l.BootIfaces) > 0 || len(l.Env) > 0 || l.Comm.Ranks > 0:
			// INFO lines of NCCL's setup, not only its version line.
			st = logQuiet
		}
	}
	return st
}

// setupBefore reports whether the NCCL log of t's output records a failed
// queue-pair or GID setup before failure f: a WARN, or a return chain
// NCCL printed without one (ingest's unwarned GID type read).
func setupBefore(inc *Incident, t *ingest.NCCLTests, f ingest.TestFailure) bool {
	for _, l := range All[*ingest.NCCLLog](inc) {
		if l.Source() != t.Source() {
			continue
		}
		for _, s := range l.Setup {
			if s.Evidence.Line < f.Evidence.Line {
				return true
			}
		}
	}
	return false
}

// failureFix says how to find the cause of a failed call, by what the
// NCCL log of the same output holds; rocm says the test is rccl-tests.
func failureFix(f ingest.TestFailure, log logState, rocm bool) string {
	if _, fix, ok := stopText(f); ok {
		return fix
	}
	if c, ok := cudaFailure(f); ok {
		return c.fix
	}
	switch {
	case log == logWarned:
		return "The NCCL lines before the failure in this output (its WARN lines, or a return chain NCCL printed without one) name the call that failed and why: fix that, then rerun."
	case log == logQuiet:
		fix := "This output already holds NCCL INFO lines but no WARN naming the failed call: give every rank's whole output (the WARN may be cut from the paste or in another rank's), and if none has one, rerun with NCCL_DEBUG_SUBSYS=ALL"
		if rocm {
			return fix + " and AMD_LOG_LEVEL=1 so that the HIP runtime logs the call that failed."
		}
		return fix + "."
	}
	return "Rerun with NCCL_DEBUG=INFO (and NCCL_DEBUG_SUBSYS=INIT,NET) and give the log to rocelab diagnose: the NCCL WARN line printed just before the failure names the call that failed and why."
}

// failureCause says what NCCL's error class usually means; rocm says
// the library is RCCL, whose "cuda" errors are HIP's on AMD GPUs.
func failureCause(f ingest.TestFailure, rocm bool) string {
	if c, ok := cudaFailure(f); ok {
		return c.cause
	}
	m := strings.ToLower(f.Message)
	switch {
	case rocm && (f.Call == "CUDA" || strings.Contains(m, "cuda error")):
		return "RCCL keeps NCCL's error names, so 'unhandled cuda error' (or a failed CUDA call of rccl-tests) is a HIP call failing on the AMD GPU: GPU memory exhausted (maxBytes near the GPU's memory, or other processes on it), peer-to-peer access between the GPUs refused (P2P/direct pointer or IPC over PCIe needs large BAR and the IOMMU in passthrough; XGMI links), a ROCm runtime the kernel driver does not support, or a GPU fault (amdgpu lines in dmesg, `rocm-smi`)."
	case f.Call == "CUDA":
		return "A CUDA runtime call nccl-tests makes itself (selecting a GPU, allocating its buffers, launching its kernels, synchronising its streams) failed with the error string quoted, before or outside NCCL: the GPU, its driver or the build, not the network. Check the GPU with `nvidia-smi` and dmesg (Xid lines), and run a CUDA sample on the host named."
	case strings.Contains(m, "cuda error"):
		return "'unhandled cuda error' is a CUDA call failing under NCCL: GPU memory exhausted (maxBytes near the GPU's memory, or other processes on the GPU), a driver or peer-to-peer access problem, or a GPU fault (dmesg Xid)."
	case strings.Contains(m, "system error"):
		return "'unhandled system error' is a system call failing under NCCL: a socket or InfiniBand verbs call (connection refused or timed out, ibv_modify_qp failing on a wrong GID index or an unreachable peer), shared memory (/dev/shm too small in a container) or a missing device."
	case strings.Contains(m, "remote process exited") || strings.Contains(m, "network error"):
		return "'remote process exited or there was a network error' means a peer died or the network between the ranks broke (a completion error such as IBV_WC_RETRY_EXC_ERR on RoCE)."
	case strings.Contains(m, "invalid argument"):
		return "'invalid argument' (ncclInvalidArgument) is NCCL refusing a value it was given: an argument of the call (a null or unaligned buffer, a count, type or op it does not take) or, at communicator creation, a setting or topology it cannot build (a NIC merge, a topology file or a device list it rejects), which its WARN names."
	case strings.Contains(m, "invalid usage"):
		return "'invalid usage' is a mismatch in how the ranks called NCCL (different sizes or counts, a rank count that does not match the launch, devices used twice) or a setting NCCL cannot honour, such as NCCL_NET naming a network no loaded plugin provides."
	case strings.Contains(m, "internal error"):
		return "'internal error' is NCCL failing in its own setup, often a topology or plugin it cannot handle (or, on ROCm, an RCCL/driver mismatch)."
	}
	return "The error string names NCCL's error class; the NCCL WARN line before it names the cause."
}

// checkSharedGPU reports runs in which several ranks name the same GPU of
// the same host (same device and bus id). NCCL refuses that ("Duplicate
// GPU detected") unless the ranks are told they are on different hosts
// (NCCL_HOSTID), so such a run measures one GPU talking to itself through
// whatever transport is left, not a link between two GPUs or hosts.
func checkSharedGPU(inc *Incident) []Finding {
	var fs []Finding
	for _, t := range All[*ingest.NCCLTests](inc) {
		for _, r := range t.Runs {
			if r.RanksPartial() || splitRun(t, r) {
				continue
			}
			seen := map[string]ingest.TestRank{}
			var ev evidence
			shared := 0
			var first string
			for _, k := range r.Ranks {
				key := fmt.Sprintf("%s\x00%d\x00%s", k.Host, k.Device, k.BusID)
				if prev, ok := seen[key]; ok {
					if shared == 0 {
						ev.add(prev.Evidence)
						first = fmt.Sprintf("ranks %d and %d on %s device %d", prev.Rank, k.Rank, k.Host, k.Device)
					}
					shared++
					ev.add(k.Evidence)
					continue
				}
				seen[key] = k
			}
			if shared == 0 {
				continue
			}
			fs = append(fs, Finding{
				ID: "nccltests.ranks.shared_gpu", Severity: Warn, Layer: LayerNCCL,
				Title:     fmt.Sprintf("%s: %s share one GPU (%s on a GPU another rank uses)", testName(r), first, plural(shared, "rank", "ranks")),
				Evidence:  ev.sorted(),
				Mechanism: "Each rank line names its host, device index and PCI bus id; two ranks with the same three run on one GPU. NCCL stops such a job ('Duplicate GPU detected') unless the ranks are made to look like different hosts (NCCL_HOSTID), so the run measures one GPU exchanging data with itself through the transport left to it (sockets or host memory), not a GPU link or the network, and its bandwidth is no figure for the fabric.",
				Fix:       "Give every rank its own GPU (one process per GPU, -g 1 with as many processes as GPUs, CUDA_VISIBLE_DEVICES per rank) and drop NCCL_HOSTID overrides, unless testing a transport on one GPU was the point.",
			}.per(t.Source()+" "+collName(r), "run", "nccl-tests ranks sharing a GPU"))
		}
	}
	return fs
}
