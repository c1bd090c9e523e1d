package doctor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/ingest"
)

// ncclGDRRules are the rules over what NCCL logs say about GPUDirect RDMA.
func ncclGDRRules() []Rule {
	return []Rule{
		{IDs: []string{"nccl.gdr.disabled"}, Check: checkGDR},
	}
}

// pathNames are NCCL's PCIe path types in enum order, per version range;
// a GDR distance is an index into one of them.
var pathNames = []struct {
	from, to [2]int // first and last NCCL version (major, minor) using it
	names    []string
}{
	{[2]int{2, 4}, [2]int{2, 4}, []string{"PIX", "PXB", "PHB", "NODE", "SYS"}},
	{[2]int{2, 5}, [2]int{2, 7}, []string{"LOC", "NVL", "PIX", "PXB", "PHB", "SYS", "NET"}},
	{[2]int{2, 8}, [2]int{2, 11}, []string{"LOC", "NVL", "NVB", "PIX", "PXB", "PHB", "SYS", "NET"}},
	{[2]int{2, 12}, [2]int{2, 99}, []string{"LOC", "NVL", "NVB", "PIX", "PXB", "PXN", "PHB", "SYS", "NET", "DIS"}},
}

// pathName names a GDR distance: by the version of the NCCL that printed
// it when known, else by the table in which that log's NCCL_NET_GDR_LEVEL
// name sits at limit. It returns "" when neither pins the table down.
func pathName(dist, limit int, level string, l *ingest.NCCLLog) string {
	var cand [][]string
	if l != nil && len(l.Versions) > 0 {
		for _, t := range pathNames {
			lo, _ := l.VersionAtLeast(t.from[0], t.from[1])
			hi, _ := l.VersionAtLeast(t.to[0], t.to[1]+1)
			if lo && !hi {
				cand = append(cand, t.names)
			}
		}
	}
	if len(cand) == 0 && level != "" {
		for _, t := range pathNames {
			if limit >= 0 && limit < len(t.names) && t.names[limit] == strings.ToUpper(level) {
				cand = append(cand, t.names)
			}
		}
	}
	if len(cand) != 1 || dist < 0 || dist >= len(cand[0]) {
		return ""
	}
	return cand[0][dist]
}

// gpuList names GPUs by bus id: "GPU 18000" or "GPUs 18000, 3b000".
func gpuList(gpus []string) string {
	g := distinct(gpus)
	if len(g) == 1 {
		return "GPU " + g[0]
	}
	return "GPUs " + list(g, 4)
}

// hcaList names the HCAs of GPUDirect RDMA decisions: "HCA mlx5_0" or
// "HCAs mlx5_0, mlx5_1", by index where the line names no device.
func hcaList(ds []ingest.GDRDecision) string {
	var hcas []string
	for _, d := range ds {
		if d.HCADev != "" {
			hcas = append(hcas, d.HCADev)
		} else if d.HCA != "" {
			hcas = append(hcas, d.HCA)
		}
	}
	h := distinct(hcas)
	if len(h) == 1 {
		return "HCA " + h[0]
	}
	return "HCAs " + list(h, 4)
}

// offHosts names the hosts where the report shows GPUDirect RDMA off.
func offHosts(g ingest.GDRReport) []string {
	var hs []string
	for _, d := range g.Disabled {
		hs = append(hs, d.Host)
	}
	for _, r := range g.RingsOff {
		hs = append(hs, r.Host)
	}
	for _, c := range g.ChannelsOff {
		hs = append(hs, c.Host)
	}
	var real []string
	for _, h := range distinct(hs) {
		if ingest.RealHost(h) {
			real = append(real, h)
		}
	}
	return real
}

