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
