package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
)

// What NVLink lets a single-node nccl-tests busbw reach. Ranks on one node
// move their data over NVLink, so the NIC limits of busbw_limit.go do not
// apply; on an 8-GPU HGX/DGX baseboard every GPU reaches the NVSwitches
// with all its links, and a Ring collective's busbw settles near 80% of
// one GPU's NVLink bandwidth in one direction (SMs move 128-byte payloads,
// about 20 of each link's 25 GB/s):
//
//   - A100 SXM (NVLink 3, 12 links x 25 GB/s = 300 GB/s each way): about
//     230 GB/s at 8 GB (nccl-tests#149, the maintainer: 240 GB/s effective,
//     ~230 reached);
//   - H100/H200/H20 SXM (NVLink 4, 18 x 25 = 450 GB/s): about 360 GB/s
//     with Ring, about 480 GB/s with NVLink SHARP (NVLS) all_reduce
//     (nccl-tests#312; NVIDIA/nccl#1374, quoting GTC S62129);
//   - H800 (NVLink 4 cut to 8 links, 200 GB/s): about 160 GB/s with Ring
//     by the same 80%; 215 GB/s reported with NVLS (NVIDIA/nccl#1374).
//   - B200 (NVLink 5, 18 links x 50 = 900 GB/s): NCCL's topology model
//     (src/graph/topo.h SM100_NVLINK_BW, 40.1 GB/s a link against
//     SM90's 20.6) gives 18 x 40.1 = 721.8 GB/s, which NCCL prints as
//     "maxBw 721.8" on an 8-GPU B200 node (NVIDIA/nccl#1807, whose 8 GPUs
//     reach 830+ GB/s with NVLS); measured Ring figures sit a few percent
//     under the model (H100: 360 against 18 x 20.6 = 370.8), so about 700
//     GB/s here. A measured NVLink 5 Ring agrees: 8 x B300, the same 18
//     links, 695 GB/s busbw with NVLS off and 845 with it on
//     (NVIDIA/nccl#2140, NCCL 2.30.4; 370 and 480 on 8 x H100 there).
//
// AMD's MI300X (and the MI325X, which keeps its Infinity Fabric) link
// each of the 8 GPUs of a board to the 7 others by xGMI, 64 GB/s per link
// each way of which about 48 are usable: RCCL's 8-GPU all_reduce reaches
// 310-330 GB/s busbw (the ROCm blog "Understanding RCCL Bandwidth and xGMI
// Performance on AMD Instinct MI300X", 2025; 316-319 GB/s in its runs and
// others of the corpus), about 315 here. The MI350X and MI355X (CDNA 4)
// keep the 7 links of that mesh, each rated 153.6 GB/s both ways against
// the MI300X's 128, so 76.8 each way; the same overhead scales the
// MI300X's 315 by 1.2 to about 378 GB/s. Measured boards agree: 8 x MI350X
// in one process reach 367 GB/s (an AMD engineer's node notes, whose own
// pass mark is 304 GB/s at 8 GB) and 8 x MI355X 407 (OCI's quick start).
//
// Only 8 ranks of one of these models on one host are judged: 2 or 4
// GPUs may sit on a 4-GPU board whose GPUs link directly, and PCIe cards
// (A100 PCIe, H100 PCIe/NVL with bridges) have no NVSwitch. Other GPUs
// have no reference figure here and stay unjudged.
//
// Across nodes, with no NIC speed known, the compute fabric such 8-GPU
// nodes usually carry is a reference, not a verdict: 8 x 200G (HDR) on
// A100 (DGX A100; OCI's BM.GPU4.8 has the same 1.6 Tb/s), 8 x 400G on
// H100/H200/B200 (DGX H100/B200), each 400G NIC carrying 48 GB/s of busbw
// (nccl-tests#319, the maintainer: ~396 GB/s with Ring).

