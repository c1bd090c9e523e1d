package scenario

import (
	"fmt"
	"strings"

	"rocelab/internal/topo"

	"github.com/goccy/go-yaml/ast"
)

// rawGraphLink is one entry of a graph topology's links.
type rawGraphLink struct {
	A     ast.Node `yaml:"a"`
	B     ast.Node `yaml:"b"`
	Rate  ast.Node `yaml:"rate"`
	Cable ast.Node `yaml:"cable"`
	Count ast.Node `yaml:"count"`
}

// graph builds a graph topology: hosts h0.., switches s0.. and the links
// listed, each a host link (host_link's rate and cable unless it gives
// its own) or a fabric link (fabric_link's). nodes gets each link's
// position, for the builder's errors about it.
func (c *conv) graph(r *rawTopology, nodes map[string]ast.Node, num func(string, int64) int, hostLink, fabricLink topo.LinkSpec) (*topo.Topology, error) {
	if len(r.Links) == 0 {
		c.fail(r.Kind, "topology.links", "missing: a graph lists its links, e.g. [{a: h0, b: s0}, {a: s0, b: s1, rate: 400G, count: 2}]")
		return nil, nil
	}
	hosts, switches := num("hosts", 2), num("switches", 1)
	links := make([]topo.GraphLink, len(r.Links))
	for i, l := range r.Links {
		path := fmt.Sprintf("topology.links[%d]", i)
		if l == nil {
			c.fail(r.Kind, path, "empty: expected {a: NODE, b: NODE}")
			continue
		}
		a, okA := c.scalar(l.A, path+".a")
		b, okB := c.scalar(l.B, path+".b")
		if !okA || !okB {
			at := l.A
			if at == nil {
				at = l.B
			}
			c.fail(at, path, "expected both ends, a and b (a host h0.. or a switch s0..)")
			continue
		}
		def := fabricLink
		if strings.HasPrefix(a, "h") || strings.HasPrefix(b, "h") {
			def = hostLink
		}
		nodes[fmt.Sprintf("links[%d]", i)] = l.A
		links[i] = topo.GraphLink{A: a, B: b, Count: int(c.integer(l.Count, path+".count", 1, 1, 1024)),
			LinkSpec: c.link(&rawLink{Rate: l.Rate, Cable: l.Cable}, path, def.Rate, def.Cable)}
	}
	if len(c.errs) > 0 {
		return nil, nil
	}
	total := int64(0)
	for _, l := range links {
		total += int64(l.Count)
	}
	if c.tooLarge(r.Kind, "graph", int64(hosts), total) {
		return nil, nil
	}
	return topo.Graph(hosts, switches, links)
}
