package doctor

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/ingest"
)

// ncclIBRules are the rules over NCCL's IB/RoCE failures: completions with
// error and failed queue-pair setup. The GID rules judge the GID index NCCL
// was given and the GIDs it prints.
func ncclIBRules() []Rule {
	return []Rule{
		{IDs: []string{"nccl.ib.retry_exceeded", "nccl.ib.local_protection", "nccl.ib.completion_flushed", "nccl.ib.completion_error"}, Check: checkCompletions},
		{IDs: []string{"nccl.ib.qp_setup_failed"}, Check: checkSetup},
		{IDs: []string{"nccl.ib.async_event"}, Check: checkAsyncEvents},
	}
}

// ibv_wc_status values (rdma-core verbs.h).
const (
	wcLocProtErr   = 4
	wcWRFlushErr   = 5
	wcRemInvReqErr = 9
	wcRemOpErr     = 11
	wcRetryExcErr  = 12
	wcRNRRetryExc  = 13
	ibTimeoutUnitS = 4.096e-6 // the IB ACK timeout unit, seconds
)

// wcStatusNames are the ibv_wc_status names by value.
var wcStatusNames = []string{
	"SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_EEC_OP_ERR", "LOC_PROT_ERR", "WR_FLUSH_ERR",
	"MW_BIND_ERR", "BAD_RESP_ERR", "LOC_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_ACCESS_ERR", "REM_OP_ERR",
	"RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR", "LOC_RDD_VIOL_ERR", "REM_INV_RD_REQ_ERR", "REM_ABORT_ERR",
	"INV_EECN_ERR", "INV_EEC_STATE_ERR", "FATAL_ERR", "RESP_TIMEOUT_ERR", "GENERAL_ERR",
}

func wcName(s int) string {
	if s >= 0 && s < len(wcStatusNames) {
		return "IBV_WC_" + wcStatusNames[s]
	}
	return "status " + strconv.Itoa(s)
}

// connErrors is a connection's completion errors: the first is the root
// cause, the rest its fallout.
type connErrors struct {
	root  ingest.CompletionError
	later []ingest.CompletionError
}

// checkCompletions groups completion errors by connection (process, peer,
// GIDs, HCA), takes the earliest on each as its root cause and reports the
// later ones, and every WR-flushed error, as fallout.
func checkCompletions(inc *Incident) []Finding {
	logs := All[*ingest.NCCLLog](inc)
	var conns []*connErrors
	byKey := map[string]*connErrors{}
	total := 0
	for _, l := range logs {
		total += l.CompletionCount
		for _, c := range l.Completions {
			k := l.Source() + "|" + c.Conn()
			if g, ok := byKey[k]; ok {
				g.later = append(g.later, c)
				continue
			}
			g := &connErrors{root: c}
			byKey[k] = g
			conns = append(conns, g)
		}
	}
	if len(conns) == 0 {
		return nil
	}
	classes := map[int][]*connErrors{}
	var order []int
	var flushed []*connErrors
	for _, g := range conns {
		s := g.root.Status
		if s == wcWRFlushErr {
			flushed = append(flushed, g)
			continue
		}
		if _, ok := classes[s]; !ok {
			order = append(order, s)
		}
		classes[s] = append(classes[s], g)
	}
	var fs []Finding
	fallout := flushed
	for _, s := range order {
		gs := classes[s]
		f := completionFinding(inc, s, gs, fallout, logs)
		fallout = nil // the first finding carries the flushed connections
		fs = append(fs, f)
	}
	if len(order) == 0 {
		fs = append(fs, flushedFinding(flushed, total, qpFatalEvents(inc, flushedHosts(flushed))))
	}
	return fs
}

