package doctor

import (
	"strings"
	"testing"
)

// NCCL logs of the second twenty-fourth sweep: each test on a real
// excerpt fails on the code before its fix.

// A RoCE job that fails with retry exceeded (status 12) prints no NCCL
// version and no NCCL_IB_GID_INDEX echo (pytorch/pytorch#81628, fixed by
// NCCL_IB_GID_INDEX=3). Its connection lines ("Channel 00 :" without a
// connection index) and its completion error's wording ("from peer ...
// with error 12,") are those of NCCL 2.10-2.11, so NCCL's default before
// 2.21, index 0, applies: said as inferred. Before, no GID finding.
func TestGIDDefaultFromLineShapes(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.1x-roce-retry-exceeded-no-version-gid-default-pytorch81628.txt")
	f := nicMustFind(t, fs, "gid.index.default_zero", Warn, "tf144 mlx5_0", "NCCL 2.10-2.11 inferred from the log's line shapes")
	if !strings.Contains(f.Mechanism, "line 9") || !strings.Contains(f.Mechanism, "line 12") {
		t.Errorf("the mechanism does not cite the lines that date the log: %s", f.Mechanism)
	}
	// i40iw0 is listed but no connection goes over it (NET/IB/0 and /1
	// only), which a log dated before 2.24 lets the doctor tell.
	if strings.Contains(f.Title, "i40iw0") {
		t.Errorf("the idle device is called a GID user: %s", f.Title)
	}
	nicMustFind(t, fs, "nccl.ib.retry_exceeded", Error, "status 12", "tf144")
}

// Lines whose shapes allow releases on both sides of 2.21 (SYNTHETIC
// lines in NCCL 2.20+'s format: "Channel 00/0", "status=12") or that date
// nothing (no connection line, no completion error) give no default.
func TestGIDDefaultNotInferredAcross221(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"h1:10:10 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
		"h1:10:20 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA",
		"h1:10:30 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<4242> with status=12 opcode=0 len=0 vendor err 129 (Send)")
	nicMustNot(t, fs, "gid.index.default_zero")
	fs = synthFindings(t, Options{},
		"# synthetic",
		"h1:10:10 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.1<0>",
		"h1:10:10 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 0.",
		"h1:10:20 [0] NCCL INFO Connected all rings")
	nicMustNot(t, fs, "gid.index.default_zero")
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

// Two processes of one host fail: rank 3 runs out of GPU memory, rank 0
// finds its socket to it closed (NVIDIA/nccl#1235). The closed connection
// is told under the out-of-memory failure, with its line, not beside it.
// Before, "A peer closed its NCCL connection" was a finding of its own,
// listed first.
func TestPeerClosedToldUnderItsCause(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.1x-cuda-out-of-memory-p2p-calloc-peer-closed-nccl1235.txt")
	nicMustNot(t, nicFind(fs, "nccl.warn.error", "A peer closed its NCCL connection"), "nccl.warn.error")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "NCCL could not allocate GPU memory")
	if !strings.Contains(f.Mechanism, "Its fallout, told here") || !slicesHasLine(f.Evidence, 3) {
		t.Errorf("the closed connection is not told under its cause: %s %+v", f.Mechanism, f.Evidence)
	}
}

// A peer's closed connection with no other failure in its log, or beside
// two failures of other kinds, stays a finding of its own (SYNTHETIC
// lines in NCCL's format).
func TestPeerClosedAloneOrAmbiguous(t *testing.T) {
	closed := "h1:10:20 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer h2<5>"
	ret := "h1:10:20 [0] NCCL INFO misc/socket.cc:749 -> 6"
	fs := synthFindings(t, Options{}, "# synthetic", closed, ret)
	nicMustFind(t, fs, "nccl.warn.error", Error, "A peer closed its NCCL connection")
	fs = synthFindings(t, Options{}, "# synthetic", closed, ret,
		"h1:11:21 [1] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'",
		"h1:11:21 [1] NCCL INFO transport/p2p.cc:204 -> 1",
		"h1:12:22 [2] misc/strongstream.cc:10 NCCL WARN Something else failed",
		"h1:12:22 [2] NCCL INFO misc/strongstream.cc:12 -> 3")
	nicMustFind(t, fs, "nccl.warn.error", Error, "A peer closed its NCCL connection")
}

func slicesHasLine(ev []Evidence, line int) bool {
	for _, e := range ev {
		if e.Line == line {
			return true
		}
	}
	return false
}
