package doctor

import (
	"fmt"
	"path"
	"strings"

	"rocelab/internal/ingest"
)

// What the rest of an nccl-tests output says of a failed call's cause:
// the WARN NCCL printed before it, and a rerun of the same test on
// another library that ran through.

// warnBefore returns the last NCCL WARN the log read from src printed
// before line: the cause NCCL gave for the call a test saw fail.
func warnBefore(inc *Incident, src string, line int) (ingest.Warning, bool) {
	var last ingest.Warning
	found := false
	for _, l := range All[*ingest.NCCLLog](inc) {
		if l.Source() != src {
			continue
		}
		for _, w := range l.Warnings {
			if w.Evidence.Line < line && (!found || w.Evidence.Line > last.Evidence.Line) {
				last, found = w, true
			}
		}
	}
	return last, found
}

// whereText is " (file:line)" for a WARN's source location, "" for none.
func whereText(where string) string {
	if where == "" {
		return ""
	}
	return " (" + path.Base(where) + ")"
}

// runOf returns the run of t a failure line stopped: the last one that
// began before it.
func runOf(t *ingest.NCCLTests, line int) *ingest.TestRun {
	var out *ingest.TestRun
	for _, r := range t.Runs {
		if s := runStart(r); s > 0 && s < line {
			out = r
		}
	}
	return out
}

// runStart is the first line of a run's preamble, 0 when it has none.
func runStart(r *ingest.TestRun) int {
	s := 0
	for _, e := range []ingest.Evidence{r.VersionLine, r.Banner, r.Params} {
		if e.Line > 0 && (s == 0 || e.Line < s) {
			s = e.Line
		}
	}
	return s
}

// failedLib is the library (NCCL_VERSION_CODE) the run a failure stopped
// loaded, 0 when its version line does not say.
func failedLib(t *ingest.NCCLTests, f ingest.TestFailure) int {
	r := runOf(t, f.Evidence.Line)
	if r == nil {
		return 0
	}
	_, ran, _ := buildVersions(r.Version)
	return ran
}

// laterRunOK finds a run after failure f of the same test that measured
// rows on another library than the failed run loaded: the same command
// rerun on another NCCL build, which tells a library's fault from the
// host's. It returns that run and its library's version code.
func laterRunOK(t *ingest.NCCLTests, f ingest.TestFailure) (*ingest.TestRun, int, bool) {
	failed := runOf(t, f.Evidence.Line)
	lib := failedLib(t, f)
	if failed == nil || lib == 0 {
		return nil, 0, false
	}
	for _, r := range t.Runs {
		if runStart(r) <= f.Evidence.Line || len(r.Rows) == 0 || r.Collective != failed.Collective {
			continue
		}
		if _, ran, ok := buildVersions(r.Version); ok && ran != lib {
			return r, ran, true
		}
	}
	return nil, 0, false
}

// libName names the collective library of t's runs.
func libName(t *ingest.NCCLTests) string {
	if fileTool(t) == ingest.ToolRCCL {
		return "RCCL"
	}
	return "NCCL"
}

// codeObjectText is what HIP said in t of a device it has no code object
// for, with the line that says it; "" when t does not say.
func codeObjectText(t *ingest.NCCLTests) (string, ingest.Evidence) {
	e := t.NoCodeObject
	if e.Line == 0 {
		return "", e
	}
	s := fmt.Sprintf(" This output says so (line %d): HIP found no code object for every device it sees", e.Line)
	if len(t.NoCodeObjectGfx) > 0 {
		s += ", none for " + strings.Join(t.NoCodeObjectGfx, " and ")
	}
	return s + ".", e
}
