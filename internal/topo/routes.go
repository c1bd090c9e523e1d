package topo

import (
	"cmp"
	"slices"

	"rocelab/internal/unit"
)

// Routes returns, for every switch node and every destination host, the
// ports on shortest paths toward that host: the ECMP candidates. Entries
// for host nodes are nil. Candidate lists are shared between destinations
// behind the same switch, so the table costs one slice header per (switch,
// host) pair: 252 MB at k=32. The engines never hold it (they fold each
// switch's row of SwitchRoutes into a table of their own); it is the
// whole table the tests hold those to.
func (t *Topology) Routes() [][][]int16 { return t.RoutesAvoiding(nil) }

// RoutesAvoiding is Routes over the links that are up: down[i] set means
// link i is down. A host whose own link is down, or that no path reaches,
// has no route (nil candidates).
func (t *Topology) RoutesAvoiding(down []bool) [][][]int16 { return t.routes(down, false) }

// routes is RoutesAvoiding, each switch's candidates toward a host in the
// order of the links when ns3 is unset, else in NS3Routes' order.
func (t *Topology) routes(down []bool, ns3 bool) [][][]int16 {
	routes := make([][][]int16, len(t.Nodes))
	t.SwitchRoutes(down, ns3, func(n int, r [][]int16) { routes[n] = slices.Clone(r) })
	return routes
}

