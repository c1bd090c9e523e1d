package scenario

import "testing"

// Split over two domains, an nccl-tests AllReduce's workload steps each
// touch one domain's hosts (a rank's kernel and proxy steps, its posts,
// its NIC's completions), but for the start of each batch (two sizes,
// out of place and in place), which builds the call's connections and
// posts every connection's first CTS: the steps that would still hold
// both domains with the workloads in their hosts' domains
// (docs/engine.md, "Workloads in their hosts' domains").
func TestHomesAllReduce(t *testing.T) {
	tw := runHomes(t, 2)
	p, _, st := tw.RunStats()
	if p.Domains != 2 {
		t.Fatalf("%d domains, want 2", p.Domains)
	}
	if st.CrossEvents != 4 {
		t.Errorf("%d workload steps touched both domains' hosts, want 4 (each batch's start) of %d", st.CrossEvents, st.ControlEvents)
	}
	if st.HomePathEvents < st.CriticalEvents || st.HomePathEvents > st.CriticalEvents+st.ControlEvents {
		t.Errorf("home path %d events, want between the critical path %d and it plus the workloads' %d", st.HomePathEvents, st.CriticalEvents, st.ControlEvents)
	}
}

// runHomes runs homesYAML to its end on threads threads.
func runHomes(t *testing.T, threads int) *Twin {
	t.Helper()
	tw, err := BuildWith(mustLoad(t, "homes.yaml", homesYAML), Options{Threads: threads})
	if err != nil {
		t.Fatal(err)
	}
	tw.Run()
	if !tw.Done() {
		t.Fatal("the AllReduce did not finish")
	}
	return tw
}

// homesYAML is an nccl-tests AllReduce over two leaves' hosts.
const homesYAML = `
name: homes
duration: 1s
topology:
  kind: leaf-spine
  leaves: 2
  spines: 2
  hosts_per_leaf: 2
  uplinks_per_leaf: 2
  host_link: {rate: 100G, cable: 3m}
  fabric_link: {rate: 100G, cable: 20m}
  servers: {gpus: 8, nics: 1, gpu: A100}
nccl: {NCCL_ALGO: ring, NCCL_PROTO: simple}
workload:
  nccl_tests: all_reduce_perf -b 4M -e 8M -f 2 -g 8 -n 1 -w 0
`

// A run of one part counts no homes, so its transport keeps none: the
// run has no Windows.Homes, and the transport's Homes has nothing to
// give after the AllReduce ran.
func TestHomesOnePart(t *testing.T) {
	tw := runHomes(t, 1)
	if tw.run.Homes != nil {
		t.Error("a run of one part has Windows.Homes")
	}
	parts := make([]uint64, len(tw.Net.Domains))
	free, cross := tw.Transport.Homes(parts)
	if free != 0 || cross != 0 || parts[0] != 0 {
		t.Errorf("one part's transport kept homes: %d free, %d cross, %v in parts", free, cross, parts)
	}
}
