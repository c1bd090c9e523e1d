package fabric

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"rocelab/internal/packet"
	"rocelab/internal/topo"
	"rocelab/internal/unit"
)

// checkRoutes fails unless a switch routed by want sends a packet toward
// each host, by its index and by its search, to the host's one candidate
// or to one of its candidates, allocating nothing, and its table's
// lookups are want.
func checkRoutes(t *testing.T, name string, want [][]int16) {
	t.Helper()
	ports := 1
	for _, c := range want {
		for _, p := range c {
			ports = max(ports, int(p)+1)
		}
	}
	net := NewNetwork(1, 1)
	sw := net.NewSwitch(net.Domains[0], name, ports, SwitchConfig{})
	sw.SetRoutes(want)
	indexed := sw.routes
	for _, how := range []string{"indexed", "searched"} {
		if how == "searched" {
			sw.routes.at = nil
		}
		for h := range want {
			got, ok := sw.route(&packet.Packet{Dst: int32(h)})
			if lookup := sw.routes.lookup(int32(h)); !slices.Equal(lookup, want[h]) && len(lookup)+len(want[h]) > 0 {
				t.Fatalf("%s host %d: %s lookup %v, want %v (%d runs)", name, h, how, lookup, want[h], len(indexed.runs))
			}
			port := -1
			for i := range sw.port {
				if got == &sw.port[i] {
					port = i
				}
			}
			if ok != (len(want[h]) > 0) || ok && !slices.Contains(want[h], int16(port)) {
				t.Fatalf("%s host %d: %s route to port %d (%v), want one of %v (%d runs)", name, h, how, port, ok, want[h], len(indexed.runs))
			}
		}
		var p packet.Packet
		if a := testing.AllocsPerRun(1, func() {
			for h := range want {
				p.Dst = int32(h)
				sw.route(&p)
			}
		}); a != 0 {
			t.Fatalf("%s: %s routes allocate %v times", name, how, a)
		}
	}
}

// The route tables of every topology builder, of graphs of no tree and
// of fabrics with links down answer as the routes they were built from.
func TestRouteTableTopologies(t *testing.T) {
	l := topo.LinkSpec{Rate: 100 * unit.Gbps}
	var tops []*topo.Topology
	add := func(tp *topo.Topology, err error) {
		if err != nil {
			t.Fatal(err)
		}
		tops = append(tops, tp)
	}
	for _, k := range []int{4, 6, 8, 12} {
		add(topo.FatTree(k, l))
	}
	for _, c := range []topo.LeafSpine{
		{Leaves: 5, Spines: 3, HostsPerLeaf: 7, UplinksPerLeaf: 6},
		{Leaves: 1, Spines: 1, HostsPerLeaf: 13, UplinksPerLeaf: 1},
		{Leaves: 33, Spines: 2, HostsPerLeaf: 9, UplinksPerLeaf: 4},
		{Leaves: 8, Spines: 4, HostsPerLeaf: 6, UplinksPerLeaf: 4, NICsPerServer: 4, GPUsPerServer: 8, RailOptimized: true},
		{Leaves: 16, Spines: 2, HostsPerLeaf: 40, UplinksPerLeaf: 2, NICsPerServer: 8, GPUsPerServer: 8, RailOptimized: true},
		{Leaves: 6, Spines: 2, HostsPerLeaf: 8, UplinksPerLeaf: 2, NICsPerServer: 2, GPUsPerServer: 8},
	} {
		c.HostLink, c.FabricLink = l, l
		add(topo.BuildLeafSpine(c))
	}
	add(topo.Dumbbell(3, 5, 2, l, l))
	add(topo.SingleSwitch(7, l))
	// A dragonfly: groups of a switches wired all to all, hosts p a
	// switch, one global link between every two groups.
	const groups, a, p = 5, 4, 3
	var links []topo.GraphLink
	for s := range groups * a {
		for i := range p {
			links = append(links, topo.GraphLink{A: fmt.Sprintf("h%d", s*p+i), B: fmt.Sprintf("s%d", s), Count: 1, LinkSpec: l})
		}
		for o := s + 1; o < (s/a+1)*a; o++ {
			links = append(links, topo.GraphLink{A: fmt.Sprintf("s%d", s), B: fmt.Sprintf("s%d", o), Count: 1, LinkSpec: l})
		}
	}
	for g := range groups {
		for o := g + 1; o < groups; o++ {
			links = append(links, topo.GraphLink{A: fmt.Sprintf("s%d", g*a+(o-1)%a), B: fmt.Sprintf("s%d", o*a+g%a), Count: 1, LinkSpec: l})
		}
	}
	add(topo.Graph(groups*a*p, groups*a, links))
	rnd := rand.New(rand.NewPCG(7, 8))
	for i, tp := range tops {
		down := make([]bool, len(tp.Links))
		for j := range down {
			down[j] = rnd.IntN(12) == 0
		}
		for how, routes := range map[string][][][]int16{"routes": tp.Routes(), "ns3": tp.NS3Routes(nil), "links down": tp.RoutesAvoiding(down)} {
			for n, r := range routes {
				if tp.Nodes[n].Kind == topo.Switch {
					checkRoutes(t, fmt.Sprintf("%d %s %s %s", i, tp.Kind, how, tp.Nodes[n].Name), r)
				}
			}
		}
	}
}

// Random tables of racks of irregular widths, a port each, with a last
// rack cut short, hosts of no route and lists of several candidates
// between them answer as their hosts.
func TestRouteTableStridedRandom(t *testing.T) {
	rnd := rand.New(rand.NewPCG(9, 10))
	for trial := range 1000 {
		hosts := 1 + rnd.IntN(600)
		if trial%10 == 0 {
			hosts += directHosts - 300
		}
		want := make([][]int16, hosts)
		for h := 0; h < hosts; {
			w := 1 + rnd.IntN(5)
			switch rnd.IntN(4) {
			case 0:
				h += w // no route
			case 1:
				c := []int16{int16(rnd.IntN(4)), int16(4 + rnd.IntN(4))}
				for i := 0; i < w && h < hosts; i, h = i+1, h+1 {
					want[h] = c
				}
			default:
				port := int16(rnd.IntN(8))
				for rack := 1 + rnd.IntN(12); rack > 0 && h < hosts; rack-- {
					c := []int16{port}
					for i := 0; i < w && h < hosts; i, h = i+1, h+1 {
						want[h] = c
					}
					port = int16((int(port) + 1 + rnd.IntN(2)) % 8)
					if rnd.IntN(8) == 0 {
						w = 1 + rnd.IntN(5)
					}
				}
			}
		}
		checkRoutes(t, fmt.Sprintf("trial %d", trial), want)
	}
}