// completionFinding reports the root-cause errors of one status.
func completionFinding(inc *Incident, status int, gs, flushed []*connErrors, logs []*ingest.NCCLLog) Finding {
	var ev evidence
	var hosts, peers, vendor, gids []string
	nLater := 0
	for _, g := range gs {
		ev.add(g.root.Evidence)
		hosts = append(hosts, g.root.Host)
		peers = append(peers, g.root.PeerIP)
		if g.root.VendorErr >= 0 {
			vendor = append(vendor, fmt.Sprintf("0x%x", g.root.VendorErr))
		}
		if g.root.LocalGID != "" {
			gids = append(gids, g.root.LocalGID+" -> "+g.root.RemoteGID)
		}
		nLater += len(g.later)
	}
	var falloutEv []Evidence
	for _, g := range gs {
		for _, c := range g.later {
			falloutEv = append(falloutEv, c.Evidence)
		}
	}
	for _, g := range flushed {
		falloutEv = append(falloutEv, g.root.Evidence)
		nLater += 1 + len(g.later)
	}
	if len(falloutEv) > 0 {
		ev.add(falloutEv[:min(2, len(falloutEv))]...)
	}
	where := ""
	if h := distinct(hosts); len(h) > 0 {
		where = " from " + list(h, 3)
	}
	if p := distinct(peers); len(p) > 0 {
		where += " to peer " + list(p, 3)
	}
	vend := ""
	if v := distinct(vendor); len(v) > 0 {
		vend = ", vendor err " + strings.Join(v, "/")
	}
	conns := plural(len(gs), "connection", "connections")
	f := Finding{Severity: Error, Layer: LayerRDMA, Evidence: ev.sorted()}
	falloutText := ""
	if nLater > 0 {
		falloutText = fmt.Sprintf(" The %s after the first on each connection (and any status 5, WR flushed, vendor err 0xf9) are fallout, not separate faults: once a queue pair is in the error state every outstanding work request completes flushed.", plural(nLater, "later completion error", "later completion errors"))
	}
	gidText := ""
	if g := distinct(gids); len(g) > 0 {
		gidText = " GIDs in use (local -> remote): " + list(g, 2) + "."
	}
	switch status {
	case wcRetryExcErr:
		t, tSrc := ibTimeout(inc, logOf(logs, gs[0].root.Evidence.File))
		r, rSrc := ibRetryCount(inc)
		per := ibTimeoutUnitS * math.Pow(2, float64(t))
		f.ID = "nccl.ib.retry_exceeded"
		f.Title = fmt.Sprintf("RC retry counter exceeded (status 12%s) on %s%s", vend, conns, where)
		if onInfiniBand(gs, logs) {
			f.Title += " over InfiniBand"
			f.Mechanism = fmt.Sprintf("Status 12 is IBV_WC_RETRY_EXC_ERR: the queue pair resent its oldest unacknowledged packet each time the ACK timeout, 4.096 us x 2^timeout = %s at NCCL_IB_TIMEOUT=%d%s, expired, and got no ACK in %d attempts (NCCL_IB_RETRY_CNT%s), about %s. These NICs are InfiniBand, whose credit-based link flow control drops no packet for congestion: no answer for that long means the peer's port could not be reached on the path the subnet manager routed, or stopped answering: a link that went down or flapped (a cable or transceiver, a switch port with rising symbol errors), routes the subnet manager changed under the job (a sweep after a port event, LIDs reassigned), or the peer host or its NIC hung. PFC, DSCP and GID indices, RoCE's suspects, play no part.%s%s",
				seconds(per), t, tSrc, r, rSrc, seconds(per*float64(r)), pluginText(gs), falloutText)
			f.Fix = "1) Check both ports named here and the switch ports on their path: `ibstat` (State Active, Physical state LinkUp, the expected Rate), `perfquery -x` or `ibqueryerrors` for SymbolErrorCounter, LinkDownedCounter, LinkErrorRecoveryCounter and PortRcvErrors, and the subnet manager's log for a sweep or port event at the time of the error. " +
				"2) Test the pair alone: `ib_write_bw -d <hca>` between the two hosts, and `ibdiagnet` for the fabric's links and routes. Reseat or replace a link whose error counters rise; raising NCCL_IB_TIMEOUT only hides a path that drops."
			break
		}
		f.Mechanism = fmt.Sprintf("Status 12 is IBV_WC_RETRY_EXC_ERR. RoCE does retransmit: the RC queue pair goes back N to the first unacknowledged packet and resends it whenever the ACK timeout expires, 4.096 us x 2^timeout = %s per attempt at NCCL_IB_TIMEOUT=%d%s. "+
			"The QP fails only when retry_cnt attempts (NCCL_IB_RETRY_CNT=%d%s) all time out, about %s of loss: the two NICs cannot talk over RoCE (wrong or unroutable GID, routing, traffic class) or the fabric keeps dropping packets (no PFC on the RoCE priority, buffer discards).%s%s%s",
			seconds(per), t, tSrc, r, rSrc, seconds(per*float64(r)), gidText, pluginText(gs), falloutText)
		step1 := "1) Check that both ends use routable GIDs of the same RoCE version: `show_gids` on each node, NCCL_IB_GID_INDEX = the RoCE v2 index of the routable address (usually 3 for IPv4 on bare metal), then `ib_write_bw -d <hca> -x <gid-index>` between the two hosts named here. "
		if ipv4GIDs(gs) {
			f.Mechanism += " The GIDs in these errors are IPv4-mapped, routable addresses, so the GID index is not the suspect (unless it is the address's v1 row); the path between the NICs and the loss on it are."
			step1 = "1) The GIDs are routable: check the path between the two NICs named here with `ib_write_bw -d <hca> -x <gid-index> <peer>` and `ip route get <peer IP> from <local IP>` (through the RDMA netdev). "
		}
		f.Fix = step1 +
			"2) Check that RoCE traffic is lossless: `mlnx_qos -i <netdev>` (trust dscp, PFC on the RoCE priority only, e.g. 3), NCCL_IB_TC mapping to that priority, and drops with `ethtool -S <netdev> | grep -E 'discard|pause'` and the RDMA counters (local_ack_timeout_err, out_of_sequence). " +
			"Raising NCCL_IB_TIMEOUT only hides a lossy path."
	case wcLocProtErr:
		f.ID = "nccl.ib.local_protection"
		f.Title = fmt.Sprintf("Local protection error (status 4%s) on %s%s", vend, conns, where)
		f.Mechanism = "Status 4 is IBV_WC_LOC_PROT_ERR: the NIC was refused access to a buffer it was given. With GPUDirect RDMA the NIC reads and writes GPU memory peer to peer across PCIe; when ACS on the PCIe switches redirects that traffic to the root complex, or the IOMMU translates it, the access fails. NCCL's maintainers (and NCCL's own hint for this status) tie it to ACS breaking GPUDirect RDMA." + pluginText(gs) + falloutText
		f.Fix = "Disable ACS on the PCIe switches between GPUs and NICs (BIOS setting, or `setpci` on each bridge as in NVIDIA's GPUDirect RDMA guide) and boot with `iommu=pt` (or the IOMMU off on bare metal). To confirm, rerun with NCCL_NET_GDR_LEVEL=LOC (GPUDirect RDMA off): if the error goes away, the peer-to-peer path is the cause. Also check `lsmod | grep nvidia_peermem`."
	default:
		f.ID = "nccl.ib.completion_error"
		f.Title = fmt.Sprintf("Completion with error %d (%s%s) on %s%s", status, wcName(status), vend, conns, where)
		f.Mechanism = fmt.Sprintf("A work completion with status %s moves the queue pair to the error state and NCCL aborts the communicator.", wcName(status))
		if status == wcRNRRetryExc {
			f.Mechanism += " Status 13 means the receiver kept answering RNR NAK (no receive posted) beyond rnr_retry; NCCL sets rnr_retry to 7 (infinite), so seeing it points to a NIC, firmware or plugin setting it differently."
		}
		f.Fix = "Look up the status in ibv_wc_status_str(3); compare firmware and driver versions across the nodes (`ibv_devinfo`), and collect the NIC's RDMA counters (`rdma statistic show`) from both hosts."
		if status >= wcRemInvReqErr && status <= wcRemOpErr {
			peer := "the peer"
			if p := distinct(peers); len(p) > 0 {
				peer = "the peer (" + list(p, 3) + ")"
			}
			f.Mechanism += " Statuses 9, 10 and 11 are the responder refusing the request: the fault is on " + peer + ", not on the host that logged it. Its own log holds the first error: a completion error of its own, or a queue-pair async event such as 'local access violation work queue error', most often the peer's NIC failing to reach its GPU memory over GPUDirect RDMA (ACS or the IOMMU in its PCIe path, a peer-memory module mismatch), or the peer's memory registration gone because its process died."
			f.Fix = "Read the log of " + peer + " for its first error (NCCL_DEBUG=INFO there). If its queue pair failed on a memory access, check ACS on that host's PCIe switches between NIC and GPU (`lspci -vvv | grep ACSCtl`), the IOMMU (iommu=pt) and nvidia-peermem/dma-buf, and rerun with NCCL_NET_GDR_LEVEL=LOC to confirm GPUDirect RDMA is the trigger."
			if qp := qpFatalEvents(inc, nil); qp != "" {
				f.Mechanism += " In this incident " + qp + ": the responder's queue pair failed there."
			}
		}
		f.Mechanism += pluginText(gs) + falloutText
	}
	return f
}

