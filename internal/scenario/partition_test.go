package scenario

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"rocelab/examples"
	"rocelab/internal/sim/stalltest"
	"rocelab/internal/unit"
)

// fingerprint is everything a run's reports read: its observation as
// JSON, and the events it took.
func fingerprint(t testing.TB, tw *Twin) string {
	b, err := json.MarshalIndent(tw.Observe(), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s\nevents %d\n", b, tw.Executed())
}

// runParted builds s split as o, runs it, and returns its fingerprint.
func runParted(t testing.TB, s *Scenario, o Options) string {
	t.Helper()
	tw, err := BuildWith(s, o)
	if err != nil {
		t.Fatal(err)
	}
	// Two pieces, as an observed run goes: the result must not change,
	// and between them every clock is where the first piece ended.
	var end unit.Time
	watchStalls(t, s.Name, o, tw, func() { end = tw.RunUntil(s.Duration / 3) })
	if !tw.Done() && tw.Transport.Control().Now() != end {
		t.Errorf("%s %+v: the workloads' clock at %v after a run to %v", s.Name, o, tw.Transport.Control().Now(), end)
	}
	watchStalls(t, s.Name, o, tw, func() { tw.Run() })
	return fingerprint(t, tw)
}

// watchStalls runs run, a piece of tw's run as o splits it, under
// stalltest.Watch: a hang fails the test naming the run and the split.
func watchStalls(t testing.TB, name string, o Options, tw *Twin, run func()) {
	t.Helper()
	stalltest.Watch(t, fmt.Sprintf("%s %+v", name, o), tw.run.State, run)
}

// partitionings are the splits every run must agree across: one domain,
// two, three and eight by the topology (linked rounds), three on two
// workers (windows), and three with every node in a domain of its own
// round robin, so that every link is cut.
var partitionings = []Options{{Threads: 2}, {Threads: 3}, {Threads: 8}, {Threads: 3, Workers: 2}, {Threads: 3, Spread: true}}

// checkPartitionings runs s on one domain and on every partitioning and
// requires the same fingerprint.
func checkPartitionings(t *testing.T, name string, s *Scenario) {
	ref := runParted(t, s, Options{Threads: 1})
	for _, o := range partitionings {
		if got := runParted(t, s, o); got != ref {
			t.Errorf("%s: %+v differs from one domain:\n%s", name, o, firstDiff(ref, got))
		}
	}
}

// firstDiff shows the first line where two fingerprints differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n  one domain: %.300s\n  split:      %.300s", i, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(al), len(bl))
}

// exampleShort caps how long an example runs in the partitioning tests,
// which care about agreement, not about the examples' stories.
const exampleShort = 2 * unit.Millisecond

// Every example gives the same results whether its fabric runs on one
// domain or is split into two, three or eight, or spread node by node.
func TestPartitionsAgreeOnExamples(t *testing.T) {
	names, err := examples.FS.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range names {
		name := e.Name()
		if !strings.HasSuffix(name, ".yaml") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := example(t, strings.TrimSuffix(name, ".yaml"))
			s.Duration = min(s.Duration, exampleShort)
			for _, v := range append([]*Scenario{s}, s.Variants...) {
				v.Duration = min(v.Duration, exampleShort)
				checkPartitionings(t, name+"/"+v.Name, v)
			}
		})
	}
}

// Random scenarios (topologies, traffic, congestion control, PFC, ECN
// and faults drawn from a seed) give the same results on one domain and
// split.
func TestPartitionsAgreeOnRandomScenarios(t *testing.T) {
	for i := range 20 {
		y := randomScenario(uint64(i))
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			s, err := Load(fmt.Sprintf("random-%d.yaml", i), []byte(y))
			if err != nil {
				t.Fatalf("%v\n%s", err, y)
			}
			checkPartitionings(t, y, s)
		})
	}
}

