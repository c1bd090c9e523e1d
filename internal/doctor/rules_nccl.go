package doctor

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/ingest"
)

// ncclRules are the rules over NCCL_DEBUG logs about which transport NCCL
// chose.
func ncclRules() []Rule {
	return []Rule{
		{IDs: []string{"nccl.transport.socket_fallback", "nccl.transport.mismatch", "nccl.transport.ib", "nccl.transport.plugin", "nccl.transport.none", "nccl.plugin.fallback", "nccl.plugin.mismatch", "nccl.plugin.not_found", "nccl.plugin.no_symbol"}, Check: checkTransport},
		{IDs: []string{"nccl.log.no_network_lines"}, Check: checkNetworkUnshown},
	}
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
		} else if h, ev, ok := l.Comm.SingleHost(); ok {
			consider(1, fmt.Sprintf("host %s prints %s of the communicator", h, allOf(l.Comm.Ranks, "rank", "ranks")), ev)
			oneNode = true
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
	none, noNet := noNetwork(logs)
	if noNet {
		fs = append(fs, none)
	}
	// Without a line that shows sockets carrying data, a log in which no
	// network started did not fall back to sockets.
	if f, ok := socketFallback(inc, logs); ok && (!noNet || socketShown(logs)) {
		fs = append(fs, f)
	}
	if f, ok := ibInUse(inc, logs); ok {
		fs = append(fs, f)
	}
	if f, ok := pluginFallback(logs); ok {
		fs = append(fs, f)
	}
	if f, ok := pluginMismatch(logs); ok {
		fs = append(fs, f)
	}
	fs = append(fs, pluginInUse(logs)...)
	fs = append(fs, pluginMissing(logs)...)
	return append(fs, pluginUnused(logs)...)
}

// socketShown reports whether some log shows the socket transport
// carrying data (not only inferred from why IB did not start).
func socketShown(logs []*ingest.NCCLLog) bool {
	for _, l := range logs {
		if len(l.SocketEvidence(1)) > 0 {
			return true
		}
	}
	return false
}

// noNetwork reports NCCL's "Failed to initialize any NET plugin": no
// network transport started (the plugins failed and NCCL_NET, or the
// build, left no internal one to fall back to), so no communicator
// spanning nodes can be built.
func noNetwork(logs []*ingest.NCCLLog) (Finding, bool) {
	var ev evidence
	var hosts []string
	var plugin []Evidence
	for _, l := range logs {
		if l.NoNetwork.Count == 0 {
			continue
		}
		ev.add(l.NoNetwork.Lines[0])
		hosts = append(hosts, l.NoNetwork.Hosts...)
		plugin = append(plugin, l.PluginInitFailures.Lines...)
	}
	if len(ev.list) == 0 {
		return Finding{}, false
	}
	mech := "NCCL tries the net plugins it loaded, then its internal IB and socket transports; here none of them initialised, so NCCL has no network for inter-node connections and the communicator init fails. NCCL_NET set to a plugin's name (or an internal transport disabled) removes the fallbacks."
	fix := "Read the first plugin failure and fix it, or let NCCL fall back: unset NCCL_NET (or set it to the transport that works) and check NCCL_IB_DISABLE."
	if len(plugin) > 0 {
		ev.add(plugin[:min(3, len(plugin))]...)
		mech += fmt.Sprintf(" The plugin said why first: %q.", pluginMessage(plugin[0].Text))
		fix = "Make the net plugin start: its first failure line says why (no provider matching what the plugin asks of libfabric, a device not visible, a libfabric/plugin version pair that does not negotiate); use the plugin version the fabric's vendor supports with this libfabric, or unset NCCL_NET so that NCCL can fall back to its own transports."
	}
	where := ""
	if h := realHosts(distinct(hosts)); len(h) > 0 {
		where = " on " + list(h, 3)
	}
	return Finding{
		ID: "nccl.transport.none", Severity: Error, Layer: LayerRDMA,
		Title:     "NCCL initialised no network transport (\"Failed to initialize any NET plugin\")" + where,
		Evidence:  ev.sorted(),
		Mechanism: mech,
		Fix:       fix,
	}, true
}

// realHosts keeps the names that name a host.
func realHosts(hs []string) []string {
	var out []string
	for _, h := range hs {
		if ingest.RealHost(h) {
			out = append(out, h)
		}
	}
	return out
}