// qpFatalEvents names the queue-pair fatal async events of the incident's
// NCCL logs ("'local access violation work queue error' on node201
// mlx5_0:1") on one of hosts (nil: any host; an unnamed host matches),
// "" for none.
func qpFatalEvents(inc *Incident, hosts []string) string {
	var out []string
	for _, l := range All[*ingest.NCCLLog](inc) {
		for _, e := range l.AsyncEvents {
			if asyncEventClass(e.Event).what != "a queue pair failed" ||
				hosts != nil && !slices.ContainsFunc(hosts, func(h string) bool { return sameHostOrUnknown(h, e.Host) }) {
				continue
			}
			where := strings.TrimSpace(nameOr(e.Host, "") + " " + e.Device)
			if e.Port > 0 {
				where += ":" + strconv.Itoa(e.Port)
			}
			out = append(out, fmt.Sprintf("the NIC reported '%s' on %s (%s:%d)", e.Event, where, filepath.Base(e.Evidence.File), e.Evidence.Line))
		}
	}
	return list(distinct(out), 2)
}

// onInfiniBand reports whether every root error is on an InfiniBand port:
// the device it names (or, unnamed, every NCCL device of its host) is
// listed with link layer IB, or its name is rdma-core's for an InfiniBand
// device ("ibp152s0"); an IPv4-mapped GID is RoCE's.
func onInfiniBand(gs []*connErrors, logs []*ingest.NCCLLog) bool {
	for _, g := range gs {
		if c := g.root; portLinkLayer(c.Host, c.HCA, c.LocalGID, logOf(logs, c.Evidence.File)) != "IB" {
			return false
		}
	}
	return len(gs) > 0
}

