package doctor

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"rocelab/internal/ingest"
)

// ncclRules are the rules over NCCL_DEBUG logs: which transport NCCL
// chose, and whether GPUDirect RDMA is on.
func ncclRules() []Rule {
	return []Rule{
		{IDs: []string{"nccl.transport.socket_fallback", "nccl.transport.ib", "nccl.transport.plugin"}, Check: checkTransport},
		{IDs: []string{"nccl.gdr.disabled"}, Check: checkGDR},
	}
}

// maxFindingEvidence caps the evidence lines a finding carries.
const maxFindingEvidence = 12

// evidence collects a finding's lines without duplicates, up to a cap.
type evidence struct {
	list []Evidence
	seen map[Evidence]bool
}

func (e *evidence) add(evs ...Evidence) {
	for _, ev := range evs {
		if ev.File == "" || e.seen[ev] || len(e.list) >= maxFindingEvidence {
			continue
		}
		if e.seen == nil {
			e.seen = map[Evidence]bool{}
		}
		e.seen[ev] = true
		e.list = append(e.list, ev)
	}
}

// sorted returns the lines in input order.
func (e *evidence) sorted() []Evidence {
	out := append([]Evidence(nil), e.list...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// distinct returns the distinct non-empty strings of xs in first-seen order.
func distinct(xs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range xs {
		if x != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// list joins up to n items as "a, b, c and 2 more".
func list(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(" and %d more", len(xs)-n)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// span is what the incident says about how many nodes the job spans.
type span struct {
	nodes int // 0 when unknown
	// single is set when the artifacts say the job runs on one node.
	single bool
	how    string
	ev     Evidence
}

func (s span) multi() bool { return s.nodes >= 2 }

// jobSpan reads the node count from NCCL's "nNodes", the hosts that print
// NCCL lines or nccl-tests rank lines, and inter-node (NET) connections.
func jobSpan(inc *Incident) span {
	var s span
	oneNode := false
	consider := func(n int, how string, ev Evidence) {
		if n > s.nodes {
			s.nodes, s.how, s.ev = n, how, ev
		}
	}
	var hosts []string
	var hostEv []Evidence
	for _, l := range All[*ingest.NCCLLog](inc) {
		if l.Comm.Nodes > 0 {
			consider(l.Comm.Nodes, fmt.Sprintf("NCCL reports nNodes %d", l.Comm.Nodes), l.Comm.Evidence)
			oneNode = oneNode || l.Comm.Nodes == 1
		}
		for _, c := range l.Channels {
			if c.Kind == "NET" {
				consider(2, "NCCL connects ranks over the network (via NET/"+c.Net+")", c.First)
			}
		}
		for _, h := range l.Hosts() {
			hosts = append(hosts, h)
			hostEv = append(hostEv, l.HostEvidence(h))
		}
	}
	for _, t := range All[*ingest.NCCLTests](inc) {
		for _, r := range t.Runs {
			hs, _ := r.RanksPerHost()
			if len(hs) == 1 && r.NRanks() > 0 {
				oneNode = true
			}
			for _, rk := range r.Ranks {
				hosts = append(hosts, rk.Host)
				hostEv = append(hostEv, rk.Evidence)
			}
		}
	}
	if d := distinct(hosts); len(d) >= 2 {
		ev := Evidence{}
		for i, h := range hosts {
			if h == d[1] && hostEv[i].File != "" {
				ev = hostEv[i]
				break
			}
		}
		consider(len(d), fmt.Sprintf("%d hosts appear (%s)", len(d), list(d, 3)), ev)
	}
	s.single = s.nodes < 2 && oneNode
	return s
}

// checkTransport reports the transport NCCL moves inter-node data with: the
// socket fallback (an error on a multi-node job), or, for the reader's
// orientation, the RDMA or plugin transport in use.
func checkTransport(inc *Incident) []Finding {
	logs := All[*ingest.NCCLLog](inc)
	if len(logs) == 0 {
		return nil
	}
	var fs []Finding
	if f, ok := socketFallback(inc, logs); ok {
		fs = append(fs, f)
	}
	if f, ok := ibInUse(inc, logs); ok {
		fs = append(fs, f)
	}
	fs = append(fs, pluginInUse(logs)...)
	return fs
}

// ibNetwork reports whether a network name is NCCL's IB verbs transport
// or the HPC-X plugin that wraps it (IBext, IBext_v8).
func ibNetwork(name string) bool { return strings.HasPrefix(name, "IB") }

func socketFallback(inc *Incident, logs []*ingest.NCCLLog) (Finding, bool) {
	var ev, why evidence
	var reasons, fixes []string
	var sockHosts []string
	rdma, plugin := false, false
	ibDisabled := false
	for _, l := range logs {
		sev := l.SocketEvidence(4)
		ev.add(sev...)
		for _, c := range l.Networks {
			switch {
			case c.Name == "Socket":
				sockHosts = append(sockHosts, c.Host)
			case ibNetwork(c.Name):
				rdma = true
			default:
				plugin = true
			}
		}
		for _, d := range l.SocketDevices {
			sockHosts = append(sockHosts, d.Host)
		}
		rdma = rdma || len(l.IBDevices) > 0
		for _, c := range l.Channels {
			if c.Kind == "NET" && ibNetwork(c.Net) {
				rdma = true
			}
		}
		for _, e := range l.EnvValues("NCCL_IB_DISABLE") {
			if e.Value == "1" && !ibDisabled {
				ibDisabled = true
				why.add(e.Evidence)
				r := "NCCL_IB_DISABLE=1 turns the IB/RoCE transport off"
				if e.FromCommand {
					r += fmt.Sprintf(" (set on the command line at line %d)", e.Evidence.Line)
				}
				reasons = append(reasons, r)
				fixes = append(fixes, "Unset NCCL_IB_DISABLE (or set it to 0) in the job's environment and launcher (-x NCCL_IB_DISABLE=0).")
			}
		}
		sockHosts = append(sockHosts, l.VerbsMissing.Hosts...)
		sockHosts = append(sockHosts, l.NoIBDevice.Hosts...)
		if l.VerbsMissing.Count > 0 {
			why.add(l.VerbsMissing.Lines[0])
			reasons = append(reasons, fmt.Sprintf("libibverbs could not be loaded on %s", plural(len(l.VerbsMissing.Hosts), "host", "hosts")))
			fixes = append(fixes, "Install the RDMA user space where NCCL runs (Debian/Ubuntu: apt-get install libibverbs1 ibverbs-providers; RHEL: dnf install rdma-core libibverbs), in the container image too; check with `ldconfig -p | grep libibverbs`.")
		}
		if l.NoIBDevice.Count > 0 {
			why.add(l.NoIBDevice.Lines[0])
			reasons = append(reasons, fmt.Sprintf("NET/IB found no RDMA device on %s", plural(len(l.NoIBDevice.Hosts), "host", "hosts")))
			fixes = append(fixes, "Make the RDMA devices visible to NCCL: `ibv_devinfo` must list the mlx5_* ports as PORT_ACTIVE; load mlx5_ib and ib_uverbs; in containers pass /dev/infiniband (docker run --device=/dev/infiniband --cap-add=IPC_LOCK, or the Kubernetes RDMA/SR-IOV device plugin); check that NCCL_IB_HCA does not exclude them. On a cloud without RoCE/IB use its own net plugin (e.g. aws-ofi-nccl for EFA).")
		}
		if l.PluginFailures.Count > 0 {
			why.add(l.PluginFailures.Lines[0])
			reasons = append(reasons, "a net plugin failed to load")
			fixes = append(fixes, "Fix the net plugin load error shown (library path, NCCL_NET_PLUGIN, plugin/NCCL version match).")
		}
	}
	inferred := len(ev.list) == 0 && (ibDisabled || len(reasons) > 0) && !rdma && !plugin
	if len(ev.list) == 0 && !inferred {
		return Finding{}, false
	}
	if len(reasons) == 0 {
		reasons = append(reasons, "the log does not say why the IB transport was not used")
		fixes = append(fixes, "Rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and check `ibv_devinfo` on every node.")
	}
	all := evidence{}
	all.add(why.list...)
	all.add(ev.list...)
	sp := jobSpan(inc)
	f := Finding{
		ID: "nccl.transport.socket_fallback", Layer: LayerRDMA,
		Evidence: all.sorted(),
		Mechanism: "NCCL tries its IB verbs transport (IB or RoCE) first and falls back to TCP sockets when it finds no usable RDMA device or is told not to use one. " +
			"Over sockets every byte crosses the kernel TCP stack and host memory on both sides, so inter-node bandwidth is a fraction of line rate and latency is tens of microseconds higher; PFC, ECN and GPUDirect RDMA do not apply. " +
			"Why here: " + strings.Join(reasons, "; ") + ".",
		Fix: strings.Join(fixes, " "),
	}
	where := ""
	if h := distinct(sockHosts); len(h) > 0 {
		where = " on " + plural(len(h), "host", "hosts")
	}
	switch {
	case sp.multi():
		f.Severity = Error
		f.Title = "Multi-node job falls back to TCP sockets (not RDMA)" + where
		f.Mechanism += " The job spans nodes: " + sp.how + "."
		f.Evidence = appendEvidence(f.Evidence, sp.ev)
	case sp.single:
		f.Severity = Info
		f.Title = "NCCL would use TCP sockets across nodes; this single-node job does not use the network for data"
	default:
		f.Severity = Warn
		f.Title = "NCCL falls back to TCP sockets" + where + "; if the job spans nodes its inter-node traffic is not RDMA"
	}
	return f, true
}

// appendEvidence adds e to evs in input order unless it is empty or there.
func appendEvidence(evs []Evidence, e Evidence) []Evidence {
	var b evidence
	b.add(evs...)
	b.add(e)
	return b.sorted()
}

func ibInUse(inc *Incident, logs []*ingest.NCCLLog) (Finding, bool) {
	// The evidence is one line per distinct fact: a summary, not a list.
	var ev evidence
	shown := map[string]bool{}
	once := func(key string, e Evidence) {
		if !shown[key] {
			shown[key] = true
			ev.add(e)
		}
	}
	var nets, devs, gids, tcs, versions []string
	var linkLayers []string
	gdr := ingest.GDRReport{}
	for _, l := range logs {
		for _, c := range l.Networks {
			if ibNetwork(c.Name) {
				nets = append(nets, c.Name)
				once("net "+c.Name, c.Evidence)
			}
		}
		for _, d := range l.IBDevices {
			dev := fmt.Sprintf("%s:%d", d.Name, d.Port)
			devs = append(devs, dev)
			linkLayers = append(linkLayers, d.LinkLayer)
			once("dev "+dev+"/"+d.LinkLayer, d.Evidence)
		}
		for _, c := range l.Channels {
			if c.Kind == "NET" && ibNetwork(c.Net) {
				nets = append(nets, c.Net)
				if len(l.Networks) == 0 {
					once("chan "+c.Net, c.First)
				}
			}
		}
		for _, e := range l.EnvValues("NCCL_IB_GID_INDEX") {
			gids = append(gids, e.Value)
			once("gid "+e.Value, e.Evidence)
		}
		for _, e := range l.EnvValues("NCCL_IB_TC") {
			tcs = append(tcs, e.Value)
			once("tc "+e.Value, e.Evidence)
		}
		for _, v := range l.Versions {
			versions = append(versions, v.Version)
		}
		gdr.Merge(l.GDRReport())
	}
	nets = distinct(nets)
	if len(nets) == 0 && len(devs) == 0 {
		return Finding{}, false
	}
	ll := distinct(linkLayers)
	over := ""
	switch {
	case len(ll) == 1 && ll[0] == "RoCE":
		over = "RoCE"
	case len(ll) == 1 && ll[0] == "IB":
		over = "InfiniBand"
	case len(ll) > 1:
		over = strings.Join(ll, "+")
	}
	title := "RDMA in use: NET/" + strings.Join(nets, ", ")
	if len(nets) == 0 {
		title = "RDMA devices found: NET/IB"
	}
	if over != "" {
		title += " over " + over
	} else {
		title += " (the link layer is not in these lines)"
	}
	if d := distinct(devs); len(d) > 0 {
		title += " (" + list(d, 4) + ")"
	}
	var facts []string
	if g := distinct(gids); len(g) > 0 {
		title += ", GID index " + strings.Join(g, "/")
	}
	if t := distinct(tcs); len(t) > 0 {
		facts = append(facts, "NCCL_IB_TC "+strings.Join(t, "/")+" (the IP TOS byte; DSCP = TC>>2)")
	}
	switch {
	case gdr.Off() && gdr.On():
		facts = append(facts, "GPUDirect RDMA on for some GPUs only (see nccl.gdr.disabled)")
	case gdr.Off():
		facts = append(facts, "GPUDirect RDMA off (see nccl.gdr.disabled)")
	case gdr.On():
		facts = append(facts, "GPUDirect RDMA on")
	}
	ranks, nch := 0, 0
	var intra []string
	for _, l := range logs {
		ranks, nch = max(ranks, l.Comm.Ranks), max(nch, l.NChannels)
		for _, c := range l.Channels {
			switch c.Kind {
			case "P2P":
				intra = append(intra, "P2P/"+c.Net)
			case "SHM":
				intra = append(intra, "shared memory")
			}
		}
	}
	if ranks > 0 {
		facts = append(facts, plural(ranks, "rank", "ranks"))
	}
	if nch > 0 {
		facts = append(facts, plural(nch, "ring channel", "ring channels"))
	}
	if in := distinct(intra); len(in) > 0 {
		facts = append(facts, "intra-node via "+strings.Join(in, ", "))
	}
	if v := distinct(versions); len(v) > 0 {
		facts = append(facts, "NCCL "+strings.Join(v, ", "))
	}
	mech := "NCCL chose its IB verbs transport, so inter-node data moves by RDMA over reliable-connected queue pairs."
	if over == "RoCE" {
		mech += " On RoCE that traffic is lossless only if PFC (and ECN for DCQCN) is in effect on the priority its traffic class maps to; layer 2 of this report checks that."
	}
	if len(facts) > 0 {
		mech += " Also seen: " + strings.Join(facts, "; ") + "."
	}
	fix := ""
	if over == "RoCE" && len(gids) == 0 {
		if atLeast, known := logsVersionAtLeast(logs, 2, 21); known && !atLeast {
			fix = "No NCCL_IB_GID_INDEX echo in these lines. If it is unset, this NCCL (before 2.21) uses GID index 0, usually the link-local RoCE v1 GID: set NCCL_IB_GID_INDEX to the RoCE v2 index of the routable address (`show_gids`, usually 3) on every node."
		}
	}
	return Finding{
		ID: "nccl.transport.ib", Severity: Info, Layer: LayerRDMA,
		Title:     title,
		Evidence:  ev.sorted(),
		Mechanism: mech,
		Fix:       fix,
	}, true
}

func logsVersionAtLeast(logs []*ingest.NCCLLog, major, minor int) (atLeast, known bool) {
	for _, l := range logs {
		if a, k := l.VersionAtLeast(major, minor); k {
			return a, true
		}
	}
	return false, false
}

func pluginInUse(logs []*ingest.NCCLLog) []Finding {
	var ev evidence
	var names []string
	for _, l := range logs {
		for _, c := range l.Networks {
			if !ibNetwork(c.Name) && c.Name != "Socket" {
				names = append(names, c.Name)
				ev.add(c.Evidence)
			}
		}
	}
	names = distinct(names)
	if len(names) == 0 {
		return nil
	}
	return []Finding{{
		ID: "nccl.transport.plugin", Severity: Info, Layer: LayerRDMA,
		Title:     "NCCL uses the net plugin " + strings.Join(names, ", ") + ", not its IB or socket transport",
		Evidence:  ev.sorted(),
		Mechanism: "A net plugin (cloud or vendor transport such as EFA/OFI or GPUDirect-TCPX/TCPXO) carries the inter-node traffic; NCCL's RoCE checks (GID index, PFC on the RoCE priority) apply only if that plugin runs over RoCE.",
	}}
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

// pathName names a GDR distance: by the NCCL version when known, else by
// the table in which NCCL_NET_GDR_LEVEL's name sits at limit. It returns ""
// when neither pins the table down.
func pathName(dist, limit int, level string, logs []*ingest.NCCLLog) string {
	var cand [][]string
	for _, l := range logs {
		if len(l.Versions) == 0 {
			continue
		}
		for _, t := range pathNames {
			lo, _ := l.VersionAtLeast(t.from[0], t.from[1])
			hi, _ := l.VersionAtLeast(t.to[0], t.to[1]+1)
			if lo && !hi {
				cand = append(cand, t.names)
			}
		}
		break
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
	level := ""
	for _, l := range logs {
		all.Merge(l.GDRReport())
		if v := l.EnvValues("NCCL_NET_GDR_LEVEL"); len(v) > 0 && level == "" {
			level = v[0].Value
		}
	}
	if !all.Off() {
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
		var hcas []string
		for _, d := range noModule {
			hcas = append(hcas, d.HCADev)
			ev.add(d.Evidence)
		}
		what = append(what, "peer-memory module not loaded (HCA "+list(distinct(hcas), 4)+")")
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
		name := pathName(d0.Distance, d0.Limit, level, logs)
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
	for _, d := range silent {
		ev.add(d.Evidence)
	}
	for _, r := range all.RingsOff {
		ev.add(r.Evidence)
	}
	for _, c := range all.ChannelsOff {
		ev.add(c.FirstNoGDR)
	}
	if len(noModule) == 0 && len(byDistance) == 0 {
		var where string
		if h := offHosts(all); len(h) > 0 {
			where = " on " + list(h, 3)
		}
		switch {
		case len(all.RingsOff) > 0:
			what = append(what, "ring summary says GDR 0"+where+", no reason printed")
		case len(silent) > 0:
			what = append(what, "disabled for HCA "+silent[0].HCADev+where+", no reason printed")
		default:
			if where == "" {
				where = " on the ranks this log shows"
			}
			what = append(what, "received data lands via NET/"+all.ChannelsOff[0].Net+" without /GDRDMA"+where)
		}
		why = append(why, "The log shows that GPUDirect RDMA is off but not why: NCCL 2.1x-2.2x prints only 'GPU Direct RDMA Disabled for HCA', 'GDR 0' or connection lines without /GDRDMA unless the NET and GRAPH subsystems are logged.")
		fix = append(fix, "Check the peer-memory path on every node: `lsmod | grep nvidia_peermem` (`sudo modprobe nvidia_peermem`), or DMA-BUF (open GPU kernel module, kernel 5.12 or later); check the GPU-NIC path with `nvidia-smi topo -m` against NCCL_NET_GDR_LEVEL (default PXB); rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH to see the reason.")
	}
	partial := all.On()
	title := "GPUDirect RDMA off: " + strings.Join(what, "; ")
	if partial {
		var gpusOn, hcasOn []string
		for _, d := range all.Enabled {
			if d.GPU != "" {
				gpusOn = append(gpusOn, d.GPU)
			} else {
				hcasOn = append(hcasOn, d.HCADev)
			}
			ev.add(d.Evidence)
		}
		var on []string
		if len(gpusOn) > 0 {
			on = append(on, gpuList(gpusOn))
		}
		if h := distinct(hcasOn); len(h) > 0 {
			on = append(on, "HCA "+list(h, 4))
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