// netHosts is the transport each host of the incident uses for data.
type netHosts struct {
	rdma, sock []string // real hosts, in first-seen order
	rdmaEv     []Evidence
	sockEv     []Evidence
	anyRDMA    bool // also counting lines without a host
	anyPlugin  bool
	bootstrap  bool // some log's NET/Socket lines are bootstrap lines
}

// transportsByHost joins the logs' per-host transports.
func transportsByHost(logs []*ingest.NCCLLog) netHosts {
	var n netHosts
	seenR, seenS := map[string]bool{}, map[string]bool{}
	for _, l := range logs {
		n.bootstrap = n.bootstrap || len(l.SocketDevices) > 0 && l.SocketLinesBootstrap()
		for _, t := range l.Transports() {
			n.anyRDMA = n.anyRDMA || t.RDMA
			n.anyPlugin = n.anyPlugin || t.Plugin != ""
			if !ingest.RealHost(t.Host) {
				continue
			}
			if t.RDMA && !seenR[t.Host] {
				seenR[t.Host] = true
				n.rdma, n.rdmaEv = append(n.rdma, t.Host), append(n.rdmaEv, t.RDMAEvidence)
			}
			if t.Socket && !t.RDMA && !seenS[t.Host] {
				seenS[t.Host] = true
				n.sock, n.sockEv = append(n.sock, t.Host), append(n.sockEv, t.SocketEvidence)
			}
		}
	}
	return n
}

