package fabric

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A route table answers as the per-host table it was built from, for
// tables of long runs, of single hosts, of hosts a port each and of random
// candidates, by its index and by its search; it keeps no more runs than
// the table has, each with its first candidate, and is indexed by host
// only where it is small or its runs are many.
func TestRouteTableMatchesHosts(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	sets := [][]int16{nil, {0}, {1}, {2, 3}, {3, 2}, {4, 5, 6, 7}}
	for trial := range 400 {
		hosts := 1 + r.IntN(300)
		want := make([][]int16, hosts)
		for h := 0; h < hosts; {
			run := 1 + r.IntN(1+trial%40)
			c := sets[r.IntN(len(sets))]
			if trial%2 == 1 && r.IntN(3) == 0 {
				// A few racks of equal width behind a port each, as
				// below an aggregation switch.
				w, port := 1+r.IntN(4), int16(r.IntN(8))
				for rack := 1 + r.IntN(6); rack > 0 && h < hosts; rack-- {
					for i := 0; i < w && h < hosts; i, h = i+1, h+1 {
						want[h] = []int16{port}
					}
					port = (port + 1 + int16(r.IntN(2))) % 8
				}
				continue
			}
			for ; run > 0 && h < hosts; run, h = run-1, h+1 {
				want[h] = slices.Clone(c)
			}
		}
		rt := newRouteTable(want)
		if (rt.at != nil) != (len(rt.runs) > 1 && hosts <= indexedHosts || len(rt.runs) > indexedRuns) {
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
			if r := search.run(int32(h)); r.n == 1 && search.port(r, int32(h)) != want[h][0] {
				t.Fatalf("trial %d host %d: port %d, want %d", trial, h, search.port(r, int32(h)), want[h][0])
			}
		}
		runs := 1
		for h := 1; h < hosts; h++ {
			if !slices.Equal(want[h], want[h-1]) {
				runs++
			}
		}
		if len(rt.runs) > runs {
			t.Fatalf("trial %d: %d runs stored, %d in the table", trial, len(rt.runs), runs)
		}
		for h := range want {
			if r := rt.run(int32(h)); r.n > 0 && r.width == 0 && r.first != want[h][0] {
				t.Fatalf("trial %d host %d: first candidate %d, want %d", trial, h, r.first, want[h][0])
			}
		}
	}
	for _, hosts := range []int{directHosts, directHosts + 1} {
		r := make([][]int16, hosts)
		for h := range r { // a run a host, none of them strided
			r[h] = []int16{2, 3}
			if h%2 == 1 {
				r[h] = []int16{1}
			}
		}
		r[hosts-1] = []int16{1}
		if rt := newRouteTable(r); (rt.at != nil) != (hosts <= directHosts) || rt.lookup(int32(hosts - 1))[0] != 1 {
			t.Fatalf("%d hosts: indexed by host %v, last host's route %v", hosts, rt.at != nil, rt.lookup(int32(hosts-1)))
		}
	}
}

// A fat-tree switch's routes are three runs at any size, the hosts below
// it one strided run, so that a lookup reads one line of runs and, past
// indexedHosts hosts, no index by host; the candidate lists are each
// stored once.
func TestRouteTableTreeRuns(t *testing.T) {
	for _, k := range []int{4, 8, 16, 24, 32} {
		half := k / 2
		hosts := k * half * half
		up := make([]int16, half)
		for i := range up {
			up[i] = int16(half + i)
		}
		tables := map[string][][]int16{"edge": make([][]int16, hosts), "aggregation": make([][]int16, hosts), "core": make([][]int16, hosts)}
		rack, pod := k/2, 1 // the switches' own rack and pod
		for h := range hosts {
			switch {
			case h/half == rack:
				tables["edge"][h] = []int16{int16(h % half)}
			default:
				tables["edge"][h] = up
			}
			switch {
			case h/(half*half) == pod:
				tables["aggregation"][h] = []int16{int16(h / half % half)}
			default:
				tables["aggregation"][h] = up
			}
			tables["core"][h] = []int16{int16(h / (half * half))}
		}
		for name, want := range tables {
			rt := newRouteTable(want)
			if len(rt.runs) > 3 || (rt.at != nil) != (len(rt.runs) > 1 && hosts <= indexedHosts) {
				t.Errorf("k=%d %s: %d runs, indexed by host %v; want at most 3 runs searched", k, name, len(rt.runs), rt.at != nil)
			}
			if name != "core" && len(rt.cand) != 2*half || name == "core" && len(rt.cand) != k {
				t.Errorf("k=%d %s: %d candidates stored", k, name, len(rt.cand))
			}
			for h := range want {
				search := rt
				search.at = nil
				if got, searched := rt.lookup(int32(h)), search.lookup(int32(h)); !slices.Equal(got, want[h]) || !slices.Equal(searched, want[h]) {
					t.Fatalf("k=%d %s host %d: %v, searched %v, want %v", k, name, h, got, searched, want[h])
				}
			}
		}
	}
}
