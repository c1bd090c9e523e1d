package scenario

import (
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"rocelab/internal/topo"
	"rocelab/internal/unit"
)

// link converts a link's rate and cable, each default where left out.
func (c *conv) link(r *rawLink, path string, defRate unit.BitRate, defCable unit.Length) topo.LinkSpec {
	l := topo.LinkSpec{Rate: defRate, Cable: defCable}
	if r != nil {
		l.Rate = c.rate(r.Rate, path+".rate", defRate)
		l.Cable = c.length(r.Cable, path+".cable", defCable)
	}
	return l
}

// topology builds the topology, reporting a parameter that does not fit at
// its own position.
func (c *conv) topology(r *rawTopology) *topo.Topology {
	const maxCount = 1 << 20
	kind := c.choice(r.Kind, "topology.kind", "", "single-switch", "dumbbell", "leaf-spine", "fat-tree", "graph")
	if kind == "" {
		if _, ok := c.scalar(r.Kind, "topology.kind"); !ok {
			c.fail(r.Kind, "topology.kind", "missing: expected one of single-switch, dumbbell, leaf-spine, fat-tree, graph")
		}
		return nil
	}
	hostLink := c.link(r.HostLink, "topology.host_link", DefaultHostRate, DefaultHostCable)
	fabricLink := c.link(r.FabricLink, "topology.fabric_link", hostLink.Rate, DefaultFabricCable)
	nodes := map[string]ast.Node{
		"hosts": r.Hosts, "left": r.Left, "right": r.Right, "trunk_links": r.TrunkLinks,
		"leaves": r.Leaves, "spines": r.Spines, "hosts_per_leaf": r.HostsPerLeaf,
		"uplinks_per_leaf": r.UplinksPerLeaf, "k": r.K, "radix": r.Radix, "switches": r.Switches,
	}
	// The least each count may be, so that one message gives the range.
	least := map[string]int64{"hosts": 2, "k": 2}
	num := func(key string, def int64) int {
		return int(c.integer(nodes[key], "topology."+key, def, max(least[key], 1), maxCount))
	}
	// Keys that do not belong to the kind are a mistake worth reporting.
	allowed := map[string][]string{
		"single-switch": {"hosts"},
		"dumbbell":      {"left", "right", "trunk_links"},
		"leaf-spine":    {"leaves", "spines", "hosts_per_leaf", "uplinks_per_leaf", "radix"},
		"fat-tree":      {"k"},
		"graph":         {"hosts", "switches", "links"},
	}
	for _, key := range []string{"hosts", "left", "right", "trunk_links", "leaves", "spines", "hosts_per_leaf", "uplinks_per_leaf", "k", "radix", "switches"} {
		if Unwrap(nodes[key]) == nil || slices.Contains(allowed[kind], key) {
			continue
		}
		c.fail(nodes[key], "topology."+key, "does not apply to a %s topology (its keys: %s)", kind, strings.Join(allowed[kind], ", "))
	}
	if len(r.Links) > 0 && kind != "graph" {
		c.fail(r.Kind, "topology.links", "apply only to a graph topology")
	}
	if r.Oversubscription != nil && kind != "leaf-spine" {
		c.fail(r.Oversubscription, "topology.oversubscription", "applies only to a leaf-spine topology")
	}
	if r.Servers != nil && kind != "leaf-spine" {
		c.fail(r.Servers.NICs, "topology.servers", "GPU servers are modelled on a leaf-spine topology only%s", serversHint(kind, nodes))
	}
	if len(c.errs) > 0 {
		return nil
	}
	var t *topo.Topology
	var err error
	switch kind {
	case "single-switch":
		if n := int64(num("hosts", 2)); c.tooLarge(nodes["hosts"], kind, n, n) {
			return nil
		}
		t, err = topo.SingleSwitch(num("hosts", 2), hostLink)
	case "dumbbell":
		hosts := int64(num("left", 1)) + int64(num("right", 1))
		if c.tooLarge(r.Kind, kind, hosts, hosts+int64(num("trunk_links", 1))) {
			return nil
		}
		t, err = topo.Dumbbell(num("left", 1), num("right", 1), num("trunk_links", 1), hostLink, fabricLink)
	case "fat-tree":
		// k pods of k/2 edge and k/2 aggregation switches, (k/2)² cores:
		// k³/4 hosts, and k³/4 links in each of the three tiers.
		if k := int64(num("k", 4)); c.tooLarge(nodes["k"], kind, k*k*k/4, 3*k*k*k/4) {
			return nil
		}
		t, err = topo.FatTree(num("k", 4), hostLink)
	case "graph":
		if t, err = c.graph(r, nodes, num, hostLink, fabricLink); t == nil && err == nil {
			return nil
		}
	case "leaf-spine":
		spec := topo.LeafSpine{
			Leaves: num("leaves", 2), Spines: num("spines", 2), HostsPerLeaf: num("hosts_per_leaf", 4),
			HostLink: hostLink, FabricLink: fabricLink,
		}
		if r.Radix != nil {
			spec.Radix = num("radix", 0)
		}
		switch {
		case r.UplinksPerLeaf != nil && r.Oversubscription != nil:
			c.fail(r.Oversubscription, "topology.oversubscription", "give uplinks_per_leaf or oversubscription, not both")
		case r.UplinksPerLeaf != nil:
			spec.UplinksPerLeaf = num("uplinks_per_leaf", 0)
		default:
			over := c.float(r.Oversubscription, "topology.oversubscription", 1, 0.01, 1000)
			up := float64(int64(spec.HostsPerLeaf)*int64(hostLink.Rate)) / (over * float64(fabricLink.Rate))
			spec.UplinksPerLeaf = int(up + 0.5)
			if d := up - float64(spec.UplinksPerLeaf); d > 1e-9 || d < -1e-9 || spec.UplinksPerLeaf == 0 {
				node := r.Oversubscription
				if node == nil {
					node = r.HostsPerLeaf
				}
				c.fail(node, "topology.oversubscription", "%d hosts at %v over %v uplinks at %g:1 needs %.2f uplinks: not a whole number", spec.HostsPerLeaf, hostLink.Rate, fabricLink.Rate, over, up)
			}
			nodes["uplinks_per_leaf"] = r.Oversubscription
		}
		if r.Servers != nil {
			spec.NICsPerServer = int(c.integer(r.Servers.NICs, "topology.servers.nics", 1, 1, 64))
			spec.GPUsPerServer = int(c.integer(r.Servers.GPUs, "topology.servers.gpus", 8, 1, 64))
			spec.RailOptimized = c.boolean(r.Servers.RailOptimized, "topology.servers.rail_optimized", false)
			nodes["servers"] = r.Servers.NICs
		}
		if len(c.errs) > 0 {
			return nil
		}
		hosts := int64(spec.Leaves) * int64(spec.HostsPerLeaf)
		if c.tooLarge(nodes["leaves"], kind, hosts, hosts+int64(spec.Leaves)*int64(spec.UplinksPerLeaf)) {
			return nil
		}
		t, err = topo.BuildLeafSpine(spec)
	}
	if err != nil {
		if te, ok := err.(*topo.Error); ok {
			node := nodes[te.Field]
			if node == nil {
				node = r.Kind
			}
			c.fail(node, "topology."+te.Field, "%s", te.Msg)
		} else {
			c.fail(r.Kind, "topology", "%v", err)
		}
		return nil
	}
	return t
}

// serversHint says how to write GPU servers behind one switch, the case an
// engineer most often means by a single-switch topology with servers: a
// leaf-spine of one leaf whose one spine carries no traffic.
func serversHint(kind string, nodes map[string]ast.Node) string {
	if kind != "single-switch" {
		return ""
	}
	hosts := "N"
	if n, ok := Unwrap(nodes["hosts"]).(*ast.IntegerNode); ok {
		hosts = n.GetToken().Value
	}
	return "; for servers behind one switch write kind: leaf-spine, leaves: 1, spines: 1, hosts_per_leaf: " + hosts + ", uplinks_per_leaf: 1 (the spine carries no traffic)"
}
