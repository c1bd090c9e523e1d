package doctor

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"rocelab/internal/ingest"
)

// gidRules lists the GID rules. They join GID users (NCCL_IB_GID_INDEX in
// NCCL logs, perftest's GID index) with GID tables (show_gids, ibv_devinfo
// -v, perftest's own GID line) across every artifact of the incident, and
// read the GIDs NCCL prints in completion errors and setup failures. They
// own every GID finding: one fact, one finding.
func gidRules() []Rule {
	return []Rule{
		{IDs: []string{"gid.index.link_local", "gid.index.roce_v1", "gid.index.zero", "gid.index.empty", "gid.index.default_zero", "gid.index.mismatch", "gid.index.roce_v2", "gid.index.ipv4"}, Check: checkGIDs},
		{IDs: []string{"gid.table.empty"}, Check: checkEmptyTables},
		{IDs: []string{"gid.vlan.mixed"}, Check: checkGIDVLANs},
	}
}

const gidFixTail = "List the table with show_gids (or ibv_devinfo -v) and use the RoCEv2 row with an IPv4 address (index 3 on a bare-metal host with one address): NCCL_IB_GID_INDEX=<that index>, ib_write_bw -x <that index>; with NCCL ≥ 2.21 you can leave NCCL_IB_GID_INDEX unset and NCCL picks a RoCEv2 GID itself (NCCL_IB_ROCE_VERSION_NUM=2, NCCL_IB_ADDR_FAMILY=AF_INET)."

func sameOrUnknown(a, b string) bool { return a == "" || b == "" || a == b }

// sameHostOrUnknown is sameOrUnknown for host names (ingest.SameHostName).
func sameHostOrUnknown(a, b string) bool { return a == "" || b == "" || ingest.SameHostName(a, b) }

// gidCandidates returns the table rows a use's index refers to.
func gidCandidates(u ingest.GIDUse, entries []ingest.GIDEntry) []ingest.GIDEntry {
	var out, own []ingest.GIDEntry
	for _, e := range entries {
		if e.Index == u.Index && sameOrUnknown(u.Device, e.Device) && sameHostOrUnknown(u.Host, e.Host) {
			out = append(out, e)
			if u.Evidence.File != "" && e.Evidence.File == u.Evidence.File {
				own = append(own, e)
			}
		}
	}
	// The user's own input saying what the index holds (perftest prints
	// the GID it used) outranks another input's table of a host it may
	// not be.
	if len(own) > 0 {
		return own
	}
	return out
}

func gidEvidence(u *ingest.GIDUse, es []ingest.GIDEntry, more ...Evidence) []Evidence {
	ev := more
	if u != nil && u.Evidence.File != "" {
		ev = append(ev, u.Evidence)
	}
	for _, e := range es {
		ev = append(ev, e.Evidence)
	}
	return evidenceInOrder(ev)
}

func gidWhere(host, dev string) string {
	s := nameOr(dev, unnamedDevice)
	if host != "" {
		s = host + " " + s
	}
	return s
}

func checkGIDs(inc *Incident) []Finding {
	var uses []ingest.GIDUse
	var entries []ingest.GIDEntry
	for _, a := range All[ingest.GIDUser](inc) {
		h := scopeHostName(a)
		for _, u := range a.GIDUses() {
			if u.Host == "" {
				u.Host = h // mlx5_0 of this input's host, not of every host
			}
			uses = append(uses, u)
		}
	}
	for _, a := range All[ingest.GIDTabler](inc) {
		h := scopeHostName(a)
		for _, e := range a.GIDEntries() {
			if e.Host == "" {
				e.Host = h
			}
			entries = append(entries, e)
		}
	}
	uses = append(uses, impliedUses(inc, entries)...)
	logs := All[*ingest.NCCLLog](inc)
	timeouts := setupTimeouts(logs)
	var fs []Finding
	var hosts, devs []string // the host and device of each finding's GID user
	var lls [][]string       // the link-local GIDs its index holds
	for i := range uses {
		for _, f := range checkGIDUse(&uses[i], entries, timeouts) {
			fs, hosts, devs = append(fs, f), append(hosts, uses[i].Host), append(devs, uses[i].Device)
			lls = append(lls, linkLocalGIDs(gidCandidates(uses[i], entries)))
		}
	}
	fs = joinLinkLocalSeen(fs, hosts, logs)
	softenLinkLocalConnected(fs, hosts, logs)
	softenLinkLocalMeasured(fs, hosts, devs, lls, logs, All[*ingest.Perftest](inc))
	fs = append(fs, perftestZeroGIDs(inc)...)
	fs = append(fs, checkGIDMismatch(uses, entries)...)
	if len(uses) == 0 {
		fs = append(fs, recommendGID(entries)...)
	}
	return fs
}

