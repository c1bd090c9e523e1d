package doctor

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/ingest"
)

// Rules over the NUMA node of each GPU and RDMA NIC, where the inputs
// state both: a GPU whose node has no RDMA NIC sends every byte of its
// network traffic across the link between sockets.

func numaRules() []Rule {
	return []Rule{{IDs: []string{"host.numa.nic_far"}, Check: checkNUMANICs}}
}

// numaDev is a GPU or RDMA NIC with the NUMA node an input gives it.
// For a NIC, whole is set when its input lists every NIC of the host
// (mst status, lstopo or hwloc, lspci without -s); for a GPU of nvidia-smi
// topo -m (or NCCL's topology XML), judged is set when its row gives its
// path to a NIC, and for a GPU of another input when such a matrix speaks
// for its host (see topoJudged): topo.gpu_nic.* judge that GPU's distance
// to its NICs. legend is how many NICs the matrix names.
type numaDev struct {
	name, node    string
	gpu, topo     bool
	whole, judged bool
	legend        int
	// index is a listed GPU's place among its input's GPUs in PCI bus
	// order, nvidia-smi's GPU index.
	index int
	ev    Evidence
	scope ingest.Scope
}

// relatesNIC reports whether a row of t gives its GPU's path to one of the
// NICs t names, as checkGPUNICDistance reads it.
func relatesNIC(t *ingest.GPUTopo, g ingest.TopoGPU) bool {
	for i, c := range g.ToNIC {
		if i < len(t.NICs) && topoRank(c) >= 0 {
			return true
		}
	}
	return false
}

// topoJudged reports whether a topology matrix that speaks for the host
// of an input in scope at (its own or its host's, or the only matrix of
// the incident relating GPUs to NICs when neither says its host) relates
// GPU index (any GPU for index -1, unknown) to a NIC. That GPU is then topo.gpu_nic.*'s to judge, by its
// PCIe path, which a NUMA node only approximates; a GPU a cut matrix does
// not cover is judged here.
func topoJudged(inc *Incident, at ingest.Scope, index int) bool {
	var rs []reach
	var covers []bool
	for _, t := range All[*ingest.GPUTopo](inc) {
		if slices.ContainsFunc(t.GPUs, func(g ingest.TopoGPU) bool { return relatesNIC(t, g) }) {
			rs = append(rs, reachOf(at, t.Scope()))
			covers = append(covers, slices.ContainsFunc(t.GPUs, func(g ingest.TopoGPU) bool {
				return (index < 0 || g.Name == fmt.Sprintf("GPU%d", index)) && relatesNIC(t, g)
			}))
		}
	}
	for i, r := range rs {
		if covers[i] && (r >= sameHost || r == unknownHost && len(rs) == 1) {
			return true
		}
	}
	return false
}

// numaDevices are the GPUs and RDMA NICs whose NUMA node the incident's
// inputs state: nvidia-smi topo -m's NUMA Affinity (GPUs), mst status -v
// (NICs), lspci -vvv's "NUMA node:" (both), sysfs's numa_node of a DRM
// card or an RDMA device (both), lstopo and hwloc's XML (both).
func numaDevices(inc *Incident) []numaDev {
	var out []numaDev
	for _, t := range All[*ingest.GPUTopo](inc) {
		for _, g := range t.GPUs {
			if g.NUMA != "" {
				out = append(out, numaDev{name: g.Name, node: g.NUMA, gpu: true, topo: true, judged: relatesNIC(t, g), legend: len(t.NICs), ev: g.Evidence, scope: t.Scope()})
			}
		}
	}
	for _, m := range All[*ingest.MSTStatus](inc) {
		for _, d := range m.Devices {
			if d.NUMA >= 0 {
				out = append(out, numaDev{name: nameOr(d.RDMA, d.PCI), node: fmt.Sprint(d.NUMA), whole: true, ev: d.Evidence, scope: m.Scope()})
			}
		}
	}
	for _, p := range All[*ingest.Lspci](inc) {
		gpus := 0
		for _, d := range p.Devices {
			// A listing of picked devices (lspci -s) does not tell a
			// GPU's index.
			index := -1
			if p.Whole {
				index = gpus
			}
			if d.NUMA != "" && (d.Role == ingest.RoleGPU || d.RDMA()) {
				out = append(out, numaDev{name: d.Role + " " + d.BDF, node: d.NUMA, gpu: d.Role == ingest.RoleGPU, whole: p.Whole, index: index, ev: d.NUMAEvidence, scope: p.Scope()})
			}
			if d.Role == ingest.RoleGPU {
				gpus++
			}
		}
	}
	for _, p := range All[*ingest.PCISysfs](inc) {
		for _, d := range p.Devices {
			if d.NUMA != "" && (d.Role == ingest.RoleGPU || d.RDMA()) {
				out = append(out, numaDev{name: d.Role + " " + nameOr(d.BDF, d.Name), node: d.NUMA, gpu: d.Role == ingest.RoleGPU, index: -1, ev: d.NUMAEvidence, scope: p.Scope()})
			}
		}
	}
	for _, h := range All[*ingest.HostTopology](inc) {
		gpus := 0
		for _, d := range h.Devices {
			if d.NUMA != "" && (d.GPU || d.RDMA != "") {
				out = append(out, numaDev{name: h.DeviceName(d), node: d.NUMA, gpu: d.GPU, whole: true, index: gpus, ev: d.Evidence, scope: h.Scope()})
			}
			if d.GPU {
				gpus++
			}
		}
	}
	return out
}

