package topo

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"rocelab/internal/unit"
)

// graphOf lists t's links as a graph's, its switches renamed s0.. in
// node order.
func graphOf(t *Topology) (hosts, switches int, links []GraphLink) {
	name := map[int]string{}
	for i, n := range t.Nodes {
		if n.Kind == Switch {
			name[i] = fmt.Sprintf("s%d", switches)
			switches++
		}
	}
	for h, n := range t.Hosts {
		name[n] = fmt.Sprintf("h%d", h)
	}
	for _, l := range t.Links {
		links = append(links, GraphLink{A: name[l.A], B: name[l.B], Count: 1, LinkSpec: l.LinkSpec})
	}
	return len(t.Hosts), switches, links
}

// A leaf-spine written out as a graph is the same fabric: the same
// links, ports, tiers, uplinks, oversubscription and ECMP routes.
func TestGraphIsLeafSpine(t *testing.T) {
	ls, err := BuildLeafSpine(LeafSpine{Leaves: 4, Spines: 2, HostsPerLeaf: 6, UplinksPerLeaf: 4, HostLink: l100, FabricLink: LinkSpec{Rate: 200 * unit.Gbps, Cable: 10 * unit.Metre}})
	if err != nil {
		t.Fatal(err)
	}
	g, err := Graph(graphOf(ls))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g.Links, ls.Links) {
		t.Errorf("links differ:\n%v\n%v", g.Links, ls.Links)
	}
	for i := range ls.Nodes {
		if g.Nodes[i].Tier != ls.Nodes[i].Tier || g.Nodes[i].Ports != ls.Nodes[i].Ports || g.Nodes[i].Kind != ls.Nodes[i].Kind {
			t.Errorf("node %d: %+v, leaf-spine's %+v", i, g.Nodes[i], ls.Nodes[i])
		}
	}
	if !reflect.DeepEqual(g.Hosts, ls.Hosts) || g.Oversubscription != ls.Oversubscription || g.Radix != ls.Radix {
		t.Errorf("hosts %v oversubscription %v radix %d, leaf-spine's %v %v %d", g.Hosts, g.Oversubscription, g.Radix, ls.Hosts, ls.Oversubscription, ls.Radix)
	}
	if !reflect.DeepEqual(g.Routes(), ls.Routes()) {
		t.Error("routes differ")
	}
}

// A fat-tree's switches come in tiers 1-3 by their distance from the
// hosts, whatever order the links are listed in; parallel links are one
// entry with a count.
func TestGraphTiers(t *testing.T) {
	ft, err := FatTree(4, l100)
	if err != nil {
		t.Fatal(err)
	}
	hosts, switches, links := graphOf(ft)
	for i, j := 0, len(links)-1; i < j; i, j = i+1, j-1 {
		links[i], links[j] = links[j], links[i]
	}
	g, err := Graph(hosts, switches, links)
	if err != nil {
		t.Fatal(err)
	}
	sw := 0
	for _, n := range ft.Nodes {
		if n.Kind != Switch {
			continue
		}
		if g.Nodes[sw].Tier != n.Tier {
			t.Errorf("%s (s%d): tier %d, fat-tree's %d", n.Name, sw, g.Nodes[sw].Tier, n.Tier)
		}
		sw++
	}
	ups := 0
	for _, l := range g.Links {
		if l.Uplink {
			ups++
			if g.Nodes[l.A].Tier >= g.Nodes[l.B].Tier {
				t.Errorf("uplink from tier %d to %d", g.Nodes[l.A].Tier, g.Nodes[l.B].Tier)
			}
		}
	}
	if ups != 32 {
		t.Errorf("%d uplinks, expected 32 (16 edge-aggregation, 16 aggregation-core)", ups)
	}
	d, err := Graph(2, 2, []GraphLink{{A: "h0", B: "s0", Count: 1, LinkSpec: l100}, {A: "h1", B: "s1", Count: 1, LinkSpec: l100}, {A: "s1", B: "s0", Count: 3, LinkSpec: l100}})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Links) != 5 || len(d.Routes()[0][1]) != 3 || d.Nodes[0].Ports != 4 {
		t.Errorf("3 parallel links: %d links, %d candidates, %d ports", len(d.Links), len(d.Routes()[0][1]), d.Nodes[0].Ports)
	}
}

func TestGraphErrors(t *testing.T) {
	h := func(a, b string) GraphLink { return GraphLink{A: a, B: b, Count: 1, LinkSpec: l100} }
	base := []GraphLink{h("h0", "s0"), h("h1", "s1"), h("s0", "s1")}
	for _, c := range []struct {
		name            string
		hosts, switches int
		links           []GraphLink
		field, msg      string
	}{
		{"unknown node", 2, 2, append(base, h("s0", "x1")), "links[3]", `"x1": expected a host`},
		{"no such switch", 2, 2, append(base, h("s0", "s2")), "links[3]", "the switches are s0..s1"},
		{"no such host", 2, 2, append(base, h("h2", "s1")), "links[3]", "the hosts are h0..h1"},
		{"padded", 2, 2, append(base, h("s01", "s1")), "links[3]", `"s01"`},
		{"self", 2, 2, append(base, h("s1", "s1")), "links[3]", "s1 to itself"},
		{"host to host", 3, 2, append(base, h("h2", "h0")), "links[3]", "hosts connect through switches"},
		{"two host links", 2, 2, append(base, h("h0", "s1")), "links[3]", "h0 has more than one link"},
		{"host link count", 2, 2, []GraphLink{h("h0", "s0"), {A: "h1", B: "s0", Count: 2, LinkSpec: l100}}, "links[1]", "h1 has more than one link"},
		{"zero count", 2, 2, append(base, GraphLink{A: "s0", B: "s1", LinkSpec: l100}), "links[3]", "count 0"},
		{"hostless", 3, 2, base, "links", "h2 has no link"},
		{"apart", 2, 3, []GraphLink{h("h0", "s0"), h("h1", "s1"), h("s1", "s2")}, "links", "s1, s2, h1 cannot reach h0"},
		{"stray switch", 2, 3, base, "links", "s2 cannot reach h0"},
		{"one host", 1, 1, nil, "hosts", "at least 2 hosts"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Graph(c.hosts, c.switches, c.links)
			e, ok := err.(*Error)
			if !ok || e.Field != c.field || !strings.Contains(e.Msg, c.msg) {
				t.Errorf("error %v, expected %s: ...%s...", err, c.field, c.msg)
			}
		})
	}
}