// setupTimeouts returns NCCL's queue-pair setup failures that timed out,
// the symptom of an unroutable (link-local) GID.
func setupTimeouts(logs []*ingest.NCCLLog) []ingest.SetupError {
	var out []ingest.SetupError
	for _, l := range logs {
		for _, s := range l.Setup {
			if s.Errno == 110 || strings.Contains(s.Message, "timed out") {
				out = append(out, s)
			}
		}
	}
	return out
}

// setupEvidence returns the lines of setup failures.
func setupEvidence(ss []ingest.SetupError) []Evidence {
	var ev []Evidence
	for _, s := range ss {
		ev = append(ev, s.Evidence)
	}
	return ev
}

// checkGIDUse classifies the entry one use points at. Without a table, an
// index of 0 or 1 followed by setup timeouts is taken as link-local.
func checkGIDUse(u *ingest.GIDUse, entries []ingest.GIDEntry, timeouts []ingest.SetupError) []Finding {
	cands := gidCandidates(*u, entries)
	var link, v1, good, ipv4 []ingest.GIDEntry
	for _, e := range cands {
		c, _ := ingest.ClassifyGID(e.GID)
		switch {
		case c == ingest.GIDLinkLocal:
			link = append(link, e)
		case e.Version == "v1":
			v1 = append(v1, e)
		case e.Version == "v2" && (c == ingest.GIDIPv4 || c == ingest.GIDIPv6):
			good = append(good, e)
		case c == ingest.GIDIPv4:
			ipv4 = append(ipv4, e)
		}
	}
	var empty, tableOf []ingest.GIDEntry
	for _, e := range cands {
		if c, _ := ingest.ClassifyGID(e.GID); c == ingest.GIDZero {
			empty = append(empty, e)
		}
	}
	if len(cands) == 0 && u.Device != "" {
		for _, e := range entries {
			if e.Device == u.Device && sameHostOrUnknown(u.Host, e.Host) && e.Version != "" {
				tableOf = append(tableOf, e)
			}
		}
	}
	at := gidWhere(u.Host, u.Device)
	var timedOut []ingest.SetupError
	for _, t := range timeouts {
		if sameHostOrUnknown(t.Host, u.Host) {
			timedOut = append(timedOut, t)
		}
	}
	switch {
	case len(link) > 0:
		ver := link[0].Version
		if ver == "" {
			ver = "RoCE version not shown"
		}
		return []Finding{perUse(Finding{
			ID: "gid.index.link_local", Severity: Error, Layer: LayerRDMA,
			Title:     fmt.Sprintf("%s: GID index %d is the link-local GID %s (%s)%s", at, u.Index, link[0].GID, ver, setBy(u)),
			Evidence:  gidEvidence(u, link, setupEvidence(timedOut)...),
			Mechanism: linkLocalMechanism + linkLocalRows(entries, u.Host, u.Device),
			Fix:       gidFixTail,
		}, u, "GID index is link-local")}
	case len(v1) > 0:
		return []Finding{perUse(Finding{
			ID: "gid.index.roce_v1", Severity: Error, Layer: LayerRDMA,
			Title:    fmt.Sprintf("%s: GID index %d is a RoCE v1 entry (%s)%s", at, u.Index, v1[0].GID, setBy(u)),
			Evidence: gidEvidence(u, v1),
			Mechanism: "RoCE v1 carries RDMA directly in Ethernet (EtherType 0x8915) with no IP/UDP header: it is not routable, has no DSCP for the NIC and switches to classify on and no ECN field, so DCQCN cannot work and PFC depends on the VLAN PCP. " +
				"Each IP address has a v1 and a v2 row in the GID table; the v2 row is the one to use.",
			Fix: gidFixTail,
		}, u, "GID index is a RoCE v1 entry")}
	case len(empty) > 0:
		return []Finding{perUse(Finding{
			ID: "gid.index.zero", Severity: Error, Layer: LayerRDMA,
			Title:     fmt.Sprintf("%s: GID index %d holds the all-zero GID (an empty slot)%s", at, u.Index, setBy(u)),
			Evidence:  gidEvidence(u, empty),
			Mechanism: zeroGIDMechanism,
			Fix:       gidFixTail,
		}, u, "GID index holds the all-zero GID")}
	case len(cands) == 0 && len(tableOf) > 0:
		var rows []string
		for _, e := range tableOf {
			rows = append(rows, strconv.Itoa(e.Index))
		}
		return []Finding{perUse(Finding{
			ID: "gid.index.empty", Severity: Error, Layer: LayerRDMA,
			Title:    fmt.Sprintf("%s: GID index %d is not in the GID table of %s (rows %s)%s", at, u.Index, tableOf0(tableOf, u), list(distinct(rows), 12), setBy(u)),
			Evidence: gidEvidence(u, tableOf[:min(2, len(tableOf))]),
			Mechanism: "A queue pair addressed from a GID slot with no address cannot connect: ibv_modify_qp fails (No such device, No data available) or NCCL cannot read the slot's RoCE type (ncclIbRoceGetVersionNum: Invalid argument). " +
				"In Kubernetes and SR-IOV pods the table is sparse and differs per pod, so an index copied from another host often points at nothing (NVIDIA/nccl#718, #1573).",
			Fix: gidFixTail,
		}, u, "GID index points at no address")}
	case len(cands) == 0 && u.Index <= 1 && len(timedOut) > 0:
		return []Finding{perUse(Finding{
			ID: "gid.index.link_local", Severity: Error, Layer: LayerRDMA,
			Title:     fmt.Sprintf("%s: GID index %d in use and queue pair setup timed out: in a bare-metal GID table indices 0 and 1 are the link-local entries (no table was given)", at, u.Index),
			Evidence:  gidEvidence(u, nil, setupEvidence(timedOut)...),
			Mechanism: linkLocalMechanism + linkLocalRows(nil, "", "") + " The timeouts fit a link-local entry.",
			Fix:       gidFixTail,
		}, u, "GID index is link-local")}
	case len(cands) == 0 && u.Index == 0:
		return []Finding{perUse(Finding{
			ID: "gid.index.default_zero", Severity: Warn, Layer: LayerRDMA,
			Title:    fmt.Sprintf("%s: GID index 0 in use on RoCE%s", at, setBy(u)),
			Evidence: gidEvidence(u, nil),
			Mechanism: "On a bare-metal host GID index 0 is the link-local (fe80::) RoCE v1 entry: not routable, no DSCP/ECN. It works only between hosts on one L2 segment. " +
				"NCCL before 2.21 defaulted NCCL_IB_GID_INDEX to 0; no GID table was given here to confirm what index 0 holds.",
			Fix: gidFixTail,
		}, u, "GID index 0 in use on RoCE")}
	case len(good) > 0:
		return []Finding{roceV2InUse(u, at, good[0], good, "%s: GID index %d in use is the RoCEv2 GID %s%s",
			"A RoCEv2 GID with an IP address is routable and carries DSCP and ECN, which PFC classification and DCQCN need.")}
	case len(ipv4) > 0:
		f := roceV2InUse(u, at, ipv4[0], ipv4, "%s: GID index %d in use is the IPv4 GID %s%s; the RoCE version is not shown",
			"The GID is IPv4-mapped, so it is routable if it is the RoCE v2 row; the output does not say which version the row is (perftest's banner and older ibv_devinfo omit it). Each address has a v1 and a v2 row: show_gids prints the VER column.")
		f.ID = "gid.index.ipv4"
		f.Fix = "Check with show_gids that this index is the v2 row of the address (the v1 row sits next to it)."
		f.group = "GID index in use is IPv4, version not shown"
		return []Finding{f}
	}
	return nil
}

