package ingest

import (
	"net/netip"
	"slices"
	"strings"
)

// Facts hold in a scope. A line rate, an NCCL version, a GPU–NIC distance
// or a GID table is true of one host (and of one device on it), not of
// every file diagnosed beside it: mlx5_0 exists on every host of a
// cluster. Every artifact therefore carries its Scope — the input it was
// read from and the host and time that input states — so that rules join
// facts across files only where the host says they belong together.

// A Host is what an input says about the machine it comes from. Any of
// its fields may be empty; two Hosts name the same machine when they share
// a GUID, or a routable address, or a name without conflicting addresses
// (see Host.Same).
type Host struct {
	// Name is the host name as printed (a shell prompt, `hostname`
	// output, NCCL's line prefix, a `rocelab collect` archive), "" when
	// none is stated.
	Name string
	// Addrs are the host's IP addresses as the input states them (NCCL's
	// bootstrap and OOB interfaces, the IPv4 rows of its GID table),
	// canonical and sorted.
	Addrs []string
	// Boot is the address NCCL bootstraps on (its "Bootstrap : Using" or
	// OOB interface), one of Addrs: every process of a job states this
	// same kind of address, so two hosts with one name and different
	// Boot addresses are two machines.
	Boot string
	// GUIDs are the node and system-image GUIDs of its RDMA devices
	// (ibv_devinfo), lower case and sorted.
	GUIDs []string
	// Evidence is the line that named the host first.
	Evidence Evidence
}

// IsZero reports whether nothing is known of the host.
func (h Host) IsZero() bool { return h.Name == "" && len(h.Addrs) == 0 && len(h.GUIDs) == 0 }

// Label names the host for a reader: its name, with its first address
// when it has one, else the address or GUID alone.
func (h Host) Label() string {
	switch {
	case h.Name != "" && h.Boot != "":
		return h.Name + " (" + h.Boot + ")"
	case h.Name != "" && len(h.Addrs) > 0:
		return h.Name + " (" + h.Addrs[0] + ")"
	case h.Name != "":
		return h.Name
	case h.Boot != "":
		return h.Boot
	case len(h.Addrs) > 0:
		return h.Addrs[0]
	case len(h.GUIDs) > 0:
		return "node " + h.GUIDs[0]
	}
	return ""
}

// Same reports whether h and o are known to be one machine (same is
// true), known to be two (same false, known true), or cannot be told
// apart (known false). A shared GUID or routable address makes one
// machine; otherwise two names decide, compared by SameHostName. Addresses alone never make two
// machines: one host is known by its bootstrap address in one input and
// by its RoCE address in another. (Within one NCCL log, where every
// process states the same kind of address, the parser tells apart hosts
// that print one name but different addresses; see NCCLLog.)
func (h Host) Same(o Host) (same, known bool) {
	if shareAny(h.GUIDs, o.GUIDs) || shareAny(h.Addrs, o.Addrs) {
		return true, true
	}
	if h.Boot != "" && o.Boot != "" {
		return false, true
	}
	if h.Name != "" && o.Name != "" {
		return SameHostName(h.Name, o.Name), true
	}
	return false, false
}

// HostKey is the short form of a host name by which inputs are grouped:
// the name in lower case, a domain after the first label dropped. NCCL's
// line prefix and nccl-tests' rank lines print gethostname() cut at its
// first dot ("node-1", "123" of "123.cluster.local"), while `hostname`, a
// prompt or a collect archive may give the full name
// ("node-1.cluster.local"), and DNS names ignore case ("NODE-1"). An IP
// address used as a name (IPv4, IPv6, "::ffff:10.0.0.1") is kept whole.
// Two names compare by SameHostName.
func HostKey(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if _, err := netip.ParseAddr(name); err == nil {
		return name
	}
	if i := strings.IndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	return name
}

// SameHostName is the one rule by which two host names compare across
// inputs: when both carry a domain ("gpu-1.rack2", "gpu-1.rack3") the
// whole names decide, case aside; when one is short, as NCCL prints it,
// the short forms (HostKey) do.
func SameHostName(a, b string) bool {
	a, b = strings.ToLower(strings.TrimSpace(a)), strings.ToLower(strings.TrimSpace(b))
	if a == b {
		return true
	}
	if hasDomain(a) && hasDomain(b) {
		return false
	}
	return HostKey(a) == HostKey(b)
}

// hasDomain reports whether a lower-cased host name has a domain after
// its first label (an IP address has none).
func hasDomain(name string) bool {
	_, err := netip.ParseAddr(name)
	return err != nil && strings.IndexByte(name, '.') > 0
}

