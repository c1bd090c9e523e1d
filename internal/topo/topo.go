// Package topo builds fabric topologies as plain descriptions: nodes, links
// and shortest-path ECMP next hops. It knows nothing of the simulator; the
// scenario package turns a Topology into a running fabric.
//
// Builders: a single switch, a dumbbell, a two-tier leaf-spine (with
// oversubscription and optional rail-optimised GPU servers), a
// three-tier k-ary fat-tree, and a graph of listed links.
package topo

import (
	"fmt"
	"strconv"

	"rocelab/internal/unit"
)

// Kind is a node's role.
type Kind uint8

// Node kinds.
const (
	Host Kind = iota
	Switch
)

// LinkSpec is a link's rate and cable length.
type LinkSpec struct {
	Rate  unit.BitRate
	Cable unit.Length
}

// A Node is a host (one NIC port) or a switch.
type Node struct {
	Name string
	Kind Kind
	// Tier is 0 for hosts, 1 for leaf/ToR/edge, 2 for spine/aggregation,
	// 3 for core.
	Tier int
	// Ports is the number of ports in use.
	Ports int
	// Server and NIC place a host on a GPU server (-1 when not modelled).
	Server, NIC int
}

// A Link joins port PA of node A with port PB of node B.
type Link struct {
	A, PA, B, PB int
	LinkSpec
	// Uplink marks a link from a lower tier to a higher one between
	// switches, for ECMP load reports.
	Uplink bool
}

// Topology is a built fabric description.
type Topology struct {
	Kind  string
	Nodes []Node
	Links []Link
	// Hosts lists host node indices in host-id order.
	Hosts []int
	// Radix is the largest port count of any switch.
	Radix int
	// Oversubscription is host bandwidth over uplink bandwidth at the
	// first tier (1 when non-blocking, 0 when not applicable).
	Oversubscription float64
	// Servers, GPUsPerServer and NICsPerServer describe the GPU servers the
	// hosts belong to (zero when servers are not modelled); RailOptimized
	// says NIC i of every server sits on leaf i of its group.
	Servers, GPUsPerServer, NICsPerServer int
	RailOptimized                         bool
}

// Ports returns the ports of every node, hosts' and switches'.
func (t *Topology) Ports() int {
	n := 0
	for _, nd := range t.Nodes {
		n += nd.Ports
	}
	return n
}

func (t *Topology) addNode(n Node) int {
	t.Nodes = append(t.Nodes, n)
	i := len(t.Nodes) - 1
	if n.Kind == Host {
		t.Hosts = append(t.Hosts, i)
	}
	return i
}

func (t *Topology) link(a, b int, s LinkSpec, uplink bool) {
	pa, pb := t.Nodes[a].Ports, t.Nodes[b].Ports
	t.Nodes[a].Ports++
	t.Nodes[b].Ports++
	t.Links = append(t.Links, Link{A: a, PA: pa, B: b, PB: pb, LinkSpec: s, Uplink: uplink})
	for _, n := range []int{a, b} {
		if t.Nodes[n].Kind == Switch && t.Nodes[n].Ports > t.Radix {
			t.Radix = t.Nodes[n].Ports
		}
	}
}

func host(name string) Node { return Node{Name: name, Kind: Host, Server: -1, NIC: -1} }

// An Error says which topology parameter does not fit.
type Error struct {
	// Field is the parameter at fault, e.g. "uplinks_per_leaf".
	Field string
	Msg   string
}

// Error implements error.
func (e *Error) Error() string { return e.Field + ": " + e.Msg }

// SingleSwitch puts n hosts on one switch.
func SingleSwitch(n int, l LinkSpec) (*Topology, error) {
	if n < 2 {
		return nil, &Error{"hosts", fmt.Sprintf("need at least 2 hosts, got %d", n)}
	}
	t := &Topology{Kind: "single-switch"}
	sw := t.addNode(Node{Name: "sw0", Kind: Switch, Tier: 1, Server: -1, NIC: -1})
	for i := 0; i < n; i++ {
		h := t.addNode(host("h" + strconv.Itoa(i)))
		t.link(h, sw, l, false)
	}
	return t, nil
}