// checkGDR reports GPUDirect RDMA off, with the reason the log gives: the
// peer-memory module missing, the GPU-NIC distance above
// NCCL_NET_GDR_LEVEL, or none given; and whether it is off for some GPUs
// only.
func checkGDR(inc *Incident) []Finding {
	logs := All[*ingest.NCCLLog](inc)
	var all ingest.GDRReport
	for _, l := range logs {
		all.Merge(l.GDRReport())
	}
	// A net plugin that turned GPUDirect RDMA off says so in lines of its
	// own, which NCCL's decisions need not accompany.
	pluginSaid := slices.ContainsFunc(logs, func(l *ingest.NCCLLog) bool { return l.PluginGDROff.Count > 0 })
	if !all.Off() && !pluginSaid {
		return nil
	}
	var noModule, byDistance, silent []ingest.GDRDecision
	for _, d := range all.Disabled {
		switch d.Reason {
		case ingest.GDRNoModule:
			noModule = append(noModule, d)
		case ingest.GDRDistance:
			byDistance = append(byDistance, d)
		default:
			silent = append(silent, d)
		}
	}
	var ev evidence
	var why, fix, what []string
	if len(noModule) > 0 {
		for _, d := range noModule {
			ev.add(d.Evidence)
		}
		what = append(what, "peer-memory module not loaded ("+hcaList(noModule)+")")
		why = append(why, "NCCL prints '(no module)' when the kernel module that lets the RDMA stack pin GPU memory (nvidia_peermem; nv_peer_mem on older stacks) is not loaded.")
		fix = append(fix, "Load it on every node: `sudo modprobe nvidia_peermem` (GPU driver R470 or later; older stacks use nv_peer_mem from MLNX_OFED), make it persistent (`echo nvidia_peermem > /etc/modules-load.d/nvidia-peermem.conf`), check `lsmod | grep -E 'nvidia_peermem|nv_peer_mem'`. In containers load it on the host.")
	}
	if len(byDistance) > 0 {
		var gpus []string
		d0 := byDistance[0]
		for _, d := range byDistance {
			gpus = append(gpus, d.GPU)
			ev.add(d.Evidence)
		}
		// The distance is named by the NCCL that printed it, with that
		// log's NCCL_NET_GDR_LEVEL: another file's is another job's.
		l0, level := logOf(logs, d0.Evidence.File), ""
		if l0 != nil {
			for _, v := range l0.EnvValues("NCCL_NET_GDR_LEVEL") {
				if ingest.SameHostName(v.Host, d0.Host) || level == "" {
					level = v.Value
				}
			}
		}
		name := pathName(d0.Distance, d0.Limit, level, l0)
		lim := strconv.Itoa(d0.Limit)
		if level != "" {
			lim += " (" + level + ")"
		}
		dist := strconv.Itoa(d0.Distance)
		if name != "" {
			dist += " (" + name + ")"
		}
		what = append(what, fmt.Sprintf("%s too far from HCA %s (distance %s > NCCL_NET_GDR_LEVEL %s)", gpuList(gpus), d0.HCA, dist, lim))
		why = append(why, fmt.Sprintf("NCCL uses GPUDirect RDMA only when the PCIe path from GPU to NIC is no longer than NCCL_NET_GDR_LEVEL; here the path is %s against a limit of %s, i.e. it crosses the CPU's root complex or the inter-socket link, where peer-to-peer DMA is slow or unsupported.", dist, lim))
		fix = append(fix, "Pair each GPU with a NIC on its own PCIe switch (multi-rail: list the NICs in NCCL_IB_HCA; `nvidia-smi topo -m` should show PIX/PXB between them), or, if that path does carry peer-to-peer DMA well, allow it with NCCL_NET_GDR_LEVEL=SYS and measure with nccl-tests before keeping it.")
	}
	var pluginOff []ingest.Evidence
	for _, l := range logs {
		pluginOff = append(pluginOff, l.PluginGDROff.Lines...)
	}
	if len(pluginOff) > 0 {
		ev.add(pluginOff[:min(4, len(pluginOff))]...)
		what = append(what, fmt.Sprintf("the net plugin %s turned it off (%q)", pluginName(pluginOff[0].Text), pluginMessage(pluginOff[0].Text)))
		why = append(why, "The net plugin that carries the inter-node traffic reports that it cannot use GPUDirect RDMA on this system and turned it off itself, so NCCL's own GDR checks (peer-memory module, PCIe distance) do not decide it.")
		fix = append(fix, "Read the plugin's line for the cause. aws-ofi-nccl turns GPUDirect RDMA off when libfabric's provider cannot run without CUDA calls on GPU memory (HMEM), which on EFA means the device or instance type offers no RDMA to GPU memory or the libfabric/plugin pair is too old: check the instance type's GPUDirect RDMA support and use the EFA installer's libfabric with a matching aws-ofi-nccl. Where the provider cannot do GPUDirect RDMA, GDR 0 is the expected state and the bounce through host memory is the cost.")
	}
	for _, d := range silent {
		ev.add(d.Evidence)
	}
	for _, r := range all.RingsOff {
		ev.add(r.Evidence)
	}
	for _, c := range all.ChannelsOff {
		ev.add(c.FirstNoGDR)
	}
	if len(noModule) == 0 && len(byDistance) == 0 && len(pluginOff) == 0 {
		w, y, f := gdrUnexplained(all, silent)
		what, why, fix = append(what, w), append(why, y), append(fix, f)
	}
	partial := all.On()
	title := "GPUDirect RDMA off: " + strings.Join(what, "; ")
	if partial {
		var gpusOn []string
		var hcasOn []ingest.GDRDecision
		for _, d := range all.Enabled {
			if d.GPU != "" {
				gpusOn = append(gpusOn, d.GPU)
			} else {
				hcasOn = append(hcasOn, d)
			}
			ev.add(d.Evidence)
		}
		var on []string
		if len(gpusOn) > 0 {
			on = append(on, gpuList(gpusOn))
		}
		if len(hcasOn) > 0 {
			on = append(on, hcaList(hcasOn))
		}
		for _, r := range all.RingsOn {
			ev.add(r.Evidence)
		}
		for _, c := range all.ChannelsOn {
			ev.add(c.First)
		}
		title = "GPUDirect RDMA only partly on: " + strings.Join(what, "; ")
		if len(on) > 0 {
			title += "; on for " + strings.Join(on, ", ")
		}
	}
	mech := "Without GPUDirect RDMA the NIC cannot read or write GPU memory: NCCL stages every chunk through a bounce buffer in host memory, adding a PCIe round trip through the CPU and competing for host memory bandwidth, which costs a large share of inter-node bandwidth at 100-400 Gb/s. " + strings.Join(why, " ")
	if partial {
		mech += " Where GPUDirect RDMA is on for some GPUs and off for others, the collective runs at the pace of the slowest ranks."
	}
	return []Finding{{
		ID: "nccl.gdr.disabled", Severity: Warn, Layer: LayerNCCL,
		Title:     title,
		Evidence:  ev.sorted(),
		Mechanism: mech,
		Fix:       strings.Join(fix, " "),
	}}
}