// SwitchRoutes calls each with every switch node in turn, in node order,
// and its candidates toward every host: RoutesAvoiding(down)[n], or
// NS3Routes(down)[n] when ns3 is set. r is only each's to read during the
// call (the next switch's candidates overwrite it); the lists it holds
// may be kept. A caller that folds each switch's candidates into a table
// of its own so never holds a slice header per (switch, host) pair: 252
// MB at k=32, where the searches' distances take 2.6 MB.
//
// One breadth-first search from each edge switch gives every switch's
// distance from it and the order in which the search reached it; then each
// switch's candidates toward the hosts behind an edge switch are its
// links to the switches one step nearer that edge, shared by those hosts.
func (t *Topology) SwitchRoutes(down []bool, ns3 bool, each func(n int, r [][]int16)) {
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
	// The switches, numbered in node order (idx), and the links between
	// them, each switch's in link order: the only ones the searches and
	// the candidates cross.
	idx := make([]int32, len(t.Nodes))
	var switches []int
	for i, n := range t.Nodes {
		if n.Kind == Switch {
			idx[i] = int32(len(switches))
			switches = append(switches, i)
		}
	}
	inner := make([][]hop, len(adj))
	for _, n := range switches {
		for _, h := range adj[n] {
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
	// Each switch's distance from each edge switch and where that edge's
	// search queued it, a row of edges per switch: a switch's candidates
	// read its own row and its neighbours'.
	ne := len(edges)
	dist := make([]int32, len(switches)*ne)
	var pos []int32
	if ns3 {
		pos = make([]int32, len(switches)*ne)
	}
	at := func(n, ei int) int { return int(idx[n])*ne + ei }
	seen := make([]int32, len(t.Nodes)) // the search's distance, or -1
	queue := make([]int, 0, len(t.Nodes))
	for ei, e := range edges {
		for i := range seen {
			seen[i] = -1
		}
		seen[e] = 0
		queue = append(queue[:0], e)
		for q := 0; q < len(queue); q++ {
			u := queue[q]
			dist[at(u, ei)] = seen[u]
			if ns3 {
				pos[at(u, ei)] = int32(q)
			}
			for _, h := range search[u] {
				if seen[h.peer] < 0 {
					seen[h.peer] = seen[u] + 1
					queue = append(queue, h.peer)
				}
			}
		}
		for _, s := range switches {
			if seen[s] < 0 {
				dist[at(s, ei)] = -1
			}
		}
	}
	r := make([][]int16, len(t.Hosts))
	for _, s := range switches {
		clear(r)
		for ei, e := range edges {
			if s == e {
				for _, h := range adj[e] {
					if t.Nodes[h.peer].Kind == Host {
						r[t.hostIndex(h.peer)] = take(append(room(1), int16(h.port)))
					}
				}
				continue
			}
			d := dist[at(s, ei)]
			if d < 0 {
				continue
			}
			cand := room(len(inner[s]))
			for _, h := range inner[s] {
				if dist[at(h.peer, ei)] == d-1 {
					cand = append(cand, int16(h.port))
				}
			}
			cand = take(cand)
			if ns3 && len(cand) > 1 {
				slices.SortFunc(cand, func(a, b int16) int { return cmp.Compare(pos[at(peer[s][a], ei)], pos[at(peer[s][b], ei)]) })
			}
			for _, hid := range behind[e] {
				r[hid] = cand
			}
		}
		each(s, r)
	}
}

// hop is a link as one of its ends sees it: the port it leaves by and the
// node at the other end.
type hop struct{ port, peer int }

// adjacency returns each node's links that are up (down[i] set: link i is
// down), in link order.
func (t *Topology) adjacency(down []bool) [][]hop {
	adj := make([][]hop, len(t.Nodes))
	for i, l := range t.Links {
		if i < len(down) && down[i] {
			continue
		}
		adj[l.A] = append(adj[l.A], hop{l.PA, l.B})
		adj[l.B] = append(adj[l.B], hop{l.PB, l.A})
	}
	return adj
}

// hostIndex returns the host id of node n.
func (t *Topology) hostIndex(n int) int {
	// Hosts are appended in id order, so a binary search finds n.
	lo, hi := 0, len(t.Hosts)
	for lo < hi {
		m := (lo + hi) / 2
		if t.Hosts[m] < n {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// WorstPath returns the largest cost of a shortest path between two hosts,
// a link costing cost(l) in each of two measures (a propagation delay and
// a serialisation time, say), summed along the path; where shortest paths
// tie, the costlier is taken. It is what HPCC's base RTT is computed from.
func (t *Topology) WorstPath(cost func(l Link) (a, b unit.Time)) (unit.Time, unit.Time) {
	// Each link's cost, asked once: the searches below cross every link
	// once per edge switch.
	type pair struct{ a, b unit.Time }
	type hop struct {
		peer int
		c    pair
	}
	// The links between switches, which the searches cross, and the
	// costliest host link at each edge switch.
	adj := make([][]hop, len(t.Nodes))
	edge := make([]pair, len(t.Nodes))
	isEdge := make([]bool, len(t.Nodes))
	var edges []int
	mark := func(e int, c pair) {
		if !isEdge[e] {
			isEdge[e] = true
			edges = append(edges, e)
		}
		edge[e] = pair{max(edge[e].a, c.a), max(edge[e].b, c.b)}
	}
	for _, l := range t.Links {
		a, b := cost(l)
		sa, sb := t.Nodes[l.A].Kind == Switch, t.Nodes[l.B].Kind == Switch
		switch {
		case sa && sb:
			adj[l.A] = append(adj[l.A], hop{l.B, pair{a, b}})
			adj[l.B] = append(adj[l.B], hop{l.A, pair{a, b}})
		default: // a host's link: the node at its other end is an edge
			if !sa {
				mark(l.B, pair{a, b})
			}
			if !sb {
				mark(l.A, pair{a, b})
			}
		}
	}
	var worst pair
	dist := make([]int, len(t.Nodes))
	acc := make([]pair, len(t.Nodes))
	queue := make([]int, 0, len(t.Nodes))
	for _, e := range edges {
		for i := range dist {
			dist[i] = -1
		}
		dist[e], acc[e] = 0, pair{}
		queue = append(queue[:0], e)
		for q := 0; q < len(queue); q++ {
			u := queue[q]
			for _, x := range adj[u] {
				c := pair{acc[u].a + x.c.a, acc[u].b + x.c.b}
				switch {
				case dist[x.peer] < 0:
					dist[x.peer], acc[x.peer] = dist[u]+1, c
					queue = append(queue, x.peer)
				case dist[x.peer] == dist[u]+1:
					acc[x.peer] = pair{max(acc[x.peer].a, c.a), max(acc[x.peer].b, c.b)}
				}
			}
		}
		for _, f := range edges {
			if dist[f] < 0 {
				continue
			}
			w := pair{edge[e].a + acc[f].a + edge[f].a, edge[e].b + acc[f].b + edge[f].b}
			worst = pair{max(worst.a, w.a), max(worst.b, w.b)}
		}
	}
	return worst.a, worst.b
}

// NS3Routes is RoutesAvoiding with each switch's candidates toward a host
// in the order the HPCC ns-3 model's routing lists them (third.cc
// CalculateRoute, at 9f4be2a), which its ECMP takes modulo their number
// (ecmp.NS3): a breadth-first search from the destination host records,
// at each node, its neighbours one hop nearer in the order the search
// took them from its queue; and the search takes a node's neighbours in
// the order of ns-3's Ptr<Node> map, the nodes' addresses. Its switch
// objects are megabytes each (per-port byte counters), which the C
// library maps one below the other, so a later switch sorts first; the
// hosts, small and from the heap, sort before every switch but are never
// searched through.
func (t *Topology) NS3Routes(down []bool) [][][]int16 { return t.routes(down, true) }
