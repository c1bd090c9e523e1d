package doctor

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/gpu"
	"rocelab/internal/ingest"
)

// Rules over `nvidia-smi topo -m`: how far each GPU is from its nearest
// NIC. NCCL lets a NIC read and write GPU memory directly (GPUDirect RDMA)
// only when the NIC is at most NCCL_NET_GDR_LEVEL from the GPU, PXB by
// default (one PCIe switch between them); farther, every transfer is
// staged through host memory.

// topoRank orders nvidia-smi's links, nearest first; -1 for none. P2C
// is NCCL's: a GPU joined to its CPU by C2C (Grace) with the NIC on that
// CPU's host bridge.
func topoRank(link string) int {
	switch link {
	case "X":
		return 0
	case "PIX":
		return 1
	case "PXB":
		return 2
	case "P2C":
		return 3
	case "PHB":
		return 4
	case "NODE":
		return 5
	case "SYS", "SOC":
		return 6
	}
	return -1
}

func gpuTopoRules() []Rule {
	return []Rule{
		{IDs: []string{"topo.gpu_nic.far", "topo.gpu_nic.ok", "topo.gpu_nic.c2c", "topo.gpu_nic.none"}, Check: checkGPUNICDistance},
		{IDs: []string{"topo.gpu_gpu.host"}, Check: checkGPUPeerLinks},
		{IDs: []string{"topo.gpu_gpu.nvlink_missing"}, Check: checkGPUOffNVLink},
		{IDs: []string{"input.garbled"}, Check: checkTopoGarbled},
	}
}

// checkTopoGarbled reports the cells of topo matrix rows that are no link
// type; the rows are judged on their other cells.
func checkTopoGarbled(inc *Incident) []Finding {
	var fs []Finding
	for _, t := range All[*ingest.GPUTopo](inc) {
		what, why, fix := "nvidia-smi topo -m",
			"These rows of the matrix have a cell that is no link type nvidia-smi prints (two cells run together where the paste lost a tab, or an edit), so that GPU's link to that NIC or GPU is unknown; the rows' other cells are read.",
			"Pass nvidia-smi's unedited output: `nvidia-smi topo -m > topo.txt`."
		if t.Kind() == ingest.KindNCCLTopo {
			what, why, fix = "NCCL's topology XML",
				"These elements of the topology XML have attributes that are not key=\"value\" pairs (a paste that lost a quote, an edit), so the element was left out of the tree: a GPU or NIC in it is missing from the distances.",
				"Pass the file NCCL wrote unedited (NCCL_TOPO_DUMP_FILE=<file>)."
		}
		if f, ok := garbledLines(t.Source(), what, t.Garbled, why, fix); ok {
			fs = append(fs, f)
		}
	}
	return fs
}