// Dumbbell puts left hosts on switch "left" and right hosts on switch
// "right", joined by trunk parallel links.
func Dumbbell(left, right, trunk int, hostLink, trunkLink LinkSpec) (*Topology, error) {
	if left < 1 || right < 1 {
		return nil, &Error{"hosts", "each side needs at least one host"}
	}
	if trunk < 1 {
		return nil, &Error{"trunk_links", fmt.Sprintf("need at least 1 link between the switches, got %d", trunk)}
	}
	t := &Topology{Kind: "dumbbell"}
	l := t.addNode(Node{Name: "left", Kind: Switch, Tier: 1, Server: -1, NIC: -1})
	r := t.addNode(Node{Name: "right", Kind: Switch, Tier: 1, Server: -1, NIC: -1})
	for i := 0; i < left+right; i++ {
		h := t.addNode(host("h" + strconv.Itoa(i)))
		if i < left {
			t.link(h, l, hostLink, false)
		} else {
			t.link(h, r, hostLink, false)
		}
	}
	for i := 0; i < trunk; i++ {
		t.link(l, r, trunkLink, true)
	}
	t.Oversubscription = float64(int64(left)*int64(hostLink.Rate)) / float64(int64(trunk)*int64(trunkLink.Rate))
	return t, nil
}

// LeafSpine describes a two-tier Clos.
type LeafSpine struct {
	Leaves, Spines, HostsPerLeaf int
	// UplinksPerLeaf is spread evenly over the spines; it must be a
	// multiple of Spines.
	UplinksPerLeaf int
	HostLink       LinkSpec
	FabricLink     LinkSpec
	// Radix, when set, is the switch port count that everything must fit.
	Radix int
	// Servers, when set, groups hosts into GPU servers of NICs hosts each;
	// RailOptimized wires NIC i of every server to leaf i of its group.
	NICsPerServer int
	GPUsPerServer int
	RailOptimized bool
}