// Merge returns h with o's names, addresses and GUIDs added.
func (h Host) Merge(o Host) Host {
	if h.Name == "" {
		h.Name = o.Name
	}
	if h.Evidence.File == "" {
		h.Evidence = o.Evidence
	}
	if h.Boot == "" {
		h.Boot = o.Boot
	}
	h.Addrs = union(h.Addrs, o.Addrs)
	h.GUIDs = union(h.GUIDs, o.GUIDs)
	return h
}

// AddAddr records an address the host is known by; loopback, link-local,
// unspecified and malformed addresses identify no machine and are
// ignored.
func (h *Host) AddAddr(s string) {
	if a, ok := HostAddr(s); ok {
		h.Addrs = union(h.Addrs, []string{a})
	}
}

// AddGUID records a device GUID ("7cfe:9003:00a0:8d36" or
// "0x7cfe900300a08d36"); all-zero GUIDs are ignored.
func (h *Host) AddGUID(s string) {
	g := strings.ToLower(strings.TrimPrefix(strings.ReplaceAll(strings.TrimSpace(s), ":", ""), "0x"))
	if len(g) != 16 || strings.Trim(g, "0") == "" || strings.Trim(g, "0123456789abcdef") != "" {
		return
	}
	h.GUIDs = union(h.GUIDs, []string{g})
}

// HostAddr returns the canonical form of an address that can identify a
// machine: not loopback, link-local, multicast or unspecified, and not
// 172.17.0.1 (Docker's default bridge, the same on every host). A zone
// ("%eth0") and a port ("<0>", ":1234") are dropped.
func HostAddr(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '<'); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, '%'); i >= 0 {
		s = s[:i]
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		ap, err2 := netip.ParseAddrPort(s)
		if err2 != nil {
			return "", false
		}
		a = ap.Addr()
	}
	a = a.Unmap()
	if a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsMulticast() || a.IsUnspecified() || a.IsInterfaceLocalMulticast() ||
		a == netip.AddrFrom4([4]byte{172, 17, 0, 1}) {
		return "", false
	}
	return a.String(), true
}

func shareAny(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// union returns the sorted union of a and b without duplicates.
func union(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// A Scope is where an artifact's facts hold: the input it was read from,
// and the host and first time that input states.
type Scope struct {
	// Source is the input's display name.
	Source string
	// Host is the one host the input states, zero when it states none or
	// several (a paste of two hosts' dumps: each record then carries its
	// own host name).
	Host Host
	// Time is the first time the input states (see Stamp), zero when it
	// states none.
	Time Stamp
}

// Scoped is embedded in every artifact to carry its Scope.
type Scoped struct{ scope Scope }

// Scope returns where the artifact's facts hold.
func (s *Scoped) Scope() Scope { return s.scope }

// SetScope sets it; ingest.Read does so for every artifact it returns,
// and the doctor adds what it learns beside the input (the host of the
// `rocelab collect` archive it came in).
func (s *Scoped) SetScope(sc Scope) { s.scope = sc }

// A HostStater is an artifact that states things about its host of its
// own accord: a log's single host name and addresses, a device's GUIDs,
// a GID table's addresses.
type HostStater interface {
	StatedHost() Host
}

// inputContext collects, over one pass, what an input's lines say about
// their host and time, for the Scope of its artifacts.
type inputContext struct {
	host     string
	hostEv   Evidence
	hosts    int
	first    Stamp
	lastHost string
}

func (c *inputContext) see(src string, l Line) {
	if c.first.IsZero() && !l.Stamp.IsZero() {
		c.first = l.Stamp
	}
	if l.Host == "" || SameHostName(l.Host, c.lastHost) {
		return
	}
	c.lastHost = l.Host
	if c.hosts == 0 {
		c.host, c.hostEv = l.Host, Evidence{File: src, Line: l.Num, Text: "host " + l.Host + " named before this line"}
		c.hosts = 1
		return
	}
	if !SameHostName(l.Host, c.host) {
		c.hosts = 2
	}
}

// scope is the Scope of an artifact a of this input: the one host the
// lines name (prompts, `hostname`), merged with what a states itself.
func (c *inputContext) scope(src string, a Artifact) Scope {
	sc := Scope{Source: src, Time: c.first}
	if c.hosts == 1 {
		sc.Host = Host{Name: c.host, Evidence: c.hostEv}
	}
	if hs, ok := a.(HostStater); ok {
		st := hs.StatedHost()
		if same, known := sc.Host.Same(st); !known || same {
			sc.Host = sc.Host.Merge(st)
		}
	}
	return sc
}