// checkGPUNICDistance reports the GPUs whose nearest NIC is beyond PXB,
// and the Grace-attached GPUs whose NIC path nvidia-smi cannot name.
func checkGPUNICDistance(inc *Incident) []Finding {
	var fs []Finding
	incGrace := graceModel(incidentModels(inc))
	for _, t := range All[*ingest.GPUTopo](inc) {
		if len(t.NICs) == 0 {
			if f, ok := noNICFinding(t); ok {
				fs = append(fs, f)
			}
			continue
		}
		// The matrix's own model lines speak for it; without them, the
		// models the other inputs name, when every one is a Grace.
		grace := incGrace
		if len(t.Models) > 0 {
			grace = graceModel(t.Models)
		}
		var far, near, c2c []string
		var ev, c2cEv []Evidence
		for _, g := range t.GPUs {
			best, nic := -1, ""
			for i, link := range g.ToNIC {
				if r := topoRank(link); r >= 0 && (best < 0 || r < best) && i < len(t.NICs) {
					best, nic = r, fmt.Sprintf("%s (%s)", link, t.NICs[i])
				}
			}
			switch {
			case best < 0:
			case best == topoRank("P2C"),
				best > topoRank("PXB") && t.Kind() == ingest.KindGPUTopo && (g.MemNUMA != "" || grace != ""):
				// NCCL 2.27 uses GPUDirect RDMA over C2C by default,
				// 2.26 with NCCL_NET_GDR_C2C=1, earlier versions not:
				// neither input says which NCCL ran.
				c2c = append(c2c, g.Name+" "+nic)
				c2cEv = append(c2cEv, g.Evidence)
			case best > topoRank("PXB"):
				far = append(far, g.Name+" "+nic)
				ev = append(ev, g.Evidence)
			default:
				near = append(near, g.Name+" "+nic)
			}
		}
		if len(c2c) > 0 {
			fs = append(fs, c2cFinding(t, c2c, c2cEv, grace))
		}
		if len(far) == 0 {
			if len(near) > 0 && len(c2c) == 0 {
				every, cut := "every GPU", topoCut(t)
				if cut != "" {
					every, cut = "every GPU shown", "; "+cut
				}
				fs = append(fs, Finding{
					ID: "topo.gpu_nic.ok", Severity: Info, Layer: LayerNCCL,
					Title:     fmt.Sprintf("%s: %s has a NIC within one PCIe switch (nearest: %s%s)", t.Source(), every, list(near, 4), cut),
					Evidence:  []Evidence{t.GPUs[0].Evidence},
					Mechanism: "NCCL uses GPUDirect RDMA (the NIC reading and writing GPU memory) when the NIC is at most NCCL_NET_GDR_LEVEL from the GPU, PXB by default; every GPU here has one that close.",
				})
			}
			continue
		}
		f := Finding{
			ID: "topo.gpu_nic.far", Severity: Warn, Layer: LayerNCCL,
			Title:    fmt.Sprintf("%s: %d of %d GPUs%s have no NIC within one PCIe switch, so NCCL stages their network traffic through host memory: nearest NIC %s", t.Source(), len(far), len(t.GPUs), parenthesised(topoCut(t)), strings.Join(far, ", ")),
			Evidence: ev,
			Mechanism: "NCCL lets the NIC read and write GPU memory directly (GPUDirect RDMA) only when it is at most NCCL_NET_GDR_LEVEL from the GPU, PXB by default: through at most PCIe switches, not the CPU. " +
				"PHB crosses the CPU's host bridge, NODE the interconnect between host bridges of one socket, SYS the link between sockets: for these GPUs NCCL copies every message through a host buffer (no /GDRDMA on their NET channels, 'GDR 0'), which costs bandwidth and CPU memory traffic, and across sockets (SYS) also the inter-socket link.",
			Fix: "Put each GPU beside its own NIC (the server's PCIe layout: same PCIe switch, or at least the same socket), and pin each rank to the NIC and CPUs nearest its GPU (NCCL picks the nearest NIC itself). Where the platform allows GPUDirect RDMA across the host bridge, NCCL_NET_GDR_LEVEL=PHB (or SYS) enables it; check that nvidia-peermem or DMA-BUF is available and that NCCL's log then shows /GDRDMA.",
		}
		if t.VMFlat {
			f.Mechanism += vmNote
			f.Fix = "Give NCCL the host's layout: dump the topology on the bare-metal host (NCCL_TOPO_DUMP_FILE), replace the GPUs' and NICs' bus IDs with the VM's, and pass it with NCCL_TOPO_FILE (the switches' IDs only have to be unused); or build the VM with PCIe switches (libvirt pcie-switch-upstream/downstream ports, pxb-pcie per NUMA node) so each GPU and its NIC share one. Then check that ATS/ACS on the host let peer-to-peer traffic through (ACS off on the switch ports, or ATS on the NICs) and that NCCL's channels show /GDRDMA."
		}
		fs = append(fs, f)
	}
	return fs
}

