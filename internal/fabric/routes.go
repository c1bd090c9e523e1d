package fabric

import "slices"

// routeTable maps destination hosts to their candidate egress ports in
// runs. Hosts are numbered rack by rack, so a switch's routes are a few
// runs of hosts with equal candidates (each host of its own rack, then
// everything else up), and a lookup is a binary search over a few dozen
// run starts that stay in the cache, where a table of one entry per host
// and switch would miss it on every packet once the fabric has thousands
// of hosts.
type routeTable struct {
	start []int32   // the first host of each run, increasing; start[0] is 0
	set   []int32   // each run's candidates, an index into sets
	sets  [][]int16 // the distinct candidate lists; sets[0] is none
	hosts int
}

// newRouteTable compresses per-host candidates into runs.
func newRouteTable(r [][]int16) routeTable {
	t := routeTable{hosts: len(r), sets: [][]int16{nil}}
	for dst, c := range r {
		k := int32(0)
		if n := len(t.set); n > 0 && len(c) > 0 && slices.Equal(c, t.sets[t.set[n-1]]) {
			continue // the run goes on
		}
		if len(c) > 0 {
			k = int32(slices.IndexFunc(t.sets, func(s []int16) bool { return len(s) > 0 && slices.Equal(s, c) }))
			if k < 0 {
				k = int32(len(t.sets))
				t.sets = append(t.sets, c)
			}
		}
		if n := len(t.set); n == 0 || t.set[n-1] != k {
			t.start = append(t.start, int32(dst))
			t.set = append(t.set, k)
		}
	}
	return t
}

// lookup returns the candidates toward host dst, which must be in range.
func (t *routeTable) lookup(dst int32) []int16 {
	lo, hi := 0, len(t.start)
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if t.start[m] <= dst {
			lo = m
		} else {
			hi = m
		}
	}
	return t.sets[t.set[lo]]
}

// expand returns the candidates of every host.
func (t *routeTable) expand() [][]int16 {
	r := make([][]int16, t.hosts)
	for i := range r {
		r[i] = t.lookup(int32(i))
	}
	return r
}