const zeroGIDMechanism = "The all-zero GID (::) marks an unused slot of the GID table: no IP address (and so no RoCE GID) sits at that index on this port, typically because the index was copied from another host, the interface lost its address, or a container's table is sparse. " +
	"A queue pair cannot be addressed from or to it: moving the QP to RTR fails (perftest: \"Failed to modify QP to RTR\", \"Unable to Connect the HCA's through the link\"; NCCL: ibv_modify_qp No data available or Invalid argument)."

// perftestZeroGIDs reports perftest runs whose local or remote end
// exchanged the all-zero GID, and names it as the cause of the run's
// failure to connect.
func perftestZeroGIDs(inc *Incident) []Finding {
	return perRun(inc, func(_ *ingest.Perftest, r *ingest.PerftestRun) []Finding {
		var fs []Finding
		for _, end := range []struct {
			name string
			a    *ingest.PerftestAddress
		}{{"local", r.Local}, {"remote", r.Remote}} {
			if end.a == nil || end.a.GID == "" {
				continue
			}
			if c, _ := ingest.ClassifyGID(end.a.GID); c != ingest.GIDZero {
				continue
			}
			ev := []Evidence{end.a.Evidence, end.a.GIDEvidence, r.Fields["GID index"]}
			idx := "the GID index it was given"
			if r.GIDIndex >= 0 {
				idx = fmt.Sprintf("GID index %d", r.GIDIndex)
			}
			who := "this host"
			if end.name == "remote" {
				who = "the peer"
				if r.Peer != "" {
					who = "the peer " + r.Peer
				}
				idx = "the index it was given (-x on the server)"
			}
			failed := ""
			for _, f := range r.Failures {
				if f.Kind == ingest.FailModifyQP || f.Kind == ingest.FailConnect {
					ev = append(ev, f.Evidence)
					failed = "; this is why the QP could not be moved to RTR"
				}
			}
			fs = append(fs, perPerftest(Finding{
				ID: "gid.index.zero", Severity: Error, Layer: LayerRDMA,
				Title:     fmt.Sprintf("%s: the %s end's GID is all zeros: %s holds no address at %s%s", r.Name(), end.name, who, idx, failed),
				Evidence:  evidenceInOrder(ev),
				Mechanism: zeroGIDMechanism,
				Fix:       "On " + who + ": " + emptyTableFix(r.GIDIndex) + "`show_gids` (or ibv_devinfo -v) and pick the RoCE v2 row with the IPv4 address; start perftest with that -x on both ends (the indices may differ per host). " + gidFixTail,
			}, r, "perftest end with the all-zero GID"))
		}
		return fs
	})
}

