package doctor

import "rocelab/internal/ingest"

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
	var arts []ingest.Artifact
	dropped := false
	for _, a := range inc.Artifacts {
		p, ok := a.(*ingest.Perftest)
		if !ok {
			arts = append(arts, a)
			continue
		}
		var runs []ingest.PerftestRun
		for i := range p.Runs {
			r := &p.Runs[i]
			k, ok := keyOf(r)
			if ok && (seen[k] || r.Host == "" && named[k]) {
				dropped = true
				continue
			}
			if ok {
				seen[k] = true
			}
			runs = append(runs, *r)
		}
		if len(runs) == len(p.Runs) {
			arts = append(arts, a)
			continue
		}
		if len(runs) == 0 && p.Omitted == 0 {
			continue
		}
		cp := *p
		cp.Runs = runs
		arts = append(arts, &cp)
	}
	if !dropped {
		return inc
	}
	out := *inc
	out.Artifacts = arts
	return &out
}
