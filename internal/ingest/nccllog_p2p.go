package ingest

import (
	"slices"
	"strconv"
	"strings"
)

// P2POff is one host's "P2P is disabled between connected GPUs 2 and 1.
// You can repress this message with NCCL_IGNORE_DISABLED_P2P=1." lines
// (graph/paths.cc, at INFO): NVML reports CUDA peer-to-peer between two
// GPUs on a PCIe path as not working, so NCCL moves their data through
// host memory. Every rank of a node prints the line for each pair it
// checks, in either order; the pairs are read from every line as the log
// streams past, so memory is bounded by the distinct pairs, not the lines.
// Its NVLink twin is a WARN that stops init.
type P2POff struct {
	Host  string
	Count int
	// Pairs are the distinct pairs the lines name, lower GPU index first,
	// in first-seen order (at most maxDistinct).
	Pairs [][2]int
	// Lines holds the first line naming each pair, and the first line
	// naming none if there is one, at most maxKept.
	Lines []Evidence
}

// p2pKey is a pair of GPUs of one host seen in a P2P line; b is -1 for a
// line that names no pair.
type p2pKey struct {
	host string
	a, b int
}

// addP2POff records one "P2P is disabled between connected GPUs" line.
func (l *NCCLLog) addP2POff(host, msg string, ev Evidence) {
	i := slices.IndexFunc(l.P2PDisabled, func(p P2POff) bool { return p.Host == host })
	if i < 0 {
		if len(l.P2PDisabled) >= maxDistinct {
			return
		}
		i = len(l.P2PDisabled)
		l.P2PDisabled = append(l.P2PDisabled, P2POff{Host: host})
	}
	p := &l.P2PDisabled[i]
	p.Count++
	k := p2pKey{host, 0, -1}
	a, b, ok := p2pPair(msg)
	if ok {
		k.a, k.b = min(a, b), max(a, b)
	}
	if l.p2pSeen == nil {
		l.p2pSeen = map[p2pKey]struct{}{}
	}
	if _, dup := l.p2pSeen[k]; dup || len(l.p2pSeen) >= 4*maxDistinct {
		return
	}
	l.p2pSeen[k] = struct{}{}
	if ok && len(p.Pairs) < maxDistinct {
		p.Pairs = append(p.Pairs, [2]int{k.a, k.b})
	}
	if len(p.Lines) < maxKept {
		p.Lines = append(p.Lines, ev)
	}
}

// p2pPair reads the two GPU indices of "P2P is disabled between connected
// GPUs 2 and 1.", in the order printed.
func p2pPair(line string) (a, b int, ok bool) {
	_, rest, found := strings.Cut(line, "connected GPUs ")
	if !found {
		return 0, 0, false
	}
	f := strings.Fields(rest)
	if len(f) < 3 || f[1] != "and" {
		return 0, 0, false
	}
	a, errA := strconv.Atoi(f[0])
	b, errB := strconv.Atoi(strings.TrimSuffix(f[2], "."))
	return a, b, errA == nil && errB == nil && a >= 0 && b >= 0
}

// mergeP2POff joins the entries that finishHosts renamed to one host: a
// machine's lines read before its name was known to stand for several
// machines, and those read after.
func mergeP2POff(ps []P2POff) []P2POff {
	out := ps[:0]
	for _, p := range ps {
		i := slices.IndexFunc(out, func(q P2POff) bool { return q.Host == p.Host })
		if i < 0 {
			out = append(out, p)
			continue
		}
		q := &out[i]
		q.Count += p.Count
		for _, pr := range p.Pairs {
			if !slices.Contains(q.Pairs, pr) && len(q.Pairs) < maxDistinct {
				q.Pairs = append(q.Pairs, pr)
			}
		}
		for _, e := range p.Lines {
			if len(q.Lines) < maxKept {
				q.Lines = append(q.Lines, e)
			}
		}
	}
	return out
}