// randomScenario writes a small random scenario: a topology of a few
// switches, a traffic mix, congestion control, PFC and ECN settings and
// a fault or two, all drawn from seed.
func randomScenario(seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	var b strings.Builder
	fmt.Fprintf(&b, "name: random-%d\nseed: %d\nduration: %dus\n", seed, r.IntN(1000), 300+r.IntN(700))
	hosts := 0
	var links []string
	switch r.IntN(4) {
	case 0:
		hosts = 3 + r.IntN(4)
		fmt.Fprintf(&b, "topology: {kind: single-switch, hosts: %d, host_link: {rate: %s, cable: %dm}}\n", hosts, pick("25G", "100G"), 1+r.IntN(30))
		links = []string{"h0", "h1"}
	case 1:
		l, sp, h := 2+r.IntN(3), 1+r.IntN(3), 2+r.IntN(3)
		hosts = l * h
		fmt.Fprintf(&b, "topology: {kind: leaf-spine, leaves: %d, spines: %d, hosts_per_leaf: %d, uplinks_per_leaf: %d, host_link: {rate: 100G, cable: 3m}, fabric_link: {rate: 100G, cable: %dm}}\n",
			l, sp, h, sp*(1+r.IntN(2)), 2+r.IntN(50))
		links = []string{"h0", "leaf0-spine0", fmt.Sprintf("leaf%d-spine%d", l-1, sp-1)}
	case 2:
		hosts = 16
		b.WriteString("topology: {kind: fat-tree, k: 4, host_link: {rate: 100G, cable: 3m}}\n")
		links = []string{"h3", "edge0_0-agg0_0", "agg1_1-core3"}
	default:
		if r.IntN(2) == 0 {
			// A triangle of switches, a cycle that no built kind has,
			// with parallel links of mixed rates.
			per := 2 + r.IntN(2)
			hosts = 3 * per
			fmt.Fprintf(&b, "topology:\n  kind: graph\n  hosts: %d\n  switches: 3\n  links:\n", hosts)
			for h := 0; h < hosts; h++ {
				fmt.Fprintf(&b, "    - {a: h%d, b: s%d}\n", h, h/per)
			}
			for _, e := range [][2]int{{0, 1}, {1, 2}, {2, 0}} {
				fmt.Fprintf(&b, "    - {a: s%d, b: s%d, rate: %s, cable: %dm, count: %d}\n", e[0], e[1], pick("100G", "400G"), 2+r.IntN(50), 1+r.IntN(2))
			}
			links = []string{"h0", "s0-s1"}
			break
		}
		hosts = 2 * (2 + r.IntN(3))
		fmt.Fprintf(&b, "topology: {kind: dumbbell, left: %d, right: %d, host_link: {rate: 100G, cable: 2m}, fabric_link: {rate: %s, cable: 10m}}\n",
			hosts/2, hosts/2, pick("25G", "100G"))
		links = []string{"h0", "left-right"}
	}
	if r.IntN(2) == 0 {
		// Perfect clocks and no FEC jitter: frames meet at equal times.
		b.WriteString("phy: {clock_ppm: 0, fec_jitter: 0ns}\n")
	}
	fmt.Fprintf(&b, "switch:\n  buffer: %dMiB\n  pfc: {enabled: %v}\n  ecn: {enabled: %v, kmin: %dKB, kmax: %dKB}\n",
		2+r.IntN(30), r.IntN(4) != 0, r.IntN(3) != 0, 5+r.IntN(50), 100+r.IntN(400))
	if r.IntN(3) == 0 {
		b.WriteString("  watchdog: {enabled: true, detection: 100us, restoration: 100us}\n")
	}
	if r.IntN(4) == 0 {
		fmt.Fprintf(&b, "  static_th: %dKiB\n", 20+r.IntN(200))
	}
	// Switch latency from a stream of its own, so that the draws above and
	// below stay those of the scenarios before it existed.
	if lr := rand.New(rand.NewPCG(seed, 0x1a7)); lr.IntN(3) == 0 {
		fmt.Fprintf(&b, "  latency: %dns\n", 100+lr.IntN(1500))
	}
	fmt.Fprintf(&b, "host:\n  mtu: %s\n  cc: %s\n  qp: {timeout: %d}\n", pick("1024", "4096"), pick("dcqcn", "none"), 8+r.IntN(5))
	b.WriteString("traffic:\n  generators:\n")
	for g := 0; g < 1+r.IntN(2); g++ {
		switch r.IntN(3) {
		case 0:
			fmt.Fprintf(&b, "    - {kind: permutation, bytes: %dKB, qps: %d, jitter: %dus}\n", 20+r.IntN(300), 1+r.IntN(3), r.IntN(20))
		case 1:
			fmt.Fprintf(&b, "    - {kind: incast, bytes: %dKB, senders: [h1, h2], receiver: h0}\n", 50+r.IntN(400))
		default:
			fmt.Fprintf(&b, "    - {kind: all-to-all, bytes: %dKB}\n", 10+r.IntN(60))
		}
	}
	b.WriteString("  flows:\n")
	fmt.Fprintf(&b, "    - {name: a, src: h0, dst: h%d, bytes: %dKB}\n", hosts-1, 50+r.IntN(500))
	fmt.Fprintf(&b, "    - {name: b, src: h%d, dst: h1, bytes: %dKB, after: [a], start: %dns}\n", hosts-1, 10+r.IntN(100), r.IntN(3)*100)
	if r.IntN(2) == 0 {
		b.WriteString("faults:\n")
		for f := 0; f < 1+r.IntN(2); f++ {
			switch r.IntN(3) {
			case 0:
				fmt.Fprintf(&b, "  - {kind: loss, link: %s, rate: 0.00%d}\n", pick(links...), 1+r.IntN(9))
			case 1:
				fmt.Fprintf(&b, "  - {kind: link_down, link: %s, start: %dus, end: %dus, converge: %dus}\n", pick(links...), 20+r.IntN(100), 150+r.IntN(100), 10+r.IntN(50))
			default:
				fmt.Fprintf(&b, "  - {kind: pause_storm, host: h%d, priority: 3, start: %dus, end: %dus}\n", hosts-1, 10+r.IntN(50), 80+r.IntN(100))
			}
		}
	}
	return b.String()
}

