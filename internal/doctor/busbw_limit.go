package doctor

import (
	"fmt"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// What the network lets an nccl-tests busbw reach, per collective. busbw
// normalises each collective's traffic (nccl-tests doc/PERFORMANCE.md: AllReduce algbw ×
// 2(n−1)/n, AllGather/ReduceScatter/AlltoAll ×(n−1)/n, Broadcast/Reduce/
// SendRecv ×1), so the ceiling is a multiple m of one NIC's line rate L:
//
//   - ring and tree collectives (AllReduce, AllGather, ReduceScatter,
//     Broadcast, Reduce): every ring crosses each node boundary once, and
//     NCCL spreads the rings (channels) over the node's NICs, so each
//     node's NICs carry busbw between them: m = NICs per node, whatever
//     the GPUs per node (nccl-tests#29: 12 GB/s per 100G NIC with eight
//     GPUs behind it; NVIDIA/nccl#1576: 192 GB/s on a DGX-A100's eight
//     200G NICs), but no more than the GPUs per node can feed through
//     their PCIe links: min(k·L, G·P) with P the GPU's PCIe bandwidth in
//     NCCL's topology model, which caps a GPU-NIC path at it (an H100's
//     Gen5 x16, 48 GB/s, is below a 400G NIC's 50, so 8 H100s with eight
//     400G NICs reach 384 GB/s, not 400); with the PCIe link unknown,
//     each GPU drives about one NIC. On exactly two nodes Tree and
//     NVLS AllReduce can beat it (nccl-tests#169, #196);
//   - AlltoAll: each rank sends (n−G)/n of its data off-node through its
//     own share of the NICs, k/G, and cannot combine NICs (nccl-tests#267):
//     m = (k/G)·(n−1)/(n−G);
//   - Gather and Scatter: the root's one NIC carries the off-node part:
//     m = (n−1)/(n−G);
//   - SendRecv: each pair that crosses a node boundary uses one NIC: m = 1.
//
// n is the rank count, G the ranks per node and k the NICs per node.

// busbwLimit is the per-rank busbw ceiling the network sets for a run.
type busbwLimit struct {
	// m is the ceiling in units of one NIC's line rate.
	m float64
	// model says which rule gave m, with the counts it used.
	model string
	// lowerBound is set when a count the model needs is unknown and m is
	// the smallest value it could take: a busbw below it is low, one above
	// it cannot be judged.
	lowerBound bool
	// offNode is set when the run does not leave its node: the NIC is not
	// on its path.
	offNode bool
	// nics is what busbw is divided by to give one NIC's load: the NIC
	// count of a ring collective, whose PCIe cap can make m fractional;
	// 0 means m.
	nics int
}

// perNIC is the load, in units of busbw, one NIC carries.
func (l busbwLimit) perNIC(busbw float64) float64 {
	if l.nics > 0 {
		return busbw / float64(l.nics)
	}
	return busbw / l.m
}

// unknown reports a limit the model could not set (m is 0).
func (l busbwLimit) unknown() bool { return l.m == 0 && !l.offNode }

// limitFor returns the ceiling model of run r on nodes nodes, with the
// ranks and NICs per host sh states.
func limitFor(r *ingest.TestRun, nodes int, sh share, line unit.BitRate) busbwLimit {
	g, k := sh.ranks, sh.nics
	n := r.NRanks()
	if g <= 0 {
		g = 1
	}
	if n < g*max(nodes, 1) {
		n = g * max(nodes, 1)
	}
	if nodes == 1 {
		if r.NRanks() <= 0 && g <= 1 {
			return busbwLimit{offNode: true, model: "all its ranks on one node"}
		}
		return busbwLimit{offNode: true, model: allOf(n, "rank", "ranks") + " on one node"}
	}
	kText := plural(k, "NIC", "NICs") + " per node"
	known := k > 0
	if !known {
		k, kText = 1, "one NIC per node assumed (the artifacts do not list the host's NICs)"
	}
	coll := r.Collective
	if how := inferredRanks(r); (r.NRanks() == 0 || how != "") && nodes < 2 && offNodeShareUnknown(r) {
		// No rank lines and no span: the share of the data that leaves a
		// node, (n−G)/n, is unknown, and so is the limit. A rank count
		// read from the count column or the busbw/algbw ratio leaves G
		// unknown too.
		named := "neither the ranks nor the nodes (no rank lines)"
		if how != "" {
			named = "no node (no rank lines; " + how + ")"
		}
		return busbwLimit{model: collName(r) + ": the output names " + named + ", so the share of its data that leaves a node, and with it the limit, is unknown"}
	}
	switch coll {
	case "alltoall", "alltoallv":
		if n <= g {
			return busbwLimit{offNode: true}
		}
		m := float64(k) / float64(g) * float64(n-1) / float64(n-g)
		return busbwLimit{m: m, lowerBound: (!known || sh.atLeast) && g > 1,
			model: fmt.Sprintf("alltoall: each rank sends %d/%d of its data off-node through its share of the NICs and cannot combine NICs, so busbw ≤ L·(k/G)·(n−1)/(n−G) with n=%d ranks, G=%d per node, %s: %.2f × L", n-g, n, n, g, kText, m)}
	case "gather", "scatter":
		if n <= g {
			return busbwLimit{offNode: true}
		}
		m := float64(n-1) / float64(n-g)
		return busbwLimit{m: m, model: fmt.Sprintf("%s: the root's one NIC carries the off-node part, so busbw ≤ L·(n−1)/(n−G) with n=%d ranks, G=%d per node: %.2f × L", coll, n, g, m)}
	case "sendrecv":
		return busbwLimit{m: 1, model: "sendrecv: each pair that crosses a node boundary uses one NIC, so busbw ≤ one NIC's line rate"}
	}
	name := coll
	if name == "" {
		name = "collective not named; judged as a ring collective"
	}
	model := fmt.Sprintf("%s: each ring crosses every node boundary once and NCCL spreads the rings over the node's NICs, so busbw ≤ the node's NIC bandwidth, %s × L (the GPUs per node do not divide it)", name, kText)
	m := float64(k)
	// With the GPU's PCIe link known the cap holds however many NICs the
	// node has: adding NICs cannot raise it past G·P.
	if per, how := nicShare(r, line); sh.ranks > 0 && (sh.ranks < k || how != "") {
		rate := "one NIC's line rate"
		if per != 1 {
			rate = fmt.Sprintf("%.4g × one NIC's line rate", per)
		}
		drive := fmt.Sprintf("%s per node, each driving about %s through its PCIe link%s", plural(sh.ranks, "GPU", "GPUs"), rate, how)
		if c := float64(sh.ranks) * per; c < m {
			m = c
			model += fmt.Sprintf("; with %s, %.4g × L", drive, m)
		} else if sh.ranks < k {
			model += fmt.Sprintf("; the %s, keep all %d NICs busy", drive, k)
		}
	}
	return busbwLimit{m: m, nics: k, lowerBound: (!known || sh.atLeast) && g > 1 && m < float64(g), model: model}
}

// nicShare is how much of a NIC of line rate line one GPU of run r keeps
// busy through its PCIe link, in NIC line rates: the link's bandwidth in
// NCCL's model over the NIC's (an A100's Gen4 x16, 24 GB/s, is 1.92 × a
// 100G NIC; an H100's Gen5 x16, 48 GB/s, 1.92 × a 200G one), so the
// node's cap is min(k·L, G·P) rather than a whole number of NICs; 1 when
// the GPU model or the line rate is not known. how names the link for
// the limit's text.
func nicShare(r *ingest.TestRun, line unit.BitRate) (per float64, how string) {
	m, ok := nvlinkModel(r)
	if !ok || m.pcie == 0 || line <= 0 {
		return 1, ""
	}
	per = m.pcie / (line.Gbps() / 8)
	how = fmt.Sprintf(" (%s: %s, %.0f GB/s in NCCL's topology model", m.name, m.pcieLink, m.pcie)
	if lo, hi := line.Gbps()/8*nicPayloadLo, line.Gbps()/8*nicPayloadHi; m.pcie >= lo*0.98 && m.pcie <= hi {
		// The link's figure is what the NIC itself delivers: a 400G NIC
		// carries about 48-49 GB/s of payload, NCCL counts Gen5 x16 at 48.
		how += fmt.Sprintf(", about what a %s NIC delivers, %.0f-%.0f GB/s: the NIC binds, not the link", line, lo, hi)
	}
	return per, how + ")"
}

// nicPayloadLo and nicPayloadHi bound the share of its line rate a
// healthy RoCE NIC delivers as payload (headers and pacing take the
// rest): 400G carries 48-49 GB/s.
const nicPayloadLo, nicPayloadHi = 0.96, 0.98

// limitShort names the limit in a title: "4 NICs per node x 400Gbps".
func limitShort(l busbwLimit) string {
	if l.m == 1 {
		return "one NIC's line rate"
	}
	return fmt.Sprintf("%.4g × one NIC's line rate", l.m)
}

// offNodeShareUnknown reports a run whose share of data leaving a node
// depends on the ranks per node: alltoall, gather or scatter, or a run
// left as candidates of which one is.
func offNodeShareUnknown(r *ingest.TestRun) bool {
	colls := []string{r.Collective}
	if r.Collective == "" {
		colls = r.Candidates
	}
	for _, c := range colls {
		switch c {
		case "alltoall", "alltoallv", "gather", "scatter":
			return true
		}
	}
	return false
}

// inferredRanks says how the rank count of a run without rank lines was
// read: "its count column gives 16 ranks", "its busbw/algbw ratio ...
// gives 16 ranks"; "" when the output names its ranks or none are known.
func inferredRanks(r *ingest.TestRun) string {
	switch {
	case r.RanksFromCount():
		return fmt.Sprintf("its count column gives %d ranks", r.NRanks())
	case r.RanksFromRatio():
		n, lo, hi := r.RatioRanks()
		factor := "(n-1)/n"
		if r.Collective == "all_reduce" {
			factor = "2(n-1)/n"
		}
		return fmt.Sprintf("its busbw/algbw ratio, %.3f-%.3f on every row, is %s's %s for n = %d only, so it ran on %d ranks", lo, hi, r.Collective, factor, n, n)
	}
	return ""
}
