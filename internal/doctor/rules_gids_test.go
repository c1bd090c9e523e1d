package doctor

import (
	"strings"
	"testing"
)

// A show_gids paste that ends after a bond's IPv4 v1 row: the port has an
// address, its v2 row is missing. rocelab said it had no address.
func TestGIDV1RowWithoutV2(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/threads/show-gids-bond0-bond1-ipv4-at-2-3-ucx10420.txt")
	f := nicMustFind(t, fs, "gid.index.roce_v2", Info, "NCCL_IB_GID_INDEX=3", "no RoCE v2 row on mlx5_bond_1 beside its routable v1 row")
	if strings.Contains(f.Title, "no routable GID") || strings.Contains(f.Mechanism, "has no address") {
		t.Errorf("v1-only port read as addressless: %s / %s", f.Title, f.Mechanism)
	}
	if last := f.Evidence[len(f.Evidence)-1]; !strings.Contains(last.Text, "10.16.39.13     v1") {
		t.Errorf("evidence %v", last)
	}
}

// perftest over rdma_cm printed "GID index : 0" (its default, before the
// 2026 releases) beside the IPv4 GID rdma_cm had resolved: rocelab said
// index 0 held that GID.
func TestPerftestRDMACMDefaultGIDIndex(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/perftest/perftest-write-bw-rdma-cm-gid0-repeated-rows-cut-perftest342.txt")
	nicMustNot(t, fs, "gid.index.ipv4")
	nicMustFind(t, fs, "perftest.bw.unjudged", Info, "best 42.3 Gb/s")
	// An index given with -x over rdma_cm is still read.
	nicMustFind(t, diagnoseFiles(t, Options{}, "corpus/perftest/perftest-4-runs-one-device-devinfo-ibstat-cx5-roce-k8s-notes.txt"), "gid.index.ipv4", Info, "GID index 3 in use")
}

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

// A Huawei hrn3 GID table (hiroce3 gids, v2 rows only) names index 1, not
// mlx5's 3, as the RoCEv2 IPv4 GID.
func TestHiroceGIDIndex(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/hiroce3-gids-huawei-hrn3-v2-only-index1-ipv4.txt")
	nicMustFind(t, fs, "gid.index.roce_v2", Info, "index 1 (hrn3_bond_0 27.105.180.3)", "NCCL_IB_GID_INDEX=1")
}

// A perftest run states the GID its index held; another input's table of
// a host it may not be does not overrule it. Diagnosed together with
// IBM/SpectrumScale_NETWORK_READINESS#4's table (index 3 link-local
// there, on a "localhost"), the Kubernetes
// notes' four runs on mlx5_0 index 3 (::ffff:10.0.32.4) were each
// reported as using a link-local GID.
func TestOwnGIDOutranksOtherTable(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/perftest/perftest-4-runs-one-device-devinfo-ibstat-cx5-roce-k8s-notes.txt", "corpus/threads/show-gids-two-linklocal-ipv4-at-4-5-spectrumscale4.txt")
	for _, f := range nicFind(fs, "gid.index.link_local") {
		for _, e := range f.Evidence {
			if strings.Contains(e.File, "perftest-4-runs") {
				t.Errorf("a run judged by another file's table: %s", f.Title)
			}
		}
	}
	nicMustFind(t, fs, "gid.index.ipv4", Info, "GID index 3 in use is the IPv4 GID ::ffff:10.0.32.4")
}

