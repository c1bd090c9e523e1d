package scenario

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/topo"
)

// Partition is how a twin's fabric is split into domains that run side
// by side: Domain[i] is topology node i's domain.
type Partition struct {
	Domains int
	Domain  []int
	// Load is each domain's weight: its ports in use, a host's counting
	// double (a NIC does more per packet than a switch port).
	Load []int
}

// String describes the partition: the domains and their loads.
func (p Partition) String() string {
	parts := make([]string, len(p.Load))
	for i, l := range p.Load {
		parts[i] = fmt.Sprint(l)
	}
	return fmt.Sprintf("%d domains, load %s", p.Domains, strings.Join(parts, "/"))
}

// minParallelEvents is the least estimated work for which the default
// thread count (the machine's cores) splits a run: below it, the second
// domain's build, the rounds and the frames between domains cost more than
// the second core saves. Measured on two cores (docs/engine.md, "Default
// threads"): the 0.23 M-event incast-pfc example 3.5 times slower on two
// threads than on one, the 0.39 M-event 127-to-1 incast and the 1.1
// M-event leaf-spine permutation 1.2-1.4 times, the 1.6 M-event 128-host
// permutation even, the 3.2 M-event 1024-host one twice as fast.
const minParallelEvents = 2_500_000

// minParallelGain is the least speed-up the partition's balance must
// allow (its total load over its heaviest domain's) for the default
// thread count to split a run.
const minParallelGain = 1.5

// autoThreads returns how many threads a run estimated at events events
// takes when its thread count is the default, threads, and why it takes
// fewer ("" when it does not): one when the run is too small to win its
// split back, or when the partition of t into threads domains is too
// uneven for them to run side by side.
func autoThreads(t *topo.Topology, threads int, events int64) (int, string) {
	if threads <= 1 {
		return threads, ""
	}
	if events < minParallelEvents {
		return 1, fmt.Sprintf("one thread: %d estimated events, under the %d a split needs to pay", events, minParallelEvents)
	}
	p := partitionTopology(t, threads)
	if p.Domains < 2 {
		return 1, "one thread: one switch, nothing to split"
	}
	if g := p.gain(); g < minParallelGain {
		return 1, fmt.Sprintf("one thread: the %d domains' load %v allows %.2fx, under %.1fx", p.Domains, p.Load, g, minParallelGain)
	}
	return threads, ""
}

// gain is the speed-up p's balance allows: its total load over its
// heaviest domain's.
func (p Partition) gain() float64 {
	total, most := 0, 1
	for _, l := range p.Load {
		total += l
		most = max(most, l)
	}
	return float64(total) / float64(most)
}

// hostWeight is what a host counts for against a switch port.
const hostWeight = 2

// partitionTopology splits t into at most n domains of switches and the
// hosts behind them. Switches with hosts go in the order of their first
// host, in contiguous runs of equal weight (racks, pods and rails are
// numbered contiguously, so a run keeps them together); every other
// switch, tier by tier, joins the domain most of its neighbours are in,
// unless that domain is full, then the lightest of its neighbours'
// domains, or the lightest overall. There are never more domains than
// switches.
func partitionTopology(t *topo.Topology, n int) Partition {
	nodes := t.Nodes
	adj := make([][]int, len(nodes))
	for _, l := range t.Links {
		adj[l.A] = append(adj[l.A], l.B)
		adj[l.B] = append(adj[l.B], l.A)
	}
	weight := make([]int, len(nodes))
	var edges, others []int
	total := 0
	for i, nd := range nodes {
		if nd.Kind != topo.Switch {
			continue
		}
		hasHost := false
		weight[i] = len(adj[i])
		for _, j := range adj[i] {
			if nodes[j].Kind == topo.Host {
				hasHost = true
				weight[i] += hostWeight
			}
		}
		total += weight[i]
		if hasHost {
			edges = append(edges, i)
		} else {
			others = append(others, i)
		}
	}
	n = max(1, min(n, len(edges)+len(others)))
	p := Partition{Domains: n, Domain: make([]int, len(nodes)), Load: make([]int, n)}
	if n == 1 {
		p.Load[0] = total
		return p
	}
	firstHost := func(s int) int {
		least := len(nodes)
		for _, j := range adj[s] {
			if nodes[j].Kind == topo.Host {
				least = min(least, j)
			}
		}
		return least
	}
	sortByKey(edges, firstHost)
	sortByKey(others, func(s int) int { return nodes[s].Tier*len(nodes) + s })
	target := (total + n - 1) / n
	for i := range p.Domain {
		p.Domain[i] = -1
	}
	// Edge switches in runs: each domain takes its share of their weight,
	// so that the others can balance what is left.
	edgeTotal := 0
	for _, s := range edges {
		edgeTotal += weight[s]
	}
	acc := 0
	for _, s := range edges {
		d := min(n-1, acc*n/max(edgeTotal, 1))
		acc += weight[s]
		p.assign(s, d, weight[s])
	}
	for _, s := range others {
		count := make([]int, n)
		for _, j := range adj[s] {
			if d := p.Domain[j]; d >= 0 {
				count[d]++
			}
		}
		best := -1
		for d := range count {
			if count[d] > 0 && p.Load[d]+weight[s] <= target && (best < 0 || count[d] > count[best] || count[d] == count[best] && p.Load[d] < p.Load[best]) {
				best = d
			}
		}
		if best < 0 {
			best = 0
			for d := range p.Load {
				if p.Load[d] < p.Load[best] {
					best = d
				}
			}
		}
		p.assign(s, best, weight[s])
	}
	for i, nd := range nodes {
		if nd.Kind == topo.Host && len(adj[i]) > 0 {
			p.Domain[i] = p.Domain[adj[i][0]]
		}
		p.Domain[i] = max(p.Domain[i], 0)
	}
	return p
}

func (p *Partition) assign(node, d, w int) {
	p.Domain[node] = d
	p.Load[d] += w
}

// spreadTopology puts node i in domain i mod n: every link is cut, for
// tests that the output does not depend on the partitioning.
func spreadTopology(t *topo.Topology, n int) Partition {
	n = max(1, min(n, len(t.Nodes)))
	p := Partition{Domains: n, Domain: make([]int, len(t.Nodes)), Load: make([]int, n)}
	for i := range t.Nodes {
		p.assign(i, i%n, 1)
	}
	return p
}

// sortByKey sorts s by key, keeping the order of equal keys.
func sortByKey(s []int, key func(int) int) {
	slices.SortStableFunc(s, func(a, b int) int { return cmp.Compare(key(a), key(b)) })
}