// emptyTableFix is the first step of the fix when GID index 0 is all
// zeros: index 0 holds the port's link-local GID whenever its netdev is
// in the namespace, so an empty row 0 means the whole table is empty.
func emptyTableFix(index int) string {
	if index != 0 {
		return ""
	}
	return "index 0 always holds the link-local GID of a netdev present in the namespace, so the whole GID table is empty here: the RoCE netdev is missing from this network namespace or has no address (in a Kubernetes pod, attach the RDMA NIC's secondary network, macvlan or SR-IOV through Multus, with an IP; on a host, bring the netdev up with an IPv4 address), then "
}

// setBy says how a GID index was set when it was not NCCL's own echo or
// a tool's banner, e.g. " (set by export at t.txt:11)".
func setBy(u *ingest.GIDUse) string {
	switch u.SetBy {
	case "", ingest.SetByEcho:
		return ""
	case ingest.SetByDefault, ingest.SetByAuto:
		how := " (NCCL's default: NCCL_IB_GID_INDEX is not set"
		if u.SetBy == ingest.SetByAuto {
			how = " (NCCL's own choice: NCCL_IB_GID_INDEX is not set"
		}
		if r, _, ok := strings.Cut(u.Dated, ":"); ok {
			how += "; NCCL " + r + " inferred from the log's line shapes, no version printed"
		}
		return how + ")"
	}
	return fmt.Sprintf(" (set by %s at %s:%d)", u.SetBy, u.Evidence.File, u.Evidence.Line)
}

// tableOf0 names the table rows belong to.
func tableOf0(es []ingest.GIDEntry, u *ingest.GIDUse) string {
	if len(es) == 0 {
		return gidWhere(u.Host, u.Device)
	}
	return es[0].Where()
}

