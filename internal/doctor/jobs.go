package doctor

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/ingest"
)

// Which hosts of an incident ran one job. Inputs given together need not
// be one job (an engineer's directory of several clusters' dumps), so a
// rule that compares hosts compares only those a job names together: the
// hosts that print lines of one NCCL log (or of per-host logs sharing
// NCCL's commId), or the rank lines of one nccl-tests run. The jobs of one input (an NCCL log with its nccl-tests
// table) are one; jobs of different inputs stay apart even when they
// name a host alike, since generic names (node0, node1) recur across
// clusters.

// A hostGroup is a set of hosts judged together: the hosts of one input's
// jobs, or one host alone. A host is its name, or "file F" for an input
// that names none.
type hostGroup struct {
	hosts []string
	// sources are the inputs whose jobs name the hosts (several when
	// per-host NCCL logs share a commId), none for a host alone.
	sources []string
	// jobs says what names the hosts together ("the NCCL log a.log",
	// "the nccl-tests run in b.txt"), none for a host alone.
	jobs []string
	// ev is the first line of each job.
	ev []Evidence
}

// unhosted is the host key of an input that names no host.
func unhosted(file string) string { return "file " + file }

// hostKeyer returns the key by which the hosts of an incident are
// grouped, with SameHostName's sense: a name's first label (node1.a and
// node1 are one host), but the full name where the incident's inputs
// name two hosts of that label in different domains (node1.a and node1.b
// are two). names are the names the caller keys besides those of the
// NCCL logs and nccl-tests runs.
func hostKeyer(inc *Incident, names []string) func(string) string {
	full := map[string][]string{} // a label's names with a domain
	add := func(h string) {
		h = strings.ToLower(strings.TrimSpace(h))
		if k := ingest.HostKey(h); k != h && !slices.Contains(full[k], h) {
			full[k] = append(full[k], h)
		}
	}
	for _, h := range names {
		add(h)
	}
	for _, l := range All[*ingest.NCCLLog](inc) {
		for _, h := range l.Hosts() {
			add(h)
		}
	}
	for _, t := range All[*ingest.NCCLTests](inc) {
		for _, r := range t.Runs {
			for _, k := range r.Ranks {
				add(k.Host)
			}
		}
	}
	return func(h string) string {
		k := ingest.HostKey(h)
		if h = strings.ToLower(strings.TrimSpace(h)); len(full[k]) > 1 && slices.Contains(full[k], h) {
			return h
		}
		return k
	}
}

// jobGroups returns a group per input whose NCCL logs or nccl-tests runs
// name hosts, and a group of its own for each of hosts no job names. An
// input that names no host (a key from unhosted) joins the job read from
// that same input, or the only job when that job names hosts enough that
// no host-named input covers for every such input to be one of them, as
// scope.go's unknown-host facts join the only host they can belong to;
// otherwise each is a group of its own.
func jobGroups(inc *Incident, hosts []string, key func(string) string) []hostGroup {
	var groups []*hostGroup
	named := map[string]bool{}
	// into is the input whose group src joins: src itself, or the first
	// NCCL log sharing a commId with it, directly or through other logs
	// (a union-find whose roots are the first of their logs).
	into := map[string]string{}
	commOf := map[string]string{}
	order := map[string]int{}
	find := func(s string) string {
		for into[s] != "" && into[s] != s {
			s = into[s]
		}
		return s
	}
	for _, l := range All[*ingest.NCCLLog](inc) {
		src := l.Source()
		if _, ok := order[src]; !ok {
			order[src] = len(order)
		}
		for _, id := range l.CommIDs {
			s, ok := commOf[id]
			if !ok {
				commOf[id] = src
				continue
			}
			a, b := find(s), find(src)
			if order[b] < order[a] {
				a, b = b, a
			}
			if a != b {
				into[b] = a
			}
		}
	}
	for src := range order {
		into[src] = find(src)
	}
	join := func(src string, hs []string, job string, ev Evidence) {
		to := cmp.Or(into[src], src)
		i := slices.IndexFunc(groups, func(g *hostGroup) bool { return g.sources[0] == to })
		if i < 0 {
			groups = append(groups, &hostGroup{sources: []string{to}})
			i = len(groups) - 1
		}
		g := groups[i]
		if !slices.Contains(g.sources, src) {
			g.sources = append(g.sources, src)
		}
		for _, h := range hs {
			if !slices.Contains(g.hosts, h) {
				g.hosts = append(g.hosts, h)
			}
			named[h] = true
		}
		if !slices.Contains(g.jobs, job) {
			g.jobs = append(g.jobs, job)
			g.ev = append(g.ev, ev)
		}
	}
	for _, l := range All[*ingest.NCCLLog](inc) {
		var hs []string
		for _, h := range l.Hosts() {
			hs = append(hs, key(h))
		}
		if len(hs) > 0 {
			join(l.Source(), hs, "the NCCL log "+l.Source(), l.HostEvidence(l.Hosts()[0]))
		}
	}
	for _, t := range All[*ingest.NCCLTests](inc) {
		for _, r := range t.Runs {
			var hs []string
			for _, k := range r.Ranks {
				if ingest.RealHost(k.Host) {
					hs = append(hs, key(k.Host))
				}
			}
			if len(hs) > 0 {
				join(t.Source(), distinct(hs), "the nccl-tests run in "+t.Source(), r.Ranks[0].Evidence)
			}
		}
	}
	hosts = distinct(hosts)
	// An input that names no host is its own job's when the job is read
	// from that input.
	for _, g := range groups {
		for _, src := range g.sources {
			if h := unhosted(src); slices.Contains(hosts, h) {
				g.hosts = append(g.hosts, h)
				named[h] = true
			}
		}
	}
	// The others join the only job when it names at least as many hosts
	// no host-named input covers: an unrelated log is no job of theirs.
	var bare []string
	for _, h := range hosts {
		if strings.HasPrefix(h, "file ") && !named[h] {
			bare = append(bare, h)
		}
	}
	if len(groups) == 1 && len(bare) > 0 {
		g := groups[0]
		uncovered := 0
		for _, h := range g.hosts {
			if !strings.HasPrefix(h, "file ") && !slices.Contains(hosts, h) {
				uncovered++
			}
		}
		if len(bare) <= uncovered {
			g.hosts = append(g.hosts, bare...)
			for _, h := range bare {
				named[h] = true
			}
		}
	}
	out := make([]hostGroup, 0, len(groups))
	for _, g := range groups {
		out = append(out, *g)
	}
	for _, h := range hosts {
		if !named[h] {
			out = append(out, hostGroup{hosts: []string{h}})
		}
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