// Real text (multus-cni#1100): GID indices set with export
// lines, two pods' show_gids tables of the same device in one paste. The
// tables are kept apart, so the RoCEv2 row at index 5 in one and 7 in the
// other is a mismatch with the value for each, and each exported value is
// joined with a table.
func TestGIDIndexTwoPodsExport(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "corpus/threads/show-gids-two-pods-export-gid5-7-multus1100.txt")
	m := nicMustFind(t, fs, "gid.index.mismatch", Warn, "5 on mlx5_4 (table 1", "7 on mlx5_4 (table 2")
	if !strings.Contains(m.Fix, "NCCL_IB_GID_INDEX=5 on mlx5_4 (table 1") || !strings.Contains(m.Fix, "NCCL_IB_GID_INDEX=7 on mlx5_4 (table 2") {
		t.Errorf("fix does not give each pod its value: %s", m.Fix)
	}
	if !strings.Contains(m.Mechanism, "5 (") || !strings.Contains(m.Mechanism, "7 (") {
		t.Errorf("mechanism does not cite the exported values: %s", m.Mechanism)
	}
	nicMustFind(t, fs, "gid.index.roce_v2", Info, "GID index 5", "set by export")
	nicMustFind(t, fs, "gid.index.roce_v2", Info, "GID index 7", "set by export")
}

// SYNTHETIC: perftest's remote end exchanged the all-zero GID;
// gid.index.zero names it as the cause of "Failed to modify QP to RTR".
func TestPerftestZeroGID(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "synthetic/perftest-remote-gid-zero-synthetic.txt")
	f := nicMustFind(t, fs, "gid.index.zero", Error, "remote end's GID is all zeros", "why the QP could not be moved to RTR")
	if len(f.Evidence) < 4 || !strings.Contains(f.Evidence[len(f.Evidence)-1].Text, "Unable to Connect") {
		t.Errorf("evidence lacks the failure: %v", f.Evidence)
	}
	nicMustFind(t, fs, "perftest.connect.failed", Error, "the remote end's GID is all zeros")
	nicMustNot(t, fs, "gid.index.default_zero")
}

// Real text (NVIDIA/nccl#2013): ibv_modify_qp timed out with GID
// index 3 and IPv4-mapped GIDs at both ends. Not a GID problem: the
// finding offers route, rail-only fabric with NCCL_CROSS_NIC, firewall and
// MTU, and no GID rule blames the index.
func TestQPTimeoutWithRoutableGIDs(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/threads/qp-rtr-timeout-gid3-ipv4-rail-nccl2013.txt")
	f := nicMustFind(t, fs, "nccl.ib.qp_setup_failed", Error, "routable RoCE GIDs", "not a GID problem")
	for _, want := range []string{"no route between the two NICs' subnets", "NCCL_CROSS_NIC", "firewall", "MTU", "v1 row"} {
		if !strings.Contains(f.Mechanism, want) {
			t.Errorf("mechanism lacks %q: %s", want, f.Mechanism)
		}
	}
	if !strings.HasPrefix(f.Fix, "Keep the GID index") || strings.Contains(f.Fix, "set NCCL_IB_GID_INDEX") {
		t.Errorf("fix blames the GID index: %s", f.Fix)
	}
	for _, id := range []string{"gid.index.link_local", "gid.index.zero", "gid.index.empty", "gid.index.default_zero"} {
		nicMustNot(t, fs, id)
	}
	nicMustFind(t, fs, "gid.index.ipv4", Info, "host-01.example.com", "GID index 3")
	// SYNTHETIC: an older NCCL prints no GIDs in the line; show_gids says
	// index 3 is the RoCE v2 IPv4 row, and the two ends' subnets differ.
	fs = synthFindings(t, Options{},
		"[root@gpu1 ~]# show_gids",
		"DEV     PORT    INDEX   GID                                     IPv4            VER     DEV",
		"---     ----    -----   ---                                     ------------    ---     ---",
		"mlx5_0  1       3       0000:0000:0000:0000:0000:ffff:0a00:0105 10.0.1.5        v2      ens1np0",
		"gpu1:10:12 [0] misc/ibvwrap.cc:262 NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_0:1, curr state INIT, next state RTR, local GID index 3, local GID ::ffff:10.0.1.5, remote GID ::ffff:10.0.2.7")
	f = nicMustFind(t, fs, "nccl.ib.qp_setup_failed", Error, "not a GID problem")
	if !strings.Contains(f.Mechanism, "different subnets (10.0.1.5, 10.0.2.7)") {
		t.Errorf("subnets not named: %s", f.Mechanism)
	}
	// A link-local GID in the same line is still the GID's fault.
	fs = synthFindings(t, Options{},
		"gpu1:10:12 [0] misc/ibvwrap.cc:262 NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_0:1, curr state INIT, next state RTR, local GID index 1, local GID fe80::1, remote GID fe80::2")
	nicMustFind(t, fs, "gid.index.link_local", Error)
	nicMustNot(t, fs, "nccl.ib.qp_setup_failed")
}

