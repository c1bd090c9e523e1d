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

// Class 1 and 2, real text (multus-cni#1100): GID indices set with export
// lines, two pods' show_gids tables of the same device in one paste. The
// tables are kept apart, so the RoCEv2 row at index 5 in one and 7 in the
// other is a mismatch with the value for each, and each exported value is
// joined with a table.
func TestClass1And2TwoPodsExport(t *testing.T) {
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
