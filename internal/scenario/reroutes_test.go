package scenario

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/fabric"
	"rocelab/internal/unit"
)

// After each reroute, every switch of the running twin answers, toward
// every host, what the whole table over the links down at that time says
// (topo.RoutesAvoiding, or NS3Routes under ns-3's ECMP), in order: on
// fat-trees, leaf-spines and random graphs of switches (parallel links,
// cycles), links between switches and host links going down and up,
// some faults rerouting and some not.
func TestReroutesAgree(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 12))
	for i := range 24 {
		// ns-3's ECMP takes no parallel links.
		ns3 := rnd.IntN(2) == 0
		var top string
		switch i % 4 {
		case 0:
			top = "{kind: fat-tree, k: 4}"
		case 1:
			uplinks := 6 // two to each spine
			if ns3 {
				uplinks = 3
			}
			top = fmt.Sprintf("{kind: leaf-spine, leaves: 4, spines: 3, hosts_per_leaf: 3, uplinks_per_leaf: %d}", uplinks)
		default:
			hosts, switches := 3+rnd.IntN(10), 2+rnd.IntN(6)
			var b strings.Builder
			fmt.Fprintf(&b, "\n  kind: graph\n  hosts: %d\n  switches: %d\n  links:\n", hosts, switches)
			joined := map[[2]int]bool{}
			join := func(a, c, count int) {
				if a == c || ns3 && joined[[2]int{min(a, c), max(a, c)}] {
					return
				}
				joined[[2]int{min(a, c), max(a, c)}] = true
				if ns3 {
					count = 1
				}
				fmt.Fprintf(&b, "    - {a: s%d, b: s%d, count: %d}\n", a, c, count)
			}
			for s := 1; s < switches; s++ {
				join(rnd.IntN(s), s, 1+rnd.IntN(2))
			}
			for range switches {
				join(rnd.IntN(switches), rnd.IntN(switches), 1)
			}
			for h := range hosts {
				fmt.Fprintf(&b, "    - {a: h%d, b: s%d}\n", h, rnd.IntN(switches))
			}
			top = b.String()
		}
		ecmp := ""
		if ns3 {
			ecmp = "switch: {ecmp: {model: ns3}}\n"
		}
		head := fmt.Sprintf("name: reroutes\nduration: 1s\ntopology: %s\n%shost: {qp: {timeout: 20}}\ntraffic: {flows: [{src: h0, dst: h1, bytes: 1GB}]}\n", top, ecmp)
		s := mustLoad(t, "reroutes.yaml", head)
		// Faults on distinct links, each at whole microseconds: a link
		// is down from its start to its end.
		type flap struct {
			link, start, end int // µs; end 0: never up
		}
		var flaps []flap
		var at []int // the reroutes' times, µs
		var b strings.Builder
		b.WriteString(head + "faults:\n")
		for _, l := range rnd.Perm(len(s.Topo.Links))[:1+rnd.IntN(min(4, len(s.Topo.Links)))] {
			f := flap{link: l, start: 10 + rnd.IntN(200)}
			if rnd.IntN(3) > 0 {
				f.end = f.start + 1 + rnd.IntN(200)
			}
			reroute, converge := rnd.IntN(4) > 0, 1+rnd.IntN(50)
			lk := s.Topo.Links[l]
			fmt.Fprintf(&b, "  - {kind: link_down, link: %s/p%d, start: %dus, end: %dus, reroute: %v, converge: %dus}\n",
				s.Topo.Nodes[lk.A].Name, lk.PA, f.start, f.end, reroute, converge)
			flaps = append(flaps, f)
			if reroute {
				at = append(at, f.start+converge)
				if f.end > 0 {
					at = append(at, f.end+converge)
				}
			}
		}
		s = mustLoad(t, "reroutes.yaml", b.String())
		tw, err := Build(s)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(at)
		for _, us := range slices.Compact(at) {
			when := unit.Time(us)*unit.Microsecond + unit.Nanosecond
			if got := tw.Advance(when); got != when {
				t.Fatalf("%d: the run stopped at %v, before %v", i, got, when)
			}
			down := make([]bool, len(s.Topo.Links))
			for _, f := range flaps {
				down[f.link] = f.start <= us && (f.end == 0 || us < f.end)
			}
			want := s.Topo.RoutesAvoiding(down)
			if s.Switch.NS3 {
				want = s.Topo.NS3Routes(down)
			}
			for n, nd := range tw.Nodes {
				sw, ok := nd.(*fabric.Switch)
				if !ok {
					continue
				}
				for dst := range s.Topo.Hosts {
					if got := sw.Route(dst); !slices.Equal(got, want[n][dst]) {
						t.Errorf("%d at %dus: %s toward h%d: %v, want %v\n%s", i, us, s.Topo.Nodes[n].Name, dst, got, want[n][dst], b.String())
					}
				}
			}
		}
	}
}

// A reroute never takes the whole table: on a k=16 fat-tree (320
// switches, 1024 hosts) with one link going down and up, the two
// reroutes allocate less than a third of the table's slice header per
// (switch, host) pair each (the table: 7.9 MB a time): the searches'
// distances and lists, one row at a time, and each switch's table.
func TestReroutesMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a k=16 fat-tree")
	}
	s := mustLoad(t, "flap.yaml", `
topology: {kind: fat-tree, k: 16}
traffic: {flows: [{src: h0, dst: h1000, bytes: 1MB}]}
faults:
  - {kind: link_down, link: edge0_0-agg0_0, start: 10us, end: 20us, converge: 5us}
`)
	tw, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	pairs := uint64(len(s.Topo.Nodes)-len(s.Topo.Hosts)) * uint64(len(s.Topo.Hosts))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	tw.reroutes() // schedules the two reroutes again, which this run never runs
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 2*8*pairs {
		t.Errorf("two reroutes allocated %d bytes on %d (switch, host) pairs, want under %d", got, pairs, 2*8*pairs)
	}
}
