package doctor

// The interfaces NCCL's socket transport lists: which of them no other
// host reaches, by address and by name, and the NCCL_SOCKET_IFNAME that
// leaves them out.

import (
	"net/netip"
	"strings"

	"rocelab/internal/ingest"
)

// unreachableSockets names the interfaces of NCCL's socket transport
// ("NET/Socket : Using [0]eno1:192.168.223.11<0> [1]usb0:169.254.3.1<0>")
// whose address no other host reaches (loopback or link-local: "usb0
// 169.254.3.1"; a host-local bridge: "lxcbr0 10.0.3.1") or reaches only
// through a VPN tunnel ("tailscale0 100.72.221.35"), with what each kind
// does to the connections NCCL makes to it, and the names of the other
// interfaces it lists (none when it lists only those).
func unreachableSockets(logs []*ingest.NCCLLog) (bad, kinds, good []string) {
	for _, l := range logs {
		for _, d := range l.SocketDevices {
			host, _, _ := strings.Cut(d.Addr, "%")
			a, err := netip.ParseAddr(host)
			kind := nameKind(d.Name)
			if err == nil && (a.IsLoopback() || a.IsLinkLocalUnicast()) {
				kind = linkLocalSocket
			}
			if kind == "" {
				good = append(good, d.Name)
				continue
			}
			name := d.Name
			if err == nil {
				name += " " + a.String()
			}
			bad = append(bad, name)
			kinds = append(kinds, kind)
		}
	}
	return distinct(bad), distinct(kinds), distinct(good)
}

// What a socket interface of each kind unreachableSockets names does to
// NCCL's connections to it.
const (
	linkLocalSocket = "loopback and link-local addresses (169.254.0.0/16, fe80::, which a BMC's USB network such as usb0 169.254.3.1 gives every node alike) reach the local host or nothing"
	bridgeSocket    = "a host-local bridge (libvirt's virbr0 192.168.122.1, LXC's lxcbr0 10.0.3.1, Docker's docker0 172.17.0.1 and br-<id>) has the same private subnet on every host and no route between hosts: a connection to a peer's bridge address reaches the local host's own bridge or nothing"
	tunnelSocket    = "a VPN tunnel (tailscale0, wg0, ZeroTier's zt*, tun*) reaches the peer through an encrypted, possibly relayed overlay: the channels NCCL puts on it run at the tunnel's speed, and a collective at its slowest channel's"
)

// An ifaceFamily is a family of interfaces container and VM runtimes,
// VPNs and BMCs create on every host (one per bridge, tunnel or network,
// numbered as they come), by its name prefix: kind is what NCCL's
// connections to one do (bridgeSocket, tunnelSocket; "" for a BMC's usb*,
// judged by its link-local address), and suffix, when set, is what the
// rest of the name must be for the name to be of the family.
type ifaceFamily struct {
	prefix string
	kind   string
	suffix func(string) bool
}

// ifaceFamilies are the families: the NAT bridges of libvirt, LXC, LXD,
// Docker (docker*, br-<12 hex>) and Podman, each with the same private
// subnet on every host; the tunnels of Tailscale, ZeroTier, WireGuard
// (wg<N>) and tun<N>; and a BMC's USB network.
var ifaceFamilies = []ifaceFamily{
	{"virbr", bridgeSocket, nil},
	{"lxcbr", bridgeSocket, nil},
	{"lxdbr", bridgeSocket, nil},
	{"docker", bridgeSocket, nil},
	{"cni-podman", bridgeSocket, nil},
	{"podman", bridgeSocket, nil},
	{"br-", bridgeSocket, func(id string) bool { return len(id) == 12 && strings.Trim(id, "0123456789abcdef") == "" }},
	{"tailscale", tunnelSocket, nil},
	{"zt", tunnelSocket, nil},
	{"wg", tunnelSocket, isNumber},
	{"tun", tunnelSocket, isNumber},
	{"usb", "", nil},
}

// isNumber reports whether s is one or more decimal digits.
func isNumber(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

// nameKind is what an interface's name alone says NCCL's connections to
// it do (bridgeSocket, tunnelSocket), "" for any other name.
func nameKind(name string) string {
	for _, f := range ifaceFamilies {
		if rest, ok := strings.CutPrefix(name, f.prefix); ok && (f.suffix == nil || f.suffix(rest)) {
			return f.kind
		}
	}
	return ""
}

// virtualFamily is the family prefix of an interface name, "" for an
// interface of no such family (eth1, ens1f0, bond0): excluding the prefix
// leaves out every one of the family.
func virtualFamily(name string) string {
	for _, f := range ifaceFamilies {
		if strings.HasPrefix(name, f.prefix) {
			return f.prefix
		}
	}
	return ""
}

// socketIfnameFix is the NCCL_SOCKET_IFNAME advice for a socket transport
// listing bad interfaces ("usb0 169.254.3.1") beside good ones (names). It
// names the good ones to use; as the alternative it excludes lo, Docker's
// bridges (setting the variable replaces NCCL's default "^docker,lo") and the
// bad ones: by family prefix ("^docker,lo,lxcbr,tailscale") when every bad
// one is of a virtual family and no good one starts with a prefix listed,
// else by exact name ("^=docker0,lo,eth1"), since
// NCCL matches every entry as a prefix unless the list starts with "=" (after
// "^"), which makes all of them exact: a prefix "eth" would leave out eth0 too.
// When the transport lists no good interface, excluding the bad ones would
// leave NCCL none: the advice names the interface to find instead.
func socketIfnameFix(bad, good []string) string {
	if len(good) == 0 {
		return "NCCL's socket transport lists no other interface, so its traffic is limited to " + list(bad, 2) + " (excluding it would leave NCCL no interface): set NCCL_SOCKET_IFNAME to the interface whose address the other hosts reach (`ip route get <a peer's address>` names it; `=` before the name makes it exact), the same on every rank."
	}
	stems, exact := []string{"docker", "lo"}, []string{"docker0", "lo"}
	prefixes := true
	for _, b := range bad {
		name, _, _ := strings.Cut(b, " ")
		f := virtualFamily(name)
		prefixes = prefixes && (f != "" || name == "lo")
		if f == "" {
			f = name
		}
		stems, exact = append(stems, f), append(exact, name)
	}
	for _, g := range good {
		for _, s := range stems {
			// A good interface of a bad one's family (br-ex beside
			// br-0123456789ab): the prefix would leave it out too.
			prefixes = prefixes && !strings.HasPrefix(g, s)
		}
	}
	exclude := "NCCL_SOCKET_IFNAME=^" + strings.Join(distinct(stems), ",")
	if !prefixes {
		exclude = "NCCL_SOCKET_IFNAME=^=" + strings.Join(distinct(exact), ",") + " (`=` makes every name of the list exact; a prefix would also leave out interfaces that share it)"
	}
	use := "NCCL_SOCKET_IFNAME=" + good[0]
	if len(good) > 1 {
		use = "NCCL_SOCKET_IFNAME to the routed one of " + list(good, 3)
	}
	return "Set " + use + ", or exclude the others: " + exclude + "; the same on every rank."
}
