package doctor

import (
	"fmt"
	"rocelab/internal/ingest"
	"slices"
	"strings"
)

// Link-local GIDs (fe80::): which rows and indices hold them, and how a
// host whose rings connected softens the finding.

// linkLocal reports whether a GID is an IPv6 link-local address.
func linkLocal(gid string) bool {
	return strings.HasPrefix(strings.ToLower(gid), "fe80:")
}

const linkLocalMechanism = "A link-local GID (fe80::, derived from the MAC) is not routable: RoCE v2 packets addressed from it cannot cross a router, so across subnets or an L3 leaf-spine moving the QP to RTR times out in ibv_modify_qp, or the QP fails later with retry-exceeded, while it may work between hosts on one L2 segment (NVIDIA/nccl#769: index 1 = link-local v2 gives 'Connection timed out', index 3 works)."

// linkLocalRows says where the link-local rows are: in the tables given,
// or, without a table, where they usually are.
func linkLocalRows(entries []ingest.GIDEntry, host, dev string) string {
	if idx := linkLocalIndices(entries, host, dev); len(idx) > 0 {
		return " In the table given, the link-local rows are index " + list(idx, 6) + "."
	}
	return " No GID table was given: on a bare-metal host with one address the link-local rows are usually indices 0 and 1 (RoCE v1 and v2), but in containers and SR-IOV pods the table can start elsewhere (link-local at 4 and 5 in NVIDIA/nccl#1573)."
}

// linkLocalIndices lists the link-local rows of the tables of host and dev
// ("" matches any) as "4 (v1)".
func linkLocalIndices(entries []ingest.GIDEntry, host, dev string) []string {
	var idx []string
	for _, e := range entries {
		if c, _ := ingest.ClassifyGID(e.GID); c == ingest.GIDLinkLocal && sameHostOrUnknown(host, e.Host) && sameOrUnknown(dev, e.Device) {
			idx = append(idx, fmt.Sprintf("%d (%s)", e.Index, nameOr(e.Version, "version not shown")))
		}
	}
	return distinct(idx)
}

// tableLinkLocal says where the given tables hold their link-local
// (fe80::) rows, which are not routable; "" when they hold none.
func tableLinkLocal(entries []ingest.GIDEntry) string {
	idx := linkLocalIndices(entries, "", "")
	if len(idx) == 0 {
		return ""
	}
	return " In the tables given, the link-local (fe80::) rows, which are not routable, are index " + list(idx, 6) + "."
}

// joinLinkLocalSeen adds the completion errors and setup failures in which
// NCCL printed a link-local GID: to the link-local finding of the same host
// when the GID rules made one, else as a finding of their own. Errors on an
// InfiniBand port are left out: every IB GID is fe80::/64 and its port's
// GUID unless the subnet manager sets another prefix, and IB routes by LID.
func joinLinkLocalSeen(fs []Finding, hosts []string, logs []*ingest.NCCLLog) []Finding {
	type seen struct {
		host, gid string
		ev        Evidence
		// status is the completion's ibv_wc_status, -1 for a setup failure.
		status int
	}
	var lines []seen
	for _, l := range logs {
		for _, c := range l.Completions {
			if portLinkLayer(c.Host, c.HCA, c.LocalGID, l) == "IB" {
				continue // fe80::/64 is InfiniBand's default subnet prefix
			}
			for _, g := range []string{c.LocalGID, c.RemoteGID} {
				if linkLocal(g) {
					lines = append(lines, seen{c.Host, g, c.Evidence, c.Status})
				}
			}
		}
		for _, s := range l.Setup {
			if portLinkLayer(s.Host, s.Dev, s.LocalGID, l) == "IB" {
				continue
			}
			for _, g := range []string{s.LocalGID, s.RemoteGID} {
				if linkLocal(g) {
					lines = append(lines, seen{s.Host, g, s.Evidence, -1})
				}
			}
		}
	}
	var rest evidence
	var gids []string
	var statuses []int
	for _, sn := range lines {
		joined := false
		for i := range fs {
			if fs[i].ID == "gid.index.link_local" && sameHostOrUnknown(sn.host, hosts[i]) {
				fs[i].Evidence = appendEvidence(fs[i].Evidence, sn.ev)
				joined = true
				break
			}
		}
		if !joined {
			rest.add(sn.ev)
			gids = append(gids, sn.gid)
			statuses = append(statuses, sn.status)
		}
	}
	if len(rest.list) == 0 {
		return fs
	}
	f := Finding{
		ID: "gid.index.link_local", Severity: Error, Layer: LayerRDMA,
		Title:     "Link-local GID used for RoCE: " + list(distinct(gids), 2),
		Evidence:  rest.sorted(),
		Mechanism: linkLocalMechanism + linkLocalRows(nil, "", ""),
		Fix:       gidFixTail,
	}
	if past := pastRTR(statuses); past != "" {
		f.Severity = Warn
		f.Mechanism += " Here the GIDs appear only in completions with " + past + ": each queue pair got past RTR with them and none failed the way an unroutable GID fails: as a RoCE v2 GID, whose fe80:: neighbour the kernel resolves at RTR, with an ibv_modify_qp timeout; as a RoCE v1 GID, whose MAC it takes from the address itself (ib_resolve_unicast_gid_dmac) so RTR always passes, with retry-exceeded, status 12. The failure is another one; the index still breaks once the traffic crosses a router."
	}
	return append(fs, f)
}

