package doctor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/ingest"
)

// The bootstrap root (the listener of rank 0's unique id, bootstrap.cc)
// takes one check-in from every rank and refuses one that does not fit
// the first it took: "Bootstrap Root : mismatch in info from procs,
// nranks 16 vs 16, nroots 1 vs 1, iroot 0 vs 0[, offset 0 vs N]" (the
// offset pair from the NCCL that added communicator growth) or "rank 3
// of 16 ranks has already checked in". The connection worked: these are
// not the network's failures but a check-in from a process that is not
// one of this communicator's ranks, or is not on the same NCCL.

// rootMismatch is one "name X vs Y" pair of the mismatch line: first is
// what the root took from the first rank to check in, got what this
// rank sent.
type rootMismatch struct {
	name       string
	first, got int64
}

// rootMismatches reads the pairs of a lower-cased mismatch message.
func rootMismatches(m string) []rootMismatch {
	_, rest, ok := strings.Cut(m, "mismatch in info from procs")
	if !ok {
		return nil
	}
	var out []rootMismatch
	for _, part := range strings.Split(rest, ",") {
		f := strings.Fields(part)
		if len(f) != 4 || f[2] != "vs" {
			continue
		}
		a, err1 := strconv.ParseInt(f[1], 10, 64)
		b, err2 := strconv.ParseInt(f[3], 10, 64)
		if err1 == nil && err2 == nil {
			out = append(out, rootMismatch{f[0], a, b})
		}
	}
	return out
}

// addressAsOffset tells whether v, read as a 32-bit int, is the first
// four bytes of a socket address (a little-endian host): its family,
// AF_INET (2) or AF_INET6 (10), in the low 16 bits and the port, in
// network order, above. It returns the port. A rank whose check-in has
// no offset field sends its listen address where the root reads one.
func addressAsOffset(v int64) (int, bool) {
	u := uint32(v)
	if fam := u & 0xffff; fam != 2 && fam != 10 {
		return 0, false
	}
	port := int(u>>16&0xff)<<8 | int(u>>24)
	return port, port != 0
}

const rootFix = "Run one NCCL build on every rank: compare the 'NCCL version' line of each host's log (and `python -c 'import torch; print(torch.cuda.nccl.version())'` in each environment: a framework wheel carries its own NCCL), and make no process of an earlier launch survive (a port or NCCL_COMM_ID reused while old ranks still retry); give each job its own unique id."

// bootstrapRootClass classifies the bootstrap root's refusals.
func bootstrapRootClass(m string) (failureClass, bool) {
	if strings.Contains(m, "bootstrap root") && strings.Contains(m, "has already checked in") {
		return failureClass{"two processes checked in to NCCL's bootstrap root as the same rank",
			"The root of rank 0's unique id takes one check-in per rank; a second one for a rank it already has comes from a process outside this communicator (another job, or a rank of an earlier launch, given the same unique id or NCCL_COMM_ID), or from a launcher that gave two processes one rank. The communicator never forms and the ranks wait until they time out.",
			rootFix}, true
	}
	pairs := rootMismatches(m)
	if len(pairs) == 0 {
		return failureClass{}, false
	}
	for _, p := range pairs {
		if p.name != "offset" || p.first == p.got {
			continue
		}
		for _, v := range []int64{p.first, p.got} {
			port, ok := addressAsOffset(v)
			if !ok {
				continue
			}
			return failureClass{"ranks of two NCCL versions checked in to one bootstrap root (the offset it read is a socket address)",
				fmt.Sprintf("Every rank sends the bootstrap root (rank 0's listener) its rank, the communicator's size and where it listens; the NCCL that prints 'offset' added that field to the message. A rank on an NCCL without it sends its listen address where the root reads the offset: offset %d is, as bytes, the address family AF_INET or AF_INET6 and a port (%d). The ranks run different NCCL versions (a framework wheel's own NCCL on one host, the system's on another); the root refuses the check-in and the communicator never forms.", v, port),
				rootFix}, true
		}
	}
	var diff []string
	for _, p := range pairs {
		if p.first != p.got {
			diff = append(diff, fmt.Sprintf("%s %d vs %d", p.name, p.first, p.got))
		}
	}
	return failureClass{"NCCL's bootstrap root got check-ins that disagree (" + strings.Join(diff, ", ") + ")",
		"Every rank sends the bootstrap root (rank 0's listener) its rank, the communicator's size and root count; the root refuses a rank whose values differ from the first one's. Ranks of two jobs (or of an earlier launch) given one unique id or NCCL_COMM_ID, ranks started with different world sizes, or ranks of different NCCL versions reach one root this way; the communicator never forms.",
		rootFix}, true
}

