package doctor

import (
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// Artifacts of the eleventh sweep: NIC and GPU-host outputs of recent
// hardware (bnxt_en on kernel 6.6, ConnectX-7, H100/H20 topologies,
// GB200 and V100 NVLink status). Each test failed before the change it
// covers.

// bnxt_en counts its port's drops as rx_stat_discard: the dump read as
// clean, and a drop finding spoke of mlx5 counters and mlnx_qos.
func TestBnxtPortDiscards(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/ethtool-bnxt-en-6.6-ring-stat-discards-12-rings-ethq33.txt")
	f := nicMustFind(t, fs, "counters.discards", Info, "rx_stat_discard 49337", "of rx_total_frames")
	if !strings.HasPrefix(f.Mechanism, "rx_stat_discard counts packets") || strings.Contains(f.Mechanism, "rx_discards_phy") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
	if !strings.Contains(f.Fix, "dcb pfc set dev <if> prio-pfc all:off 3:on") || strings.Contains(f.Fix, "mlnx_qos") {
		t.Errorf("fix %s", f.Fix)
	}
	// Read beside a be2net dump, with no device names to tell them apart:
	// they share a few generic names (rx_pause_frames…) but are no
	// before/after pair of one port.
	fs = diagnoseFiles(t, Options{}, "corpus/ethtool/ethtool-be2net-rxq-drops-no-frags-netutils208.txt", "corpus/ethtool/ethtool-bnxt-en-6.6-ring-stat-discards-12-rings-ethq33.txt")
	f = nicMustFind(t, fs, "counters.discards", Info, "rx_stat_discard 49337")
	if strings.Contains(f.Title, "window") || !strings.Contains(f.Mechanism, "since driver load") {
		t.Errorf("two NICs' dumps joined as a pair: %s / %s", f.Title, f.Mechanism)
	}
}

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

// `rdma statistic` wraps a port's long line; the continuation lines
// (indented name/value pairs) were dropped, with them 19 QPs out of
// transport retries and 1543 RNR NAKs. RNR NAKs were counted as loss
// recovery, and the responder's out_of_buffer got a PFC fix.
func TestRDMAStatisticWrappedRNR(t *testing.T) {
	rel := "corpus/hwcounters/rdma-statistic-wrapped-rnr-retries-exceeded-slow-restart-sonic21891.txt"
	fs := diagnoseFiles(t, Options{}, rel)
	nicMustFind(t, fs, "counters.retry_exceeded", Warn, "mlx5_1 port 1: 19 queue pairs ran out of transport retries")
	f := nicMustFind(t, fs, "counters.rnr_nak", Info, "mlx5_1 port 1: 1543 RNR NAKs received (rnr_nak_retry_err)")
	if !strings.Contains(f.Mechanism, "mlx5_0 port 1 out_of_buffer 1543") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
	f = nicMustFind(t, fs, "counters.retransmission", Warn, "local_ack_timeout_err 15, roce_adp_retrans 148")
	if strings.Contains(f.Title, "rnr_nak") {
		t.Errorf("RNR NAKs read as loss recovery: %s", f.Title)
	}
	f = nicMustFind(t, fs, "counters.discards", Info, "mlx5_0 port 1", "out_of_buffer 1543")
	if strings.Contains(f.Fix, "mlnx_qos") || !strings.HasPrefix(f.Fix, "Not the fabric") {
		t.Errorf("fix %s", f.Fix)
	}
}

// mlx5_ib's "Responder error cqe on cqn" lines were not recognised (exit
// 2); three flushes (syndrome 0x5) are a warning that names them.
func TestDmesgCQEErrors(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/dmesg-mlx5-poll-one-responder-error-cqe-syndrome-5-f9-nvmecli3268.txt")
	f := nicMustFind(t, fs, "dmesg.cqe_error", Warn, "3 completions with error", "rocep33s0f0 responder: work request flushed (syndrome 0x5, vendor 0xf9) ×3")
	if len(f.Evidence) != 2 || !strings.Contains(f.Mechanism, "every completion is a flush") {
		t.Errorf("evidence %v mechanism %s", f.Evidence, f.Mechanism)
	}
	// A retry-exceeded CQE is an error.
	res, err := ingest.Read("x", strings.NewReader("[1.0] infiniband mlx5_0: mlx5_poll_one:527:(pid 0): Requester error cqe on cqn 0x1:\n[1.0] infiniband mlx5_0: mlx5_poll_one:530:(pid 0): syndrome 0x15, vendor syndrome 0x81\n"))
	if err != nil || len(res.Artifacts) != 1 {
		t.Fatalf("artifacts %v", res.Artifacts)
	}
	d := res.Artifacts[0].(*ingest.Dmesg)
	if len(d.CQEErrors) != 1 || d.CQEErrors[0].Syndrome != 0x15 || d.CQEErrors[0].Vendor != 0x81 || d.CQEErrors[0].Side != "Requester" {
		t.Errorf("CQE errors %+v", d.CQEErrors)
	}
}

// An ibv_devinfo -v paste cut before its hca_id named the port " port 1".
func TestDevinfoUnnamedDevice(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/ibv-devinfo-v-bond-active-mtu-1024-cut-ucx10430.txt")
	nicMustFind(t, fs, "devinfo.mtu.small", Warn, "(device not named) port 1: RoCE active_mtu 1024 (max_mtu 4096)")
}