// checkNUMANICs reports, per input that places GPUs on NUMA nodes, the
// GPUs whose node has none of the host's RDMA NICs, the NICs read from
// the same input or host, or from the one input that states NICs when
// no input says its host. GPUs a topology matrix relates to NICs are
// left to topo.gpu_nic.*: one cause, one finding.
func checkNUMANICs(inc *Incident) []Finding {
	devs := numaDevices(inc)
	for i, d := range devs {
		if d.gpu && !d.topo && topoJudged(inc, d.scope, d.index) {
			devs[i].judged = true
		}
	}
	var nicSources []string
	for _, d := range devs {
		if !d.gpu && !slices.Contains(nicSources, d.scope.Source) {
			nicSources = append(nicSources, d.scope.Source)
		}
	}
	var fs []Finding
	var done []string
	for _, g := range devs {
		if !g.gpu || slices.Contains(done, g.scope.Source) {
			continue
		}
		done = append(done, g.scope.Source)
		var gpus, nics []numaDev
		for _, d := range devs {
			switch r := reachOf(g.scope, d.scope); {
			case d.gpu && d.scope.Source == g.scope.Source:
				gpus = append(gpus, d)
			case !d.gpu && (r >= sameHost || r == unknownHost && len(nicSources) == 1):
				nics = append(nics, d)
			}
		}
		if f, ok := numaFinding(g.scope.Source, gpus, nics); ok {
			if n, ok := numaDistances(inc, g.scope); ok {
				f.Mechanism += distanceNote(n, gpus, nics)
				f.Evidence = evidenceInOrder(append(f.Evidence, n.Evidence))
			}
			fs = append(fs, f)
		}
	}
	return fs
}