// portLinkLayer returns the link layer of the port an error of host
// happened on, "" when the inputs do not tell: the device it names (dev,
// "mlx5_0" or "mlx5_0:1") as the log lists it or as rdma-core named it,
// or, with no device named, the one link layer of the host's NCCL
// devices; an IPv4-mapped local GID is RoCE's.
func portLinkLayer(host, dev, localGID string, l *ingest.NCCLLog) string {
	if k, _ := ingest.ClassifyGID(localGID); k == ingest.GIDIPv4 {
		return "RoCE"
	}
	dev, _, _ = strings.Cut(dev, ":")
	if ll := ingest.RDMANameLinkLayer(dev); ll != "" {
		return ll
	}
	if l == nil {
		return ""
	}
	seen := ""
	for _, d := range l.IBDevices {
		if dev != "" && d.Name != dev || host != "" && d.Host != "" && !ingest.SameHostName(d.Host, host) {
			continue
		}
		if seen != "" && d.LinkLayer != seen {
			return ""
		}
		seen = d.LinkLayer
	}
	return seen
}

// ipv4GIDs reports whether every root error prints IPv4-mapped GIDs at
// both ends.
func ipv4GIDs(gs []*connErrors) bool {
	for _, g := range gs {
		l, _ := ingest.ClassifyGID(g.root.LocalGID)
		r, _ := ingest.ClassifyGID(g.root.RemoteGID)
		if l != ingest.GIDIPv4 || r != ingest.GIDIPv4 {
			return false
		}
	}
	return len(gs) > 0
}

// pluginText names the net plugin that printed the errors, when it is not
// NCCL's built-in transport.
func pluginText(gs []*connErrors) string {
	for _, g := range gs {
		if strings.HasPrefix(g.root.Where, "ib_plugin") {
			return " The errors come from the HPC-X/SHARP IB plugin (" + g.root.Where + "), which wraps the same verbs transport."
		}
	}
	for _, g := range gs {
		if n := g.root.Net; n != "" && n != "IB" {
			return " The errors are reported under the plugin transport name NET/" + n + "; the status and vendor error are the verbs completion's own, whichever plugin prints them."
		}
	}
	return ""
}

// flushedHosts lists the hosts whose work requests were flushed: a queue
// pair flushes after an error of its own, so only their events explain it.
func flushedHosts(flushed []*connErrors) []string {
	hosts := []string{}
	for _, g := range flushed {
		hosts = append(hosts, g.root.Host)
	}
	return hosts
}

