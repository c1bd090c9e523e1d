package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
)

// perftestOnce drops the copies of a perftest run that an incident holds
// twice — the client's own output and the same text pasted into a
// summary or a ticket — so that one run counts once. A run is known by
// its test and both address lines (QPN, PSN and GID are drawn afresh for
// every run); the copy that names its host is kept.
func perftestOnce(inc *Incident) *Incident {
	type key struct{ test, local, remote string }
	keyOf := func(r *ingest.PerftestRun) (key, bool) {
		if r.Local == nil || r.Remote == nil || r.Local.QPN == "" {
			return key{}, false
		}
		return key{r.Test, r.Local.QPN + "/" + r.Local.PSN + "/" + r.Local.GID, r.Remote.QPN + "/" + r.Remote.PSN + "/" + r.Remote.GID}, true
	}
	named := map[key]bool{}
	for _, p := range All[*ingest.Perftest](inc) {
		for i := range p.Runs {
			if k, ok := keyOf(&p.Runs[i]); ok && p.Runs[i].Host != "" {
				named[k] = true
			}
		}
	}
	seen := map[key]bool{}
	return dropRuns(inc, func(p *ingest.Perftest) []ingest.PerftestRun { return p.Runs },
		func(r ingest.PerftestRun) bool {
			k, ok := keyOf(&r)
			if ok && (seen[k] || r.Host == "" && named[k]) {
				return true
			}
			if ok {
				seen[k] = true
			}
			return false
		},
		func(p *ingest.Perftest, runs []ingest.PerftestRun) ingest.Artifact {
			if len(runs) == 0 && p.Omitted == 0 {
				return nil
			}
			cp := *p
			cp.Runs = runs
			return &cp
		})
}

// dropRuns returns inc with the runs drop picks removed from its artifacts
// of type A; runsOf gives an artifact's runs and with a copy of it holding
// only the runs kept (nil to drop the artifact too). inc itself is
// returned when nothing was dropped.
func dropRuns[A ingest.Artifact, R any](inc *Incident, runsOf func(A) []R, drop func(R) bool, with func(A, []R) ingest.Artifact) *Incident {
	var arts []ingest.Artifact
	dropped := false
	for _, a := range inc.Artifacts {
		x, ok := a.(A)
		if !ok {
			arts = append(arts, a)
			continue
		}
		all := runsOf(x)
		var kept []R
		for _, r := range all {
			if drop(r) {
				dropped = true
				continue
			}
			kept = append(kept, r)
		}
		if len(kept) == len(all) {
			arts = append(arts, a)
		} else if b := with(x, kept); b != nil {
			arts = append(arts, b)
		}
	}
	if !dropped {
		return inc
	}
	out := *inc
	out.Artifacts = arts
	return &out
}

// testsOnce drops the nccl-tests runs read from JSON (-J) that a table of
// the incident also holds, row for row — the same run's stdout and JSON
// file, as `rocelab run --out` writes them and engineers keep them — so
// that one run is judged once. The table is kept: its lines are the
// evidence engineers read, and the failure lines come with it.
func testsOnce(inc *Incident) *Incident {
	tables := map[string]bool{}
	for _, t := range All[*ingest.NCCLTests](inc) {
		for _, r := range t.Runs {
			if !r.JSON && len(r.Rows) > 0 {
				tables[rowsKey(r)] = true
			}
		}
	}
	if len(tables) == 0 {
		return inc
	}
	return dropRuns(inc, func(t *ingest.NCCLTests) []*ingest.TestRun { return t.Runs },
		func(r *ingest.TestRun) bool { return r.JSON && len(r.Rows) > 0 && tables[rowsKey(r)] },
		func(t *ingest.NCCLTests, runs []*ingest.TestRun) ingest.Artifact {
			cp := *t
			cp.Runs = runs
			return &cp
		})
}

// rowsKey identifies a run by its rows' figures.
func rowsKey(r *ingest.TestRun) string {
	var b strings.Builder
	for _, row := range r.Rows {
		fmt.Fprint(&b, row.Size, row.Count, row.Type, row.Redop, row.Root, row.Out, row.In, ";")
	}
	return b.String()
}
