package doctor

import (
	"fmt"

	"rocelab/internal/ingest"
)

// gidAt is the GID row a queue pair should use in one table (host and
// device). This file holds the choices the GID rules judge users against:
// that row, and the one NCCL takes by itself (ncclAutoGID).
type gidAt struct {
	idx   int
	where string
	gid   string
	ev    Evidence
	// ipv6 is set when the table has no IPv4 RoCE v2 row and the row is
	// an IPv6 one; note says why this row and not another.
	ipv6 bool
	note string
}

// roceV2Indices returns, per table (host and device), the RoCE v2 row a
// QP should use (see bestV2Row).
func roceV2Indices(entries []ingest.GIDEntry) []gidAt {
	var out []gidAt
	var order []string
	byOwner := map[string][]ingest.GIDEntry{}
	for _, e := range entries {
		k := e.Owner()
		if _, ok := byOwner[k]; !ok {
			order = append(order, k)
		}
		byOwner[k] = append(byOwner[k], e)
	}
	for _, k := range order {
		if g, ok := bestV2Row(byOwner[k]); ok {
			out = append(out, g)
		}
	}
	return out
}

// bestV2Row chooses a table's RoCE v2 row with a routable address: an
// IPv4 one, else (an IPv6-only table) a global or unique-local IPv6 one.
// When one address sits on several netdevs (a VXLAN device and the bond
// under it) the row of the netdev that carries RoCE wins: the one that
// owns the port's link-local GID (the GID the port derives from its own
// MAC), never merely the first row.
func bestV2Row(rows []ingest.GIDEntry) (gidAt, bool) {
	roceDev := ""
	for _, e := range rows {
		if c, _ := ingest.ClassifyGID(e.GID); c == ingest.GIDLinkLocal && e.Netdev != "" && (roceDev == "" || e.Index < lowestIndex(rows, roceDev)) {
			roceDev = e.Netdev
		}
	}
	pick := func(class ingest.GIDClass) (ingest.GIDEntry, string, bool) {
		var cands []ingest.GIDEntry
		for _, e := range rows {
			if c, _ := ingest.ClassifyGID(e.GID); c == class && e.Version == "v2" {
				cands = append(cands, e)
			}
		}
		if len(cands) == 0 {
			return ingest.GIDEntry{}, "", false
		}
		best, note := cands[0], ""
		netdevs := map[string]bool{}
		for _, e := range cands {
			netdevs[e.Netdev] = true
		}
		if roceDev != "" && len(netdevs) > 1 {
			for _, e := range cands {
				if e.Netdev == roceDev {
					best = e
					note = fmt.Sprintf("the row on %s, the netdev that owns the port's link-local GID (RoCE's), not the %s rows", roceDev, plural(len(netdevs)-1, "other netdev's", "other netdevs'"))
					break
				}
			}
		}
		return best, note, true
	}
	e, note, ok := pick(ingest.GIDIPv4)
	ipv6 := false
	if !ok {
		if e, note, ok = pick(ingest.GIDIPv6); !ok {
			return gidAt{}, false
		}
		ipv6 = true
	}
	gid := e.IPv4
	if ipv6 {
		gid = e.GID
	}
	return gidAt{idx: e.Index, where: e.Where(), gid: gid, ev: e.Evidence, ipv6: ipv6, note: note}, true
}

// lowestIndex is the lowest index of a netdev's rows.
func lowestIndex(rows []ingest.GIDEntry, netdev string) int {
	low := -1
	for _, e := range rows {
		if e.Netdev == netdev && (low < 0 || e.Index < low) {
			low = e.Index
		}
	}
	return low
}

// portsWithoutV2 lists the ports of entries that have no routable RoCE v2
// row in v2: noIP those with link-local rows only, v1Only those with a
// routable address whose v2 row is missing, with the first row of each.
func portsWithoutV2(entries []ingest.GIDEntry, v2 []gidAt) (noIP, v1Only []string, ev []Evidence) {
	devs := map[string]bool{}
	for _, g := range v2 {
		devs[g.where] = true
	}
	routable := map[string]ingest.GIDEntry{}
	var order []string
	first := map[string]ingest.GIDEntry{}
	for _, e := range entries {
		w := e.Where()
		if devs[w] || e.Version == "" {
			continue
		}
		if _, seen := first[w]; !seen {
			first[w] = e
			order = append(order, w)
		}
		if c, _ := ingest.ClassifyGID(e.GID); c == ingest.GIDIPv4 || c == ingest.GIDIPv6 {
			if _, ok := routable[w]; !ok {
				routable[w] = e
			}
		}
	}
	for _, w := range order {
		if e, ok := routable[w]; ok {
			v1Only = append(v1Only, w)
			ev = append(ev, e.Evidence)
			continue
		}
		noIP = append(noIP, w)
		ev = append(ev, first[w].Evidence)
	}
	return noIP, v1Only, ev
}

// ncclAutoGID works out the index NCCL 2.21 and later choose in one port's
// GID table when NCCL_IB_GID_INDEX is not set (net_ib.cc
// ncclIbGetGidIndex with the defaults NCCL_IB_ADDR_FAMILY=AF_INET,
// NCCL_IB_ROCE_VERSION_NUM=2): start at 0, move to a later IPv4 GID of
// another family than the current one, or to a valid IPv4 RoCE v2 GID
// when the current one is not valid or not v2. ok is false when the
// choice depends on a row whose RoCE version the table does not show.
func ncclAutoGID(rows []ingest.GIDEntry) (idx int, why string, ok bool) {
	byIdx := map[int]ingest.GIDEntry{}
	last := 0
	for _, e := range rows {
		byIdx[e.Index] = e
		last = max(last, e.Index)
	}
	ipv4 := func(e ingest.GIDEntry) bool { c, _ := ingest.ClassifyGID(e.GID); return c == ingest.GIDIPv4 }
	valid := func(e ingest.GIDEntry) bool {
		c, _ := ingest.ClassifyGID(e.GID)
		return c == ingest.GIDIPv4 || c == ingest.GIDIPv6
	}
	cur := byIdx[0] // an absent row is an empty (::) slot
	for i := 1; i <= last; i++ {
		cand, present := byIdx[i]
		if !present || !ipv4(cand) {
			continue
		}
		if !ipv4(cur) {
			cur = cand
			continue
		}
		if !valid(cand) {
			continue
		}
		if cand.Version == "" || cur.Version == "" && valid(cur) {
			return 0, "", false
		}
		if (cur.Version != cand.Version || !valid(cur)) && cand.Version == "v2" {
			cur = cand
		}
	}
	if _, present := byIdx[cur.Index]; !present || !ipv4(cur) {
		return 0, "the table has no IPv4 GID, so NCCL keeps index 0 (NCCL_IB_ADDR_FAMILY=AF_INET6 makes it take an IPv6 one)", true
	}
	return cur.Index, fmt.Sprintf("it takes index %d, the %s IPv4 GID %s", cur.Index, nameOr(cur.Version, "(version not shown)"), cur.IPv4), true
}