// whyNoIB collects why the IB transport did not start: libibverbs
// missing, no RDMA device, a plugin failure, NCCL_IB_DISABLE=1. loadOnly
// is set when the only reason is a net plugin that failed to load: NCCL
// then goes on to its own transports, IB first, so that line alone says
// nothing of sockets (NVIDIA/nccl#1292: "Failed to find ncclNetPlugin
// symbol (>= v5)" on a job that ran).
func whyNoIB(inc *Incident, logs []*ingest.NCCLLog) (why []Evidence, reasons, fixes []string, ibDisabled, loadOnly bool) {
	loads := 0
	for _, l := range logs {
		if l.VerbsMissing.Count > 0 {
			why = append(why, l.VerbsMissing.Lines[0])
			reasons = append(reasons, fmt.Sprintf("libibverbs could not be loaded on %s", plural(len(l.VerbsMissing.Hosts), "host", "hosts")))
			fixes = append(fixes, "Install the RDMA user space where NCCL runs (Debian/Ubuntu: apt-get install libibverbs1 ibverbs-providers; RHEL: dnf install rdma-core libibverbs), in the container image too; check with `ldconfig -p | grep libibverbs`.")
		}
		if l.PluginInitFailures.Count > 0 {
			first := l.PluginInitFailures.Lines[0]
			why = append(why, first)
			reasons = append(reasons, fmt.Sprintf("the net plugin %s failed to initialise on %s (%q), so NCCL fell back to its own transports", pluginName(first.Text), plural(len(l.PluginInitFailures.Hosts), "host", "hosts"), pluginMessage(first.Text)))
			fixes = append(fixes, "Make the net plugin start: it loaded but could not open its network, and the lines it printed before the failure say why (provider, devices, versions). For aws-ofi-nccl on EFA, `fi_info -p efa` must list the EFA devices on the node and inside the container (a Kubernetes pod must request them, e.g. the vpc.amazonaws.com/efa resource), FI_PROVIDER must not name another provider, and libfabric and the plugin must be the versions installed together.")
		}
		var allSkipped []string
		for _, h := range l.IBSkipped.Hosts {
			if ibSkippedAll(l, h) {
				allSkipped = append(allSkipped, h)
			}
		}
		if l.NoIBDevice.Count > 0 {
			why = append(why, l.NoIBDevice.Lines[0])
		}
		// A host whose every device NET/IB skipped has a cause of its own
		// below: its "No device found." is their consequence.
		if none := slices.DeleteFunc(slices.Clone(l.NoIBDevice.Hosts), func(h string) bool { return slices.Contains(allSkipped, h) }); len(none) > 0 {
			reasons = append(reasons, fmt.Sprintf("NET/IB found no RDMA device on %s", plural(len(none), "host", "hosts")))
			fix := "Make the RDMA devices visible to NCCL: `ibv_devinfo` must list the mlx5_* ports as PORT_ACTIVE; load mlx5_ib and ib_uverbs; in containers pass /dev/infiniband (docker run --device=/dev/infiniband --cap-add=IPC_LOCK, or the Kubernetes RDMA/SR-IOV device plugin); check that NCCL_IB_HCA does not exclude them."
			if l.PluginInitFailures.Count == 0 {
				fix += " On a cloud without RoCE/IB use its own net plugin (e.g. aws-ofi-nccl for EFA)."
			}
			fixes = append(fixes, fix)
		}
		for i, h := range l.IBSkipped.Hosts {
			if slices.Contains(allSkipped, h) {
				why = append(why, l.IBSkipped.First[i])
				what, _ := ibSkipped(l, h)
				reasons = append(reasons, fmt.Sprintf("NET/IB could not %s%s", strings.Join(what, ", "), onHosts([]string{h})))
			}
		}
		if len(allSkipped) > 0 {
			fixes = append(fixes, ibAllSkippedFix)
		}
		if l.IBInitWarns.Count > 0 && l.NoIBDevice.Count+l.VerbsMissing.Count == 0 {
			first := l.IBInitWarns.Lines[0]
			why = append(why, first)
			reasons = append(reasons, fmt.Sprintf("NCCL's IB transport stopped at a warning on %s (%q)", plural(len(l.IBInitWarns.Hosts), "host", "hosts"), pluginMessage(first.Text)))
			fixes = append(fixes, ibInitFix(first.Text))
		}
		if l.PluginFailures.Count > 0 {
			loads++
			why = append(why, l.PluginFailures.Lines[0])
			reasons = append(reasons, "a net plugin failed to load")
			fixes = append(fixes, "Fix the net plugin load error shown (library path, NCCL_NET_PLUGIN, plugin/NCCL version match).")
		}
	}
	// Devices libibverbs left out explain a fallback NCCL shows (no device,
	// or sockets); alone they say none: a host may leave out its Broadcom
	// LOM's bnxt_re and run NCCL over its ConnectX rails. Their fix comes
	// first, before the generic one for "No device found".
	if ev, reason, fix, ok := verbsABIReason(inc); ok && ncclSawNoDevice(logs) {
		why = append(why, ev)
		reasons = append(reasons, reason)
		fixes = append([]string{fix}, fixes...)
	}
	if e, ok := ibTurnedOff(inc); ok {
		ibDisabled = true
		why = append(why, e.Evidence)
		r := "NCCL_IB_DISABLE=" + e.Value + " turns the IB/RoCE transport off"
		if !e.Echoed() {
			r += fmt.Sprintf(" (set by %s at line %d)", e.How, e.Evidence.Line)
		}
		reasons = append(reasons, r)
		fixes = append(fixes, "Unset NCCL_IB_DISABLE (or set it to 0) in the job's environment and launcher (-x NCCL_IB_DISABLE=0).")
	}
	return why, reasons, fixes, ibDisabled, loads > 0 && loads == len(reasons)
}

// ncclSawNoDevice reports whether a log says NCCL's IB transport found no
// device or a host moved its data over sockets.
func ncclSawNoDevice(logs []*ingest.NCCLLog) bool {
	for _, l := range logs {
		if l.NoIBDevice.Count > 0 {
			return true
		}
	}
	return len(transportsByHost(logs).sock) > 0
}

// verbsABIReason says, when libibverbs left devices out for their
// driver's ABI anywhere in the incident, that this is why NCCL found none.
func verbsABIReason(inc *Incident) (Evidence, string, string, bool) {
	var rs []ingest.VerbsABIReject
	for _, d := range All[*ingest.Devinfo](inc) {
		rs = append(rs, leftOut(d)...)
	}
	if len(rs) == 0 {
		return Evidence{}, "", "", false
	}
	r := rs[0]
	return r.Evidence, fmt.Sprintf("libibverbs left out %s: its %s provider does not speak the kernel driver's ABI %d", plural(len(rs), "RDMA device", "RDMA devices"), r.Provider, r.KernelABI),
		fmt.Sprintf("Install the %s provider of the kernel driver's release where NCCL runs, the container image too (devinfo.verbs_abi).", r.Provider), true
}

