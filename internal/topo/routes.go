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
// host) pair.
func (t *Topology) Routes() [][][]int16 { return t.RoutesAvoiding(nil) }

// RoutesAvoiding is Routes over the links that are up: down[i] set means
// link i is down. A host whose own link is down, or that no path reaches,
// has no route (nil candidates).
func (t *Topology) RoutesAvoiding(down []bool) [][][]int16 { return t.routes(down, false) }

// routes is RoutesAvoiding, each switch's candidates toward a host in the
// order of the links when ns3 is unset, else in NS3Routes' order. One
// breadth-first search from each edge switch gives both every switch's
// distance from it and the order in which the search reached it.
func (t *Topology) routes(down []bool, ns3 bool) [][][]int16 {
	adj := t.adjacency(down)
	// The switch each host hangs off, and the hosts behind each switch.
	behind := map[int][]int{}
	var edges []int
	for hid, n := range t.Hosts {
		if len(adj[n]) == 0 {
			continue // the host's link is down
		}
		e := adj[n][0].peer
		if _, ok := behind[e]; !ok {
			edges = append(edges, e)
		}
		behind[e] = append(behind[e], hid)
	}
	routes := make([][][]int16, len(t.Nodes))
	for i, n := range t.Nodes {
		if n.Kind == Switch {
			routes[i] = make([][]int16, len(t.Hosts))
		}
	}
	// The search takes a node's neighbours in link order, or for ns-3 in
	// the order of its Ptr<Node> map; the candidates are gathered in link
	// order either way, then for ns-3 sorted by when the search reached
	// the neighbour they lead to.
	search, peer := adj, [][]int(nil)
	if ns3 {
		search = make([][]hop, len(adj))
		for n := range adj {
			search[n] = slices.Clone(adj[n])
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
				if t.Nodes[h.peer].Kind == Switch && dist[h.peer] < 0 {
					dist[h.peer], pos[h.peer] = dist[u]+1, len(queue)
					queue = append(queue, h.peer)
				}
			}
		}
		for s, n := range t.Nodes {
			if n.Kind != Switch || s == e || dist[s] < 0 {
				continue
			}
			var cand []int16
			for _, h := range adj[s] {
				if t.Nodes[h.peer].Kind == Switch && dist[h.peer] == dist[s]-1 {
					cand = append(cand, int16(h.port))
				}
			}
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
				routes[e][hid] = []int16{int16(h.port)}
			}
		}
	}
	return routes
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
	type hop struct{ link, peer int }
	adj := make([][]hop, len(t.Nodes))
	for i, l := range t.Links {
		adj[l.A] = append(adj[l.A], hop{i, l.B})
		adj[l.B] = append(adj[l.B], hop{i, l.A})
	}
	// The costliest host link at each edge switch.
	type pair struct{ a, b unit.Time }
	edge := map[int]pair{}
	var edges []int
	for _, h := range t.Hosts {
		for _, x := range adj[h] {
			a, b := cost(t.Links[x.link])
			p, ok := edge[x.peer]
			if !ok {
				edges = append(edges, x.peer)
			}
			edge[x.peer] = pair{max(p.a, a), max(p.b, b)}
		}
	}
	var worst pair
	dist := make([]int, len(t.Nodes))
	acc := make([]pair, len(t.Nodes))
	for _, e := range edges {
		for i := range dist {
			dist[i] = -1
		}
		dist[e], acc[e] = 0, pair{}
		queue := []int{e}
		for len(queue) > 0 {
			u := queue[0]
			queue = queue[1:]
			for _, x := range adj[u] {
				if t.Nodes[x.peer].Kind != Switch {
					continue
				}
				a, b := cost(t.Links[x.link])
				c := pair{acc[u].a + a, acc[u].b + b}
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
