package scenario

import (
	"slices"
	"testing"

	"rocelab/internal/fabric"
)

// Build folds each switch's candidates into its table while
// topo.SwitchRoutes overwrites one row for the next switch: every built
// switch must still answer, toward every host, what the topology's whole
// table (RoutesAvoiding, or NS3Routes under ns-3's ECMP) says, in order.
// A switch that kept the row, a row folded into the wrong switch, or the
// other order would answer otherwise.
func TestBuildSwitchRoutes(t *testing.T) {
	for _, c := range []struct{ name, text string }{
		{"fat-tree", `
topology: {kind: fat-tree, k: 4}
traffic: {flows: [{src: h0, dst: h15, bytes: 1MiB}]}`},
		{"fat-tree ns3", `
topology: {kind: fat-tree, k: 4}
switch: {ecmp: {model: ns3}}
traffic: {flows: [{src: h0, dst: h15, bytes: 1MiB}]}`},
		{"leaf-spine", `
topology: {kind: leaf-spine, leaves: 4, spines: 3, hosts_per_leaf: 3, uplinks_per_leaf: 6}
traffic: {flows: [{src: h0, dst: h11, bytes: 1MiB}]}`},
	} {
		s := mustLoad(t, c.name, c.text)
		tw, err := Build(s)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want := s.Topo.RoutesAvoiding(nil)
		if s.Switch.NS3 {
			want = s.Topo.NS3Routes(nil)
		}
		switches, multi := 0, 0
		for n, nd := range tw.Nodes {
			sw, ok := nd.(*fabric.Switch)
			if !ok {
				continue
			}
			switches++
			for dst := range s.Topo.Hosts {
				got := sw.Route(dst)
				if !slices.Equal(got, want[n][dst]) {
					t.Errorf("%s: %s toward h%d: %v, want %v", c.name, s.Topo.Nodes[n].Name, dst, got, want[n][dst])
				}
				if len(got) > 1 && !slices.IsSorted(got) {
					multi++
				}
			}
		}
		if switches != len(s.Topo.Nodes)-len(s.Topo.Hosts) {
			t.Errorf("%s: %d switches built, want %d", c.name, switches, len(s.Topo.Nodes)-len(s.Topo.Hosts))
		}
		if ns3 := multi > 0; ns3 != s.Switch.NS3 {
			t.Errorf("%s: %d candidate lists out of port order, ns-3's order %v", c.name, multi, s.Switch.NS3)
		}
	}
}