// nvlinkGPU is an SXM GPU model whose 8-GPU board busbw is known.
type nvlinkGPU struct {
	// match is a substring of the device name nccl-tests prints, exact a
	// whole name (PCIe and NVL variants are never matched).
	match, exact []string
	name         string
	// perDir is one GPU's NVLink bandwidth in one direction (GB/s); ring
	// the busbw a healthy 8-GPU Ring collective reaches.
	perDir, ring float64
	// fabric is the compute network such nodes usually carry, and
	// fabricRing the Ring busbw it gives across nodes (GB/s); "" when
	// there is no usual one.
	fabric     string
	fabricRing float64
	// pcie is the bandwidth NCCL's topology model gives the GPU's PCIe
	// link to its NICs, one direction (GB/s), and pcieLink names it; 0
	// when not given. NCCL's src/graph/topo.cc (kvDictPciGen) counts a
	// lane at 120 (Gen4, 16 GT/s) or 240 (Gen5) × 100 Mbps and divides
	// width × speed by 80: Gen4 x16 24 GB/s, Gen5 x16 48 GB/s, against
	// the raw 31.5 and 63.
	pcie     float64
	pcieLink string
	// amd marks an AMD Instinct board, whose GPUs link by xGMI; xgmiLink
	// is then one xGMI link's rated bandwidth in one direction (GB/s) and
	// ringFrom says where the ring figure comes from.
	amd      bool
	xgmiLink float64
	ringFrom string
}

// link names the GPU-to-GPU links of the model's board.
func (m nvlinkGPU) link() string {
	if m.amd {
		return "xGMI"
	}
	return "NVLink"
}

var nvlinkGPUs = []nvlinkGPU{
	{match: []string{"A100-SXM"}, name: "A100 SXM (NVLink 3)", perDir: 300, ring: 230, fabric: "8 × 200G NICs, one per GPU", fabricRing: 188, pcie: 24, pcieLink: "PCIe Gen4 x16"},
	{match: []string{"H100 80GB HBM3", "H100-SXM", "H100 SXM"}, name: "H100 SXM (NVLink 4)", perDir: 450, ring: 360, fabric: "8 × 400G NICs, one per GPU", fabricRing: 380, pcie: 48, pcieLink: "PCIe Gen5 x16"},
	{exact: []string{"NVIDIA H200"}, match: []string{"H200 141GB HBM3e"}, name: "H200 SXM (NVLink 4)", perDir: 450, ring: 360, fabric: "8 × 400G NICs, one per GPU", fabricRing: 380, pcie: 48, pcieLink: "PCIe Gen5 x16"},
	{exact: []string{"NVIDIA H20"}, name: "H20 (NVLink 4)", perDir: 450, ring: 360},
	{match: []string{"H800"}, name: "H800 (NVLink 4, 8 links)", perDir: 200, ring: 160},
	// DGX/HGX B200 nodes carry 8 x 400G like the H100's.
	{exact: []string{"NVIDIA B200"}, name: "B200 (NVLink 5)", perDir: 900, ring: 700, fabric: "8 × 400G NICs, one per GPU", fabricRing: 380},
	// B300 keeps the B200's 18 NVLink 5 links; CUDA names it "NVIDIA B300
	// SXM6 AC". Its nodes carry no one usual fabric (DGX B300: 8 × 800G,
	// AWS p6-b300: EFA), so none is given.
	{exact: []string{"NVIDIA B300"}, match: []string{"NVIDIA B300 SXM"}, name: "B300 (NVLink 5)", perDir: 900, ring: 700},
	// MI300X and MI325X reach their NICs over PCIe Gen5 x16, which RCCL's
	// topology model (NCCL's, kvDictPciGen) also counts at 48 GB/s.
	{match: []string{"Instinct MI300X", "Instinct MI325X"}, name: "MI300X/MI325X", perDir: 448, ring: 315, pcie: 48, pcieLink: "PCIe Gen5 x16", amd: true, xgmiLink: 64, ringFrom: "AMD: 310-330 GB/s"},
	{match: []string{"Instinct MI350X", "Instinct MI355X"}, name: "MI350X/MI355X", perDir: 537.6, ring: 378, amd: true, xgmiLink: 76.8, ringFrom: "the MI300X's 315 GB/s scaled by the faster links; 367-407 GB/s measured on such boards"},
}

// nvlinkModel returns the SXM model every rank's GPU name matches. Ranks
// without a name are passed over: nccl-tests' JSON names the first GPU of
// each process only, and a process's GPUs sit in one node.
func nvlinkModel(r *ingest.TestRun) (nvlinkGPU, bool) {
	var got *nvlinkGPU
	for _, rk := range r.Ranks {
		if rk.GPU == "" {
			continue
		}
		m := modelOf(rk.GPU)
		if m == nil || (got != nil && got != m) {
			return nvlinkGPU{}, false
		}
		got = m
	}
	if got == nil {
		return nvlinkGPU{}, false
	}
	return *got, true
}

