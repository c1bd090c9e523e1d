package topo

import (
	"testing"

	"rocelab/internal/unit"
)

var l100 = LinkSpec{Rate: 100 * unit.Gbps, Cable: 3 * unit.Metre}

func TestLeafSpineShape(t *testing.T) {
	tp, err := BuildLeafSpine(LeafSpine{Leaves: 8, Spines: 4, HostsPerLeaf: 16, UplinksPerLeaf: 8, HostLink: l100, FabricLink: LinkSpec{Rate: 200 * unit.Gbps}})
	if err != nil {
		t.Fatal(err)
	}
	if len(tp.Hosts) != 128 || tp.Oversubscription != 1 {
		t.Fatalf("hosts %d oversub %v", len(tp.Hosts), tp.Oversubscription)
	}
	r := tp.Routes()
	leaf0 := 0
	// leaf0 to a host on leaf1: all 8 uplinks; to its own host: one port.
	if got := len(r[leaf0][20]); got != 8 {
		t.Errorf("leaf0 -> h20 candidates %d, want 8", got)
	}
	if got := r[leaf0][3]; len(got) != 1 {
		t.Errorf("leaf0 -> h3 candidates %v", got)
	}
	spine0 := 8
	if got := len(r[spine0][20]); got != 2 {
		t.Errorf("spine0 -> h20 candidates %d, want 2 (2 links per leaf-spine pair)", got)
	}
}

func TestLeafSpineErrors(t *testing.T) {
	for _, c := range []struct {
		spec  LeafSpine
		field string
	}{
		{LeafSpine{Leaves: 2, Spines: 3, HostsPerLeaf: 4, UplinksPerLeaf: 4}, "uplinks_per_leaf"},
		{LeafSpine{Leaves: 2, Spines: 2, HostsPerLeaf: 60, UplinksPerLeaf: 8, Radix: 64}, "hosts_per_leaf"},
		{LeafSpine{Leaves: 40, Spines: 2, HostsPerLeaf: 4, UplinksPerLeaf: 4, Radix: 64}, "leaves"},
		{LeafSpine{Leaves: 3, Spines: 2, HostsPerLeaf: 4, UplinksPerLeaf: 2, NICsPerServer: 2, RailOptimized: true}, "leaves"},
	} {
		_, err := BuildLeafSpine(c.spec)
		e, ok := err.(*Error)
		if !ok || e.Field != c.field {
			t.Errorf("%+v: err %v, want field %s", c.spec, err, c.field)
		}
	}
}

func TestRailOptimised(t *testing.T) {
	tp, err := BuildLeafSpine(LeafSpine{Leaves: 8, Spines: 2, HostsPerLeaf: 4, UplinksPerLeaf: 2, HostLink: l100, FabricLink: l100, NICsPerServer: 8, GPUsPerServer: 8, RailOptimized: true})
	if err != nil {
		t.Fatal(err)
	}
	if tp.Servers != 4 || tp.GPUsPerServer != 8 || tp.NICsPerServer != 8 {
		t.Errorf("servers %d × %d GPUs, %d NICs", tp.Servers, tp.GPUsPerServer, tp.NICsPerServer)
	}
	// 4 servers of 8 NICs; NIC i of every server is on leaf i.
	for hid, n := range tp.Hosts {
		node := tp.Nodes[n]
		leaf := -1
		for _, l := range tp.Links {
			if l.A == n {
				leaf = l.B
			}
		}
		if want := node.NIC; leaf != want {
			t.Fatalf("h%d (server %d nic %d) on leaf %d, want %d", hid, node.Server, node.NIC, leaf, want)
		}
	}
}

func TestFatTree(t *testing.T) {
	tp, err := FatTree(4, l100)
	if err != nil {
		t.Fatal(err)
	}
	if len(tp.Hosts) != 16 || tp.Radix != 4 {
		t.Fatalf("k=4: %d hosts radix %d", len(tp.Hosts), tp.Radix)
	}
	r := tp.Routes()
	// An edge switch has k/2 = 2 uplinks toward a host in another pod.
	var edge int
	for i, n := range tp.Nodes {
		if n.Name == "edge0_0" {
			edge = i
		}
	}
	if got := len(r[edge][15]); got != 2 {
		t.Errorf("edge0_0 -> h15 candidates %d, want 2", got)
	}
	if _, err := FatTree(5, l100); err == nil {
		t.Error("odd k accepted")
	}
}
