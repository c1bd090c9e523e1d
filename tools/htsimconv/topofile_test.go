package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/scenario"
	"rocelab/internal/topo"
	"rocelab/internal/unit"
)

// importTopo imports matrix on the topology file topoFile with htsim's
// flags args (-tm, -topo and -strat added).
func importTopo(t *testing.T, topoFile, matrix string, args ...string) (string, error) {
	t.Helper()
	cm := filepath.Join(t.TempDir(), "m.cm")
	if err := os.WriteFile(cm, []byte(matrix), 0o644); err != nil {
		t.Fatal(err)
	}
	var y bytes.Buffer
	err := fromHtsim(append([]string{"htsim_roce", "-tm", cm, "-topo", topoFile, "-strat", "ecmp_host", "-paths", "1"}, args...), nil, &y)
	return y.String(), err
}

// csg-htsim's own topology files become fabrics with htsim's switch
// counts, and every switch has the ports its tier's radix gives it, each
// link at its tier's speed: checked on the scenario rocelab builds, so
// that a wiring error (a ToR joined to another pod's aggregation switch,
// a bundle counted once) fails here.
func TestImportHtsimTopologies(t *testing.T) {
	for _, c := range []struct {
		file                  string
		args                  []string
		kind                  string
		tors, aggs, cores     int
		torPorts, aggPorts    int
		corePorts             int
		hostRate, up1, up2    unit.BitRate
		oversubscription      float64
		sameAsNodesTiersFlags bool
	}{
		// The 3-tier file "supposed to match the default auto-generated
		// topology" of 1024 nodes: rocelab's k=16 fat-tree, as -nodes 1024.
		{"fat_tree_1024.topo", []string{"-nodes", "1024"}, "fat-tree", 128, 128, 64, 16, 16, 16, 100 * unit.Gbps, 100 * unit.Gbps, 100 * unit.Gbps, 1, true},
		// 32 hosts on 4 ToRs of 8 hosts and 2 uplinks: 4:1 oversubscribed.
		{"leaf_spine_tiny.topo", []string{"-nodes", "32"}, "leaf-spine", 4, 2, 0, 10, 4, 0, 100 * unit.Gbps, 100 * unit.Gbps, 0, 4, false},
		// 200G hosts and ToR uplinks, 100G core links in bundles of two.
		{"test.topo", []string{"-nodes", "8", "-linkspeed", "200000"}, "graph", 4, 4, 4, 4, 6, 4, 200 * unit.Gbps, 200 * unit.Gbps, 100 * unit.Gbps, 1, false},
		// An Ultra Ethernet htsim's 1024 hosts, 4:1 at the ToRs (8 hosts,
		// 2 uplinks), 2 aggregation switches a pod of 64, 16 cores.
		{"fat_tree_1024_4os_100g.topo", []string{"-nodes", "1024"}, "graph", 128, 32, 16, 10, 16, 16, 100 * unit.Gbps, 100 * unit.Gbps, 100 * unit.Gbps, 4, false},
		// Synthetic (session 47): 4 pods of 8 hosts, 2 ToRs of 4 hosts and
		// 4 uplinks a pod, aggregation switches of 2 downlinks and 1
		// uplink (Oversubscribed 2 at tier 1), 4 cores. Oversubscription
		// is the first tier's, 1 here: the 2:1 is in the aggregation
		// switches' 3 ports.
		{"syn-aggos32.topo", []string{"-nodes", "32"}, "graph", 8, 16, 4, 8, 3, 4, 100 * unit.Gbps, 100 * unit.Gbps, 100 * unit.Gbps, 1, false},
	} {
		t.Run(c.file, func(t *testing.T) {
			n := c.args[1]
			out, err := importTopo(t, filepath.Join("testdata", "topologies", c.file), "Nodes "+n+"\nConnections 1\n0->1 id 1 start 0 size 4096\n", c.args...)
			if err != nil {
				t.Fatal(err)
			}
			s, err := scenario.Load(c.file+".yaml", []byte(out))
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			tp := s.Topo
			if tp.Kind != c.kind {
				t.Errorf("kind %s, expected %s", tp.Kind, c.kind)
			}
			count := map[int]int{}
			for _, nd := range tp.Nodes {
				if nd.Kind != topo.Switch {
					continue
				}
				count[nd.Tier]++
				want := map[int]int{1: c.torPorts, 2: c.aggPorts, 3: c.corePorts}[nd.Tier]
				if nd.Ports != want {
					t.Errorf("%s (tier %d): %d ports, expected %d", nd.Name, nd.Tier, nd.Ports, want)
				}
			}
			if count[1] != c.tors || count[2] != c.aggs || count[3] != c.cores {
				t.Errorf("switches by tier %v, expected %d ToR, %d aggregation, %d core", count, c.tors, c.aggs, c.cores)
			}
			for _, l := range tp.Links {
				lo := min(tp.Nodes[l.A].Tier, tp.Nodes[l.B].Tier)
				want := [3]unit.BitRate{c.hostRate, c.up1, c.up2}[lo]
				if l.Rate != want {
					t.Errorf("link %s-%s at %v, expected %v", tp.Nodes[l.A].Name, tp.Nodes[l.B].Name, l.Rate, want)
				}
			}
			if tp.Oversubscription != c.oversubscription {
				t.Errorf("oversubscription %g, expected %g", tp.Oversubscription, c.oversubscription)
			}
			if c.sameAsNodesTiersFlags {
				flags, err := importMatrix(t, "Nodes "+n+"\nConnections 1\n0->1 id 1 start 0 size 4096\n", c.args...)
				if err != nil {
					t.Fatal(err)
				}
				if line := topologyLine(out); line != topologyLine(flags) {
					t.Errorf("topology %s, expected -nodes %s's %s", line, n, topologyLine(flags))
				}
			}
		})
	}
}