// Real text (NVIDIA/nccl#1573): a pod's GID tables whose
// link-local rows are 4 and 5. The text names those rows, never "0/1".
func TestLinkLocalRowsFromTable(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/threads/show-gids-pod-linklocal-4-5-nccl1573.txt")
	f := nicMustFind(t, fs, "gid.index.roce_v2", Info, "index 7", "NCCL_IB_GID_INDEX=7")
	if !strings.Contains(f.Mechanism, "index 4 (v1), 5 (v2)") || strings.Contains(f.Mechanism, "0/1") || strings.Contains(f.Mechanism, "0 and 1") {
		t.Errorf("link-local rows: %s", f.Mechanism)
	}
}

// NCCL's defaults apply when the log states no GID index. Real
// text: the queue-pair line of NVIDIA/nccl#1657 shows what index 0 holds
// (a link-local GID). SYNTHETIC: NCCL 2.10 connecting RoCE without the
// echo uses index 0; NCCL 2.22 on an IPv6-only table keeps index 0.
func TestGIDIndexNCCLDefaults(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/threads/nccl2.2x-qp-gid0-linklocal-pod-nccl1657.txt")
	nicMustFind(t, fs, "gid.index.link_local", Error, "GID index 0", "fe80::5ea7:21ff:fe41:8a1a")
	nicMustNot(t, fs, "gid.index.default_zero")

	fs = synthFindings(t, Options{},
		"NCCL version 2.10.3+cuda11.4",
		"gpu1:10:10 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.1<0>",
		"gpu1:10:10 [0] NCCL INFO Using network IB",
		"gpu1:10:30 [0] NCCL INFO Channel 00 : 0[1a000] -> 1[1a000] [send] via NET/IB/0")
	f := nicMustFind(t, fs, "gid.index.default_zero", Warn, "gpu1 mlx5_0", "NCCL's default")
	if !strings.Contains(f.Mechanism, "before 2.21 uses index 0") {
		t.Errorf("mechanism does not say why index 0: %s", f.Mechanism)
	}

	fs = synthFindings(t, Options{},
		"gpu1:10:10 [0] NCCL INFO NCCL version 2.22.3+cuda12.4",
		"gpu1:10:10 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
		"gpu1:10:30 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0",
		"gpu1$ show_gids",
		"DEV     PORT    INDEX   GID                                     IPv4            VER     DEV",
		"mlx5_0  1       0       fe80:0000:0000:0000:5ea7:21ff:fe41:8a1a                 v1      eth2",
		"mlx5_0  1       1       fe80:0000:0000:0000:5ea7:21ff:fe41:8a1a                 v2      eth2",
		"mlx5_0  1       2       fd93:16d3:59b6:0023:0000:0000:0000:0011                 v1      eth2",
		"mlx5_0  1       3       fd93:16d3:59b6:0023:0000:0000:0000:0011                 v2      eth2")
	f = nicMustFind(t, fs, "gid.index.link_local", Error, "GID index 0", "NCCL's own choice")
	if !strings.Contains(f.Mechanism, "no IPv4 GID") || !strings.Contains(f.Mechanism, "AF_INET6") {
		t.Errorf("mechanism does not explain the choice: %s", f.Mechanism)
	}
}

