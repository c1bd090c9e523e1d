package doctor

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/ingest"
)

// Which hosts of an incident ran one job. Inputs given together need not
// be one job (an engineer's directory of several clusters' dumps), so a
// rule that compares hosts compares only those a job names together: the
// hosts that print lines of one NCCL log, or the rank lines of one
// nccl-tests run. Hosts named together by two jobs are one group.

// A hostGroup is a set of hosts judged together: the hosts of one or more
// jobs that share a host, or one host alone. A host is its name, or
// "file F" for an input that names none.
type hostGroup struct {
	hosts []string
	// jobs says what names the hosts together ("the NCCL log a.log",
	// "the nccl-tests run in b.txt"), none for a host alone.
	jobs []string
	// ev is the first line of each job.
	ev []Evidence
}

// hostKey is how hosts are compared: the name in lower case, a domain
// after the first label dropped (gpu01.cluster.local is gpu01).
func hostKey(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if i := strings.IndexByte(h, '.'); i > 0 && strings.Trim(h[:i], "0123456789") != "" {
		h = h[:i]
	}
	return h
}

// unhosted is the host key of an input that names no host.
func unhosted(file string) string { return "file " + file }

// jobGroups groups the hosts of the incident's jobs (NCCL logs, nccl-tests
// runs) with each other where jobs share a host, and adds each of the
// hosts given, not in a job, as a group of its own. The inputs that name
// no host (keys from unhosted) join the jobs' group when the jobs form one
// group, as scope.go's unknown-host facts join the only host they can
// belong to; otherwise each is a group of its own.
func jobGroups(inc *Incident, hosts []string) []hostGroup {
	var groups []*hostGroup
	at := map[string]*hostGroup{}
	join := func(hs []string, job string, ev Evidence) {
		g := &hostGroup{}
		for _, h := range hs {
			if o := at[h]; o != nil && o != g {
				g.hosts = append(g.hosts, o.hosts...)
				g.jobs = append(g.jobs, o.jobs...)
				g.ev = append(g.ev, o.ev...)
				groups = slices.DeleteFunc(groups, func(x *hostGroup) bool { return x == o })
				for _, oh := range o.hosts {
					at[oh] = g
				}
			}
			if at[h] != g {
				g.hosts = append(g.hosts, h)
				at[h] = g
			}
		}
		if job != "" && !slices.Contains(g.jobs, job) {
			g.jobs = append(g.jobs, job)
			g.ev = append(g.ev, ev)
		}
		groups = append(groups, g)
	}
	for _, l := range All[*ingest.NCCLLog](inc) {
		var hs []string
		for _, h := range l.Hosts() {
			hs = append(hs, hostKey(h))
		}
		if len(hs) > 0 {
			join(hs, "the NCCL log "+l.Source(), l.HostEvidence(l.Hosts()[0]))
		}
	}
	for _, t := range All[*ingest.NCCLTests](inc) {
		for _, r := range t.Runs {
			var hs []string
			for _, k := range r.Ranks {
				if ingest.RealHost(k.Host) {
					hs = append(hs, hostKey(k.Host))
				}
			}
			if len(hs) > 0 {
				join(distinct(hs), "the nccl-tests run in "+t.Source(), r.Ranks[0].Evidence)
			}
		}
	}
	jobs := len(groups)
	var loose []string
	for _, h := range distinct(hosts) {
		switch {
		case at[h] != nil:
		case strings.HasPrefix(h, "file ") && jobs == 1:
			loose = append(loose, h)
		default:
			join([]string{h}, "", Evidence{})
		}
	}
	if len(loose) > 0 {
		join(append(loose, groups[0].hosts[0]), "", Evidence{})
	}
	out := make([]hostGroup, len(groups))
	for i, g := range groups {
		out[i] = *g
	}
	return out
}

// how says what names a group's hosts as one job: "", or "one job (the
// hosts the NCCL log a.log names)".
func (g hostGroup) how() string {
	if len(g.jobs) == 0 {
		return ""
	}
	verb := "name"
	if len(g.jobs) == 1 {
		verb = "names"
	}
	return fmt.Sprintf("one job (the hosts %s %s)", strings.Join(g.jobs, " and "), verb)
}