// pastRTR names the completion statuses ("status 5 (WR_FLUSH_ERR)") when
// every one proves its queue pair got past RTR and none is retry exceeded
// (12), the one an unreachable peer gives past RTR: "" when one is a setup
// failure (-1) or a retry exceeded.
func pastRTR(statuses []int) string {
	var names []string
	for _, s := range statuses {
		if s < 0 || s == wcRetryExcErr {
			return ""
		}
		names = append(names, fmt.Sprintf("status %d (%s)", s, wcName(s)))
	}
	return list(distinct(names), 3)
}

// softenLinkLocalConnected lowers a link-local finding to a warning when
// the same host's NCCL log shows its rings connected and no queue pair
// failing: the peers share one L2 segment, where a link-local GID works;
// it still breaks once the traffic is routed.
func softenLinkLocalConnected(fs []Finding, hosts []string, logs []*ingest.NCCLLog) {
	// Findings past hosts are joinLinkLocalSeen's own: errors NCCL printed.
	for i := range hosts {
		if fs[i].ID != "gid.index.link_local" || fs[i].Severity != Error || !ingest.RealHost(hosts[i]) {
			continue
		}
		var ring Evidence
		for _, l := range logs {
			for _, r := range l.Rings {
				if ingest.SameHostName(r.Host, hosts[i]) && ring.Line == 0 {
					ring = r.Evidence
				}
			}
		}
		if ring.Line == 0 || ncclQPFailed(logs, hosts[i]) {
			continue
		}
		fs[i].Severity = Warn
		fs[i].Evidence = appendEvidence(fs[i].Evidence, ring)
		fs[i].Mechanism += " Here " + hosts[i] + "'s rings connected and no queue pair failed (\"Connected all rings\", no completion or setup error): its peers share one L2 segment, where a link-local GID works; it fails once the traffic crosses a router."
	}
}

// linkLocalGIDs lists the link-local GIDs among entries.
func linkLocalGIDs(entries []ingest.GIDEntry) []string {
	var gids []string
	for _, e := range entries {
		if linkLocal(e.GID) {
			gids = append(gids, strings.ToLower(e.GID))
		}
	}
	return gids
}

// softenLinkLocalMeasured lowers a link-local finding to a warning when a
// perftest run over the finding's own link-local GID (gids[i]: fe80::
// carries the port's MAC, so it names the port even when one side names
// no host) went to a different link-local peer to the end: result rows
// and no failure. Without a known GID the run must name the same host.
// The two hosts share one L2 segment, where a link-local GID works; it
// still breaks once the traffic is routed. Other evidence of failure on
// that host keeps the error: an NCCL queue pair that failed, or another
// perftest run over a link-local GID that failed.
func softenLinkLocalMeasured(fs []Finding, hosts, devs []string, gids [][]string, logs []*ingest.NCCLLog, runs []*ingest.Perftest) {
	for i := range hosts {
		if fs[i].ID != "gid.index.link_local" || fs[i].Severity != Error || !ingest.RealHost(hosts[i]) ||
			ncclQPFailed(logs, hosts[i]) {
			continue
		}
		var good *ingest.PerftestRun
	runs:
		for _, pf := range runs {
			for j := range pf.Runs {
				r := &pf.Runs[j]
				host := nameOr(r.Host, scopeHostName(pf))
				if !r.RoCE() || r.Local == nil || !linkLocal(r.Local.GID) || !sameHostOrUnknown(hosts[i], host) || !sameOrUnknown(devs[i], r.Device) {
					continue
				}
				if len(gids[i]) > 0 && !slices.Contains(gids[i], strings.ToLower(r.Local.GID)) ||
					len(gids[i]) == 0 && !ingest.SameHostName(hosts[i], host) {
					continue // another port's run, or a run of no known host
				}
				if len(r.Failures) > 0 {
					good = nil
					break runs
				}
				if good == nil && len(r.Rows) > 0 && r.Remote != nil && linkLocal(r.Remote.GID) && r.Remote.GID != r.Local.GID {
					good = r
				}
			}
		}
		if good == nil {
			continue
		}
		rows := "1 result row"
		if len(good.Rows) != 1 {
			rows = fmt.Sprintf("%d result rows", len(good.Rows))
		}
		fs[i].Severity = Warn
		fs[i].Evidence = appendEvidence(fs[i].Evidence, good.Rows[len(good.Rows)-1].Evidence)
		fs[i].Mechanism += " Here " + good.Name() + " ran to the end over it to a link-local peer (" + rows + ", no failure): the two hosts share one L2 segment, where a link-local GID works; it fails once the traffic crosses a router."
	}
}

// ncclQPFailed reports an NCCL completion or queue-pair setup error of
// host (or of an unnamed host).
func ncclQPFailed(logs []*ingest.NCCLLog, host string) bool {
	for _, l := range logs {
		for _, c := range l.Completions {
			if sameHostOrUnknown(c.Host, host) {
				return true
			}
		}
		for _, s := range l.Setup {
			if sameHostOrUnknown(s.Host, host) {
				return true
			}
		}
	}
	return false
}
