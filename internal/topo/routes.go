package topo

// Routes returns, for every switch node and every destination host, the
// ports on shortest paths toward that host: the ECMP candidates. Entries
// for host nodes are nil. Candidate lists are shared between destinations
// behind the same switch, so the table costs one slice header per (switch,
// host) pair.
func (t *Topology) Routes() [][][]int16 { return t.RoutesAvoiding(nil) }

// RoutesAvoiding is Routes over the links that are up: down[i] set means
// link i is down. A host whose own link is down, or that no path reaches,
// has no route (nil candidates).
func (t *Topology) RoutesAvoiding(down []bool) [][][]int16 {
	type hop struct{ port, peer int }
	adj := make([][]hop, len(t.Nodes))
	for i, l := range t.Links {
		if i < len(down) && down[i] {
			continue
		}
		adj[l.A] = append(adj[l.A], hop{l.PA, l.B})
		adj[l.B] = append(adj[l.B], hop{l.PB, l.A})
	}
	// The switch each host hangs off, and the hosts behind each switch.
	edgeOf := make([]int, len(t.Hosts))
	behind := map[int][]int{}
	var edges []int
	for hid, n := range t.Hosts {
		if len(adj[n]) == 0 {
			continue // the host's link is down
		}
		e := adj[n][0].peer
		edgeOf[hid] = e
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
	dist := make([]int, len(t.Nodes))
	queue := make([]int, 0, len(t.Nodes))
	for _, e := range edges {
		// BFS over switches from the edge switch.
		for i := range dist {
			dist[i] = -1
		}
		dist[e] = 0
		queue = append(queue[:0], e)
		for len(queue) > 0 {
			u := queue[0]
			queue = queue[1:]
			for _, h := range adj[u] {
				if t.Nodes[h.peer].Kind == Switch && dist[h.peer] < 0 {
					dist[h.peer] = dist[u] + 1
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