// ibTurnedOff returns the NCCL_IB_DISABLE setting that takes effect when
// it turns the IB verbs transport off: a setting that by itself decides
// NCCL's inter-node transport (TCP sockets), unless NCCL_NET or
// NCCL_NET_PLUGIN names a net plugin that carries the traffic instead, or
// NCCL did not echo it and a log shows its NET/IB lines (ingest.IBDisabled).
func ibTurnedOff(inc *Incident) (ingest.NCCLSetting, bool) {
	ibShown := slices.ContainsFunc(All[*ingest.NCCLLog](inc), (*ingest.NCCLLog).IBShown)
	e, ok := ingest.IBDisabled(ncclEnv(inc, "NCCL_IB_DISABLE"), ibShown)
	if !ok || netPluginNamed(inc) {
		return ingest.NCCLSetting{}, false
	}
	return e, true
}

// settingInEffect returns the value of the named variable the job ran
// with (ingest.InEffect).
func settingInEffect(inc *Incident, name string) (ingest.NCCLSetting, bool) {
	return ingest.InEffect(ncclEnv(inc, name))
}

// netPluginNamed reports whether the job's NCCL_NET or NCCL_NET_PLUGIN
// names a net plugin: NCCL_NET other than NCCL's own "IB" and "Socket",
// NCCL_NET_PLUGIN other than "none".
func netPluginNamed(inc *Incident) bool {
	if e, ok := settingInEffect(inc, "NCCL_NET"); ok && e.Value != "" && !strings.EqualFold(e.Value, "IB") && !strings.EqualFold(e.Value, "Socket") {
		return true
	}
	e, ok := settingInEffect(inc, "NCCL_NET_PLUGIN")
	return ok && e.Value != "" && !strings.EqualFold(e.Value, "none")
}

// ibInitFix is what to do about the WARN that stopped NCCL's IB
// transport from starting.
func ibInitFix(line string) string {
	if strings.Contains(line, "data_direct") {
		return "NCCL 2.27 and later ask libmlx5 for a ConnectX NIC's Data Direct DMA path (mlx5dv_get_data_direct_sysfs_path) when the NIC supports DMA-BUF; an error other than 'not supported' stops the IB transport, which happens where the device's sysfs path is not what the NIC reports (VMs, containers) or libmlx5 and the kernel driver do not match. Set NCCL_IB_DATA_DIRECT=0 to skip the probe (the NIC is then used through its PCIe path), or bring rdma-core (libmlx5) and the mlx5 driver to matching versions on the host and in the image."
	}
	return "Fix what the warning names: it is NCCL's IB transport failing while it opened the devices, before any connection; `ibv_devinfo -v` on the host (and in the container) shows whether the devices open, and NCCL_DEBUG_SUBSYS=INIT,NET shows the device it stopped at."
}

// pluginName is the plugin a "NET/OFI ..." line names ("NET/OFI"), or
// "" when the line names none.
func pluginName(line string) string {
	i := strings.Index(line, "NET/")
	if i < 0 {
		return ""
	}
	name, _, _ := strings.Cut(line[i:], " ")
	return strings.TrimRight(name, ":")
}

// pluginMessage is what a plugin's line says after "NET/<name>".
func pluginMessage(line string) string {
	i := strings.Index(line, "NET/")
	if i < 0 {
		return strings.TrimSpace(line)
	}
	_, msg, _ := strings.Cut(line[i:], " ")
	return strings.TrimSpace(msg)
}

const socketMechanism = "NCCL tries its IB verbs transport (IB or RoCE) first and falls back to TCP sockets when it finds no usable RDMA device or is told not to use one. " +
	"Over sockets every byte crosses the kernel TCP stack and host memory on both sides, so inter-node bandwidth is a fraction of line rate and latency is tens of microseconds higher; PFC, ECN and GPUDirect RDMA do not apply."