// noNICFinding reports an nvidia-smi matrix with no NIC column: the OS
// instance it ran in saw no RDMA device. rocm-smi's matrices and NCCL's
// XML are not judged so (rocm-smi prints no NICs; the XML's nets are
// another rule's).
func noNICFinding(t *ingest.GPUTopo) (Finding, bool) {
	if t.Kind() != ingest.KindGPUTopo || len(t.GPUs) == 0 {
		return Finding{}, false
	}
	for _, g := range t.GPUs {
		if slices.Contains(g.ToGPU, "XGMI") || slices.Contains(g.ToGPU, "PCIE") {
			return Finding{}, false
		}
	}
	return Finding{
		ID: "topo.gpu_nic.none", Severity: Info, Layer: LayerNCCL,
		Title:    fmt.Sprintf("%s: nvidia-smi topo -m lists no NIC beside %s: no GPU-to-NIC path to judge", t.Source(), gpusShown(t)),
		Evidence: []Evidence{t.GPUs[0].Evidence},
		Mechanism: "nvidia-smi adds a NIC column for each RDMA NIC it finds, named in its NIC legend by RDMA device (mlx5_0…). A matrix without one ran where no such device was visible: a container or pod not given the devices, the RDMA driver not loaded (mlx5_ib, ib_core), or a node without RDMA NICs. " +
			"NCCL run there finds no IB/RoCE device either and, unless a net plugin brings its own transport (aws-ofi-nccl over EFA, GPUDirect-TCPX), carries inter-node traffic over TCP sockets (NET/Socket), far below the fabric's bandwidth; a single-node job is unaffected.",
		Fix: "Run `nvidia-smi topo -m` on the host itself, or give the pod its RDMA devices (the RDMA device plugin's resources, /dev/infiniband); check `ibv_devices` or `rdma link` and `lsmod | grep mlx5_ib`.",
	}, true
}

// c2cFinding says that the GPUs c2c reach their NICs over their Grace
// CPU's NVLink-C2C, which nvidia-smi prints as a host-bridge path; grace
// is the GPU model that says so, "" when the XML's P2C or the GPU NUMA ID
// column does.
func c2cFinding(t *ingest.GPUTopo, c2c []string, ev []Evidence, grace string) Finding {
	why := "NCCL's topology XML joins them to their CPU by <c2c> (P2C to the NIC on that CPU)"
	switch {
	case t.Kind() == ingest.KindNCCLTopo:
	case grace != "":
		why = "the GPUs are " + grace
	default:
		why = "nvidia-smi numbers each GPU's memory as a NUMA node (GPU NUMA ID), which it does for a GPU coherently attached to its CPU"
	}
	head := fmt.Sprintf("%s: %d of %d GPUs%s reach their NICs over their Grace CPU's NVLink-C2C (%s)", t.Source(), len(c2c), len(t.GPUs), parenthesised(topoCut(t)), why)
	nearest := "; nearest NIC as the input prints it: " + list(c2c, 4)
	f := Finding{ID: "topo.gpu_nic.c2c", Severity: Info, Layer: LayerNCCL, Evidence: ev}
	if noGDRModel(grace) {
		f.Title = head + ", and a GB10 has no GPUDirect RDMA: NCCL stages their network traffic through host memory whatever its release or settings" + nearest
		f.Mechanism = "A GB10 (DGX Spark) joins its GPU to the Grace CPU by NVLink-C2C in one unified memory, which NVIDIA states PCIe devices cannot access coherently, so GPUDirect RDMA is not supported (forums.developer.nvidia.com/t/dgx-spark-gpudirect-rdma/348787). " +
			"NCCL asks CUDA whether the GPU supports GPUDirect RDMA, gets no, and turns it off for every NIC: its log prints 'NET/IB : GPU Direct RDMA Disabled' and no /GDRDMA on the NET channels. The copy through host memory crosses C2C, not PCIe: public two-Spark runs still reach about 23 GB/s busbw at 8-16 GiB on their 200G link (docs/nccl.md)."
		f.Fix = "Nothing to enable: NCCL_NET_GDR_C2C and NCCL_NET_GDR_LEVEL do not turn GPUDirect RDMA on for a GB10, and a missing /GDRDMA there is expected. Bind each rank to the NIC and CPUs of its Grace (the NUMA Affinity column) and judge the run by its busbw against the link rate."
		return f
	}
	f.Title = head + ": NCCL 2.27 and later use GPUDirect RDMA there by default, 2.26 only with NCCL_NET_GDR_C2C=1" + nearest
	f.Mechanism = "On a Grace Hopper or Grace Blackwell superchip (GH200, GB200, GB300) the GPU is joined to its Grace CPU by NVLink-C2C, not PCIe, and the NICs hang from the Grace's PCIe root ports. " +
		"`nvidia-smi topo -m` has no link type for that path and prints the CPU-side distance (PHB, NODE or SYS); NCCL's topology names it P2C for the NIC on the GPU's own Grace and lets that NIC read and write GPU memory across C2C (GPUDirect RDMA) by default from 2.27, in 2.26 only with NCCL_NET_GDR_C2C=1; earlier versions stage through host memory. A NIC on the other Grace is a real cross-socket path."
	f.Fix = "Check NCCL's log (NCCL_DEBUG=INFO) for /GDRDMA on the NET channels; on NCCL 2.26 set NCCL_NET_GDR_C2C=1, before 2.26 upgrade. Bind each rank to the NIC and CPUs of its GPU's own Grace (the NUMA Affinity column)."
	return f
}