// roceV2InUse reports the routable GID a use points at; title takes the
// place, index, GID and IPv4 suffix.
func roceV2InUse(u *ingest.GIDUse, at string, e ingest.GIDEntry, es []ingest.GIDEntry, title, mech string) Finding {
	return perUse(Finding{
		ID: "gid.index.roce_v2", Severity: Info, Layer: LayerRDMA,
		Title:     fmt.Sprintf(title, at, u.Index, e.GID, ipv4Suffix(e.IPv4)) + setBy(u),
		Evidence:  gidEvidence(u, es),
		Mechanism: mech,
	}, u, "GID index in use is routable")
}

// perUse marks f as one of a set of findings, one per GID user.
func perUse(f Finding, u *ingest.GIDUse, group string) Finding {
	if u.Note != "" {
		f.Mechanism += " The index in use: " + u.Note + "."
	}
	if u.Dated != "" {
		f.Mechanism += " The version is inferred, not printed: NCCL " + u.Dated + "."
	}
	return f.per(gidWhere(u.Host, u.Device), "GID user", group)
}

func ipv4Suffix(v4 string) string {
	if v4 == "" {
		return ""
	}
	return " (" + v4 + ")"
}

// checkGIDMismatch reports different GID indices in use, and tables whose
// RoCEv2 IPv4 row sits at different indices, so no single index fits all.
func checkGIDMismatch(uses []ingest.GIDUse, entries []ingest.GIDEntry) []Finding {
	var fs []Finding
	// The first index each user (host or input, and device) used: one host
	// retrying with another index is not a mismatch.
	byUser := map[string]ingest.GIDUse{}
	var users []string
	for _, u := range uses {
		k := u.Host
		if k == "" {
			k = u.Evidence.File
		}
		k += "\x00" + u.Device
		if _, ok := byUser[k]; !ok {
			byUser[k] = u
			users = append(users, k)
		}
	}
	byIndex := map[int]ingest.GIDUse{}
	for _, k := range users {
		if u := byUser[k]; byIndex[u.Index].Evidence.File == "" {
			byIndex[u.Index] = u
		}
	}
	if len(byIndex) > 1 {
		var idx []int
		for i := range byIndex {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		var ev []Evidence
		var parts []string
		for _, i := range idx {
			u := byIndex[i]
			ev = append(ev, u.Evidence)
			parts = append(parts, fmt.Sprintf("%d on %s", i, gidWhere(u.Host, u.Device)))
		}
		fs = append(fs, Finding{
			ID: "gid.index.mismatch", Severity: Warn, Layer: LayerRDMA,
			Title:    "different GID indices in use: " + strings.Join(parts, ", "),
			Evidence: evidenceInOrder(ev),
			Mechanism: "Both ends of a QP must use GIDs of the same RoCE version and address family; when hosts or pods use different indices, some pairs mix v1 and v2 or IPv4 and link-local entries and fail to connect or time out. " +
				"In containers (SR-IOV, macvlan) the table can differ per pod, so the right index may legitimately differ; then set it per pod, or let NCCL ≥ 2.21 pick it.",
			Fix: gidFixTail,
		})
	}
	v2 := roceV2Indices(entries)
	if len(v2) > 1 {
		seen := map[int]bool{}
		for _, g := range v2 {
			seen[g.idx] = true
		}
		if len(seen) > 1 {
			var ev []Evidence
			var parts []string
			for _, g := range v2 {
				ev = append(ev, g.ev)
				parts = append(parts, fmt.Sprintf("%d on %s", g.idx, g.where))
			}
			var per []string
			for _, g := range v2 {
				per = append(per, fmt.Sprintf("NCCL_IB_GID_INDEX=%d on %s", g.idx, g.where))
			}
			mech := "NCCL_IB_GID_INDEX is one number for every HCA of a process and is usually set once for the whole job; where the routable RoCEv2 row (IPv4, or IPv6 in a table without IPv4) sits at different indices (each pod or SR-IOV VF numbers its own table), any single value points some hosts at a v1, link-local or empty entry."
			if len(uses) > 0 {
				var set []string
				for _, u := range uses {
					set = append(set, fmt.Sprintf("%d (%s:%d)", u.Index, u.Evidence.File, u.Evidence.Line))
				}
				mech += " Values set in this incident: " + list(distinct(set), 6) + "; each host must get the value of its own table."
			}
			fs = append(fs, Finding{
				ID: "gid.index.mismatch", Severity: Warn, Layer: LayerRDMA,
				Title:     "the routable RoCEv2 GID is at different indices: " + strings.Join(parts, ", "),
				Evidence:  evidenceInOrder(ev),
				Mechanism: mech,
				Fix:       "Per host: " + strings.Join(per, "; ") + ". Or leave NCCL_IB_GID_INDEX unset with NCCL ≥ 2.21 (it picks the RoCEv2 IPv4 GID per port: NCCL_IB_ROCE_VERSION_NUM=2, NCCL_IB_ADDR_FAMILY=AF_INET), or write it per pod into /etc/nccl.conf from show_gids at start-up.",
			})
		}
	}
	return fs
}

// recommendGID names the index to use when only GID tables are given.
func recommendGID(entries []ingest.GIDEntry) []Finding {
	v2 := roceV2Indices(entries)
	if len(v2) == 0 {
		return nil
	}
	idx := map[int]bool{}
	var ev []Evidence
	var parts []string
	for _, g := range v2 {
		idx[g.idx] = true
		ev = append(ev, g.ev)
		parts = append(parts, fmt.Sprintf("%s %s", g.where, g.gid))
	}
	if len(idx) > 1 {
		return nil // reported as gid.index.mismatch
	}
	i := v2[0].idx
	family := "IPv4"
	if v2[0].ipv6 {
		family = "IPv6"
	}
	title := fmt.Sprintf("RoCEv2 %s GID is index %d (%s): NCCL_IB_GID_INDEX=%d", family, i, strings.Join(parts, ", "), i)
	noIP, v1Only, gapEv := portsWithoutV2(entries, v2)
	ev = append(ev, gapEv...)
	mech := "Each IP address on the RoCE netdev adds a RoCE v1 and a v2 row to the GID table; the v2 row with a routable address (IPv4, or a global or unique-local IPv6 one) carries DSCP/ECN and crosses routers." + tableLinkLocal(entries)
	for _, g := range v2 {
		if g.note != "" {
			mech += " On " + g.where + " the address sits on several netdevs: index " + strconv.Itoa(g.idx) + " is " + g.note + "."
			break
		}
	}
	fix := fmt.Sprintf("NCCL_IB_GID_INDEX=%d (or leave it unset on NCCL ≥ 2.21); ib_write_bw -x %d.", i, i)
	if v2[0].ipv6 {
		mech += " The table has no IPv4 GID: NCCL 2.21 and later choose the GID by NCCL_IB_ADDR_FAMILY, AF_INET by default, and with no IPv4 row they keep index 0, the link-local GID (the failure uccl-project/uccl#803 describes on Broadcom NICs with ULA addresses)."
		fix = fmt.Sprintf("NCCL_IB_GID_INDEX=%d, or NCCL_IB_ADDR_FAMILY=AF_INET6 on NCCL ≥ 2.21 so that it chooses this row itself; ib_write_bw -x %d.", i, i)
	}
	if len(noIP) > 0 {
		title += "; no routable GID on " + strings.Join(noIP, ", ")
		mech += " A port without a routable row has no address on its netdev: RoCEv2 cannot use it; give it an address or leave it out with NCCL_IB_HCA."
	}
	if len(v1Only) > 0 {
		title += "; no RoCE v2 row on " + strings.Join(v1Only, ", ") + " beside its routable v1 row"
		mech += " A routable address whose v1 row has no v2 row after it is a table cut short (a paste that ends there) or a port limited to RoCE v1 (`cma_roce_mode -d <dev> -p 1` prints the mode); the address itself is there."
	}
	return []Finding{{
		ID: "gid.index.roce_v2", Severity: Info, Layer: LayerRDMA,
		Title: title, Evidence: evidenceInOrder(ev), Mechanism: mech,
		Fix: fix,
	}}
}

// checkEmptyTables reports GID tables with no entry at all
// (n_gids_found=0): no RDMA port of the host has an address, so RoCE
// cannot address a queue pair from it.
func checkEmptyTables(inc *Incident) []Finding {
	var fs []Finding
	for _, g := range All[*ingest.ShowGIDs](inc) {
		if g.Found != 0 || len(g.Entries) > 0 {
			continue
		}
		sev, also := Warn, ""
		if ev, ok := roceInReach(inc, g.Scope()); ok {
			sev, also = Error, fmt.Sprintf(" while RoCE is in use (%s:%d)", ev.File, ev.Line)
		}
		fs = append(fs, Finding{
			ID: "gid.table.empty", Severity: sev, Layer: LayerRDMA,
			Title:    fmt.Sprintf("%s: the GID table is empty (n_gids_found=0)%s", g.Source(), also),
			Evidence: []Evidence{g.FoundEvidence},
			Mechanism: "A RoCE GID is an IP address of the port's netdev (plus the link-local one derived from its MAC). With no entry at all, no netdev of any RDMA port is visible here: in a container the pod's network namespace holds no RDMA netdev (a veth from the default CNI instead of a macvlan/SR-IOV interface of the HCA), or the netdev is down or has no address. " +
				"NCCL then finds no usable GID (ncclIbRoceGetVersionNum fails, ibv_modify_qp returns No data available) or falls back to TCP sockets.",
			Fix: "Give the pod an RDMA netdev (Multus with a macvlan or SR-IOV network on the HCA's netdev, the RDMA shared or SR-IOV device plugin) with an IP address, or on bare metal bring the port's netdev up with an address (`ip addr add`), then check `show_gids` again.",
		}.per(g.Source(), "table", "Empty GID tables"))
	}
	return fs
}

// roceInReach returns a line of an input that may belong to scope at
// which shows RoCE in use: NCCL's IB transport over RoCE, or a perftest
// run over Ethernet.
func roceInReach(inc *Incident, at ingest.Scope) (Evidence, bool) {
	for _, l := range All[*ingest.NCCLLog](inc) {
		if reachOf(at, l.Scope()) == otherHost || !l.RoCE() {
			continue
		}
		for _, d := range l.IBDevices {
			if d.LinkLayer == "RoCE" {
				return d.Evidence, true
			}
		}
	}
	for _, p := range All[*ingest.Perftest](inc) {
		if reachOf(at, p.Scope()) == otherHost {
			continue
		}
		for _, r := range p.Runs {
			if r.RoCE() {
				return r.Fields["Link type"], true
			}
		}
	}
	return Evidence{}, false
}

// impliedUses returns the GID index NCCL uses on hosts whose logs connect
// RoCE queue pairs without stating one (NCCLLog.GIDDefaults), unless a
// setting that may apply to the log (its own file or host, or an input of
// no stated host) gives NCCL_IB_GID_INDEX. NCCL's own choice (2.21+) is
// worked out from the host's GID table, and left out without one.
func impliedUses(inc *Incident, entries []ingest.GIDEntry) []ingest.GIDUse {
	var out []ingest.GIDUse
	for _, l := range All[*ingest.NCCLLog](inc) {
		set := false
		for _, s := range All[*ingest.NCCLSettings](inc) {
			set = set || len(s.Values("NCCL_IB_GID_INDEX")) > 0 && reachOf(l.Scope(), s.Scope()) != otherHost
		}
		if set {
			continue
		}
		for _, u := range l.GIDDefaults() {
			if u.Index >= 0 {
				out = append(out, u)
				continue
			}
			owners := map[string][]ingest.GIDEntry{}
			var order []string
			for _, e := range entries {
				if e.Device == u.Device && sameHostOrUnknown(u.Host, e.Host) {
					if _, ok := owners[e.Owner()]; !ok {
						order = append(order, e.Owner())
					}
					owners[e.Owner()] = append(owners[e.Owner()], e)
				}
			}
			if len(order) != 1 {
				continue
			}
			idx, why, ok := ncclAutoGID(owners[order[0]])
			if !ok {
				continue
			}
			u.Index = idx
			u.Note += "; for this table: " + why
			out = append(out, u)
		}
	}
	return out
}

// scopeHostName is the name of the host an artifact's input states, ""
// when it states none.
func scopeHostName(a any) string {
	if art, ok := a.(ingest.Artifact); ok {
		return art.Scope().Host.Name
	}
	return ""
}
