package doctor

import (
	"fmt"
	"sort"
	"strings"

	"rocelab/internal/ingest"
)

// gidRules lists the GID rules. They join GID users (NCCL_IB_GID_INDEX in
// NCCL logs, perftest's GID index) with GID tables (show_gids, ibv_devinfo
// -v, perftest's own GID line) across every artifact of the incident.
func gidRules() []Rule {
	return []Rule{
		{IDs: []string{"gid.index.link_local", "gid.index.roce_v1", "gid.index.zero", "gid.index.mismatch", "gid.index.roce_v2"}, Check: checkGIDs},
	}
}

const gidFixTail = "List the table with show_gids (or ibv_devinfo -v) and use the RoCEv2 row with an IPv4 address (index 3 on a bare-metal host with one address): NCCL_IB_GID_INDEX=<that index>, ib_write_bw -x <that index>; with NCCL ≥ 2.21 you can leave NCCL_IB_GID_INDEX unset and NCCL picks a RoCEv2 GID itself (NCCL_IB_ROCE_VERSION_NUM=2, NCCL_IB_ADDR_FAMILY=AF_INET)."

func sameOrUnknown(a, b string) bool { return a == "" || b == "" || a == b }

// gidCandidates returns the table rows a use's index refers to.
func gidCandidates(u ingest.GIDUse, entries []ingest.GIDEntry) []ingest.GIDEntry {
	var out []ingest.GIDEntry
	for _, e := range entries {
		if e.Index == u.Index && sameOrUnknown(u.Device, e.Device) && sameOrUnknown(u.Host, e.Host) {
			out = append(out, e)
		}
	}
	return out
}

func gidEvidence(u *ingest.GIDUse, es []ingest.GIDEntry) []Evidence {
	var ev []Evidence
	if u != nil && u.Evidence.File != "" {
		ev = append(ev, u.Evidence)
	}
	for _, e := range es {
		ev = append(ev, e.Evidence)
	}
	return evidenceInOrder(ev)
}

func gidWhere(host, dev string) string {
	s := dev
	if s == "" {
		s = "(device not named)"
	}
	if host != "" {
		s = host + " " + s
	}
	return s
}

func checkGIDs(inc *Incident) []Finding {
	var uses []ingest.GIDUse
	var entries []ingest.GIDEntry
	for _, a := range inc.Artifacts {
		if u, ok := a.(ingest.GIDUser); ok {
			uses = append(uses, u.GIDUses()...)
		}
		if t, ok := a.(ingest.GIDTabler); ok {
			entries = append(entries, t.GIDEntries()...)
		}
	}
	var fs []Finding
	for i := range uses {
		fs = append(fs, checkGIDUse(&uses[i], entries)...)
	}
	fs = append(fs, checkGIDMismatch(uses, entries)...)
	if len(uses) == 0 {
		fs = append(fs, recommendGID(entries)...)
	}
	return fs
}

