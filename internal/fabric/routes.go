package fabric

import "slices"

// routeTable maps destination hosts to their candidate egress ports in
// runs. Hosts are numbered rack by rack, so a switch's routes are a few
// runs of hosts with equal candidates (each host of its own rack, then
// everything else up), and a lookup is a binary search over the run
// starts, where a table of one entry per host and switch would miss the
// cache on every packet once the fabric has thousands of hosts. A run
// holds its first candidate, so that a host's own port, the one candidate
// toward it, takes no load beyond the run; the candidate lists lie in one
// array, each distinct list once. Runs of one candidate each, of equal
// widths, are one strided run (an edge switch's hosts, a port each; an
// aggregation switch's racks, a core's pods), so that a tree's switch
// has at most three runs at any size and a lookup reads one line of them. A
// table of up to indexedHosts hosts, or of more than indexedRuns runs and
// up to directHosts hosts, also gets each host's run index, which a
// lookup reads in place of the search.
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

// indexedRuns is the most runs a route table searches without an index
// by host: four runs fill a line, so the search reads two lines at most.
// indexedHosts is the most hosts a route table indexes whatever its runs:
// 512 bytes a switch, which the switches of so small a fabric keep in
// the cache together, and a lookup of one load where the search takes a
// few dozen instructions. Past it the index of each switch is a line
// per 32 hosts, one of which each packet misses (a k=16 fat-tree's 320
// switches keep 640 KB of them), where its few runs stay cached.
const (
	indexedRuns  = 8
	indexedHosts = 256
)

// routeRun is a run of hosts from start on with the candidates
// cand[off:off+n], the first of which is first; or, where width is not 0,
// a strided run: each width hosts from start on have one candidate, the
// next of cand[off:] (n is 1, first the first host's).
type routeRun struct {
	start int32
	off   int32
	n     int16
	first int16
	width int32
}

// newRouteTable compresses per-host candidates into runs.
func newRouteTable(r [][]int16) routeTable {
	t := routeTable{hosts: len(r)}
	type span struct {
		start int
		c     []int16
	}
	var spans []span // hosts from start on share c
	var prev []int16 // the host before's list: hosts behind one switch share theirs
	for dst, c := range r {
		if n := len(spans); n > 0 && (sameList(c, prev) || slices.Equal(c, spans[n-1].c)) {
			prev = c
			continue // the run goes on
		}
		prev = c
		spans = append(spans, span{dst, c})
	}
	end := func(i int) int {
		if i+1 < len(spans) {
			return spans[i+1].start
		}
		return t.hosts
	}
	var lists [][]int16 // the distinct lists, in the order of their offsets
	var offs []int32
	place := func(c []int16) int32 {
		k := slices.IndexFunc(lists, func(l []int16) bool { return slices.Equal(l, c) })
		if k < 0 {
			k = len(lists)
			lists = append(lists, c)
			offs = append(offs, int32(len(t.cand)))
			t.cand = append(t.cand, c...)
		}
		return offs[k]
	}
	for i := 0; i < len(spans); {
		s := spans[i]
		run := routeRun{start: int32(s.start), n: int16(len(s.c))}
		j := i + 1
		if w := end(i) - s.start; len(s.c) == 1 {
			for j < len(spans) && len(spans[j].c) == 1 && end(j)-spans[j].start == w {
				j++
			}
			if j-i > 1 {
				seq := make([]int16, j-i)
				for k := range seq {
					seq[k] = spans[i+k].c[0]
				}
				run.width, s.c = int32(w), seq
			}
		}
		if len(s.c) > 0 {
			run.first, run.off = s.c[0], place(s.c)
		}
		t.runs = append(t.runs, run)
		i = j
	}
	if len(t.runs) > 1 && t.hosts <= indexedHosts || len(t.runs) > indexedRuns && t.hosts <= directHosts {
		t.at = make([]uint16, t.hosts)
		for i := range t.runs {
			r := &t.runs[i]
			end := t.hosts
			if i+1 < len(t.runs) {
				end = int(t.runs[i+1].start)
			}
			for h := int(r.start); h < end; h++ {
				t.at[h] = uint16(i)
				if r.n == 1 {
					t.at[h] = atPort | uint16(t.port(r, int32(h)))
				}
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

// run returns the run of host dst, which must be in range: a binary
// search over the runs' starts, two steps over a tree's three. A scan of
// three runs ahead of it cost as much and took run past the inliner's
// budget.
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

// at returns the offset in cand of host dst's candidates in its run r.
func (r *routeRun) at(dst int32) int32 {
	if r.width == 0 {
		return r.off
	}
	return r.off + int32(uint32(dst-r.start)/uint32(r.width))
}

// port returns the one candidate toward host dst in its run r, whose n
// must be 1.
func (t *routeTable) port(r *routeRun, dst int32) int16 {
	if r.width == 0 {
		return r.first
	}
	return t.cand[r.at(dst)]
}

// list returns the candidates toward host dst in its run r.
func (t *routeTable) list(r *routeRun, dst int32) []int16 {
	off := r.at(dst)
	end := off + int32(r.n)
	return t.cand[off:end:end]
}

// lookup returns the candidates toward host dst, which must be in range.
func (t *routeTable) lookup(dst int32) []int16 { return t.list(t.run(dst), dst) }

// expand returns the candidates of every host.
func (t *routeTable) expand() [][]int16 {
	r := make([][]int16, t.hosts)
	for i := range r {
		r[i] = t.lookup(int32(i))
	}
	return r
}