// An empty GID table. Real text: show_gids in a Kubernetes pod
// on calico, n_gids_found=0 (Mellanox/k8s-rdma-sriov-dev-plugin#30).
func TestEmptyGIDTable(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/threads/show-gids-empty-pod-calico-k8srdma30.txt")
	nicMustFind(t, fs, "gid.table.empty", Warn, "n_gids_found=0")
	// Real text: a sparse table starting at 6 (NVIDIA/nccl#1587) and two
	// link-local addresses before the IPv4 rows (SpectrumScale#4).
	fs = diagnoseFiles(t, Options{}, "corpus/threads/show-gids-sparse-from-6-nccl-pr1587.txt")
	nicMustFind(t, fs, "gid.index.roce_v2", Info, "index 7", "11.0.4.1")
	fs = diagnoseFiles(t, Options{}, "corpus/threads/show-gids-two-linklocal-ipv4-at-4-5-spectrumscale4.txt")
	nicMustFind(t, fs, "gid.index.roce_v2", Info, "index 5", "172.19.0.60")
}

// More GID table shapes. SYNTHETIC tables in show_gids' format: an
// IPv6-only table (ULA addresses, as on the Broadcom NICs of
// uccl-project/uccl#803), one address on a VXLAN device and on the bond
// that carries RoCE, and an older show_gids without the VER and DEV
// columns.
func TestGIDTableShapes(t *testing.T) {
	fs := synthFindings(t, Options{},
		"DEV     PORT    INDEX   GID                                     IPv4            VER     DEV",
		"bnxt_re0  1     0       fe80:0000:0000:0000:5ea7:21ff:fe41:8a1a                 v1      eth2",
		"bnxt_re0  1     1       fe80:0000:0000:0000:5ea7:21ff:fe41:8a1a                 v2      eth2",
		"bnxt_re0  1     2       fd93:16d3:59b6:0023:0000:0000:0000:0011                 v1      eth2",
		"bnxt_re0  1     3       fd93:16d3:59b6:0023:0000:0000:0000:0011                 v2      eth2")
	f := nicMustFind(t, fs, "gid.index.roce_v2", Info, "RoCEv2 IPv6 GID is index 3")
	if !strings.Contains(f.Fix, "NCCL_IB_ADDR_FAMILY=AF_INET6") {
		t.Errorf("fix does not name the address family: %s", f.Fix)
	}
	fs = synthFindings(t, Options{},
		"DEV     PORT    INDEX   GID                                     IPv4            VER     DEV",
		"mlx5_bond_0  1  0       fe80:0000:0000:0000:0e42:a1ff:fe5d:4db8                 v1      bond0",
		"mlx5_bond_0  1  1       fe80:0000:0000:0000:0e42:a1ff:fe5d:4db8                 v2      bond0",
		"mlx5_bond_0  1  2       0000:0000:0000:0000:0000:ffff:0a00:0005 10.0.0.5        v1      vxlan100",
		"mlx5_bond_0  1  3       0000:0000:0000:0000:0000:ffff:0a00:0005 10.0.0.5        v2      vxlan100",
		"mlx5_bond_0  1  4       0000:0000:0000:0000:0000:ffff:0a00:0005 10.0.0.5        v1      bond0",
		"mlx5_bond_0  1  5       0000:0000:0000:0000:0000:ffff:0a00:0005 10.0.0.5        v2      bond0")
	f = nicMustFind(t, fs, "gid.index.roce_v2", Info, "index 5", "10.0.0.5")
	if !strings.Contains(f.Mechanism, "bond0") {
		t.Errorf("mechanism does not say why bond0's row: %s", f.Mechanism)
	}
	fs = synthFindings(t, Options{},
		"DEV     PORT    INDEX   GID                                     IPv4",
		"---     ----    -----   ---                                     ------------",
		"mlx5_0  1       0       fe80:0000:0000:0000:0e42:a1ff:fe5d:4db8",
		"mlx5_0  1       1       0000:0000:0000:0000:0000:ffff:ac13:003c 172.19.0.60",
		"NCCL_IB_GID_INDEX=1")
	nicMustFind(t, fs, "gid.index.ipv4", Info, "GID index 1", "172.19.0.60")
}