func modelOf(gpu string) *nvlinkGPU {
	g := strings.TrimSpace(gpu)
	if strings.Contains(strings.ToUpper(g), "PCIE") || strings.Contains(g, " NVL") {
		return nil
	}
	for i := range nvlinkGPUs {
		m := &nvlinkGPUs[i]
		for _, s := range m.exact {
			if g == s {
				return m
			}
		}
		for _, s := range m.match {
			if strings.Contains(g, s) {
				return m
			}
		}
	}
	return nil
}

// aboveFabric is the fraction of the usual fabric's Ring plateau above
// which a plateau is more than that fabric carries: a margin chosen here,
// not a measured one, to stay clear of the few percent runs of one fabric
// differ by.
const aboveFabric = 1.05

// fabricNote puts a multi-node ring collective on 8-GPU SXM nodes whose
// NIC speed is unknown beside the Ring busbw the usual compute fabric of
// such nodes gives (8 NICs of line rate L carry about 8 × 0.96 L), and
// short says it for a title: a reference, not a verdict, since the file
// does not say which NICs the nodes have. Both are "" for other runs.
func fabricNote(inc *Incident, r *ingest.TestRun, nodes int, p ingest.Plateau) (note, short string) {
	if otherNetwork(inc) {
		return "", ""
	}
	switch r.Collective {
	case "all_reduce", "all_gather", "reduce_scatter":
	default:
		return "", ""
	}
	_, counts := r.RanksPerHost()
	if nodes < 2 || len(counts) < 2 || r.Tool != "" {
		return "", ""
	}
	for _, c := range counts {
		if c != 8 {
			return "", ""
		}
	}
	m, ok := nvlinkModel(r)
	if !ok || m.fabric == "" {
		return "", ""
	}
	frac := p.BusBW / m.fabricRing
	verdict, above := "consistent with that fabric", ""
	switch {
	case frac < lowFraction:
		verdict = "low if that is this fabric"
	case frac > aboveFabric:
		// A Ring plateau cannot pass what the NICs carry: these nodes have
		// more or faster NICs (OCI's BM.GPU.H100.8: 16 × 200G), or all_reduce
		// on two nodes ran Tree or NVLS.
		verdict = "above what that fabric carries: the nodes have more or faster NICs than it"
		if mayBeAllReduce(r) && nodes == 2 && !ringOnly(inc) {
			verdict += ", or all_reduce on exactly 2 nodes ran Tree or NVLS, which report busbw above the NIC rate (judge the network with NCCL_ALGO=RING)"
		}
		above = ": above it"
	}
	note = fmt.Sprintf("For reference: 8-GPU %s nodes usually carry %s, whose healthy Ring plateau across nodes is about %.0f GB/s; this plateau is %d%% of it, %s. The file does not say which NICs the nodes have: pass --nic-speed and --nics-per-node to judge it.", m.name, m.fabric, m.fabricRing, sharePct(frac, lowFraction), verdict)
	short = fmt.Sprintf(" (%d%% of the ~%.0f GB/s of the usual fabric, %s%s)", sharePct(frac, lowFraction), m.fabricRing, m.fabric, above)
	return note, short
}

// otherNetwork reports whether the incident shows a network other than
// NCCL's IB verbs transport: a net plugin's own lines (AWS EFA through
// aws-ofi-nccl), "Using network" naming sockets or a plugin, a plugin
// named by NCCL_NET or NCCL_NET_PLUGIN, or NCCL_IB_DISABLE in effect. Such nodes have their own fabric (p4d: four 100G
// EFA), or the job does not use it, so the usual one is no reference.
func otherNetwork(inc *Incident) bool {
	if _, off := ibTurnedOff(inc); off || netPluginNamed(inc) {
		return true
	}
	for _, l := range All[*ingest.NCCLLog](inc) {
		if l.PluginNetLines.Count > 0 {
			return true
		}
		for _, n := range l.Networks {
			if !strings.HasPrefix(n.Name, "IB") {
				return true
			}
		}
	}
	return false
}