// socketFallback reports NCCL moving data over TCP sockets. When some
// hosts use RDMA and others sockets, the mismatch is the finding
// (nccl.transport.mismatch). NCCL 2.4-2.7 print "NET/Socket : Using" on
// every rank for bootstrap; those lines beside IB devices are not a
// fallback.
func socketFallback(inc *Incident, logs []*ingest.NCCLLog) (Finding, bool) {
	n := transportsByHost(logs)
	why, reasons, fixes, ibDisabled, loadOnly := whyNoIB(inc, logs)
	var sockEv []Evidence
	for _, l := range logs {
		sockEv = append(sockEv, l.SocketEvidence(4)...)
	}
	if len(n.rdma) > 0 && len(n.sock) > 0 {
		return transportMismatch(n, why, reasons, fixes), true
	}
	// Without a socket line, infer the fallback from why IB could not
	// start, unless RDMA or a net plugin (EFA, TCPX) carries the traffic.
	inferred := (ibDisabled || len(reasons) > 0 && !loadOnly) && !n.anyRDMA && !n.anyPlugin || len(n.sock) > 0
	if len(sockEv) == 0 && !inferred {
		return Finding{}, false
	}
	if len(reasons) == 0 {
		reasons = append(reasons, "the log does not say why the IB transport was not used")
		fixes = append(fixes, "Rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and check `ibv_devinfo` on every node.")
	}
	all := evidence{}
	all.add(why...)
	all.add(sockEv...)
	all.add(n.sockEv[:min(4, len(n.sockEv))]...)
	sp := jobSpan(inc)
	mech := socketMechanism
	if n.bootstrap {
		mech += " (The \"NET/Socket : Using\" lines of this NCCL version are printed on every rank for bootstrap and are not counted here.)"
	}
	f := Finding{
		ID: "nccl.transport.socket_fallback", Layer: LayerRDMA,
		Evidence:  all.sorted(),
		Mechanism: mech + " Why here: " + strings.Join(reasons, "; ") + ".",
		Fix:       strings.Join(fixes, " "),
	}
	where := ""
	if len(n.sock) > 0 {
		where = " on " + plural(len(n.sock), "host", "hosts")
	}
	if bad, kinds, good := unreachableSockets(logs); len(bad) > 0 && !n.bootstrap && !sp.single {
		over := " (also over "
		if len(good) == 0 {
			over = " (over "
		}
		where += over + list(bad, 2) + ")"
		f.Mechanism += " NCCL's socket transport uses each interface it lists as a network device of its own (NET/Socket/1, ...) and spreads its channels over them, so " + list(bad, 2) + " carries some of them: " + strings.Join(kinds, "; ") + "."
		f.Fix = socketIfnameFix(bad, good) + " " + f.Fix
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

// transportMismatch reports hosts of one job on different transports.
func transportMismatch(n netHosts, why []Evidence, reasons, fixes []string) Finding {
	var ev evidence
	ev.add(n.rdmaEv[:min(2, len(n.rdmaEv))]...)
	ev.add(n.sockEv[:min(4, len(n.sockEv))]...)
	ev.add(why...)
	because := "the log does not say why IB did not start there"
	if len(reasons) > 0 {
		because = strings.Join(reasons, "; ")
	}
	if len(fixes) == 0 {
		fixes = []string{"Compare the socket hosts with the RDMA hosts: `ibv_devinfo` (ports PORT_ACTIVE), the container's /dev/infiniband and RDMA device plugin, and the NCCL_* environment each host's ranks get (NCCL_IB_DISABLE, NCCL_IB_HCA, NCCL_NET)."}
	}
	return Finding{
		ID: "nccl.transport.mismatch", Severity: Error, Layer: LayerRDMA,
		Title:    fmt.Sprintf("Hosts disagree on the transport: %s on RDMA (NET/IB), %s on TCP sockets", list(n.rdma, 3), list(n.sock, 3)),
		Evidence: ev.sorted(),
		Mechanism: "Both ends of an NCCL network connection must use the same network plugin: the connection handle one rank sends is specific to its transport, so a rank on NET/IB and a rank on NET/Socket cannot connect. " +
			"The job then fails or hangs while connecting, or, where every rank of a communicator falls back, runs at socket speed. The mismatch is the cause: the socket hosts could not start the IB transport (" + because + "), while the others did.",
		Fix: strings.Join(distinct(fixes), " ") + " Then rerun with NCCL_DEBUG=INFO and check that every host prints \"Using network IB\".",
	}
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
	var nets, devs, idle, gids, tcs, versions, renamed []string
	elided := 0 // the devices of a list the input shortened
	var linkLayers []string
	gdr := ingest.GDRReport{}
	for _, l := range logs {
		for _, c := range l.Networks {
			if l.IBNet(c.Name) {
				nets = append(nets, c.Name)
				once("net "+c.Name, c.Evidence)
				if !strings.HasPrefix(c.Name, "IB") {
					renamed = append(renamed, c.Name)
				}
			}
		}
		for _, d := range l.IBDevices {
			dev := fmt.Sprintf("%s:%d", d.Name, d.Port)
			devs = append(devs, dev)
			elided = max(elided, d.Elided)
			linkLayers = append(linkLayers, d.LinkLayer)
			once("dev "+dev+"/"+d.LinkLayer, d.Evidence)
		}
		for _, c := range l.Channels {
			if c.Kind == "NET" && l.IBNet(c.Net) {
				nets = append(nets, c.Net)
				if len(l.Networks) == 0 {
					once("chan "+c.Net, c.First)
				}
			}
		}
		if l.IBQPLines.Count > 0 {
			// Queue pairs NET/IB connected (set_ece): its data path.
			nets = append(nets, "IB")
			if len(l.Networks) == 0 {
				once("qp", l.IBQPLines.Lines[0])
			}
		}
		for _, d := range l.IdleIBDevices() {
			idle = append(idle, fmt.Sprintf("%s:%d", d.Name, d.Port))
		}
		for _, v := range l.Versions {
			versions = append(versions, v.Version)
		}
		gdr.Merge(l.GDRReport())
	}
	for _, e := range ncclEnv(inc, "NCCL_IB_GID_INDEX") {
		gids = append(gids, e.Value)
		once("gid "+e.Value, e.Evidence)
	}
	for _, e := range ncclEnv(inc, "NCCL_IB_TC") {
		tcs = append(tcs, e.Value)
		once("tc "+e.Value, e.Evidence)
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
	if d := distinct(devs); len(d) > 0 && elided > len(d) {
		title += fmt.Sprintf(" (%d devices, %s; the list as given is shortened)", elided, strings.Join(d, " … "))
	} else if len(d) > 0 {
		title += " (" + list(d, 4) + ")"
	}
	var facts []string
	if g := distinct(gids); len(g) > 0 {
		title += ", GID index " + strings.Join(g, "/")
	}
	if r := distinct(renamed); len(r) > 0 {
		facts = append(facts, "the net plugin "+strings.Join(r, ", ")+" announced itself as the IBext verbs transport (P2P plugin IBext), so it drives these devices")
	}
	if d := distinct(idle); len(d) > 0 {
		facts = append(facts, "no connection goes over "+list(d, 4)+": listed, but every connection line names another device")
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
	ranks, nch, nodes, local := 0, 0, 0, 0
	var intra, speeds []string
	for _, l := range logs {
		ranks, nch = max(ranks, l.Comm.Ranks), max(nch, l.NChannels)
		nodes, local = max(nodes, l.Comm.Nodes), max(local, l.Comm.LocalRanks)
		for _, p := range l.IBPorts {
			if p.Speed > 0 {
				speeds = append(speeds, p.Speed.String())
			}
		}
		for _, c := range l.Channels {
			switch c.Kind {
			case "P2P":
				intra = append(intra, "P2P/"+c.Net)
			case "SHM":
				intra = append(intra, "shared memory")
			}
		}
	}
	switch {
	case ranks > 0 && nodes > 0 && local > 0:
		facts = append(facts, fmt.Sprintf("%s on %s, up to %d per node", plural(ranks, "rank", "ranks"), plural(nodes, "node", "nodes"), local))
	case ranks > 0:
		facts = append(facts, plural(ranks, "rank", "ranks"))
	}
	if sp := distinct(speeds); len(sp) > 0 {
		facts = append(facts, "ports at "+strings.Join(sp, "/")+" (NCCL's port lines)")
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
	if over == "RoCE" && len(gids) == 0 && len(logs) == 1 {
		if atLeast, known := logs[0].VersionAtLeast(2, 21); known && !atLeast {
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

func pluginInUse(logs []*ingest.NCCLLog) []Finding {
	var ev evidence
	var names []string
	for _, l := range logs {
		for _, c := range slices.Concat(l.Networks, l.PluginDevices) {
			if !l.IBNet(c.Name) && c.Name != "Socket" {
				names = append(names, c.Name)
				ev.add(c.Evidence)
			}
		}
	}
	names = distinct(names)
	if len(names) == 0 {
		return nil
	}
	mech := "A net plugin (cloud or vendor transport such as EFA/OFI or GPUDirect-TCPX/TCPXO) carries the inter-node traffic; NCCL's RoCE checks (GID index, PFC on the RoCE priority) apply only if that plugin runs over RoCE."
	if tcp := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return !ingest.SocketNet(n) }); len(tcp) > 0 {
		verb, its := " moves", "its"
		if len(tcp) > 1 {
			verb, its = " move", "their"
		}
		mech += " " + strings.Join(tcp, ", ") + verb + " data over TCP on the hosts' network interfaces: no RDMA, so no GPUDirect RDMA and no RoCE settings to check; " + its + " bandwidth is the TCP stack's."
	}
	return []Finding{{
		ID: "nccl.transport.plugin", Severity: Info, Layer: LayerRDMA,
		Title:     "NCCL uses the net plugin " + strings.Join(names, ", ") + ", not its IB or socket transport",
		Evidence:  ev.sorted(),
		Mechanism: mech,
	}}
}

// checkNetworkUnshown says when the NCCL logs of a job that spans nodes
// print nothing of the network (no transport, device, plugin or NET
// channel line): NCCL_DEBUG=WARN, a NCCL_DEBUG_SUBSYS without INIT and
// NET, or an excerpt. No transport rule can judge such a log, and "no
// findings" would read as a clean bill.
func checkNetworkUnshown(inc *Incident) []Finding {
	logs := All[*ingest.NCCLLog](inc)
	if len(logs) == 0 || slices.ContainsFunc(logs, networkShown) {
		return nil
	}
	if _, off := ibTurnedOff(inc); off {
		// The setting tells the transport (nccl.transport.socket_fallback
		// says so): the log's silence hides nothing about it.
		return nil
	}
	s := jobSpan(inc)
	if !s.multi() {
		return nil
	}
	return []Finding{{
		ID: "nccl.log.no_network_lines", Severity: Info, Layer: LayerInput,
		Title:    fmt.Sprintf("NCCL printed no line about the network of a job on %d nodes (%s): which transport it used between nodes cannot be told", s.nodes, s.how),
		Evidence: evidenceInOrder([]Evidence{s.ev}),
		Mechanism: "NCCL prints its network choice (`NET/IB : Using [0]mlx5_0:1/RoCE`, `NET/Socket : Using`, `Using network IB`, NCCL 2.27's `Assigned NET plugin`) and each inter-node connection (`via NET/IB/0`) at INFO level under the INIT and NET subsystems. " +
			"The NCCL output given has none of them: NCCL_DEBUG was WARN or unset, NCCL_DEBUG_SUBSYS left INIT and NET out, or only an excerpt was given. So whether the job ran over RoCE or fell back to TCP sockets, with which devices and GID, is not in it, and no finding about the transport is no sign that it is right.",
		Fix: "Rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET (NCCL's environment variables: docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-debug-subsys) and pass every rank's whole log.",
	}}
}

// networkShown reports whether a log prints any line about NCCL's
// network: its choice, devices, plugins and their failures, inter-node
// channels, GPUDirect RDMA decisions, queue pairs or IB errors.
func networkShown(l *ingest.NCCLLog) bool {
	if len(l.Networks) > 0 || len(l.IBDevices) > 0 || len(l.SocketDevices) > 0 || len(l.IBPorts) > 0 || len(l.VirtualDevices) > 0 ||
		len(l.GDR) > 0 || len(l.QPs) > 0 || len(l.MTUs) > 0 || l.CompletionCount > 0 || l.SetupCount > 0 || l.AsyncEventCount > 0 {
		return true
	}
	for _, h := range []ingest.HostLines{l.NoIBDevice, l.VerbsMissing, l.Plugins, l.PluginNetLines, l.PluginFailures, l.PluginInitFailures, l.NoNetwork, l.PluginGDROff, l.AsyncLost, l.IBInitWarns, l.IBQPLines} {
		if h.Count > 0 {
			return true
		}
	}
	return slices.ContainsFunc(l.Channels, func(c ingest.ChannelStat) bool { return c.Kind == "NET" })
}