// BuildLeafSpine builds a leaf-spine fabric.
func BuildLeafSpine(c LeafSpine) (*Topology, error) {
	switch {
	case c.Leaves < 1:
		return nil, &Error{"leaves", fmt.Sprintf("need at least 1 leaf, got %d", c.Leaves)}
	case c.Spines < 1:
		return nil, &Error{"spines", fmt.Sprintf("need at least 1 spine, got %d", c.Spines)}
	case c.HostsPerLeaf < 1:
		return nil, &Error{"hosts_per_leaf", fmt.Sprintf("need at least 1 host per leaf, got %d", c.HostsPerLeaf)}
	case c.UplinksPerLeaf < c.Spines || c.UplinksPerLeaf%c.Spines != 0:
		return nil, &Error{"uplinks_per_leaf", fmt.Sprintf("%d uplinks cannot be spread evenly over %d spines: use a multiple of %d", c.UplinksPerLeaf, c.Spines, c.Spines)}
	}
	if c.Radix > 0 {
		if n := c.HostsPerLeaf + c.UplinksPerLeaf; n > c.Radix {
			return nil, &Error{"hosts_per_leaf", fmt.Sprintf("a leaf needs %d host + %d uplink ports = %d, more than the switch radix %d", c.HostsPerLeaf, c.UplinksPerLeaf, n, c.Radix)}
		}
		if n := c.Leaves * c.UplinksPerLeaf / c.Spines; n > c.Radix {
			return nil, &Error{"leaves", fmt.Sprintf("a spine needs %d ports (%d leaves × %d links), more than the switch radix %d", n, c.Leaves, c.UplinksPerLeaf/c.Spines, c.Radix)}
		}
	}
	nics := c.NICsPerServer
	if nics > 0 && c.RailOptimized && c.Leaves%nics != 0 {
		return nil, &Error{"leaves", fmt.Sprintf("rail-optimised wiring of %d-NIC servers needs a multiple of %d leaves, got %d", nics, nics, c.Leaves)}
	}
	if nics > 0 && !c.RailOptimized && c.HostsPerLeaf%nics != 0 {
		return nil, &Error{"hosts_per_leaf", fmt.Sprintf("%d-NIC servers do not fit %d host ports per leaf: use a multiple of %d", nics, c.HostsPerLeaf, nics)}
	}
	t := &Topology{Kind: "leaf-spine"}
	leaves := make([]int, c.Leaves)
	for i := range leaves {
		leaves[i] = t.addNode(Node{Name: "leaf" + strconv.Itoa(i), Kind: Switch, Tier: 1, Server: -1, NIC: -1})
	}
	spines := make([]int, c.Spines)
	for i := range spines {
		spines[i] = t.addNode(Node{Name: "spine" + strconv.Itoa(i), Kind: Switch, Tier: 2, Server: -1, NIC: -1})
	}
	nh := c.Leaves * c.HostsPerLeaf
	for i := 0; i < nh; i++ {
		n := host("h" + strconv.Itoa(i))
		leaf := i / c.HostsPerLeaf
		if nics > 0 {
			n.Server, n.NIC = i/nics, i%nics
			if c.RailOptimized {
				// Servers fill rail groups of Leaves/nics... each group is
				// nics leaves, HostsPerLeaf servers wide.
				group := n.Server / c.HostsPerLeaf
				leaf = group*nics + n.NIC
			}
		}
		h := t.addNode(n)
		t.link(h, leaves[leaf], c.HostLink, false)
	}
	per := c.UplinksPerLeaf / c.Spines
	for _, l := range leaves {
		for _, s := range spines {
			for k := 0; k < per; k++ {
				t.link(l, s, c.FabricLink, true)
			}
		}
	}
	t.Oversubscription = float64(int64(c.HostsPerLeaf)*int64(c.HostLink.Rate)) / float64(int64(c.UplinksPerLeaf)*int64(c.FabricLink.Rate))
	if nics > 0 {
		t.Servers, t.NICsPerServer, t.GPUsPerServer, t.RailOptimized = nh/nics, nics, c.GPUsPerServer, c.RailOptimized
	}
	return t, nil
}

// FatTree builds a three-tier k-ary fat-tree (Al-Fares et al.): k pods of
// k/2 edge and k/2 aggregation switches, (k/2)² cores, k³/4 hosts, all
// links alike.
func FatTree(k int, l LinkSpec) (*Topology, error) {
	if k < 2 || k%2 != 0 {
		return nil, &Error{"k", fmt.Sprintf("k must be even and at least 2, got %d", k)}
	}
	t := &Topology{Kind: "fat-tree", Oversubscription: 1}
	h := k / 2
	cores := make([]int, h*h)
	for i := range cores {
		cores[i] = t.addNode(Node{Name: "core" + strconv.Itoa(i), Kind: Switch, Tier: 3, Server: -1, NIC: -1})
	}
	hostID := 0
	for p := 0; p < k; p++ {
		aggs := make([]int, h)
		for a := range aggs {
			aggs[a] = t.addNode(Node{Name: "agg" + strconv.Itoa(p) + "_" + strconv.Itoa(a), Kind: Switch, Tier: 2, Server: -1, NIC: -1})
		}
		for e := 0; e < h; e++ {
			edge := t.addNode(Node{Name: "edge" + strconv.Itoa(p) + "_" + strconv.Itoa(e), Kind: Switch, Tier: 1, Server: -1, NIC: -1})
			for i := 0; i < h; i++ {
				hn := t.addNode(host("h" + strconv.Itoa(hostID)))
				hostID++
				t.link(hn, edge, l, false)
			}
			for _, a := range aggs {
				t.link(edge, a, l, true)
			}
		}
		for a, agg := range aggs {
			for c := 0; c < h; c++ {
				t.link(agg, cores[a*h+c], l, true)
			}
		}
	}
	return t, nil
}