func ncclBootstrapRules() []Rule {
	return []Rule{{IDs: []string{"nccl.bootstrap.ifname_mismatch"}, Check: checkBootIfaces}}
}

// hostBoot is what one host's NCCL bootstraps on.
type hostBoot struct {
	host             string
	ifaces, families []string
	ev               Evidence
}

// checkBootIfaces compares the interfaces the hosts of a log bootstrap on
// (NVIDIA/nccl#1291: ib0 and an fe80:: address on one host, bond0 and
// IPv4 on the other, and the test hangs at init). Every rank connects to
// the address in rank 0's unique id, and the ranks to one another, over
// the interface NCCL_SOCKET_IFNAME names or NCCL's own pick (ib* first,
// then any but lo and docker*): hosts that pick by themselves may pick
// differently. Addresses of two families cannot reach each other, and a
// link-local one only its own link.
func checkBootIfaces(inc *Incident) []Finding {
	var fs []Finding
	for _, l := range All[*ingest.NCCLLog](inc) {
		fs = append(fs, bootIfaces(inc, l)...)
	}
	return fs
}

// bootIfaces compares the hosts of one log: logs of separate files may
// be separate jobs.
func bootIfaces(inc *Incident, l *ingest.NCCLLog) []Finding {
	var hs []*hostBoot
	by := map[string]*hostBoot{}
	for _, b := range l.BootIfaces {
		if b.Host == "" {
			continue
		}
		h := by[b.Host]
		if h == nil {
			h = &hostBoot{host: b.Host, ev: b.Evidence}
			by[b.Host] = h
			hs = append(hs, h)
		}
		h.ifaces = appendNew(h.ifaces, b.Iface)
		if b.Family != "" {
			h.families = appendNew(h.families, b.Family)
		}
	}
	if len(hs) < 2 {
		return nil
	}
	var fams, names []string
	for _, h := range hs {
		for _, f := range h.families {
			fams = appendNew(fams, f)
		}
	}
	shared := hs[0].ifaces
	for _, h := range hs[1:] {
		var keep []string
		for _, i := range shared {
			if slices.Contains(h.ifaces, i) {
				keep = append(keep, i)
			}
		}
		shared = keep
	}
	set := len(ncclEnv(inc, "NCCL_SOCKET_IFNAME")) > 0
	if len(fams) < 2 && (len(shared) > 0 || set || !ibSplit(hs)) {
		return nil
	}
	var ev []Evidence
	for _, h := range hs {
		names = append(names, fmt.Sprintf("%s on %s", h.host, strings.Join(h.ifaces, "/")))
		if len(ev) < 4 {
			ev = append(ev, h.ev)
		}
	}
	const how = "NCCL's bootstrap and socket connections go over the interface NCCL_SOCKET_IFNAME names, else the one NCCL picks on each host by itself (ib* first, then any interface but lo and docker*). Every rank connects to the address rank 0's unique id carries, and the ranks to one another: hosts that pick different interfaces work only if each reaches the others' addresses. "
	f := Finding{ID: "nccl.bootstrap.ifname_mismatch", Severity: Warn, Layer: LayerNCCL, Evidence: ev,
		Title:     "Hosts bootstrap NCCL on different interfaces (" + list(names, 4) + ")",
		Mechanism: how + "NCCL_SOCKET_IFNAME is not set, and some hosts took an IPoIB interface (ib*), which NCCL prefers when one is up, others an Ethernet one: the hosts are on two networks.",
		Fix:       "Set NCCL_SOCKET_IFNAME to the interface of the network every host shares (e.g. NCCL_SOCKET_IFNAME=bond0, or a prefix all hosts' names match), the same on every rank, and check `ip addr` on each host.",
	}
	if len(fams) >= 2 {
		f.Severity = Error
		f.Title = "Hosts bootstrap NCCL over different address families (" + list(names, 4) + "; " + strings.Join(fams, ", ") + ")"
		f.Mechanism = how + "Here the hosts' addresses are of different families (" + strings.Join(fams, ", ") + "): an IPv4 socket cannot reach an IPv6 address, and a link-local fe80:: address is reachable only on its own link, so the ranks cannot connect and the job hangs or fails at init."
		if set {
			f.Fix = "NCCL_SOCKET_IFNAME is set but the hosts still bootstrap on different families: set it to one name (or prefix) that exists on every host with an address of one family, or NCCL_SOCKET_FAMILY=AF_INET; check `ip addr` on each host."
		}
	}
	return []Finding{f}
}

