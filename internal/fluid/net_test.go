package fluid

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"
	"unsafe"

	"rocelab/internal/ecmp"
	"rocelab/internal/topo"
	"rocelab/internal/unit"
)

// The network keeps each switch's row as runs as topo.SwitchRoutes gives
// it: every switch answers, toward every host, what the whole table says
// (topo.Routes, or NS3Routes under ns-3's ECMP), order included, on the
// builders' fabrics and random graphs; a host node answers nothing.
func TestNetworkRoutes(t *testing.T) {
	l100 := topo.LinkSpec{Rate: 100 * unit.Gbps, Cable: 2 * unit.Metre}
	var tops []*topo.Topology
	add := func(tp *topo.Topology, err error) {
		if err != nil {
			t.Fatal(err)
		}
		tops = append(tops, tp)
	}
	add(topo.FatTree(4, l100))
	add(topo.FatTree(8, l100))
	add(topo.BuildLeafSpine(topo.LeafSpine{Leaves: 4, Spines: 2, HostsPerLeaf: 8, UplinksPerLeaf: 4, NICsPerServer: 4, GPUsPerServer: 8, RailOptimized: true, HostLink: l100, FabricLink: l100}))
	rnd := rand.New(rand.NewPCG(7, 8))
	for range 10 {
		// Switches in a random tree with chords, hosts on random ones.
		nh, ns := 2+rnd.IntN(20), 2+rnd.IntN(8)
		sw := func(i int) string { return fmt.Sprintf("s%d", i) }
		var links []topo.GraphLink
		for s := 1; s < ns; s++ {
			links = append(links, topo.GraphLink{A: sw(rnd.IntN(s)), B: sw(s), Count: 1 + rnd.IntN(3), LinkSpec: l100})
		}
		for range ns {
			if a, b := rnd.IntN(ns), rnd.IntN(ns); a != b {
				links = append(links, topo.GraphLink{A: sw(a), B: sw(b), Count: 1, LinkSpec: l100})
			}
		}
		for h := range nh {
			links = append(links, topo.GraphLink{A: fmt.Sprintf("h%d", h), B: sw(rnd.IntN(ns)), Count: 1, LinkSpec: l100})
		}
		add(topo.Graph(nh, ns, links))
	}
	for i, tp := range tops {
		for _, ns3 := range []bool{false, true} {
			c := config(tp)
			whole := tp.Routes()
			if ns3 {
				c.NS3, whole = &ecmp.NS3{DstPort: 100}, tp.NS3Routes(nil)
			}
			n, err := newNetwork(c)
			if err != nil {
				t.Fatal(err)
			}
			for node := range tp.Nodes {
				for h := range tp.Hosts {
					var want []int16
					if tp.Nodes[node].Kind == topo.Switch {
						want = whole[node][h]
					}
					if got := n.routes[node].To(h); !reflect.DeepEqual(got, want) {
						t.Errorf("%d %s ns3 %v: %s toward h%d: %v, want %v", i, tp.Kind, ns3, tp.Nodes[node].Name, h, got, want)
					}
				}
			}
		}
	}
}

// The network's routes never take the whole table: on a k=16 fat-tree
// (320 switches, 1024 hosts) the build allocates, besides its directed
// links (456 bytes each, 2.8 MB), less than a third of the table's slice
// header per (switch, host) pair (the table: 7.9 MB): the searches'
// distances and lists, one row at a time, and each switch's row kept in
// a few runs.
func TestNetworkRoutesMemory(t *testing.T) {
	tp, err := topo.FatTree(16, topo.LinkSpec{Rate: 100 * unit.Gbps, Cable: 2 * unit.Metre})
	if err != nil {
		t.Fatal(err)
	}
	pairs := uint64(len(tp.Nodes)-len(tp.Hosts)) * uint64(len(tp.Hosts))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n, err := newNetwork(config(tp))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	links := uint64(len(n.links)) * uint64(unsafe.Sizeof(n.links[0]))
	if got := after.TotalAlloc - before.TotalAlloc - links; got > 8*pairs {
		t.Errorf("newNetwork allocated %d bytes besides its links on %d (switch, host) pairs, want under %d", got, pairs, 8*pairs)
	}
}