// incidentModels are the GPU models the incident's inputs name: the
// model lines beside a topology matrix, `nvidia-smi nvlink -s`,
// nccl-tests' rank lines.
func incidentModels(inc *Incident) []string {
	var models []string
	for _, t := range All[*ingest.GPUTopo](inc) {
		models = append(models, t.Models...)
	}
	for _, s := range All[*ingest.NVLinkStatus](inc) {
		for _, g := range s.GPUs {
			models = append(models, g.Model)
		}
	}
	models = append(models, nvsmiModels(inc)...)
	for _, nt := range All[*ingest.NCCLTests](inc) {
		for _, r := range nt.Runs {
			for _, k := range r.Ranks {
				models = append(models, k.GPU)
			}
		}
	}
	return models
}

// noGDRModel reports whether a GPU model line names a GPU that cannot do
// GPUDirect RDMA at all, as the twin's model table says (gpu.Model.NoGDR:
// the GB10).
func noGDRModel(model string) bool {
	return slices.ContainsFunc(strings.Fields(model), func(w string) bool {
		m, err := gpu.LookupModel(w)
		return err == nil && m.NoGDR
	})
}

// graceModel is the first of models when every one names a Grace
// superchip's GPU (GH200, GB200, GB300, GB10); "" when any other GPU is
// named, or none.
func graceModel(models []string) string {
	first := ""
	for _, m := range models {
		if m == "" {
			continue
		}
		if !slices.ContainsFunc(strings.Fields(strings.ToUpper(m)), func(w string) bool {
			return w == "GB10" || strings.HasPrefix(w, "GH200") || strings.HasPrefix(w, "GB200") || strings.HasPrefix(w, "GB300")
		}) {
			return ""
		}
		if first == "" {
			first = m
		}
	}
	return first
}

// topoCut says that the matrix ends before the GPUs its header names
// ("6 of the 8 GPUs in the header: the paste ends at GPU5"), "" when every
// GPU has its row.
func topoCut(t *ingest.GPUTopo) string {
	if t.Unclosed && len(t.GPUs) > 0 {
		return "the XML ends before </system>: the paste is cut after " + t.GPUs[len(t.GPUs)-1].Name
	}
	if len(t.GPUs) == 0 || len(t.GPUs) >= t.HeaderGPUs {
		return ""
	}
	where := "in the header"
	if t.Headerless {
		where = "the rows' columns name (no header line)"
	}
	return fmt.Sprintf("%d of the %d GPUs %s: the paste ends at %s", len(t.GPUs), t.HeaderGPUs, where, t.GPUs[len(t.GPUs)-1].Name)
}

