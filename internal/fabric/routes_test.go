package fabric

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A route table answers as the per-host table it was built from, for
// tables of long runs, of single hosts and of random candidates, and
// keeps one entry per run, with its first candidate, and each distinct
// candidate list once.
func TestRouteTableMatchesHosts(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	sets := [][]int16{nil, {0}, {1}, {2, 3}, {3, 2}, {4, 5, 6, 7}}
	for trial := range 200 {
		hosts := 1 + r.IntN(300)
		want := make([][]int16, hosts)
		for h := 0; h < hosts; {
			run := 1 + r.IntN(1+trial%40)
			c := sets[r.IntN(len(sets))]
			for ; run > 0 && h < hosts; run, h = run-1, h+1 {
				want[h] = slices.Clone(c)
			}
		}
		rt := newRouteTable(want)
		if (rt.at != nil) != (len(rt.runs) > 1) {
			t.Fatalf("trial %d: %d runs of %d hosts, indexed by host: %v", trial, len(rt.runs), hosts, rt.at != nil)
		}
		search := rt
		search.at = nil // the binary search, which fabrics of more than directHosts hosts take
		for h := range want {
			if got := rt.lookup(int32(h)); !slices.Equal(got, want[h]) {
				t.Fatalf("trial %d host %d: %v, want %v", trial, h, got, want[h])
			}
			if got := search.lookup(int32(h)); !slices.Equal(got, want[h]) {
				t.Fatalf("trial %d host %d, searched: %v, want %v", trial, h, got, want[h])
			}
			// A host of one candidate is named by its port where the
			// table is indexed by host; no other is.
			if p, ok := rt.direct(int32(h)); ok != (rt.at != nil && len(want[h]) == 1) || ok && p != want[h][0] {
				t.Fatalf("trial %d host %d: direct port %d %v, want the one of %v", trial, h, p, ok, want[h])
			}
		}
		runs := 1
		for h := 1; h < hosts; h++ {
			if !slices.Equal(want[h], want[h-1]) {
				runs++
			}
		}
		if len(rt.runs) != runs {
			t.Fatalf("trial %d: %d runs stored, %d in the table", trial, len(rt.runs), runs)
		}
		for h := range want {
			if r := rt.run(int32(h)); r.n > 0 && r.first != want[h][0] {
				t.Fatalf("trial %d host %d: first candidate %d, want %d", trial, h, r.first, want[h][0])
			}
		}
		var distinct int
		for i, c := range sets {
			if slices.ContainsFunc(want, func(w []int16) bool { return slices.Equal(w, c) }) && !slices.ContainsFunc(sets[:i], func(d []int16) bool { return slices.Equal(d, c) }) {
				distinct += len(c)
			}
		}
		if len(rt.cand) != distinct {
			t.Fatalf("trial %d: %d candidates stored, want each distinct list once (%d)", trial, len(rt.cand), distinct)
		}
	}
	for _, hosts := range []int{directHosts, directHosts + 1} {
		r := make([][]int16, hosts)
		r[hosts-1] = []int16{1}
		if rt := newRouteTable(r); (rt.at != nil) != (hosts <= directHosts) || rt.lookup(int32(hosts - 1))[0] != 1 {
			t.Fatalf("%d hosts: indexed by host %v, last host's route %v", hosts, rt.at != nil, rt.lookup(int32(hosts-1)))
		}
	}
}
