package topo

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"
)

// routesByEdge is a second reading of the routes: for each edge switch,
// one breadth-first search, then every switch's candidates toward the
// hosts behind it, written into a table of every (switch, host) pair.
// SwitchRoutes gathers the same by switch; the two must agree.
func routesByEdge(t *Topology, down []bool, ns3 bool) [][][]int16 {
	adj := t.adjacency(down)
	routes := make([][][]int16, len(t.Nodes))
	for i, n := range t.Nodes {
		if n.Kind == Switch {
			routes[i] = make([][]int16, len(t.Hosts))
		}
	}
	var edges []int
	behind := map[int][]int{}
	for hid, n := range t.Hosts {
		if len(adj[n]) > 0 {
			e := adj[n][0].peer
			if behind[e] == nil {
				edges = append(edges, e)
			}
			behind[e] = append(behind[e], hid)
		}
	}
	sw := func(h hop) bool { return t.Nodes[h.peer].Kind == Switch }
	for _, e := range edges {
		dist, pos := map[int]int{e: 0}, map[int]int{e: 0}
		queue := []int{e}
		for q := 0; q < len(queue); q++ {
			hs := slices.Clone(adj[queue[q]])
			if ns3 {
				slices.SortFunc(hs, func(a, b hop) int { return cmp.Compare(b.peer, a.peer) })
			}
			for _, h := range hs {
				if _, ok := dist[h.peer]; !ok && sw(h) {
					dist[h.peer], pos[h.peer] = dist[queue[q]]+1, len(queue)
					queue = append(queue, h.peer)
				}
			}
		}
		for s, d := range dist {
			if s == e {
				continue
			}
			var cand []int16
			var next []int
			for _, h := range adj[s] {
				if dn, ok := dist[h.peer]; ok && sw(h) && dn == d-1 {
					cand, next = append(cand, int16(h.port)), append(next, pos[h.peer])
				}
			}
			if ns3 {
				order := make([]int, len(cand))
				for i := range order {
					order[i] = i
				}
				slices.SortFunc(order, func(a, b int) int { return cmp.Compare(next[a], next[b]) })
				sorted := make([]int16, len(cand))
				for i, o := range order {
					sorted[i] = cand[o]
				}
				cand = sorted
			}
			for _, hid := range behind[e] {
				routes[s][hid] = cand
			}
		}
		for _, h := range adj[e] {
			if !sw(h) {
				routes[e][t.hostIndex(h.peer)] = []int16{int16(h.port)}
			}
		}
	}
	return routes
}

// Every builder's fabric and random graphs, with and without links down,
// in link order and in ns-3's: SwitchRoutes gives routesByEdge's
// candidates, switch by switch in node order.
func TestSwitchRoutesAgree(t *testing.T) {
	var tops []*Topology
	add := func(tp *Topology, err error) {
		if err != nil {
			t.Fatal(err)
		}
		tops = append(tops, tp)
	}
	for _, k := range []int{4, 6, 8} {
		add(FatTree(k, l100))
	}
	add(BuildLeafSpine(LeafSpine{Leaves: 5, Spines: 3, HostsPerLeaf: 7, UplinksPerLeaf: 6, HostLink: l100, FabricLink: l100}))
	add(BuildLeafSpine(LeafSpine{Leaves: 8, Spines: 4, HostsPerLeaf: 6, UplinksPerLeaf: 4, NICsPerServer: 4, GPUsPerServer: 8, RailOptimized: true, HostLink: l100, FabricLink: l100}))
	add(Dumbbell(3, 5, 2, l100, l100))
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		// A random connected graph of switches, hosts hung off them
		// at random, parallel links included.
		hosts, switches := 2+rnd.IntN(30), 1+rnd.IntN(12)
		var links []GraphLink
		for s := 1; s < switches; s++ {
			links = append(links, GraphLink{A: fmt.Sprintf("s%d", rnd.IntN(s)), B: fmt.Sprintf("s%d", s), Count: 1 + rnd.IntN(2), LinkSpec: l100})
		}
		for range rnd.IntN(2 * switches) {
			a, b := rnd.IntN(switches), rnd.IntN(switches)
			if a != b {
				links = append(links, GraphLink{A: fmt.Sprintf("s%d", a), B: fmt.Sprintf("s%d", b), Count: 1, LinkSpec: l100})
			}
		}
		for h := range hosts {
			links = append(links, GraphLink{A: fmt.Sprintf("h%d", h), B: fmt.Sprintf("s%d", rnd.IntN(switches)), Count: 1, LinkSpec: l100})
		}
		add(Graph(hosts, switches, links))
	}
	for i, tp := range tops {
		down := make([]bool, len(tp.Links))
		for j := range down {
			down[j] = rnd.IntN(8) == 0
		}
		for _, d := range [][]bool{nil, down} {
			for _, ns3 := range []bool{false, true} {
				want := routesByEdge(tp, d, ns3)
				var got [][][]int16
				if ns3 {
					got = tp.NS3Routes(d)
				} else {
					got = tp.RoutesAvoiding(d)
				}
				var order []int
				tp.SwitchRoutes(d, ns3, func(n int, r [][]int16) {
					order = append(order, n)
					if !reflect.DeepEqual(r, want[n]) {
						t.Errorf("%d %s down %v ns3 %v: switch %s: %v, want %v", i, tp.Kind, d != nil, ns3, tp.Nodes[n].Name, r, want[n])
					}
				})
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%d %s down %v ns3 %v: the routes differ", i, tp.Kind, d != nil, ns3)
				}
				if !slices.IsSorted(order) || len(order) != len(tp.Nodes)-len(tp.Hosts) {
					t.Errorf("%d %s: switches called in the order %v", i, tp.Kind, order)
				}
			}
		}
	}
}

// SwitchRoutes holds one switch's candidates at a time: on a k=16
// fat-tree (320 switches, 1024 hosts) it allocates less than a pointer
// per (switch, host) pair, where a table of them takes a slice header
// (24 bytes) each, 7.9 MB.
func TestSwitchRoutesMemory(t *testing.T) {
	tp, err := FatTree(16, l100)
	if err != nil {
		t.Fatal(err)
	}
	pairs := uint64(len(tp.Nodes)-len(tp.Hosts)) * uint64(len(tp.Hosts))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	tp.SwitchRoutes(nil, false, func(int, [][]int16) {})
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 8*pairs {
		t.Errorf("SwitchRoutes allocated %d bytes on %d (switch, host) pairs, want under %d", got, pairs, 8*pairs)
	}
}