// flushedFinding reports flushed completions with no other completion
// error; qp names the queue-pair fatal async events of the incident, the
// root cause the flushes follow when there is one.
func flushedFinding(flushed []*connErrors, total int, qp string) Finding {
	var ev evidence
	for _, g := range flushed {
		ev.add(g.root.Evidence)
	}
	f := Finding{
		ID: "nccl.ib.completion_flushed", Severity: Error, Layer: LayerRDMA,
		Title:     fmt.Sprintf("Work requests flushed (status 5, vendor err 0xf9) on %s, with no root-cause error in these logs", plural(len(flushed), "connection", "connections")),
		Evidence:  ev.sorted(),
		Mechanism: fmt.Sprintf("Status 5 (IBV_WC_WR_FLUSH_ERR) means the queue pair was already in the error state: every outstanding request completes flushed. The %d error lines here are fallout of an earlier error on this or another connection, usually logged by another rank (in NVIDIA/nccl#1405 vendor err 129, retry exceeded, came before the 249s).", total),
		Fix:       "Collect NCCL_DEBUG=INFO logs from every rank and find the first completion error with status 12, 4 or 13 (or an ibv_modify_qp failure); diagnose that one.",
	}
	if qp != "" {
		fallout := fmt.Sprintf("the %d flushed completions are its fallout, not a fault of their own", total)
		if total == 1 {
			fallout = "the flushed completion is its fallout, not a fault of its own"
		}
		f.Title = fmt.Sprintf("Work requests flushed (status 5, vendor err 0xf9) on %s after a queue-pair fatal event", plural(len(flushed), "connection", "connections"))
		f.Mechanism = fmt.Sprintf("Status 5 (IBV_WC_WR_FLUSH_ERR) means the queue pair was already in the error state: every outstanding request completes flushed. The root cause is in these logs: %s, which moved the queue pair to the error state; %s (the proxy's progress thread polls them from the dead queue pair).", qp, fallout)
		f.Fix = "Diagnose the async event (nccl.ib.async_event): for an access or request error on the queue pair, the NIC's path to the GPU memory it was given (ACS, IOMMU, nvidia-peermem or dma-buf)."
	}
	return f
}

// ibTimeout returns NCCL_IB_TIMEOUT as set for the log, else the default
// of the log's NCCL version, else the current default, with where it came
// from. Only the log's own version counts: another file's NCCL is another
// job's.
func ibTimeout(inc *Incident, l *ingest.NCCLLog) (int, string) {
	for _, e := range ncclEnv(inc, "NCCL_IB_TIMEOUT") {
		if n, err := strconv.Atoi(e.Value); err == nil && n > 0 && n < 32 {
			return n, " (as set in the environment)"
		}
	}
	if l != nil {
		if a23, known := l.VersionAtLeast(2, 23); known {
			a14, _ := l.VersionAtLeast(2, 14)
			switch {
			case a23:
				return 20, " (NCCL's default since 2.23)"
			case a14:
				return 18, " (NCCL's default in 2.14-2.22)"
			default:
				return 14, " (NCCL's default before 2.14)"
			}
		}
	}
	return 20, " (NCCL's default since 2.23; 18 in 2.14-2.22, 14 before)"
}

// logOf returns the log read from the input named src.
func logOf(logs []*ingest.NCCLLog, src string) *ingest.NCCLLog {
	for _, l := range logs {
		if l.Source() == src {
			return l
		}
	}
	return nil
}

// ibRetryCount returns NCCL_IB_RETRY_CNT as echoed, else NCCL's default 7.
func ibRetryCount(inc *Incident) (int, string) {
	for _, e := range ncclEnv(inc, "NCCL_IB_RETRY_CNT") {
		if n, err := strconv.Atoi(e.Value); err == nil && n >= 0 && n <= 7 {
			return n, " as set in the environment"
		}
	}
	return 7, ", NCCL's default"
}

// seconds formats a duration in seconds with a sensible unit.
func seconds(s float64) string {
	switch {
	case s >= 1:
		return strconv.FormatFloat(s, 'f', 1, 64) + " s"
	case s >= 1e-3:
		return strconv.FormatFloat(s*1e3, 'f', 0, 64) + " ms"
	default:
		return strconv.FormatFloat(s*1e6, 'f', 0, 64) + " us"
	}
}

