package topo

import (
	"slices"
	"testing"
)

// ns3NextHops is third.cc's CalculateRoute and SetRoutingEntries taken
// literally, as a second implementation for NS3Routes: a breadth-first
// search from each host, each node's neighbours in the order of ns-3's
// Ptr<Node> map (the hosts by id, then the switches, the later first),
// nextHop[next][host] appended with each node on a shortest path from next
// to host as the search takes it. It returns, per switch node and host
// index, the next hops' node numbers.
func ns3NextHops(t *Topology) [][][]int {
	rank := func(n int) int { // the address order third.cc's maps iterate in
		if t.Nodes[n].Kind == Host {
			return n
		}
		return 2*len(t.Nodes) - n
	}
	nbr := make([][]int, len(t.Nodes))
	for _, l := range t.Links {
		nbr[l.A] = append(nbr[l.A], l.B)
		nbr[l.B] = append(nbr[l.B], l.A)
	}
	for n := range nbr {
		slices.SortFunc(nbr[n], func(a, b int) int { return rank(a) - rank(b) })
		nbr[n] = slices.Compact(nbr[n])
	}
	next := make([][][]int, len(t.Nodes))
	for n := range next {
		next[n] = make([][]int, len(t.Hosts))
	}
	for hid, host := range t.Hosts {
		dis := map[int]int{host: 0}
		q := []int{host}
		for i := 0; i < len(q); i++ {
			now := q[i]
			for _, nx := range nbr[now] {
				if _, ok := dis[nx]; !ok {
					dis[nx] = dis[now] + 1
					if t.Nodes[nx].Kind == Switch {
						q = append(q, nx)
					}
				}
				if dis[now]+1 == dis[nx] {
					next[nx][hid] = append(next[nx][hid], now)
				}
			}
		}
	}
	return next
}

// TestNS3Routes holds NS3Routes to the literal reading of ns-3's routing
// on a k=4 fat-tree (the candidates' order decides which one a hash
// modulo their number takes), a leaf-spine, and the fat-tree as a graph
// with its links listed backwards.
func TestNS3Routes(t *testing.T) {
	ft, err := FatTree(4, l100)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := BuildLeafSpine(LeafSpine{Leaves: 3, Spines: 4, HostsPerLeaf: 2, UplinksPerLeaf: 4, HostLink: l100, FabricLink: l100})
	if err != nil {
		t.Fatal(err)
	}
	hosts, switches, links := graphOf(ft)
	slices.Reverse(links)
	g, err := Graph(hosts, switches, links)
	if err != nil {
		t.Fatal(err)
	}
	for name, tp := range map[string]*Topology{"fat-tree": ft, "leaf-spine": ls, "graph": g} {
		peer := make([][]int, len(tp.Nodes))
		for i, nd := range tp.Nodes {
			peer[i] = make([]int, nd.Ports)
		}
		for _, l := range tp.Links {
			peer[l.A][l.PA], peer[l.B][l.PB] = l.B, l.A
		}
		want := ns3NextHops(tp)
		got := tp.NS3Routes(nil)
		multi := 0
		for s, nd := range tp.Nodes {
			if nd.Kind != Switch {
				continue
			}
			for hid := range tp.Hosts {
				var hops []int
				for _, p := range got[s][hid] {
					hops = append(hops, peer[s][p])
				}
				if !slices.Equal(hops, want[s][hid]) {
					t.Errorf("%s: %s toward h%d: next hops %v, ns-3's %v", name, nd.Name, hid, hops, want[s][hid])
				}
				if len(hops) > 1 {
					multi++
				}
			}
		}
		if multi == 0 {
			t.Errorf("%s: no switch has a choice of next hops", name)
		}
	}
}
