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

// routesDC1 is the route build as it stood at dc1ffec7, unchanged but for
// its name: one table of every (switch, host) pair, written edge switch by
// edge switch. SwitchRoutes reorders that work switch by switch, and the
// twin's ECMP takes candidates by their place in the list, so it must
// give this table exactly, order included.
func routesDC1(t *Topology, down []bool, ns3 bool) [][][]int16 {
	adj := t.adjacency(down)
	// The switch each host hangs off, and the hosts behind each switch.
	behind := make([][]int, len(t.Nodes))
	var edges []int
	for hid, n := range t.Hosts {
		if len(adj[n]) == 0 {
			continue // the host's link is down
		}
		e := adj[n][0].peer
		if behind[e] == nil {
			edges = append(edges, e)
		}
		behind[e] = append(behind[e], hid)
	}
	// The candidate lists, cut from one array: a list is shared by the
	// hosts behind an edge switch, and there is one per switch and edge.
	// room returns where a list of at most n goes; take keeps the list.
	var lists []int16
	room := func(n int) []int16 {
		if cap(lists)-len(lists) < n {
			lists = make([]int16, 0, max(n, 1024))
		}
		return lists[len(lists):]
	}
	take := func(l []int16) []int16 {
		if len(l) == 0 {
			return nil
		}
		lists = lists[:len(lists)+len(l)]
		return l[:len(l):len(l)]
	}
	routes := make([][][]int16, len(t.Nodes))
	var switches []int
	for i, n := range t.Nodes {
		if n.Kind == Switch {
			routes[i] = make([][]int16, len(t.Hosts))
			switches = append(switches, i)
		}
	}
	// The links between switches, each switch's in link order: the only
	// ones the searches and the candidates cross.
	inner := make([][]hop, len(adj))
	for n, hs := range adj {
		if t.Nodes[n].Kind != Switch {
			continue
		}
		for _, h := range hs {
			if t.Nodes[h.peer].Kind == Switch {
				inner[n] = append(inner[n], h)
			}
		}
	}
	// The search takes a node's neighbours in link order, or for ns-3 in
	// the order of its Ptr<Node> map; the candidates are gathered in link
	// order either way, then for ns-3 sorted by when the search reached
	// the neighbour they lead to.
	search, peer := inner, [][]int(nil)
	if ns3 {
		search = make([][]hop, len(inner))
		for n := range inner {
			search[n] = slices.Clone(inner[n])
			slices.SortFunc(search[n], func(a, b hop) int { return cmp.Compare(b.peer, a.peer) })
		}
		peer = make([][]int, len(t.Nodes)) // peer[n][port]
		for n := range adj {
			peer[n] = make([]int, t.Nodes[n].Ports)
			for _, h := range adj[n] {
				peer[n][h.port] = h.peer
			}
		}
	}
	dist := make([]int, len(t.Nodes))
	pos := make([]int, len(t.Nodes)) // where the search queued each switch
	queue := make([]int, 0, len(t.Nodes))
	for _, e := range edges {
		// BFS over switches from the edge switch.
		for i := range dist {
			dist[i] = -1
		}
		dist[e], pos[e] = 0, 0
		queue = append(queue[:0], e)
		for q := 0; q < len(queue); q++ {
			u := queue[q]
			for _, h := range search[u] {
				if dist[h.peer] < 0 {
					dist[h.peer], pos[h.peer] = dist[u]+1, len(queue)
					queue = append(queue, h.peer)
				}
			}
		}
		for _, s := range switches {
			if s == e || dist[s] < 0 {
				continue
			}
			cand := room(len(inner[s]))
			for _, h := range inner[s] {
				if dist[h.peer] == dist[s]-1 {
					cand = append(cand, int16(h.port))
				}
			}
			cand = take(cand)
			if ns3 && len(cand) > 1 {
				slices.SortFunc(cand, func(a, b int16) int { return cmp.Compare(pos[peer[s][a]], pos[peer[s][b]]) })
			}
			for _, hid := range behind[e] {
				routes[s][hid] = cand
			}
		}
		for _, h := range adj[e] {
			if t.Nodes[h.peer].Kind == Host {
				hid := t.hostIndex(h.peer)
				routes[e][hid] = take(append(room(1), int16(h.port)))
			}
		}
	}
	return routes
}

