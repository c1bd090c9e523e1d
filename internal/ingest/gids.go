package ingest

import (
	"net/netip"
	"strconv"
	"strings"
)

// ShowGIDs is the GID table printed by the `show_gids` script:
//
//	DEV     PORT    INDEX   GID                                     IPv4            VER     DEV
//	mlx5_0  1       3       0000:0000:0000:0000:0000:ffff:0b00:0048 11.0.0.72       v2      ens3np0
//	n_gids_found=12
//
// Rows may be tab-separated or space-aligned, indented, without the IPv4
// value (link-local rows) and without the netdev column. Huawei's
// `hiroce3 gids` (hinic3 NICs) prints the same table in another order:
//
//	ib_dev      net_dev   port idx  gid                                      type     ip              link
//	hrn3_bond_0 bond0     1    1    0000:0000:0000:0000:0000:ffff:1b69:b403  RoCE v2  27.105.180.3    up
type ShowGIDs struct {
	Scoped
	artifactHead
	// Entries are the table rows in input order.
	Entries []GIDEntry
	// Found is the n_gids_found value, or -1 when not printed.
	Found         int
	FoundEvidence Evidence
	// Omitted counts rows dropped by the memory cap.
	Omitted int
}

// MaxGIDEntries bounds the GID rows one artifact keeps.
const MaxGIDEntries = 4096

// Kind returns KindShowGIDs.
func (g *ShowGIDs) Kind() Kind { return KindShowGIDs }

// GIDEntries returns the table rows.
func (g *ShowGIDs) GIDEntries() []GIDEntry { return g.Entries }

type showGIDsParser struct {
	out  ShowGIDs
	host string
	// table numbers the current table; rows marks (device, port, index)
	// seen in it: a row seen again, or a header after rows, starts the
	// next table.
	table int
	rows  map[gidKey]bool
	// noVer is set after a header without the VER column (the show_gids
	// of older MLNX_OFED, other vendors' scripts): rows then carry no
	// version.
	noVer bool
	// hiroce is set after the header of `hiroce3 gids`.
	hiroce bool
}

type gidKey struct {
	dev       string
	port, idx int
}

// NewShowGIDsParser returns a parser for show_gids output in the input src.
func NewShowGIDsParser(src string) Parser {
	return &showGIDsParser{out: ShowGIDs{artifactHead: artifactHead{src: src}, Found: -1}}
}

// Feed implements Parser.
func (p *showGIDsParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimSpace(l.Text)
	if c, ok := findCommand(t, "show_gids"); ok {
		p.host = c.Host
		p.nextTable()
		p.out.lines.add(l)
		return
	}
	// Every row names its RoCE version; the header and rule start with
	// DEV and ---. Reject other lines before splitting them.
	if !p.noVer && !strings.Contains(t, "v1") && !strings.Contains(t, "v2") && !strings.HasPrefix(t, "DEV") && !strings.HasPrefix(t, "---") && !strings.HasPrefix(t, "n_gids_found=") && !strings.HasPrefix(t, "ib_dev") {
		return
	}
	f := strings.Fields(t)
	switch {
	case len(f) >= 4 && f[0] == "DEV" && f[1] == "PORT" && f[2] == "INDEX" && f[3] == "GID":
		p.nextTable()
		p.noVer, p.hiroce = !strings.Contains(t, "VER"), false
		p.out.lines.add(l)
		return
	case len(f) >= 5 && f[0] == "ib_dev" && f[1] == "net_dev" && f[2] == "port" && f[3] == "idx" && f[4] == "gid":
		p.nextTable()
		p.noVer, p.hiroce = false, true
		p.out.lines.add(l)
		return
	case p.hiroce && len(f) >= 4 && strings.Trim(t, "- \t") == "":
		p.out.lines.add(l)
		return
	case len(f) >= 4 && f[0] == "---" && f[1] == "----":
		p.out.lines.add(l)
		return
	case strings.HasPrefix(t, "n_gids_found="):
		if n, err := strconv.Atoi(strings.TrimPrefix(t, "n_gids_found=")); err == nil {
			p.out.Found, p.out.FoundEvidence = n, At(p.out.src, l)
			p.out.lines.add(l)
		}
		return
	}
	var e GIDEntry
	var ok bool
	if p.hiroce {
		e, ok = parseHiroceRow(f)
	} else {
		e, ok = parseShowGIDsRow(f, p.noVer)
	}
	if !ok {
		return
	}
	p.out.lines.add(l)
	host := p.host
	if host == "" {
		host = l.Host
	}
	k := gidKey{e.Device, e.Port, e.Index}
	if p.rows[k] {
		p.nextTable()
	}
	if p.table == 0 {
		p.table = 1
	}
	if p.rows == nil {
		p.rows = map[gidKey]bool{}
	}
	p.rows[k] = true
	e.Host, e.Table, e.Evidence = host, p.table, At(p.out.src, l)
	p.out.Entries = appendCapped(p.out.Entries, e, MaxGIDEntries, &p.out.Omitted)
}

// nextTable starts a new table if the current one has rows.
func (p *showGIDsParser) nextTable() {
	if len(p.rows) > 0 {
		p.table++
		clear(p.rows)
	}
}