// ibSplit reports whether some hosts bootstrap on IPoIB (ib*) and others
// not: NCCL's own pick prefers ib*, so a host with IPoIB up lands on
// another network than one without. Other names differing (ens52np0 and
// ens7np0, the slot in the name) say nothing by themselves.
func ibSplit(hs []*hostBoot) bool {
	ib, other := false, false
	for _, h := range hs {
		for _, i := range h.ifaces {
			if strings.HasPrefix(i, "ib") {
				ib = true
			} else {
				other = true
			}
		}
	}
	return ib && other
}

// NCCL's bootstrap listens on one IP interface and puts its address in
// the unique id (bootstrap.cc, bootstrapNetInit; misc/socket.cc,
// ncclFindInterfaces). When that search matches nothing, NCCL prints
// "Bootstrap : no socket interface found" and returns ncclInvalidUsage
// (ncclInternalError through 2.23); ncclInit keeps that result, so every
// later call of the process fails with it: NCCL never goes on without an
// address. With NCCL_COMM_ID set the bootstrap instead looks for a local
// interface on that address's subnet (ncclFindInterfaceMatchSubnet,
// NCCL_SOCKET_IFNAME not read) and prints "NET/Socket : No usable
// listening interface found".

// ifaceSearch is how NCCL picks the bootstrap's interface.
const ifaceSearch = "NCCL's bootstrap listens on one IP interface and hands its address to the other ranks in the unique id (bootstrap.cc, bootstrapNetInit): the interfaces NCCL_SOCKET_IFNAME names (a prefix; '^' excludes, '=' matches one name exactly) and no others; when it is unset ib*, then any but docker and lo (2.28 on also virbr), then docker, then lo (2.28 on then virbr). An interface counts only with an address of the family NCCL_SOCKET_FAMILY allows, and from 2.28 on only when it is up (IFF_RUNNING; 2.27 and before take down ones too)."