// routesByDistance is the routes by their definition, with no
// breadth-first search and no order of work: the distances between
// switches over the links that are up (Floyd-Warshall), then each
// switch's candidates toward a host, in link order, are its links to a
// switch one step nearer the host's switch; that switch's own candidate
// is the host's link. A host whose link is down, or out of reach, has
// none.
func routesByDistance(t *Topology, down []bool) [][][]int16 {
	const far = 1 << 30
	n := len(t.Nodes)
	d := make([][]int, n)
	for i := range d {
		d[i] = make([]int, n)
		for j := range d[i] {
			if i != j {
				d[i][j] = far
			}
		}
	}
	up := func(i int) bool { return i >= len(down) || !down[i] }
	sw := func(i int) bool { return t.Nodes[i].Kind == Switch }
	edge := make([]int, len(t.Hosts)) // each host's switch, or -1
	for hid := range edge {
		edge[hid] = -1
	}
	hostOf := map[int]int{}
	for hid, h := range t.Hosts {
		hostOf[h] = hid
	}
	for i, l := range t.Links {
		switch {
		case !up(i):
		case sw(l.A) && sw(l.B):
			d[l.A][l.B], d[l.B][l.A] = 1, 1
		case sw(l.A):
			edge[hostOf[l.B]] = l.A
		default:
			edge[hostOf[l.A]] = l.B
		}
	}
	for k := range n {
		for i := range n {
			for j := range n {
				d[i][j] = min(d[i][j], d[i][k]+d[k][j])
			}
		}
	}
	routes := make([][][]int16, n)
	for s := range n {
		if !sw(s) {
			continue
		}
		routes[s] = make([][]int16, len(t.Hosts))
		for hid, e := range edge {
			if e < 0 || d[s][e] >= far {
				continue
			}
			for i, l := range t.Links {
				switch {
				case !up(i):
				case s == e && l.A == s && l.B == t.Hosts[hid]:
					routes[s][hid] = append(routes[s][hid], int16(l.PA))
				case s == e && l.B == s && l.A == t.Hosts[hid]:
					routes[s][hid] = append(routes[s][hid], int16(l.PB))
				case s != e && l.A == s && sw(l.B) && d[l.B][e] == d[s][e]-1:
					routes[s][hid] = append(routes[s][hid], int16(l.PA))
				case s != e && l.B == s && sw(l.A) && d[l.A][e] == d[s][e]-1:
					routes[s][hid] = append(routes[s][hid], int16(l.PB))
				}
			}
		}
	}
	return routes
}

// Every builder's fabric and random graphs, with and without links down,
// in link order and in ns-3's: SwitchRoutes gives dc1ffec7's candidates
// (routesDC1), switch by switch in node order, and those are the
// candidates by definition (routesByDistance), in link order or, for
// ns-3, in some order of them.
func TestSwitchRoutesAgree(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	tops := routeTopologies(t, rnd)
	for i, tp := range tops {
		down := make([]bool, len(tp.Links))
		for j := range down {
			down[j] = rnd.IntN(8) == 0
		}
		for _, d := range [][]bool{nil, down} {
			for _, ns3 := range []bool{false, true} {
				want := routesDC1(tp, d, ns3)
				def := routesByDistance(tp, d)
				for n, r := range want {
					for hid := range r {
						c := r[hid]
						if ns3 {
							c = slices.Sorted(slices.Values(c))
							slices.Sort(def[n][hid])
						}
						if !slices.Equal(c, def[n][hid]) {
							t.Fatalf("%d %s down %v ns3 %v: %s toward h%d: %v, by definition %v", i, tp.Kind, d != nil, ns3, tp.Nodes[n].Name, hid, r[hid], def[n][hid])
						}
					}
				}
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

// routeTopologies returns every builder's fabric and 20 random graphs
// drawn from rnd: connected graphs of up to 12 switches, hosts hung off
// them at random, parallel links included.
func routeTopologies(t *testing.T, rnd *rand.Rand) []*Topology {
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
	return tops
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