// walkFirst is the first step of a low bandwidth's fix: the layers under
// NCCL's transport. A net plugin's own lines (AWS EFA through
// aws-ofi-nccl) mean its provider carries the traffic, with no RoCE
// priority, PFC or ECN of the host's to check.
func walkFirst(inc *Incident) string {
	for _, l := range All[*ingest.NCCLLog](inc) {
		if l.PluginNetLines.Count > 0 {
			return "Walk the layers above first: the net plugin's provider on every NIC (its 'Selected provider' line and NIC count on each host) and its rails all in use; the plugin's transport has no RoCE priority, PFC or ECN to check."
		}
	}
	return "Walk the layers above first: RDMA in use and QPs healthy, PFC/ECN on the RoCE priority."
}

// nvlinkJudged reports whether run r is a ring collective on the 8 GPUs of
// one known SXM board, the runs judgeNVLink judges.
func nvlinkJudged(r *ingest.TestRun) (nvlinkGPU, bool) {
	if r.Tool != "" && r.Tool != ingest.ToolRCCL {
		// mscclpp-test's kernels are not NCCL's Ring: no reference figure.
		return nvlinkGPU{}, false
	}
	switch r.Collective {
	case "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce":
	default:
		return nvlinkGPU{}, false
	}
	hosts, counts := r.RanksPerHost()
	if len(hosts) != 1 || counts[0] != 8 || r.NRanks() != 8 || len(r.Ranks) != 8 {
		return nvlinkGPU{}, false
	}
	m, ok := nvlinkModel(r)
	// The xGMI figure is RCCL's all_reduce; its other collectives have
	// none here.
	return m, ok && m.ring > 0 && (!m.amd || r.Collective == "all_reduce")
}

// judgeNVLink judges the plateau p of a single-node run against its GPUs'
// NVLink, with ev the plateau's rows and plat its description.
func judgeNVLink(inc *Incident, r *ingest.TestRun, p ingest.Plateau, m nvlinkGPU, ev evidence, plat string) Finding {
	ev.add(r.Ranks[0].Evidence)
	frac := p.BusBW / m.ring
	n := len(p.Rows)
	rising := n >= 2 && p.Rows[n-1].BestBusBW() > 1.03*p.Rows[n-2].BestBusBW() && !peakedBefore(r, p.Rows[n-1])
	gen := "NVLink 4"
	if m.perDir >= 900 {
		gen = "NVLink 5"
	}
	mech := fmt.Sprintf("All 8 ranks run on one %s board, so their data crosses NVLink and the NVSwitches, not a NIC. Each GPU has %.0f GB/s of NVLink in each direction; a healthy 8-GPU Ring %s settles near %.0f GB/s busbw (NVLink SHARP all_reduce, NVLS, reaches more on %s).", m.name, m.perDir, r.Collective, m.ring, gen)
	if m.amd {
		mech = fmt.Sprintf("All 8 ranks run on one %s board, so their data crosses xGMI (AMD Infinity Fabric), each GPU linked directly to the 7 others, not a NIC. Each GPU has %.0f GB/s of xGMI in each direction (7 links of %.4g GB/s, about %.3g usable after CRC and protocol overhead); a healthy 8-GPU RCCL all_reduce settles near %.0f GB/s busbw (%s).", m.name, m.perDir, m.xgmiLink, 0.75*m.xgmiLink, m.ring, m.ringFrom)
	}
	f := Finding{Layer: LayerNCCL, Mechanism: mech}
	switch {
	case frac < lowFraction && frac >= veryLowFraction && rising:
		// nccl-tests#149: a sweep that stops at 1 GB is still climbing;
		// the maintainer's answer was a larger -e, not a fault.
		f.ID, f.Severity = "nccltests.busbw.unjudged", Info
		f.Title = fmt.Sprintf("%s %s is %d%% of what 8 %s GPUs reach over %s (about %.0f GB/s), but still rising at its largest size", testName(r), plat, sharePct(frac, lowFraction, veryLowFraction), m.name, m.link(), m.ring)
		f.Fix = "Rerun with a larger maximum size (-e 8G): " + m.link() + " busbw levels off only at several GB per rank."
	case frac < lowFraction:
		f.ID, f.Severity = "nccltests.busbw.low", Warn
		if frac < veryLowFraction {
			f.Severity = Error
		}
		f.Title = fmt.Sprintf("%s %s is %d%% of what 8 %s GPUs reach over %s (about %.0f GB/s)", testName(r), plat, sharePct(frac, lowFraction, veryLowFraction), m.name, m.link(), m.ring)
		f.Fix = "Check the NVLink path: `nvidia-smi nvlink -s` (every link active at full speed), `nvidia-smi topo -m` (NV# between every GPU pair), `systemctl status nvidia-fabricmanager` on NVSwitch systems, and that neither NCCL_P2P_DISABLE=1 nor NCCL_P2P_LEVEL/NCCL_SHM settings push traffic through host memory; in a VM or container, check that GPU peer-to-peer is allowed. Then rerun with NCCL_DEBUG=INFO: channels should say `via P2P/CUMEM` or `P2P/IPC`, not `via SHM`."
		if m.amd {
			perGPU := ""
			if r.NGpus > 1 {
				// A run with one process per GPU already does this.
				perGPU = "; run one process per GPU (mpirun -np 8 ... -g 1)"
			}
			f.Fix = "Check the xGMI path: `rocm-smi --showtopo` (XGMI, not PCIE, between every GPU pair), `rocm-smi --showxgmierr` or `amd-smi xgmi` (no link errors), that NUMA auto-balancing is off (`cat /proc/sys/kernel/numa_balancing` is 0) and NCCL_P2P_DISABLE is unset" + perGPU + ". Then rerun with NCCL_DEBUG=INFO: channels should go `via P2P`, not `via SHM`."
		}
		if t := p2pOff(inc); t != "" {
			f.Fix = t + " " + f.Fix
		}
	default:
		over := m.link() + " with Ring"
		if m.amd {
			over = "xGMI"
		}
		f.ID, f.Severity = "nccltests.busbw.ok", Info
		f.Title = fmt.Sprintf("%s %s is %.0f%% of what 8 %s GPUs reach over %s (about %.0f GB/s): %s delivers its bandwidth", testName(r), plat, frac*100, m.name, over, m.ring, m.link())
		if frac > 1.1 {
			f.Title = fmt.Sprintf("%s %s is above what 8 %s GPUs reach over %s (about %.0f GB/s): %s delivers its bandwidth", testName(r), plat, m.name, over, m.ring, m.link())
			if !m.amd {
				f.Mechanism += " A plateau above the Ring figure is NVLS (NVLink SHARP, in the NVSwitches) at work."
			}
		}
	}
	f.Mechanism += " No NIC is on this path: run across nodes to judge the network."
	f.Evidence = ev.sorted()
	return f
}