// numaFinding reports the GPUs whose NUMA node has none of nics, when
// nics are all the host's: some come from a whole-host listing, or they
// are as many as the NICs topo -m's legend names. A GPU whose topo -m row
// gives its path to a NIC is topo.gpu_nic.*'s, never far here.
func numaFinding(src string, gpus, nics []numaDev) (Finding, bool) {
	if len(nics) == 0 {
		return Finding{}, false
	}
	legend := 0
	for _, g := range gpus {
		legend = max(legend, g.legend)
	}
	var names []string
	for _, n := range nics {
		if !slices.Contains(names, n.name) {
			names = append(names, n.name)
		}
	}
	if !slices.ContainsFunc(nics, func(n numaDev) bool { return n.whole }) && (legend == 0 || len(names) < legend) {
		return Finding{}, false
	}
	nicAt := map[string][]string{}
	var nicNodes []string
	var nicEv []Evidence
	for _, n := range nics {
		if !slices.Contains(nicAt[n.node], n.name) {
			nicAt[n.node] = append(nicAt[n.node], n.name)
		}
		if !slices.Contains(nicNodes, n.node) {
			nicNodes = append(nicNodes, n.node)
			nicEv = append(nicEv, n.ev)
		}
	}
	slices.Sort(nicNodes)
	var far []string
	var ev []Evidence
	farNodes := map[string]bool{}
	for _, g := range gpus {
		if _, ok := nicAt[g.node]; ok || g.judged {
			continue
		}
		far = append(far, g.name)
		farNodes[g.node] = true
		if len(ev) < 4 {
			ev = append(ev, g.ev)
		}
	}
	if len(far) == 0 {
		return Finding{}, false
	}
	var gNodes, where []string
	for n := range farNodes {
		gNodes = append(gNodes, n)
	}
	slices.Sort(gNodes)
	nodeWord, has := "node", "has"
	if len(gNodes) > 1 {
		nodeWord, has = "nodes", "have"
	}
	for _, n := range nicNodes {
		where = append(where, fmt.Sprintf("%s on node %s", list(nicAt[n], 4), n))
	}
	return Finding{
		ID: "host.numa.nic_far", Severity: Warn, Layer: LayerNCCL,
		Title: fmt.Sprintf("%s: %d of %d GPUs (%s) sit on NUMA %s %s, which %s no RDMA NIC: the NICs are %s",
			src, len(far), len(gpus), list(far, 4), nodeWord, strings.Join(gNodes, ", "), has, strings.Join(where, "; ")),
		Evidence: evidenceInOrder(append(ev, nicEv...)),
		Mechanism: "Each GPU and NIC hangs from one CPU socket's PCIe root complex, its NUMA node. NCCL gives each GPU the nearest NIC; for a GPU whose node has none, every network byte crosses the link between sockets (UPI, xGMI/Infinity Fabric), " +
			"and NCCL turns GPUDirect RDMA off beyond NCCL_NET_GDR_LEVEL (PXB by default), staging each message through host memory and the proxy thread's CPU: bandwidth drops and the inter-socket link carries both directions of the traffic. Several GPUs sharing a remote NIC also split its line rate.",
		Fix: "Give every NUMA node with GPUs its own RDMA NIC (the server's reference PCIe layout: a NIC under the same PCIe switch as each GPU pair); check `cat /sys/class/infiniband/<dev>/device/numa_node` against `nvidia-smi topo -m`'s NUMA Affinity, and the BIOS's NUMA-per-socket setting (NPS, SNC), which renumbers the nodes. Where the layout is fixed, bind each rank's CPUs and memory to its GPU's node (numactl --cpunodebind=<node> --membind=<node>) and expect the cross-socket NIC's bandwidth to be the job's.",
	}.per(src, "input", "GPUs on a NUMA node without an RDMA NIC"), true
}

// numaDistances returns the numactl -H with a distance matrix of the
// host of an input in scope at: its own or its host's, else the only
// one of the incident when no input says its host.
func numaDistances(inc *Incident, at ingest.Scope) (*ingest.Numactl, bool) {
	all := All[*ingest.Numactl](inc)
	for _, n := range all {
		if r := reachOf(at, n.Scope()); len(n.Distance) > 0 && (r >= sameHost || r == unknownHost && len(all) == 1) {
			return n, true
		}
	}
	return nil, false
}

// distanceNote says how far numactl puts the far GPUs' nodes from the
// nearest node with a NIC, against a node's own distance.
func distanceNote(n *ingest.Numactl, gpus, nics []numaDev) string {
	at := func(a, b string) int {
		node := func(s string) int {
			return slices.IndexFunc(n.DistanceNodes, func(id int) bool { return fmt.Sprint(id) == s })
		}
		i, j := node(a), node(b)
		if i < 0 || j < 0 || i >= len(n.Distance) || j >= len(n.Distance[i]) {
			return -1
		}
		return n.Distance[i][j]
	}
	var parts []string
	seen := map[string]bool{}
	for _, g := range gpus {
		if seen[g.node] || slices.ContainsFunc(nics, func(d numaDev) bool { return d.node == g.node }) {
			continue
		}
		seen[g.node] = true
		best, to := -1, ""
		for _, d := range nics {
			if v := at(g.node, d.node); v > 0 && (best < 0 || v < best) {
				best, to = v, d.node
			}
		}
		if own := at(g.node, g.node); best > 0 && own > 0 {
			parts = append(parts, fmt.Sprintf("node %s to node %s %d against %d within node %s", g.node, to, best, own, g.node))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " numactl -H gives the distance from " + strings.Join(parts, "; ") + ": every access the proxy thread and the NIC make across it costs that much more than a local one."
}