// parenthesised is " (s)", or "" for an empty s.
func parenthesised(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// checkGPUPeerLinks reports a server whose GPUs reach one another only
// across a CPU host bridge (PHB, NODE, SYS): no NVLink and no shared PCIe
// switch, so NCCL moves intra-node data through host memory.
func checkGPUPeerLinks(inc *Incident) []Finding {
	var fs []Finding
	for _, t := range All[*ingest.GPUTopo](inc) {
		if len(t.GPUs) < 2 {
			continue
		}
		links := map[string]bool{}
		pairs := 0
		for _, g := range t.GPUs {
			for _, l := range g.ToGPU {
				if l == "X" {
					continue
				}
				if r := topoRank(l); r >= 0 && r <= topoRank("PXB") || strings.HasPrefix(l, "NV") || l == "XGMI" {
					links = nil
					break
				}
				links[l] = true
				pairs++
			}
			if links == nil {
				break
			}
		}
		if links == nil || pairs == 0 {
			continue
		}
		var kinds []string
		for _, l := range []string{"PHB", "NODE", "SYS", "SOC", "PCIE"} {
			if links[l] {
				kinds = append(kinds, l)
			}
		}
		fs = append(fs, Finding{
			ID: "topo.gpu_gpu.host", Severity: Info, Layer: LayerNCCL,
			Title:     fmt.Sprintf("%s: no %s between %s: every pair is %s", t.Source(), peerFabric(kinds), gpusShown(t), strings.Join(kinds, " or ")),
			Evidence:  []Evidence{t.GPUs[0].Evidence, t.GPUs[1].Evidence},
			Mechanism: peerMechanism(kinds),
			Fix:       peerFix(kinds),
		})
	}
	return fs
}

// checkGPUOffNVLink reports the GPUs of an NVLink server that have no
// NVLink to any other GPU: other rows of the same matrix show NV<n>, this
// one only PCIe paths (NODE, SYS…). Its NVLinks are down or the Fabric
// Manager left it out, and every NCCL communicator that includes it moves
// that GPU's intra-node data over PCIe and host memory.
func checkGPUOffNVLink(inc *Incident) []Finding {
	var fs []Finding
	for _, t := range All[*ingest.GPUTopo](inc) {
		var off []ingest.TopoGPU
		linked, mesh, nv := 0, false, ""
		for _, g := range t.GPUs {
			n := 0
			for _, l := range g.ToGPU {
				if strings.HasPrefix(l, "NV") {
					n, nv = n+1, l
				}
			}
			switch {
			case n > 0:
				linked++
				mesh = mesh || n > 1
			case len(g.ToGPU) > 1:
				off = append(off, g)
			}
		}
		// GPUs joined in pairs by NVLink bridges (PCIe cards) have NVLink
		// to one peer each; a card without a bridge is built so.
		if !mesh || len(off) == 0 {
			continue
		}
		var names []string
		var ev []Evidence
		verb := "has"
		if len(off) > 1 {
			verb = "have"
		}
		for _, g := range off {
			names = append(names, g.Name)
			ev = append(ev, g.Evidence)
		}
		fs = append(fs, Finding{
			ID: "topo.gpu_gpu.nvlink_missing", Severity: Warn, Layer: LayerNCCL,
			Title: fmt.Sprintf("%s: %s %s no NVLink to any other GPU (%s) while the other %d GPUs shown reach their peers over %s",
				t.Source(), strings.Join(names, ", "), verb, strings.Join(off[0].ToGPU, " "), linked, nv),
			Evidence: ev,
			Mechanism: "nvidia-smi shows an NVLink pair as NV<n> (the number of links). On a server whose other GPUs reach one another over NVLink, a GPU with PCIe paths only (PIX to SYS) has its NVLinks down or was left out of the NVSwitch fabric by the Fabric Manager. " +
				"NCCL builds its intra-node rings and trees over the slowest pair it must use, so every communicator that includes this GPU moves its share through PCIe and host memory (SHM) at a fraction of NVLink bandwidth, and NVLS (NVLink SHARP) is off for it.",
			Fix: "On the node: `nvidia-smi nvlink -s -i <gpu>` (links inactive or absent), `nvidia-smi -q -i <gpu> | grep -A3 Fabric` and `systemctl status nvidia-fabricmanager` on NVSwitch systems, dmesg for Xid 74/79; reset the GPU or reboot, and drain the node (or leave the GPU out with CUDA_VISIBLE_DEVICES) until every GPU shows NV<n> to its peers.",
		})
	}
	return fs
}

// gpusShown is "the 8 GPUs", or "the GPUs shown (6 of the 8 …)" for a cut
// matrix.
func gpusShown(t *ingest.GPUTopo) string {
	if cut := topoCut(t); cut != "" {
		return "the GPUs shown (" + cut + ")"
	}
	return fmt.Sprintf("the %d GPUs", len(t.GPUs))
}

// peerFabric names what a GPU-to-GPU matrix lacks: xGMI for rocm-smi's,
// NVLink and a shared PCIe switch for nvidia-smi's.
func peerFabric(kinds []string) string {
	if slices.Contains(kinds, "PCIE") {
		return "xGMI"
	}
	return "NVLink and no shared PCIe switch"
}

// peerMechanism explains intra-node traffic without a GPU fabric.
func peerMechanism(kinds []string) string {
	if slices.Contains(kinds, "PCIE") {
		return "rocm-smi --showtopo names each GPU pair's link XGMI (AMD Infinity Fabric, within a hive) or PCIE. With PCIE between every pair, RCCL's intra-node transfers cross PCIe and the CPU's root complex instead of xGMI, at a fraction of xGMI's bandwidth. " +
			"An MI300X or MI250 platform shows XGMI between all GPUs of its hive: PCIE there means the xGMI links are not up (driver, firmware or a bridge fault, `rocm-smi --showxgmierr`); boards without xGMI (or an MI100 pair without its bridge card) are built so."
	}
	return "nvidia-smi shows an NVLink pair as NV<n> and GPUs behind one PCIe switch as PIX or PXB; PHB, NODE and SYS cross a CPU host bridge. NCCL uses peer-to-peer copies only up to PXB by default (NCCL_P2P_LEVEL; two GPUs on an AMD host excepted), so intra-node traffic here goes through host memory (SHM), bounded by PCIe and the CPU's memory and socket links rather than NVLink. " +
		"A server built with NVLink that shows this has its fabric down (nvidia-smi nvlink -s, the Fabric Manager on NVSwitch systems); a PCIe-only server (L40S, RTX) is built so, and libraries that need NVLink within the node (DeepEP's intranode kernels, NVLS) cannot run on it."
}

// peerFix is what to check for a matrix without a GPU fabric.
func peerFix(kinds []string) string {
	if slices.Contains(kinds, "PCIE") {
		return "On an xGMI platform: `rocm-smi --showxgmierr` and `amd-smi xgmi` on the node, dmesg for amdgpu xGMI errors, the same amdgpu driver and firmware on every GPU; reboot, and drain the node if the links stay down. Without xGMI: size intra-node bandwidth by PCIe."
	}
	return "On an NVLink server: `nvidia-smi nvlink -s` on every GPU, `systemctl status nvidia-fabricmanager` on NVSwitch systems, and the same driver and Fabric Manager versions. On a PCIe server: size intra-node bandwidth by PCIe and place GPU pairs that talk most under one PCIe switch."
}