// ifaceMissingClass tells w as NCCL having found no interface to
// bootstrap on, with the NCCL_SOCKET_IFNAME and NCCL_SOCKET_FAMILY lines
// of its host as evidence, or no local interface on NCCL_COMM_ID's
// subnet.
func ifaceMissingClass(l *ingest.NCCLLog, w ingest.Warning) (failureClass, []Evidence, bool) {
	m := strings.ToLower(w.Message)
	switch {
	case strings.Contains(m, "no usable listening interface found"):
		c, ev := commIDSubnetClass(l, w)
		return c, ev, true
	case !strings.Contains(m, "no socket interface found"):
		return failureClass{}, nil, false
	}
	ifname, ev := socketEnv(l, w.Host)
	why := ifaceSearch + " This search matched nothing, so NCCL printed this WARN and returned ncclInvalidUsage (ncclInternalError through 2.23), which every later NCCL call of the process returns too; no connection was attempted: not the network between the hosts. "
	fix := "set NCCL_SOCKET_FAMILY, when set, only to the family of the address that interface has (or unset it)."
	if ifname != "" {
		why += "NCCL_SOCKET_IFNAME=" + ifname + " names no interface with an address in the process's network namespace (another host's name, a container or pod without that interface, one started with --network=none having only lo, an interface without an IP address), or NCCL_SOCKET_FAMILY excludes the address it has."
		fix = "Compare NCCL_SOCKET_IFNAME=" + ifname + " with `ip -br addr` run where the ranks run (inside the container or pod): set it to an interface that has an address there and exists on every host (a prefix such as `eth` or `ens` matches several, `=name` one), or unset it; give a container started with --network=none a network; " + fix
	} else {
		why += "Either NCCL_SOCKET_IFNAME (when the job sets it) names no interface with an address in the process's network namespace (another host's name, a container or pod without that interface, one started with --network=none having only lo), or, with it unset, not even lo has an address of the family NCCL_SOCKET_FAMILY allows (AF_INET6 where lo has no ::1) or, from 2.28 on, no interface is up: unset, the search ends at lo, so a container without a network still finds 127.0.0.1."
		fix = "Run `ip -br addr` and `env | grep NCCL_SOCKET` where the ranks run (inside the container or pod). When NCCL_SOCKET_IFNAME is set, set it to an interface that has an address there and exists on every host, or unset it; a container started with --network=none needs a network then (only then: with it unset NCCL falls back to lo). " + strings.ToUpper(fix[:1]) + fix[1:]
	}
	return failureClass{"NCCL found no network interface to bootstrap on", why, fix}, ev, true
}

// socketEnv returns the NCCL_SOCKET_IFNAME value echoed on host ("" when
// none was) and the echo lines of it and of NCCL_SOCKET_FAMILY (which
// keeps an IPv6-only host's addresses out with AF_INET, or the other way).
func socketEnv(l *ingest.NCCLLog, host string) (string, []Evidence) {
	ifname := ""
	var ev []Evidence
	for _, name := range []string{"NCCL_SOCKET_IFNAME", "NCCL_SOCKET_FAMILY"} {
		for _, e := range l.EnvValues(name) {
			if e.Host == host || host == "" || e.Host == "" {
				if name == "NCCL_SOCKET_IFNAME" {
					ifname = e.Value
				}
				ev = append(ev, e.Evidence)
				break
			}
		}
	}
	return ifname, ev
}

// commIDSubnetClass tells "NET/Socket : No usable listening interface
// found": NCCL_COMM_ID's address is on no local subnet of its family.
func commIDSubnetClass(l *ingest.NCCLLog, w ingest.Warning) (failureClass, []Evidence) {
	var ev []Evidence
	addr := "NCCL_COMM_ID's address"
	for _, e := range l.EnvValues("NCCL_COMM_ID") {
		if e.Host == w.Host || w.Host == "" || e.Host == "" {
			ev, addr = append(ev, e.Evidence), "NCCL_COMM_ID="+e.Value
			break
		}
	}
	return failureClass{"no local interface is on the subnet of NCCL_COMM_ID's address",
		"NCCL prints this WARN only when NCCL_COMM_ID is set (the bootstrap root's <address>:<port>, in place of a unique id the application hands round): the bootstrap then ignores NCCL_SOCKET_IFNAME and listens on the first local interface whose address has the family of " + addr + " and is on its subnet under that interface's netmask (misc/socket.cc, ncclFindInterfaceMatchSubnet; an IPv6 address's scope must match too), and returns ncclSystemError when none is. The address is on no subnet this host has (another network's address, a public or NATed one, a name resolving to such), or it is IPv4 where the host's interfaces have only IPv6 addresses, or the other way. No connection was attempted: not the network between the hosts.",
		"Set NCCL_COMM_ID to the root's (rank 0's host's) address on the network the hosts share, in the family their interfaces have (`[<ipv6>]:<port>` for IPv6), checked with `ip -br addr` on every host; or unset it and let the application hand rank 0's unique id round (torchrun's rendezvous, MPI)."}, ev
}