// checkGIDUse classifies the entry one use points at.
func checkGIDUse(u *ingest.GIDUse, entries []ingest.GIDEntry) []Finding {
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
	at := gidWhere(u.Host, u.Device)
	switch {
	case len(link) > 0:
		ver := link[0].Version
		if ver == "" {
			ver = "RoCE version not shown"
		}
		return []Finding{{
			ID: "gid.index.link_local", Severity: Error, Layer: LayerRDMA,
			Title:    fmt.Sprintf("%s: GID index %d is the link-local GID %s (%s)", at, u.Index, link[0].GID, ver),
			Evidence: gidEvidence(u, link),
			Mechanism: "A link-local GID (fe80::, derived from the MAC) is not routable: packets addressed from it cannot cross a router, so across subnets or an L3 leaf-spine the QP times out in ibv_modify_qp or later with retry-exceeded, while it may work between hosts on one L2 segment. " +
				"Index 0 and 1 hold the link-local GID on a bare-metal host (RoCE v1 and v2).",
			Fix: gidFixTail,
		}}
	case len(v1) > 0:
		return []Finding{{
			ID: "gid.index.roce_v1", Severity: Warn, Layer: LayerRDMA,
			Title:    fmt.Sprintf("%s: GID index %d is a RoCE v1 entry (%s)", at, u.Index, v1[0].GID),
			Evidence: gidEvidence(u, v1),
			Mechanism: "RoCE v1 carries RDMA directly in Ethernet (EtherType 0x8915) with no IP/UDP header: it is not routable, has no DSCP for the NIC and switches to classify on and no ECN field, so DCQCN cannot work and PFC depends on the VLAN PCP. " +
				"Each IP address has a v1 and a v2 row in the GID table; the v2 row is the one to use.",
			Fix: gidFixTail,
		}}
	case len(cands) == 0 && u.Index == 0:
		return []Finding{{
			ID: "gid.index.zero", Severity: Warn, Layer: LayerRDMA,
			Title:    fmt.Sprintf("%s: GID index 0 in use on RoCE", at),
			Evidence: gidEvidence(u, nil),
			Mechanism: "On a bare-metal host GID index 0 is the link-local (fe80::) RoCE v1 entry: not routable, no DSCP/ECN. It works only between hosts on one L2 segment. " +
				"NCCL before 2.21 defaulted NCCL_IB_GID_INDEX to 0; no GID table was given here to confirm what index 0 holds.",
			Fix: gidFixTail,
		}}
	case len(good) > 0:
		return []Finding{{
			ID: "gid.index.roce_v2", Severity: Info, Layer: LayerRDMA,
			Title:     fmt.Sprintf("%s: GID index %d in use is the RoCEv2 GID %s%s", at, u.Index, good[0].GID, ipv4Suffix(good[0].IPv4)),
			Evidence:  gidEvidence(u, good),
			Mechanism: "A RoCEv2 GID with an IP address is routable and carries DSCP and ECN, which PFC classification and DCQCN need.",
		}}
	case len(ipv4) > 0:
		return []Finding{{
			ID: "gid.index.roce_v2", Severity: Info, Layer: LayerRDMA,
			Title:     fmt.Sprintf("%s: GID index %d in use is the IPv4 GID %s (RoCE version not shown)", at, u.Index, ipv4[0].GID),
			Evidence:  gidEvidence(u, ipv4),
			Mechanism: "The GID is IPv4-mapped, so it is routable if it is the RoCE v2 row; the output does not say which version the row is. show_gids prints the VER column.",
		}}
	}
	return nil
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
			fs = append(fs, Finding{
				ID: "gid.index.mismatch", Severity: Warn, Layer: LayerRDMA,
				Title:     "the RoCEv2 IPv4 GID is at different indices: " + strings.Join(parts, ", "),
				Evidence:  evidenceInOrder(ev),
				Mechanism: "NCCL_IB_GID_INDEX is one number for every HCA of a process; where the RoCEv2 IPv4 row sits at different indices, any fixed value points some ports at a v1, link-local or empty entry.",
				Fix:       "Leave NCCL_IB_GID_INDEX unset with NCCL ≥ 2.21 (it picks the RoCEv2 IPv4 GID per port: NCCL_IB_ROCE_VERSION_NUM=2, NCCL_IB_ADDR_FAMILY=AF_INET), or set it per host/pod from show_gids.",
			})
		}
	}
	return fs
}

type gidAt struct {
	idx   int
	where string
	gid   string
	ev    Evidence
}

// roceV2Indices returns, per host and device, the first RoCEv2 IPv4 row.
func roceV2Indices(entries []ingest.GIDEntry) []gidAt {
	var out []gidAt
	seen := map[string]bool{}
	for _, e := range entries {
		if e.Version != "v2" || e.IPv4 == "" {
			continue
		}
		k := e.Host + "\x00" + e.Device
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, gidAt{e.Index, gidWhere(e.Host, e.Device), e.IPv4, e.Evidence})
	}
	return out
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
	title := fmt.Sprintf("RoCEv2 IPv4 GID is index %d (%s): NCCL_IB_GID_INDEX=%d", i, strings.Join(parts, ", "), i)
	var noIP []string
	devs := map[string]bool{}
	for _, g := range v2 {
		devs[g.where] = true
	}
	for _, e := range entries {
		w := gidWhere(e.Host, e.Device)
		if !devs[w] && e.Version != "" {
			devs[w] = true
			noIP = append(noIP, w)
			ev = append(ev, e.Evidence)
		}
	}
	mech := "Each IP address on the RoCE netdev adds a RoCE v1 and a v2 row to the GID table; the v2 row with an IPv4 address is routable and carries DSCP/ECN. Indices 0/1 are the link-local v1/v2 rows."
	if len(noIP) > 0 {
		title += "; no IPv4 GID on " + strings.Join(noIP, ", ")
		mech += " A port without an IPv4 row has no address on its netdev: RoCEv2 over IPv4 cannot use it; give it an address or leave it out with NCCL_IB_HCA."
	}
	return []Finding{{
		ID: "gid.index.roce_v2", Severity: Info, Layer: LayerRDMA,
		Title: title, Evidence: evidenceInOrder(ev), Mechanism: mech,
		Fix: fmt.Sprintf("NCCL_IB_GID_INDEX=%d (or leave it unset on NCCL ≥ 2.21); ib_write_bw -x %d.", i, i),
	}}
}
