package doctor

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"rocelab/internal/ingest"
)

// What the rest of an nccl-tests output says of a failed call's cause:
// the WARN NCCL printed before it, and a rerun of the same test on
// another library that ran through.

// warnBefore returns the NCCL WARN that names the cause of failure f of
// t: the first meaningful one the log read from the same input printed in
// the run f stopped, before f, on f's host when it printed one there. The
// run starts at its preamble, or after the last table row of an earlier
// run when it has none, so a WARN of an earlier run that measured is
// never taken.
func warnBefore(inc *Incident, t *ingest.NCCLTests, f ingest.TestFailure) (ingest.Warning, bool) {
	line := f.Evidence.Line
	lo := 0
	failed := runOf(t, line)
	if failed != nil {
		lo = runStart(failed)
	}
	for _, r := range t.Runs {
		if r == failed {
			continue
		}
		for _, row := range r.Rows {
			if row.Evidence.Line < line {
				lo = max(lo, row.Evidence.Line)
			}
		}
	}
	var first, onHost ingest.Warning
	found, foundHost := false, false
	versionsDiffer := len(checkVersions(inc)) > 0
	for _, l := range All[*ingest.NCCLLog](inc) {
		if l.Source() != t.Source() {
			continue
		}
		for _, w := range l.Warnings {
			n := w.Evidence.Line
			if n <= lo || n >= line || routineWarn(w.Message, versionsDiffer) {
				continue
			}
			if !found || n < first.Evidence.Line {
				first, found = w, true
			}
			if f.Host != "" && ingest.SameHostName(w.Host, f.Host) && (!foundHost || n < onHost.Evidence.Line) {
				onHost, foundHost = w, true
			}
		}
	}
	if foundHost {
		return onHost, true
	}
	return first, found
}

// routineWarn reports whether a WARN's message names no cause of a
// failed call: empty, a subsystem tag whose words a paste wrapped onto
// the next line, or one notACause skips.
func routineWarn(msg string, versionsDiffer bool) bool {
	return strings.TrimSpace(msg) == "" || ingest.WrappedWarn(msg) || notACause(msg, versionsDiffer)
}

// warnFix quotes the WARN that names a failed call's cause, and sends the
// reader to nccl.warn.error when that rule knows the WARN's cause and fix.
func warnFix(w ingest.Warning) string {
	known := ""
	if _, ok := warnClass(w); ok {
		known = " (nccl.warn.error tells what it means and how to fix it)"
	}
	return fmt.Sprintf("The first NCCL WARN of the failed run names its cause: '%s'%s%s. Fix that, then rerun.", strings.TrimRight(strings.TrimSpace(w.Message), "."), whereText(w.Where), known)
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
		if runStart(r) <= f.Evidence.Line || len(r.Rows) == 0 || r.Collective != failed.Collective || !sameSetup(r, failed) {
			continue
		}
		if _, ran, ok := buildVersions(r.Version); ok && ran != lib {
			return r, ran, true
		}
	}
	return nil, 0, false
}

// sameSetup reports whether runs a and b ran on the same hosts with as
// many GPUs on each: as many ranks and GPUs a process, and rank lines
// naming the same hosts with as many ranks each. Runs without rank lines
// are not known to be the same.
func sameSetup(a, b *ingest.TestRun) bool {
	if a.NRanks() == 0 || a.NRanks() != b.NRanks() || a.NGpus != b.NGpus {
		return false
	}
	ha, ca := a.RanksPerHost()
	hb, cb := b.RanksPerHost()
	if len(ha) == 0 || len(ha) != len(hb) {
		return false
	}
	for i, h := range ha {
		j := slices.IndexFunc(hb, func(x string) bool { return ingest.SameHostName(x, h) })
		if j < 0 || cb[j] != ca[i] {
			return false
		}
	}
	return true
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