// gdrUnexplained tells GPUDirect RDMA off where no module, distance or
// plugin line gives the cause: what, why and fix. A "Disabled for HCA"
// line is the most telling such line and is told first, on its own hosts;
// with no reason it means the transport registers no GPU memory, which
// for a net plugin is the plugin's own report.
func gdrUnexplained(all ingest.GDRReport, silent []ingest.GDRDecision) (what, why, fix string) {
	on := func(hs []string) string {
		var real []string
		for _, h := range distinct(hs) {
			if ingest.RealHost(h) {
				real = append(real, h)
			}
		}
		if len(real) == 0 {
			return ""
		}
		return " on " + list(real, 3)
	}
	if len(silent) == 0 {
		where := on(offHosts(all))
		if len(all.RingsOff) > 0 {
			what = "ring summary says GDR 0" + where + ", no reason printed"
		} else {
			if where == "" {
				where = " on the ranks this log shows"
			}
			what = "received data lands via NET/" + all.ChannelsOff[0].Net + " without /GDRDMA" + where
		}
		return what, "The log shows that GPUDirect RDMA is off but not why: unless the NET and GRAPH subsystems are logged, NCCL prints only 'GDR 0' or connection lines without /GDRDMA, not the check that failed.",
			"Check the peer-memory path on every node: `lsmod | grep nvidia_peermem` (`sudo modprobe nvidia_peermem`), or DMA-BUF (open GPU kernel module, kernel 5.12 or later); check the GPU-NIC path with `nvidia-smi topo -m` against NCCL_NET_GDR_LEVEL (default PXB); rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH to see the reason."
	}
	var hcaHosts, ringHosts []string
	for _, d := range silent {
		hcaHosts = append(hcaHosts, d.Host)
	}
	for _, r := range all.RingsOff {
		if !slices.ContainsFunc(hcaHosts, func(h string) bool { return ingest.SameHostName(h, r.Host) }) {
			ringHosts = append(ringHosts, r.Host)
		}
	}
	what = "disabled for " + hcaList(silent) + on(hcaHosts)
	if s := silent[0].Said; s != "" {
		what += " (" + s + ")"
	} else {
		what += ", no reason printed"
	}
	if len(ringHosts) > 0 {
		what += "; ring summary says GDR 0" + on(ringHosts)
	}
	net := silent[0].Net
	switch {
	case silent[0].Said != "":
		why = "NCCL gives its own reason in parentheses; NCCL 2.3's '(no module or not supported by GPU)' stands for either cause: the peer-memory module not loaded, or a GPU that does not expose its memory to the NIC (GeForce boards)."
		fix = "Check the peer-memory path on every node: `lsmod | grep nvidia_peermem` (`sudo modprobe nvidia_peermem`), or DMA-BUF (open GPU kernel module, kernel 5.12 or later), and that the GPU exposes its memory to peers (data-center boards do, GeForce boards do not); rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET to confirm."
	case net != "" && net != "IB":
		why = "NCCL prints 'GPU Direct RDMA Disabled for HCA' with no reason when the net transport reports that it can register neither GPU memory nor DMA-BUF memory; here the transport is the net plugin NET/" + net + ", which reported no GPU-memory support for this device. NCCL's own peer-memory checks (nvidia_peermem, /sys/kernel/mm/memory_peers) belong to NET/IB and do not decide it, nor does NCCL_NET_GDR_LEVEL."
		fix = "Ask the plugin NET/" + net + " why it reports no GPU-memory support: rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and read its own lines. For aws-ofi-nccl (NET/AWS Libfabric, NET/OFI) that support comes from the libfabric provider's FI_HMEM (CUDA) support and the instance type: check `fi_info -p efa -v | grep -i hmem`, that the instance type offers GPUDirect RDMA over EFA, and use the EFA installer's libfabric with a matching aws-ofi-nccl; where the provider cannot, GDR 0 is the expected state."
	default:
		why = "NCCL prints 'GPU Direct RDMA Disabled for HCA' with no reason when the net transport reports that it can register neither GPU memory nor DMA-BUF memory: for NET/IB, none of /sys/kernel/mm/memory_peers/nv_mem/version, /sys/kernel/mm/memory_peers/nv_mem_nc/version or /sys/module/nvidia_peermem/version exists where NCCL runs, and DMA-BUF is not supported. NCCL_NET_GDR_LEVEL (the GPU-NIC distance) plays no part in this line."
		fix = "Inside the job's container, as NCCL sees /sys, check `ls /sys/kernel/mm/memory_peers/nv_mem*/version /sys/module/nvidia_peermem/version`: if none exists, load the peer-memory module on the host (`sudo modprobe nvidia_peermem`) and make it visible to the container, or use DMA-BUF (open GPU kernel module, kernel 5.12 or later, NCCL_DMABUF_ENABLE not set to 0); rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET to confirm."
	}
	return what, why, fix
}