// peakedBefore reports whether a smaller size of run r ran faster than
// its largest-size row last: such a sweep reached its bandwidth and lost
// it, so a last row above the one before it is a recovery from a fall,
// not a climb that a larger -e would finish.
func peakedBefore(r *ingest.TestRun, last ingest.TestRow) bool {
	for _, row := range r.Rows {
		if row.Size < last.Size && row.BestBusBW() > last.BestBusBW() {
			return true
		}
	}
	return false
}

// p2pOff names NCCL settings in the incident that take GPU peer-to-peer
// off NVLink.
func p2pOff(inc *Incident) string {
	var xs []string
	for _, e := range ncclEnv(inc, "NCCL_P2P_DISABLE") {
		if e.Value == "1" {
			xs = append(xs, "NCCL_P2P_DISABLE=1 (peer-to-peer off: traffic through host shared memory)")
		}
	}
	for _, e := range ncclEnv(inc, "NCCL_P2P_LEVEL") {
		if v := strings.ToUpper(e.Value); v == "LOC" || v == "0" {
			xs = append(xs, "NCCL_P2P_LEVEL="+e.Value+" (peer-to-peer off)")
		}
	}
	if len(xs) == 0 {
		return ""
	}
	return "Likely cause in this incident: " + strings.Join(distinct(xs), "; ") + "."
}

// gpuLinks names the links between the GPUs of one node: AMD Instinct
// GPUs of an rccl-tests run reach each other over xGMI (Infinity Fabric),
// NVIDIA's over NVLink, and either over PCIe where those are absent.
func gpuLinks(r *ingest.TestRun) string {
	if r.Tool == ingest.ToolRCCL {
		return "xGMI (AMD Infinity Fabric) or PCIe"
	}
	return "NVLink or PCIe"
}
