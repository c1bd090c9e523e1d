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
// the unique id (bootstrap.cc, bootstrapNetInit): the interfaces
// NCCL_SOCKET_IFNAME names, else ib*, else any but docker, lo and
// virbr, then those; only interfaces up with an address of the family
// NCCL_SOCKET_FAMILY allows count. When that search matches nothing,
// NCCL says so ("Bootstrap : no socket interface found"; with
// NCCL_COMM_ID "NET/Socket : No usable listening interface found"), or
// a release that goes on (NVIDIA/nccl#1837, 2.27.7) leaves the address
// unset, and the first connect reads a family that is no family
// ("connecting to address  with family 59936 is neither AF_INET(2) nor
// AF_INET6(10)").

// ifaceMissingClass tells w as NCCL having found no interface to
// bootstrap on, with the NCCL_SOCKET_IFNAME lines of its host as
// evidence: the WARN that says so, or an unset address (a family that is
// neither AF_INET, AF_INET6, nor the 0 or AF_UNIX of a unique id the
// ranks did not share) after NCCL_SOCKET_IFNAME was echoed and no
// "Bootstrap : Using" line on that host.
func ifaceMissingClass(l *ingest.NCCLLog, w ingest.Warning) (failureClass, []Evidence, bool) {
	m := strings.ToLower(w.Message)
	var set []ingest.NCCLSetting
	for _, e := range l.EnvValues("NCCL_SOCKET_IFNAME") {
		if e.Host == w.Host || w.Host == "" || e.Host == "" {
			set = append(set, e)
		}
	}
	said := strings.Contains(m, "no socket interface found") || strings.Contains(m, "no usable listening interface found")
	if !said {
		fam, ok := socketFamily(m)
		booted := slices.ContainsFunc(l.BootIfaces, func(b ingest.BootIface) bool { return b.Host == w.Host || w.Host == "" })
		if !ok || fam <= 1 || len(set) == 0 || booted || socketTransport(w.Chain) {
			return failureClass{}, nil, false
		}
	}
	var ev []Evidence
	names := "NCCL_SOCKET_IFNAME (when the job sets it)"
	if len(set) > 0 {
		ev = append(ev, set[0].Evidence)
		names = "NCCL_SOCKET_IFNAME=" + set[0].Value
	}
	why := "NCCL's bootstrap listens on one IP interface and hands its address to the other ranks in the unique id: the interfaces NCCL_SOCKET_IFNAME names (a prefix; '^' excludes, '=' matches one name exactly), else ib*, else any but docker, lo and virbr, then those; only interfaces that are up with an address of the family NCCL_SOCKET_FAMILY allows count. This search matched nothing on the host, so no connection was attempted: not the network between the hosts, but " + names + " not existing in the process's network namespace (another host's name, a container or pod without that interface), an interface without an IP address, or NCCL_SOCKET_FAMILY excluding the address it has."
	if !said {
		why += " This NCCL release went on without an address (NVIDIA/nccl#1837, 2.27.7), so the unique id carries an address family that is none (" + strings.TrimSpace(w.Message) + ") rather than the WARN 'Bootstrap : no socket interface found'."
	}
	return failureClass{"NCCL found no network interface to bootstrap on",
		why,
		"Compare " + names + " with `ip -br addr` run where the ranks run (inside the container or pod): set NCCL_SOCKET_IFNAME to an interface that is up with an address there, present on every host (a prefix such as `eth` or `ens` matches several, `=name` one), or unset it; give a container a network (not --network=none), and set NCCL_SOCKET_FAMILY only to the family of that address."}, ev, true
}

// socketFamily reads N from "... with family N is neither AF_INET(2)
// nor AF_INET6(10)".
func socketFamily(m string) (int, bool) {
	_, rest, ok := strings.Cut(m, "with family ")
	if !ok || !strings.Contains(m, "neither af_inet") {
		return 0, false
	}
	f, _, _ := strings.Cut(rest, " ")
	n, err := strconv.Atoi(f)
	return n, err == nil
}