// topologyLine is a scenario's "topology:" line.
func topologyLine(y string) string {
	for l := range strings.Lines(y) {
		if strings.HasPrefix(l, "topology:") {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// What htsim refuses in a topology file is refused with its place, and
// what it builds but rocelab cannot run alike with the reason.
func TestImportTopologyRefuses(t *testing.T) {
	const tiny = "Nodes 32\nTiers 2\nPodsize 32\n\nTier 0\nDownlink_speed_Gbps 100\nRadix_Down 8\nRadix_Up 2\nDownlink_Latency_ns 1000\nOversubscribed 4\n\nTier 1\nDownlink_speed_Gbps 100\nRadix_Down 4\nDownlink_Latency_ns 1000\n"
	for _, c := range []struct {
		name, file string
		args       []string
		want       string
	}{
		{"duplicate", strings.Replace(tiny, "Radix_Down 8\n", "Radix_Down 8\nradix_down 8\n", 1), nil, "t.topo:8:1: radix_down for tier 0 also at line 7"},
		{"missing latency", strings.Replace(tiny, "Downlink_Latency_ns 1000\nOversubscribed", "Oversubscribed", 1), nil, "t.topo:5:1: tier 0: expected Downlink_Latency_ns"},
		{"number", strings.Replace(tiny, "Radix_Up 2", "Radix_Up two", 1), nil, "t.topo:8:10: Radix_Up two: expected a whole number"},
		{"no value", strings.Replace(tiny, "Radix_Up 2", "Radix_Up", 1), nil, "t.topo:8:1: Radix_Up: expected a value"},
		{"tier 3", tiny + "Tier 3\n", nil, "t.topo:16:6: tier 3: htsim's fat-tree has tiers 0, 1 and 2"},
		{"oversubscription", strings.Replace(tiny, "Oversubscribed 4", "Oversubscribed 2", 1), nil, "t.topo:5:1: tier 0: Radix_Down 8 / Radix_Up 2 is not its Oversubscribed 2"},
		{"aggregation", strings.Replace(tiny, "Radix_Down 4\n", "Radix_Down 16\n", 1), nil, "t.topo:12:1: tier 1: 8 ToR uplinks do not fill 1 pods of aggregation switches of Radix_Down 16"},
		{"no podsize", strings.Replace(tiny, "Podsize 32\n", "", 1), nil, "t.topo:1:1: expected Podsize N"},
		{"nodes", tiny, []string{"-nodes", "16"}, "t.topo has Nodes 32; htsim sizes the connection matrix by -nodes"},
		{"linkspeed", tiny, []string{"-linkspeed", "200000"}, "give -linkspeed 100000"},
		{"switch latency", strings.Replace(tiny, "Tier 1\n", "Tier 1\nSwitch_Latency_ns 500\n", 1), nil, "t.topo:13:1: tier 1: Switch_Latency_ns 500 where tier 0 has 0"},
		{"reopened tier", tiny + "Tier 0\nRadix_Up 2\n", nil, "t.topo:17:1: radix_up for tier 0 also at line 8"},
		{"fractional linkspeed", tiny, []string{"-linkspeed", "100000.5"}, "give -linkspeed 100000"},
		{"size", strings.Replace(tiny, "Nodes 32", "Nodes 4194304", 1), nil, "t.topo:1:7: Nodes 4194304: expected a whole number from 0 to 1048576"},
		// Two pods on 2 tiers: htsim joins each ToR to all 4 aggregation
		// switches (not its Radix_Up 2) and routes within one pod only.
		{"two pods", strings.Replace(tiny, "Nodes 32", "Nodes 64", 1), []string{"-nodes", "64"}, "t.topo:3:1: Podsize 32 with Tiers 2: htsim's 2-tier fat-tree is one pod"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "t.topo")
			if err := os.WriteFile(f, []byte(c.file), 0o644); err != nil {
				t.Fatal(err)
			}
			nodes := "32"
			if len(c.args) > 0 && c.args[0] == "-nodes" {
				nodes = c.args[1]
			}
			_, err := importTopo(t, f, "Nodes "+nodes+"\nConnections 0\n", append([]string{"-nodes", "32"}, c.args...)...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, expected %q", err, c.want)
			}
		})
	}
}

// Keys htsim skips are skipped and named; the queue sizes (set by the
// file under -q 0) are named as not converted; per-tier switch latencies
// that agree become switch.latency.
func TestImportTopologyNotes(t *testing.T) {
	file := "# a comment\nNodes 32\nTiers 2\nPodsize 32\nColour red\n\nTier 0\nDownlink_speed_Gbps 100\nRadix_Down 8\nRadix_Up 2\nDownlink_Latency_ns 500\nSwitch_Latency_ns 300\nOversubscribed 4\nQueue_Up 100000\nQueue_Down 100000\n\nTier 1\nDOWNLINK_SPEED_GBPS 100\nRadix_Down 4\nQueue_Down 100000\nDownlink_Latency_ns 1000\nSwitch_Latency_ns 300\nFlavour 1\n"
	f := filepath.Join(t.TempDir(), "t.topo")
	if err := os.WriteFile(f, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := importTopo(t, f, "Nodes 32\nConnections 1\n0->31 id 1 start 0 size 4096\n", "-nodes", "32", "-hop_latency", "2", "-q", "0")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Colour (line 5, in the header), Flavour (line 23, in tier 1)", "Queue_Up (line 14), Queue_Down (line 15), Queue_Down (line 20)", "htsim ignores -hop_latency with -topo",
		"with -topo htsim's PFC frames reach the upstream port at once", "latency: 300ns", "host_link: {rate: 100Gbps, cable: 100m}", "fabric_link: {rate: 100Gbps, cable: 200m}"} {
		if !strings.Contains(out, want) {
			t.Errorf("scenario lacks %q:\n%s", want, out)
		}
	}
	if _, err := scenario.Load("t.yaml", []byte(out)); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// The queue sizes htsim_roce exits at (csg-htsim 841d9e7, runs of
// 2026-12-06): its loader sets every tier's queues from -q before it
// reads the file, so a Queue_Down line without -q 0 is "Duplicate
// queue_down setting for tier 0 at line 9"; with -q 0 a tier without its
// queues is "Missing queue_up for tier 0", and without -topo -q 0 fails
// the assertion _queue_down[TOR_TIER] != 0. All three had converted.
func TestRefusesQueueSizesHtsimExitsAt(t *testing.T) {
	tiers := "Nodes 32\nTiers 2\nPodsize 32\n\nTier 0\nDownlink_speed_Gbps 100\nRadix_Down 8\nRadix_Up 2\n%sDownlink_Latency_ns 1000\nSwitch_Latency_ns 0\nOversubscribed 4\n\nTier 1\nDownlink_speed_Gbps 100\nRadix_Down 4\n%sDownlink_Latency_ns 1000\nSwitch_Latency_ns 0\n"
	queues := fmt.Sprintf(tiers, "Queue_Down 1001\nQueue_Up 1002\n", "Queue_Down 2001\n")
	bare := fmt.Sprintf(tiers, "", "")
	cm := "Nodes 32\nConnections 1\n0->31 id 1 start 0 size 4096\n"
	for _, c := range []struct {
		name, file string
		args       []string
		want       string
	}{
		{"queue keys, -q left out", queues, nil, "t.topo:9:1: Queue_Down: htsim_roce exits here (\"Duplicate queue_down setting\"): it sets every tier's queues from -q (left out: 15 packets)"},
		{"queue keys, -q 100", queues, []string{"-q", "100"}, "t.topo:9:1: Queue_Down: htsim_roce exits here"},
		{"queue keys, -q 0", queues, []string{"-q", "0"}, ""},
		{"no queue keys, -q 0", bare, []string{"-q", "0"}, "t.topo:5:1: tier 0: no queue_up: with -q 0 (0 packets, as atoi reads it) htsim_roce exits (\"Missing queue_up for tier 0\")"},
		{"queue_down 0, -q 0", fmt.Sprintf(tiers, "Queue_Down 0\nQueue_Up 1002\n", "Queue_Down 2001\n"), []string{"-q", "0"}, "t.topo:9:1: tier 0: queue_down 0: with -q 0 htsim_roce takes a queue of 0 as unset and exits (\"Missing queue_down for tier 0\")"},
		{"queue_up 0, -q 0", fmt.Sprintf(tiers, "Queue_Down 1001\n Queue_Up 0\n", "Queue_Down 2001\n"), []string{"-q", "0"}, "t.topo:10:2: tier 0: queue_up 0: with -q 0 htsim_roce takes a queue of 0 as unset and exits (\"Missing queue_up for tier 0\")"},
		{"tier 1 without its queue, -q x", fmt.Sprintf(tiers, "Queue_Down 1001\nQueue_Up 1002\n", ""), []string{"-q", "x"}, "t.topo:15:1: tier 1: no queue_down"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "t.topo")
			if err := os.WriteFile(f, []byte(c.file), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := importTopo(t, f, cm, append([]string{"-nodes", "32"}, c.args...)...)
			switch {
			case c.want == "" && err != nil:
				t.Fatal(err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, expected %q", err, c.want)
			}
		})
	}
	_, err := parseHtsimArgs([]string{"-tm", "m.cm", "-nodes", "16", "-q", "0", "-strat", "ecmp_host", "-paths", "1"})
	if want := "-q 0: htsim_roce reads 0 packets (atoi) and fails an assertion as it builds its fat-tree"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, expected %q", err, want)
	}
}

// readHtsimTopo never panics: a file is refused with a place, or its
// fat-tree has hosts and switches and a topology line.
func FuzzReadHtsimTopo(f *testing.F) {
	for _, name := range []string{"fat_tree_1024.topo", "leaf_spine_tiny.topo", "test.topo"} {
		b, err := os.ReadFile(filepath.Join("testdata", "topologies", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, s string) {
		tp, err := readHtsimTopo("f.topo", strings.NewReader(s))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.topo:") {
				t.Fatalf("error without a place: %v", err)
			}
			return
		}
		if tp.ntor <= 0 || tp.nagg <= 0 || tp.tiers == 3 && tp.ncore <= 0 {
			t.Fatalf("accepted a fabric of %d ToR, %d aggregation, %d core switches", tp.ntor, tp.nagg, tp.ncore)
		}
		if y := tp.topology(); !strings.HasPrefix(y, "{kind: ") {
			t.Fatalf("topology %.80q", y)
		}
	})
}
