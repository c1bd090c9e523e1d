package doctor

import (
	"strings"
	"testing"
)

// The bootstrap root of a newer NCCL refuses check-ins from an older
// NCCL's ranks (devopsrustem/slurmv4): the offset it prints is the
// sender's listen address, 0xebb80002 = AF_INET and port 47339. Before,
// these lines were called a failed connection between ranks, and the fix
// sent the reader to NCCL_SOCKET_IFNAME and firewalls.
func TestBootstrapRootMismatchIsTwoNCCLVersions(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.28-bootstrap-root-mismatch-offset-is-sockaddr-two-versions-slurmv4.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Warn, "Ranks of two NCCL versions checked in to one bootstrap root", "on tpgds-aihub0003; 1 line")
	if !strings.Contains(f.Mechanism, "offset -340262910") || !strings.Contains(f.Mechanism, "(47339)") || f.Evidence[0].Line != 4 {
		t.Errorf("offset not decoded: %s %+v", f.Mechanism, f.Evidence)
	}
	// The older ranks' refused connects to the root are still a
	// connection failure of their own.
	nicMustFind(t, fs, "nccl.warn.error", Warn, "bootstrap connection between ranks failed", "on tpgds-aihub0006; 7 lines")

	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.28-bootstrap-root-mismatch-twice-then-os-linux-connect-refused-slurmv4.txt")
	f = nicMustFind(t, fs, "nccl.warn.error", Warn, "Ranks of two NCCL versions", "2 lines")
	if !strings.Contains(f.Mechanism, "(53069)") {
		t.Errorf("first offset 0x4dcf0002 not read as port 53069: %s", f.Mechanism)
	}
	for _, f := range fs {
		if strings.Contains(f.Title, "connection between ranks failed") && strings.Contains(f.Title, "2 lines") {
			t.Errorf("the mismatch lines are called a connect failure: %s", f.Title)
		}
	}
}

// The root's other refusals, SYNTHETIC lines in NCCL's format
// (bootstrap.cc): check-ins that disagree in size, and a rank checked in
// twice.
func TestBootstrapRootOtherRefusals(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"h1:100:200 [0] bootstrap.cc:345 NCCL WARN Bootstrap Root : mismatch in info from procs, nranks 16 vs 8, nroots 1 vs 1, iroot 0 vs 0, offset 0 vs 0",
		"h1:101:201 [1] bootstrap.cc:352 NCCL WARN Bootstrap Root : rank 3 of 16 ranks has already checked in")
	nicMustFind(t, fs, "nccl.warn.error", Warn, "NCCL's bootstrap root got check-ins that disagree (nranks 16 vs 8)")
	nicMustFind(t, fs, "nccl.warn.error", Warn, "Two processes checked in to NCCL's bootstrap root as the same rank")
	for _, f := range fs {
		if strings.Contains(f.Title, "connection between ranks failed") {
			t.Errorf("a refused check-in is called a connect failure: %s", f.Title)
		}
	}
}

// addressAsOffset reads a sockaddr's first four bytes as NCCL's int
// offset: family in the low half, the port in network order above.
func TestAddressAsOffset(t *testing.T) {
	for _, c := range []struct {
		v    int64
		port int
		ok   bool
	}{
		{1305411586, 0xcf4d, true}, // 0x4dcf0002
		{-981270526, 0x83c5, true}, // 0xc5830002
		{0x5000000a, 0x0050, true}, // AF_INET6, port 80
		{0, 0, false},
		{3, 0, false},
		{2, 0, false}, // AF_INET without a port is no address
	} {
		port, ok := addressAsOffset(c.v)
		if ok != c.ok || ok && port != c.port {
			t.Errorf("addressAsOffset(%d) = %d %v, want %d %v", c.v, port, ok, c.port, c.ok)
		}
	}
}

// Two hosts bootstrap on different interfaces and address families: gh1
// on ib0 with a link-local fe80:: address, gh2 on bond0 with IPv4, and
// nccl-tests hangs at init (NVIDIA/nccl#1291). Before, only "no network
// lines" and "no rows" were said.
func TestBootstrapFamiliesDiffer(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.2x-bootstrap-ib0-linklocal-vs-bond0-ipv4-nccl1291.txt")
	f := nicMustFind(t, fs, "nccl.bootstrap.ifname_mismatch", Error, "gh1 on ib0", "gh2 on bond0", "IPv6 link-local, IPv4")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 9 || f.Evidence[1].Line != 11 {
		t.Errorf("evidence is not both hosts' bootstrap lines: %+v", f.Evidence)
	}
}

// SYNTHETIC lines in NCCL's format: one node, hosts that share an
// interface, a NCCL_SOCKET_IFNAME that is set, and Ethernet names that
// differ by slot give nothing; IPoIB on one host and Ethernet on another,
// one family, is a warning.
func TestBootstrapInterfacesGuards(t *testing.T) {
	boot := func(lines ...string) []Finding {
		return synthFindings(t, Options{}, append([]string{"# synthetic"}, lines...)...)
	}
	nicMustNot(t, boot(
		"h1:10:10 [0] NCCL INFO Bootstrap : Using ib0:fe80::1%ib0<0>",
		"h1:11:11 [1] NCCL INFO Bootstrap : Using ib0:fe80::1%ib0<0>"), "nccl.bootstrap.ifname_mismatch")
	nicMustNot(t, boot(
		"h1:10:10 [0] NCCL INFO Bootstrap : Using bond0:10.0.0.1<0>",
		"h2:10:10 [0] NCCL INFO Bootstrap : Using bond0:10.0.0.2<0>"), "nccl.bootstrap.ifname_mismatch")
	nicMustNot(t, boot(
		"h1:10:10 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth",
		"h1:10:10 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
		"h2:10:10 [0] NCCL INFO Bootstrap : Using eth1:10.0.0.2<0>"), "nccl.bootstrap.ifname_mismatch")
	nicMustNot(t, boot(
		"h1:10:10 [0] NCCL INFO Bootstrap : Using ens52np0:10.0.0.1<0>",
		"h2:10:10 [0] NCCL INFO Bootstrap : Using ens7np0:10.0.1.2<0>"), "nccl.bootstrap.ifname_mismatch")
	nicMustFind(t, boot(
		"h1:10:10 [0] NCCL INFO Bootstrap : Using ib0:10.1.0.1<0>",
		"h2:10:10 [0] NCCL INFO Bootstrap : Using eth0:10.0.1.2<0>"), "nccl.bootstrap.ifname_mismatch", Warn, "h1 on ib0, h2 on eth0")
}