// checkSetup reports failed queue-pair setup that no link-local GID
// finding already explains (gid.index.link_local cites those lines);
// calls that create or register a resource are nccl.ib.alloc_failed's.
func checkSetup(inc *Incident) []Finding {
	explained := map[Evidence]bool{}
	for _, f := range checkGIDs(inc) {
		if f.ID == "gid.index.link_local" {
			for _, e := range f.Evidence {
				explained[e] = true
			}
		}
	}
	var entries []ingest.GIDEntry
	for _, a := range All[ingest.GIDTabler](inc) {
		entries = append(entries, a.GIDEntries()...)
	}
	return setupFindings(All[*ingest.NCCLLog](inc), entries, explained)
}

// routableGIDs says whether a failed setup's GIDs are routable addresses
// (IPv4-mapped, or global IPv6), from the GIDs the line prints or the
// table row of its GID index, and how it knows.
func routableGIDs(s ingest.SetupError, entries []ingest.GIDEntry) (bool, string) {
	routable := func(g string) bool {
		c, _ := ingest.ClassifyGID(g)
		return c == ingest.GIDIPv4 || c == ingest.GIDIPv6
	}
	if s.LocalGID != "" && routable(s.LocalGID) && (s.RemoteGID == "" || routable(s.RemoteGID)) {
		what := "local GID " + s.LocalGID
		if s.GIDIndex >= 0 {
			what = fmt.Sprintf("local GID index %d = %s", s.GIDIndex, s.LocalGID)
		}
		if s.RemoteGID != "" {
			what += ", remote GID " + s.RemoteGID
		}
		return true, what
	}
	if s.LocalGID != "" || s.GIDIndex < 0 {
		return false, ""
	}
	dev, _, _ := strings.Cut(s.Dev, ":")
	for _, e := range entries {
		if e.Index == s.GIDIndex && e.Version == "v2" && routable(e.GID) && sameHostOrUnknown(s.Host, e.Host) && sameOrUnknown(dev, e.Device) {
			return true, fmt.Sprintf("GID index %d is the RoCE v2 row %s (%s:%d)", s.GIDIndex, e.GID, e.Evidence.File, e.Evidence.Line)
		}
	}
	return false, ""
}

// otherSubnets says when two IPv4 GIDs sit in different /24 subnets.
func otherSubnets(local, remote string) string {
	_, a := ingest.ClassifyGID(local)
	_, b := ingest.ClassifyGID(remote)
	pa, pb := a[:max(0, strings.LastIndexByte(a, '.'))], b[:max(0, strings.LastIndexByte(b, '.'))]
	if pa == "" || pb == "" || pa == pb || strings.ContainsAny(pa+pb, "xX") {
		return ""
	}
	return fmt.Sprintf(" The two ends are in different subnets (%s, %s): only a route through the RDMA netdev, not the host's default route, lets them reach each other.", a, b)
}

// routableTimeoutCauses is what remains when a QP setup times out between
// routable RoCE v2 GIDs.
const routableTimeoutCauses = "With RoCE, moving a QP to RTR resolves the remote GID's IP address to a MAC through the neighbour table of the RDMA netdev; a timeout means that address did not answer from this port. The GIDs are routable addresses, so the GID index is not what failed. What the evidence leaves: " +
	"(1) no route between the two NICs' subnets: each NIC of a multi-rail host usually has its own subnet, reachable only through that NIC (policy routing, or ARP answered on the wrong interface when several NICs share a subnet: arp_ignore=1, arp_announce=2); " +
	"(2) a rail-only fabric, where NIC i of one host reaches only NIC i of the others, while NCCL_CROSS_NIC lets NCCL pair NICs of different rails (in NVIDIA/nccl#2013 the maintainer pointed to this and NCCL_CROSS_NIC=0 fixed it); " +
	"(3) a firewall or ACL on the hosts or switches dropping ARP or RoCE (UDP 4791); " +
	"(4) an MTU the path does not carry (a RoCE MTU of 4096 needs jumbo frames on every hop), which more often shows later as retry-exceeded errors."