// idCreatorHint adds to the unique-id class (an address family that is
// no IP family through the bootstrap) that the id's creator may have
// failed its interface search and the application passed the unfilled
// id on anyway: when NCCL_SOCKET_IFNAME was echoed on w's host and no
// line shows that a search found an interface there (Bootstrap, NET/Socket
// or NET/IB OOB "Using"; "Bootstrap : Using" is printed from 2.23 on only
// under NCCL_DEBUG_SUBSYS=BOOTSTRAP, so its absence proves nothing alone).
func idCreatorHint(l *ingest.NCCLLog, w ingest.Warning, c failureClass) (failureClass, []Evidence) {
	ifname, ev := socketEnv(l, w.Host)
	if ifname == "" || slices.ContainsFunc(l.IfaceFound.Hosts, func(h string) bool { return h == w.Host || w.Host == "" || h == "" }) {
		return c, nil
	}
	c.why += " This log echoes NCCL_SOCKET_IFNAME=" + ifname + " and no line shows an interface NCCL's search found (`Bootstrap : Using`, `NET/Socket : Using`, NET/IB's `OOB`): the rank that created the unique id may have failed that search (WARN `Bootstrap : no socket interface found`, ncclGetUniqueId returning ncclInvalidUsage) and the application passed the id on without checking the error."
	c.fix += " Check the result of ncclGetUniqueId where the id is created, and that rank's log for `Bootstrap : no socket interface found`: if so, compare NCCL_SOCKET_IFNAME=" + ifname + " with `ip -br addr` there and set it to an interface with an address, or unset it."
	return c, ev
}

// oobIfnameClass is NCCL_OOB_NET_IFNAME matching no device of the network
// NCCL runs the bootstrap over when NCCL_OOB_NET_ENABLE=1 (bootstrap.cc's
// netGetDevice, NVIDIA/nccl v2.24-v2.30: "no device found matching
// mlx5_9, verify NCCL_OOB_NET_IFNAME", or "... after excluding ..." for a
// ^ list), which returns ncclInvalidArgument. The list is matched against
// the net transport's device names (mlx5_0, or mlx5_0:1 with a port), not
// against the IP interfaces NCCL_SOCKET_IFNAME names.
func oobIfnameClass(msg string) (failureClass, bool) {
	msg = strings.TrimSpace(msg)
	m := strings.ToLower(msg)
	if !strings.HasPrefix(m, "no device found ") || !strings.HasSuffix(m, "verify nccl_oob_net_ifname") {
		return failureClass{}, false
	}
	return failureClass{"NCCL_OOB_NET_IFNAME names no device of the network NCCL bootstraps over (" + strings.TrimSuffix(msg, ", verify NCCL_OOB_NET_IFNAME") + ")",
		"With NCCL_OOB_NET_ENABLE=1 (NCCL 2.23 on) the bootstrap runs over the network NCCL chose (NET/IB's RDMA devices, or a net plugin's) instead of TCP sockets, on its first device or the first one NCCL_OOB_NET_IFNAME matches. That list is matched against the network's device names as NCCL lists them ('NET/IB : Using [0]mlx5_0:1/RoCE': mlx5_0, or mlx5_0:1 with its port; a plugin's own names), with ^ to exclude and = for exact names; an IP interface name (eth0, bond0, what NCCL_SOCKET_IFNAME takes), a device this host does not have, or an exclusion list that leaves nothing matches none, and init returns 'invalid argument' before any rank connects. The fabric is not at fault.",
		"Set NCCL_OOB_NET_IFNAME to a device of the network's own list on every host (the names in the 'NET/IB : Using' line, e.g. mlx5_0 or =mlx5_0:1), or unset it to take the first device; or unset NCCL_OOB_NET_ENABLE to bootstrap over TCP sockets on the interface NCCL_SOCKET_IFNAME selects."}, true
}
