package fabric

import "slices"

// routeTable maps destination hosts to their candidate egress ports in
// runs. Hosts are numbered rack by rack, so a switch's routes are a few
// runs of hosts with equal candidates (each host of its own rack, then
// everything else up), and a lookup is a binary search over a few dozen
// run starts that stay in the cache, where a table of one entry per host
// and switch would miss it on every packet once the fabric has thousands
// of hosts. A run holds its first candidate, so that a host's own port,
// the one candidate toward it, takes no load beyond the run; the
// candidate lists lie in one array, each distinct list once. A fabric of
// up to directHosts hosts also gets each host's run index, a few KB a
// switch, which a lookup reads in place of the search.
type routeTable struct {
	hosts int
	runs  []routeRun
	cand  []int16
	at    []uint16 // the run of each host, or nil
}

// directHosts is the most hosts a route table indexes by host: its
// 4 KB a switch still fit the cache at that size (at k=32 the 16 KB a
// switch of 1280 switches would not).
const directHosts = 2048

// routeRun is a run of hosts from start on with the candidates
// cand[off:off+n], the first of which is first.
type routeRun struct {
	start int32
	off   int32
	n     int16
	first int16
}

// newRouteTable compresses per-host candidates into runs.
func newRouteTable(r [][]int16) routeTable {
	t := routeTable{hosts: len(r)}
	var lists [][]int16 // the distinct lists, in the order of their offsets
	var offs []int32
	var prev []int16 // the host before's list: hosts behind one switch share theirs
	for dst, c := range r {
		if n := len(t.runs); n > 0 && (sameList(c, prev) || slices.Equal(c, t.list(&t.runs[n-1]))) {
			prev = c
			continue // the run goes on
		}
		prev = c
		run := routeRun{start: int32(dst), n: int16(len(c))}
		if len(c) > 0 {
			run.first = c[0]
			k := slices.IndexFunc(lists, func(l []int16) bool { return slices.Equal(l, c) })
			if k < 0 {
				k = len(lists)
				lists = append(lists, c)
				offs = append(offs, int32(len(t.cand)))
				t.cand = append(t.cand, c...)
			}
			run.off = offs[k]
		}
		t.runs = append(t.runs, run)
	}
	if len(t.runs) > 1 && t.hosts <= directHosts {
		t.at = make([]uint16, t.hosts)
		for i, r := range t.runs {
			end := t.hosts
			if i+1 < len(t.runs) {
				end = int(t.runs[i+1].start)
			}
			a := uint16(i)
			if r.n == 1 {
				a = atPort | uint16(r.first)
			}
			for h := int(r.start); h < end; h++ {
				t.at[h] = a
			}
		}
	}
	return t
}

// sameList reports whether a and b are one list, the same elements of the
// same array.
func sameList(a, b []int16) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// atPort marks an entry of at that is the one candidate port toward its
// host, not a run index: a hop down the tree then reads no run.
const atPort = 1 << 15

// direct returns the one candidate port toward host dst, which must be in
// range, where at names it.
func (t *routeTable) direct(dst int32) (int16, bool) {
	if t.at == nil {
		return 0, false
	}
	a := t.at[dst]
	return int16(a &^ atPort), a&atPort != 0
}

// run returns the run of host dst, which must be in range.
func (t *routeTable) run(dst int32) *routeRun {
	if t.at != nil && t.at[dst]&atPort == 0 {
		return &t.runs[t.at[dst]]
	}
	lo, hi := 0, len(t.runs)
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if t.runs[m].start <= dst {
			lo = m
		} else {
			hi = m
		}
	}
	return &t.runs[lo]
}

// list returns the candidates of run r.
func (t *routeTable) list(r *routeRun) []int16 {
	end := r.off + int32(r.n)
	return t.cand[r.off:end:end]
}

// lookup returns the candidates toward host dst, which must be in range.
func (t *routeTable) lookup(dst int32) []int16 { return t.list(t.run(dst)) }

// expand returns the candidates of every host.
func (t *routeTable) expand() [][]int16 {
	r := make([][]int16, t.hosts)
	for i := range r {
		r[i] = t.lookup(int32(i))
	}
	return r
}