// parseShowGIDsRow parses DEV PORT INDEX GID [IPv4] VER [NETDEV], or,
// after a header without VER, DEV PORT INDEX GID [IPv4] [NETDEV].
func parseShowGIDsRow(f []string, noVer bool) (GIDEntry, bool) {
	if len(f) < 4 || len(f) > 7 || len(f) == 4 && !noVer {
		return GIDEntry{}, false
	}
	port, err1 := strconv.Atoi(f[1])
	idx, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil || port < 0 || idx < 0 || !isCounterName(f[0]) {
		return GIDEntry{}, false
	}
	if a, err := netip.ParseAddr(f[3]); err != nil || !a.Is6() {
		return GIDEntry{}, false
	}
	e := GIDEntry{Device: f[0], Port: port, Index: idx, GID: f[3]}
	rest := f[4:]
	if len(rest) > 0 {
		if a, err := netip.ParseAddr(rest[0]); err == nil && a.Is4() {
			e.IPv4 = rest[0]
			rest = rest[1:]
		}
	}
	if len(rest) > 0 && (rest[0] == "v1" || rest[0] == "v2") {
		e.Version, rest = rest[0], rest[1:]
	} else if !noVer {
		return GIDEntry{}, false
	}
	switch len(rest) {
	case 0:
	case 1:
		if !isCounterName(rest[0]) {
			return GIDEntry{}, false
		}
		e.Netdev = rest[0]
	default:
		return GIDEntry{}, false
	}
	if e.IPv4 == "" {
		if c, v4 := ClassifyGID(e.GID); c == GIDIPv4 {
			e.IPv4 = v4
		}
	}
	return e, true
}

// parseHiroceRow parses a `hiroce3 gids` row: DEV NETDEV PORT IDX GID
// "RoCE" VER [IPv4] LINK.
func parseHiroceRow(f []string) (GIDEntry, bool) {
	if len(f) < 8 || len(f) > 9 || f[5] != "RoCE" || f[6] != "v1" && f[6] != "v2" {
		return GIDEntry{}, false
	}
	e, ok := parseShowGIDsRow([]string{f[0], f[2], f[3], f[4], f[6], f[1]}, false)
	if !ok {
		return GIDEntry{}, false
	}
	if len(f) == 9 {
		if a, err := netip.ParseAddr(f[7]); err != nil || !a.Is4() {
			return GIDEntry{}, false
		}
		e.IPv4 = f[7]
	}
	return e, true
}

// GIDClass says what kind of address a GID is.
type GIDClass int

// GID classes.
const (
	// GIDUnknown is a GID that does not parse as an IPv6 address.
	GIDUnknown GIDClass = iota
	// GIDZero is the all-zero GID of an unused table slot.
	GIDZero
	// GIDLinkLocal is an fe80::/10 GID derived from the MAC: not routable.
	GIDLinkLocal
	// GIDIPv4 is an IPv4-mapped GID (::ffff:a.b.c.d).
	GIDIPv4
	// GIDIPv6 is any other IPv6 GID (global or unique-local).
	GIDIPv6
)

// String names the class.
func (c GIDClass) String() string {
	switch c {
	case GIDZero:
		return "zero"
	case GIDLinkLocal:
		return "link-local"
	case GIDIPv4:
		return "IPv4"
	case GIDIPv6:
		return "IPv6"
	}
	return "unknown"
}

// ClassifyGID classifies a GID written as an IPv6 address in any form
// ("fe80::1", "0000:0000:0000:0000:0000:ffff:0b00:0048") and returns the
// IPv4 address of an IPv4-mapped GID.
func ClassifyGID(gid string) (GIDClass, string) {
	gid = strings.TrimSpace(gid)
	a, err := netip.ParseAddr(gid)
	if err != nil || !a.Is6() {
		// A log with the addresses masked: "::ffff:xxx.xx.xx.xx".
		if v4, ok := strings.CutPrefix(strings.ToLower(gid), "::ffff:"); ok && strings.Count(v4, ".") == 3 {
			return GIDIPv4, v4
		}
		return GIDUnknown, ""
	}
	switch {
	case a.IsUnspecified():
		return GIDZero, ""
	case a.Is4In6():
		return GIDIPv4, a.Unmap().String()
	case a.IsLinkLocalUnicast():
		return GIDLinkLocal, ""
	}
	return GIDIPv6, ""
}

// Result implements Parser.
func (p *showGIDsParser) Result() Artifact {
	if len(p.out.Entries) == 0 {
		if p.out.Found == 0 && p.out.lines.n > 0 {
			return &p.out // an empty table: n_gids_found=0
		}
		return nil
	}
	// Number tables only when a device appears in more than one.
	tables := map[string]map[int]bool{}
	for _, e := range p.out.Entries {
		if tables[e.Device] == nil {
			tables[e.Device] = map[int]bool{}
		}
		tables[e.Device][e.Table] = true
	}
	several := false
	for _, ts := range tables {
		several = several || len(ts) > 1
	}
	if !several {
		for i := range p.out.Entries {
			p.out.Entries[i].Table = 0
		}
	}
	return &p.out
}

// addrFrom16 formats a 16-byte GID in IPv6 notation.
func addrFrom16(b [16]byte) string {
	return netip.AddrFrom16(b).String()
}

// StatedHost is the host a single table belongs to: its name when the
// input says it, and the IP addresses of its GIDs (the host's RoCE
// addresses). A paste of several hosts' tables states none.
func (g *ShowGIDs) StatedHost() Host {
	var h Host
	for _, e := range g.Entries {
		if e.Table > 1 || e.Host != "" && h.Name != "" && e.Host != h.Name {
			return Host{}
		}
		if e.Host != "" {
			h.Name = e.Host
		}
		if e.IPv4 != "" {
			h.AddAddr(e.IPv4)
		} else if c, _ := ClassifyGID(e.GID); c == GIDIPv6 {
			h.AddAddr(e.GID)
		}
	}
	return h
}
