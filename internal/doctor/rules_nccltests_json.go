package doctor

import (
	"fmt"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// Rules about how an nccl-tests JSON document (-J) ended: cut off, or
// closed by nccl-tests' error path. Its rows are judged by the table
// rules, as the same rows of a table are.

func ncclTestsJSONRules() []Rule {
	return []Rule{
		{IDs: []string{"nccltests.json.cut", "nccltests.json.stopped"}, Check: checkJSONEnd},
	}
}

// checkJSONEnd reports JSON runs that did not finish: a document cut off
// (a job killed, or nccl-tests before 2.18.5 aborting on an error), or
// one nccl-tests closed without its footer (2.18.5 on, a run that stopped
// on an error).
func checkJSONEnd(inc *Incident) []Finding {
	var fs []Finding
	for _, t := range All[*ingest.NCCLTests](inc) {
		for _, r := range t.Runs {
			if !r.JSON || r.Footer && r.Cut.Line == 0 {
				continue
			}
			var ev evidence
			if r.Cut.Line > 0 {
				ev.add(r.Cut)
			}
			if n := len(r.Rows); n > 0 {
				ev.add(r.Rows[n-1].Evidence)
			}
			if n := len(r.Truncated); n > 0 {
				ev.add(r.Truncated[n-1])
			}
			ev.add(r.Errors[:min(2, len(r.Errors))]...)
			got := fmt.Sprintf("%s read", plural(len(r.Rows), "size", "sizes"))
			if n := len(r.Rows); n > 0 {
				got += ", the last " + unit.Bytes(r.Rows[n-1].Size).Human()
			}
			if len(r.Truncated) > 0 {
				got += fmt.Sprintf(", %s begun and not finished", plural(len(r.Truncated), "row", "rows"))
			}
			if len(r.Errors) > 0 {
				got += "; NCCL's last error: " + r.Errors[0].Text
			}
			f := Finding{Severity: Warn, Layer: LayerNCCL, Evidence: ev.sorted(),
				Fix: "Find why the run ended: the job's stdout and stderr (nccl-tests prints the failing call as 'Test NCCL failure common.cu:N ...'), the scheduler's record (`sacct -j JOB -o State,ExitCode,Elapsed`, a time limit or an OOM kill), and NCCL_DEBUG=INFO for the NCCL WARN before a failure. Keep the table too (`| tee run.txt`): it holds the same rows and the failure line. The sizes not read were never measured."}
			if r.Cut.Line > 0 {
				f.ID = "nccltests.json.cut"
				f.Title = fmt.Sprintf("%s JSON breaks off at %s:%d:%d, %s, before nccl-tests closed it: %s", testName(r), r.Cut.File, r.Cut.Line, r.Cut.Col, r.CutWhere, got)
				f.Mechanism = "nccl-tests writes its JSON through stdio and closes the document only when the run returns. A job killed mid-run (scancel, a time limit, an OOM kill, a crash) leaves what stdio had flushed, whole 4 KiB blocks cut anywhere, and so does, before nccl-tests 2.18.5, a run that returns on an error: the JSON finaliser then aborts in an assert (NVIDIA/nccl-tests#387). The rows before the break are judged as they are; the sizes after it were not written, and may never have run."
			} else {
				f.ID = "nccltests.json.stopped"
				f.Title = fmt.Sprintf("%s JSON has no result footer: the run stopped on an error after %s", testName(r), got)
				f.Mechanism = "nccl-tests 2.18.5 and later close the JSON of a run that returns on an error with the containers open at the time: the results list ends where the run stopped, and the footer (out_of_bounds, average_bus_bandwidth, errors) and end_time are missing. The rows present were measured; the sizes after them never ran."
			}
			fs = append(fs, f.per(t.Source()+" "+collName(r), "run", "nccl-tests JSON runs that did not finish"))
		}
	}
	return fs
}
