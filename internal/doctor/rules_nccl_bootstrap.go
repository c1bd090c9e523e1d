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