// The partition keeps racks together and balances the domains' weight.
func TestPartitionOfFatTree(t *testing.T) {
	s, err := Load("ft.yaml", []byte("name: ft\ntopology: {kind: fat-tree, k: 8}\ntraffic: {generators: [{kind: permutation, bytes: 1MB}]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := partitionTopology(s.Topo, 2)
	if p.Domains != 2 || p.Load[0] != p.Load[1] {
		t.Errorf("partition %v: want two domains of equal load", p)
	}
	for _, l := range s.Topo.Links {
		a, b := s.Topo.Nodes[l.A], s.Topo.Nodes[l.B]
		if (a.Tier < 3 && b.Tier < 3) && p.Domain[l.A] != p.Domain[l.B] {
			t.Errorf("%s-%s: a pod is split over domains %d and %d", a.Name, b.Name, p.Domain[l.A], p.Domain[l.B])
		}
	}
}

// TestAutoThreads checks the default thread count's rule: a run estimated
// under minParallelEvents, or whose partition is too uneven, takes one
// thread; a large, even one takes them all; a user's count is kept.
func TestAutoThreads(t *testing.T) {
	ft := mustLoad(t, "ft.yaml", "name: ft\ntopology: {kind: fat-tree, k: 8}\ntraffic: {generators: [{kind: permutation, bytes: 1MB}]}\n")
	incast := example(t, "incast-pfc") // 17 senders left, 2 receivers right
	one := example(t, "single-flow")   // one switch
	for _, c := range []struct {
		name    string
		s       *Scenario
		threads int
		events  int64
		want    int
		why     string
	}{
		{"small", ft, 2, minParallelEvents - 1, 1, "estimated events"},
		{"large even", ft, 2, minParallelEvents, 2, ""},
		{"large even, four", ft, 4, 10 * minParallelEvents, 4, ""},
		{"large uneven", incast, 2, 10 * minParallelEvents, 1, "allows 1.13x"},
		{"one switch", one, 2, 10 * minParallelEvents, 1, "one switch"},
		{"one", ft, 1, 10, 1, ""},
	} {
		got, why := autoThreads(c.s.Topo, c.threads, c.events)
		if got != c.want || (c.why == "") != (why == "") || !strings.Contains(why, c.why) {
			t.Errorf("%s: %d threads (%q), want %d (%q)", c.name, got, why, c.want, c.why)
		}
	}
	// Through the pipeline: the default count lowered and said so; the
	// same count chosen by the user kept.
	for _, auto := range []bool{true, false} {
		s := example(t, "incast-pfc")
		s.Run = Options{Threads: 2, Auto: auto}
		e, err := s.Plans()[0].Build()
		if err != nil {
			t.Fatal(err)
		}
		tw := e.(*Twin)
		if want := map[bool]int{true: 1, false: 2}[auto]; tw.run.Workers != want || (tw.auto != "") != auto {
			t.Errorf("auto %v: %d workers (%q), want %d", auto, tw.run.Workers, tw.auto, want)
		}
	}
}