// setupCause explains an ibv_modify_qp or GID lookup failure by its error.
func setupCause(s ingest.SetupError, entries []ingest.GIDEntry) string {
	m := strings.ToLower(s.Message)
	switch {
	case s.Call == "ncclIbRoceGetVersionNum":
		return "NCCL could not read the RoCE type of the GID index from sysfs: the index does not exist in this GID table (containers and SR-IOV VFs number their GIDs differently)"
	case s.Errno == 110 || strings.Contains(m, "timed out"):
		if ok, how := routableGIDs(s, entries); ok {
			return "resolving the remote GID timed out with routable GIDs (" + how + ")"
		}
		return "resolving the remote GID timed out: the GID is not reachable from this port (link-local, another subnet without a route, or the wrong GID index)"
	case s.Errno == 19 || strings.Contains(m, "no such device"):
		return "the GID index does not exist on this device (common in containers whose GID table differs from the host's)"
	case s.Errno == 22 || strings.Contains(m, "invalid argument"):
		return "the kernel rejected the QP attributes; NCCL's troubleshooting guide names a wrong GID index for RoCE v2 as the common cause"
	case s.Errno == 61 || strings.Contains(m, "no data available"):
		return "the local GID entry is empty (::): the interface lost its IP address, so the GID table entry vanished"
	case s.Errno == 101 || strings.Contains(m, "unreachable"):
		return "there is no route from this port to the remote GID's subnet"
	}
	return "the verbs call failed while connecting the queue pair"
}

// setupFindings reports failed queue-pair setup, leaving out the lines in
// explained.
func setupFindings(logs []*ingest.NCCLLog, entries []ingest.GIDEntry, explained map[Evidence]bool) []Finding {
	var ev evidence
	var causes, calls []string
	n, routable, timeouts := 0, 0, 0
	subnets, version := "", ""
	for _, l := range logs {
		n += l.SetupCount
		for _, s := range l.Setup {
			if explained[s.Evidence] || s.Allocates() {
				n--
				continue
			}
			ev.add(s.Evidence)
			causes = append(causes, setupCause(s, entries))
			c := s.Call
			if s.Message != "" {
				c += ": " + s.Message
			}
			calls = append(calls, c)
			if s.Errno == 110 || strings.Contains(strings.ToLower(s.Message), "timed out") {
				timeouts++
				if ok, how := routableGIDs(s, entries); ok {
					routable++
					if subnets == "" {
						subnets = otherSubnets(s.LocalGID, s.RemoteGID)
					}
					if version == "" && !strings.Contains(how, "RoCE v2 row") {
						version = " The line does not show the RoCE version of the index: if it is the v1 row of that address (show_gids, VER column), use the v2 row next to it; a v2 row rules the GID out."
					}
				}
			}
		}
	}
	if len(ev.list) == 0 {
		return nil
	}
	f := Finding{
		ID: "nccl.ib.qp_setup_failed", Severity: Error, Layer: LayerRDMA,
		Title:     fmt.Sprintf("Queue pair setup failed (%s; %s)", list(distinct(calls), 2), plural(n, "line", "lines")),
		Evidence:  ev.sorted(),
		Mechanism: "NCCL connects each RoCE queue pair by moving it INIT -> RTR -> RTS with the peer's GID; " + strings.Join(distinct(causes), "; ") + ".",
		Fix:       "Run `show_gids` on both hosts and set NCCL_IB_GID_INDEX to the RoCE v2 index of the address the peers route to (same version and family on every node); check `ip addr` on the RDMA netdev and `ip route` to the peer's subnet; verify with `ib_write_bw -d <hca> -x <gid-index> <peer>`.",
	}
	if routable > 0 && routable == timeouts && timeouts == len(ev.list) {
		f.Title = fmt.Sprintf("Queue pair setup timed out between routable RoCE GIDs (%s): not a GID problem", plural(n, "line", "lines"))
		f.Mechanism += " " + routableTimeoutCauses + subnets + version
		f.Fix = "Keep the GID index. From the failing host: `ip route get <remote IP> from <local GID's IP>` must leave through the RDMA netdev, and `arping -I <rdma netdev> <remote IP>` must answer; `ib_write_bw -d <hca> -x <gid-index> <peer>` between the same NIC pair. " +
			"On a rail-only fabric set NCCL_CROSS_NIC=0 (keep rails aligned). Check host firewalls (iptables/nftables) and switch ACLs for ARP and UDP 4791, and that the netdev MTU (ip link) and the switch MTU carry the RoCE MTU on every hop."
	}
	return []Finding{f}
}
