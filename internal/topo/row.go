package topo

import "slices"

// RouteRow is one switch's candidates toward every host, a row of
// SwitchRoutes kept as runs of hosts with equal candidates. Hosts are
// numbered rack by rack, so a row is a few dozen runs where the row
// SwitchRoutes gives holds a slice header per host (192 KB a switch at
// k=32). It is for an engine that looks a route up once per flow and
// hop (the fluid engine); the packet fabric folds the row into a table
// of its own, shaped for a lookup per packet.
type RouteRow struct {
	hosts int
	start []int32 // the first host of each run
	end   []int32 // where each run's candidates end in cand; they begin where the run before's end
	cand  []int16
}

// NewRouteRow keeps r as runs. It keeps none of r, so r may be the row
// SwitchRoutes reuses for the next switch.
func NewRouteRow(r [][]int16) RouteRow {
	// Count first, so the row takes what it holds and no more.
	runs, cands := 0, 0
	for h, c := range r {
		if h == 0 || !equalList(c, r[h-1]) {
			runs++
			cands += len(c)
		}
	}
	w := RouteRow{hosts: len(r), start: make([]int32, 0, runs), end: make([]int32, 0, runs), cand: make([]int16, 0, cands)}
	for h, c := range r {
		if h == 0 || !equalList(c, r[h-1]) {
			w.start = append(w.start, int32(h))
			w.cand = append(w.cand, c...)
			w.end = append(w.end, int32(len(w.cand)))
		}
	}
	return w
}

// equalList reports whether a and b hold the same candidates: at once
// when they are one list, as SwitchRoutes gives the hosts behind one
// edge switch.
func equalList(a, b []int16) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0] || slices.Equal(a, b))
}

// To returns the candidates toward host dst, nil where there is no
// route (or no such host). The list is the row's: to read only.
func (w *RouteRow) To(dst int) []int16 {
	if dst < 0 || dst >= w.hosts {
		return nil
	}
	i, found := slices.BinarySearch(w.start, int32(dst))
	if !found {
		i-- // dst is inside the run before
	}
	lo := int32(0)
	if i > 0 {
		lo = w.end[i-1]
	}
	if lo == w.end[i] {
		return nil
	}
	return w.cand[lo:w.end[i]:w.end[i]]
}