// A ConnectX-3 port with IPv4 GIDs on untagged eth2 and on the VLAN
// netdev eth2.10 (tensorflow/tensorflow#22077): the index chosen decides
// whether RoCE frames carry the PCP priority that PCP-based PFC needs.
// Before, the VLAN row went unremarked. mlx5_0, all on eth4, and a table
// whose every row is on VLAN netdevs say nothing.
func TestGIDVLANBesideUntagged(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/show-gids-mlx4-vlan-eth2.10-beside-untagged-eth2-mlx5-v2-index3-tf22077.txt")
	f := nicMustFind(t, fs, "gid.vlan.mixed", Info, "mlx4_0 port 1: routable GIDs on untagged eth2 (index 1 12.12.12.12 v1) and on VLAN 10 netdev eth2.10 (index 2 10.10.10.2 v1)")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 7 || f.Evidence[1].Line != 8 || !strings.Contains(f.Fix, "index 2 here") {
		t.Errorf("evidence %+v, fix %s", f.Evidence, f.Fix)
	}
	// mlx4_0's rows are RoCE v1: no IP header, no DSCP, so only the tag's
	// PCP gives them a lossless priority, whatever the switch trusts.
	if !strings.Contains(f.Fix, "RoCE v1, which has no IP header") || strings.Contains(f.Fix, "DSCP-based PFC") {
		t.Errorf("fix for a RoCE v1 port: %s", f.Fix)
	}
	if n := len(nicFind(fs, "gid.vlan.mixed")); n != 1 {
		t.Errorf("%d gid.vlan.mixed findings, want mlx4_0 port 1 alone", n)
	}
	// A RoCE v2 port (SYNTHETIC rows in show_gids' layout): with DSCP
	// trust either netdev's v2 index serves, if the switch port carries
	// the VLAN.
	v2 := nicMustFind(t, synthFindings(t, Options{},
		"DEV     PORT    INDEX   GID                                     IPv4            VER     DEV",
		"mlx5_0  1       3       0000:0000:0000:0000:0000:ffff:0c0c:0b0c 12.12.11.12     v2      eth4",
		"mlx5_0  1       5       0000:0000:0000:0000:0000:ffff:0a0a:0a02 10.10.10.2      v2      eth4.10"), "gid.vlan.mixed", Info, "VLAN 10 netdev eth4.10")
	if !strings.Contains(v2.Fix, "index 5 here") || !strings.Contains(v2.Fix, "DSCP-based PFC") || !strings.Contains(v2.Fix, "carries its VLAN") {
		t.Errorf("fix for a RoCE v2 port: %s", v2.Fix)
	}
	// A VXLAN device named b3.vxlan.30100 is no VLAN (#9484 of
	// openucx/ucx: the same IPv4 on it and on bond1).
	nicMustNot(t, diagnoseFiles(t, Options{}, "corpus/threads/show-gids-bond-vxlan-same-ipv4-at-2-3-and-4-5-ucx9484.txt"), "gid.vlan.mixed")
	nicMustNot(t, synthFindings(t, Options{},
		"DEV     PORT    INDEX   GID                                     IPv4            VER     DEV",
		"mlx5_0  1       2       0000:0000:0000:0000:0000:ffff:0a0a:0a02 10.10.10.2      v1      ens1f0.100",
		"mlx5_0  1       3       0000:0000:0000:0000:0000:ffff:0a0a:0a02 10.10.10.2      v2      ens1f0.100"), "gid.vlan.mixed")
}
