package topo

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// A row kept as runs answers, toward every host, what SwitchRoutes' row
// and the whole table (RoutesAvoiding, NS3Routes) say, order included,
// on every builder's fabric and random graphs with and without links
// down, and nil toward a host with no route or no such host.
func TestRouteRowAgree(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	for i, tp := range routeTopologies(t, rnd) {
		down := make([]bool, len(tp.Links))
		for j := range down {
			down[j] = rnd.IntN(6) == 0
		}
		for _, d := range [][]bool{nil, down} {
			for _, ns3 := range []bool{false, true} {
				whole := tp.RoutesAvoiding(d)
				if ns3 {
					whole = tp.NS3Routes(d)
				}
				tp.SwitchRoutes(d, ns3, func(n int, r [][]int16) {
					w := NewRouteRow(r)
					for h := range r {
						if got := w.To(h); !reflect.DeepEqual(got, r[h]) || !reflect.DeepEqual(got, whole[n][h]) {
							t.Errorf("%d %s down %v ns3 %v: %s toward h%d: %v, want %v", i, tp.Kind, d != nil, ns3, tp.Nodes[n].Name, h, got, whole[n][h])
						}
					}
					for _, h := range []int{-1, len(r), len(r) + 7} {
						if got := w.To(h); got != nil {
							t.Errorf("%d %s: %s toward h%d of %d: %v, want none", i, tp.Kind, tp.Nodes[n].Name, h, len(r), got)
						}
					}
				})
			}
		}
	}
}

// Runs join hosts with equal candidates whether or not they share a
// list, and only adjacent ones; a host with no route between two with
// the same candidates splits them.
func TestRouteRowRuns(t *testing.T) {
	a := []int16{1, 2}
	r := [][]int16{a, {1, 2}, a, nil, {3}, {3}, {1, 2}, {2, 1}}
	w := NewRouteRow(r)
	if want := []int32{0, 3, 4, 6, 7}; !reflect.DeepEqual(w.start, want) {
		t.Errorf("runs start at %v, want %v", w.start, want)
	}
	for h := range r {
		if got := w.To(h); !reflect.DeepEqual(got, r[h]) {
			t.Errorf("h%d: %v, want %v", h, got, r[h])
		}
	}
	if got := (&RouteRow{}).To(0); got != nil {
		t.Errorf("a row of no hosts: %v toward h0", got)
	}
}
