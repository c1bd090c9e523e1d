package doctor

import (
	"fmt"
	"strconv"
	"strings"

	"rocelab/internal/ingest"
)

// NCCL's graph search giving up on a pattern (graph/search.cc, "Could not
// find a path for pattern 4, falling back to simple order"): NCCL goes on
// with channels that ignore the topology, so the run is slow, not broken.
// The WARN rule (checkWarnErrors) skips these WARNs, so that they are never
// taken for the cause of a failure that follows.

func ncclGraphSearchRules() []Rule {
	return []Rule{{IDs: []string{"nccl.graph.search_fallback"}, Check: checkGraphSearchFallback}}
}

// searchFallbackPattern returns the pattern of a graph search fallback
// WARN, ok false for any other WARN.
func searchFallbackPattern(msg string) (int, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(msg), "Could not find a path for pattern ")
	if !ok {
		return 0, false
	}
	n, tail, _ := strings.Cut(rest, ",")
	p, err := strconv.Atoi(n)
	return p, err == nil && strings.Contains(tail, "falling back to simple order")
}

// searchPatternNames are NCCL's graph patterns (graph.h, 2.12 on).
var searchPatternNames = map[int]string{1: "balanced tree", 2: "split tree", 3: "tree", 4: "ring", 5: "NVLS", 6: "CollNet Direct"}

var searchFallbackClass = failureClass{"",
	"For each algorithm of a communicator NCCL searches the node's topology for channels of one pattern (4 the ring's, 1 to 3 the trees', 5 NVLS, 6 CollNet Direct) that reach a bandwidth target, lowering the target until a set fits; this WARN says none fitted even at the lowest, and NCCL falls back to the GPUs in index order on one channel, whatever NICs and links lie between them. The job runs, at a fraction of the bandwidth the hardware gives. The search fails on a topology NCCL cannot lay a path through: a GPU or NIC it could not place (a VM or container that hides part of the PCI tree: 'Topology detection : could not read ...'), NICs that do not pair with the GPUs under NCCL_CROSS_NIC=0, merged NICs (NCCL 2.26's NIC fusion, whose fallback can then name a NET that does not exist: 'Could not find NET with id 0', NVIDIA/nccl#1748), or an NCCL_TOPO_FILE written for another machine.",
	"Rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=GRAPH and NCCL_TOPO_DUMP_FILE=<file> and read the topology NCCL built: every GPU and NIC under its PCI switch and CPU, NICs with their speed. Correct what it gets wrong (in a VM, the provider's NCCL_TOPO_FILE for the instance type), try without NCCL_CROSS_NIC and with NCCL_NET_MERGE_LEVEL=LOC, and compare nccl-tests busbw with the line rate."}

// checkGraphSearchFallback reports the patterns NCCL's graph search gave
// up on, once per pattern with the hosts that printed it.
func checkGraphSearchFallback(inc *Incident) []Finding {
	var gs failureGroups
	for _, l := range All[*ingest.NCCLLog](inc) {
		for _, w := range l.Warnings {
			p, ok := searchFallbackPattern(w.Message)
			if !ok {
				continue
			}
			c := searchFallbackClass
			c.what = fmt.Sprintf("NCCL's graph search found no path for pattern %d", p)
			if name, known := searchPatternNames[p]; known {
				c.what += " (the " + name + "'s)"
			}
			c.what += " and fell back to a simple order that ignores the topology"
			gs.add(c.what, c, strings.TrimSpace(w.Message), w.Host, w.Evidence)
		}
	}
	return gs.warnings("nccl.graph.search_fallback")
}
