package doctor

import (
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// Intel E810 (ice) counts PFC as per-priority XOFF and XON frames
// ("rx_priority_3_xoff.nic") and 802.3x pause as link_xoff_rx/tx.nic; the
// doctor knew neither (the open item of the last round). The real dump
// (a grep of an idle port) reads as E810 pause counters, all zero;
// SYNTHETIC values in the same format then raise 802.3x pause and count
// XOFF, not XON, as PFC.
func TestICEPauseCounters(t *testing.T) {
	arts := nicReadArtifacts(t, "corpus/ethtool/ethtool-ice-e810-grep-priority-xon-xoff-zero-notes.txt")
	s := arts[0].(*ingest.EthtoolStats).Samples[0]
	if r, ok := s.PFCFrames(ingest.RX, 3); !ok || r.Name != "rx_priority_3_xoff.nic" {
		t.Errorf("PFC frames rx prio 3: %+v %v", r, ok)
	}
	fs := synthFindings(t, Options{},
		"NIC statistics:",
		"     link_xon_rx.nic: 0",
		"     link_xon_tx.nic: 120",
		"     link_xoff_rx.nic: 0",
		"     link_xoff_tx.nic: 48211",
		"     tx_priority_3_xon.nic: 9",
		"     tx_priority_3_xoff.nic: 0",
	)
	f := nicMustFind(t, fs, "counters.pause.global", Warn, "link_xoff_tx.nic 48211")
	if strings.Contains(f.Title, "xon") {
		t.Errorf("XON frames counted as pause: %s", f.Title)
	}
}

// mlx5 prints rx_prioN_buf_discard (unicast frames a priority dropped for
// want of receive buffer, ConnectX-6 Dx and later) and rx_prioN_cong_discard
// (WRED drops) beside rx_prioN_discards; the counter table did not know
// them, so a lossless priority dropping packets read as healthy PFC.
// SYNTHETIC values under the names linux 6.1's en_stats.c prints.
func TestPrioBufferDiscards(t *testing.T) {
	fs := synthFindings(t, Options{},
		"NIC statistics:",
		"     rx_packets_phy: 100000000",
		"     rx_prio3_bytes: 90000000000",
		"     rx_prio3_packets: 90000000",
		"     rx_prio3_pause: 5120",
		"     tx_prio3_pause: 77",
		"     rx_prio3_buf_discard: 1200",
		"     rx_prio3_cong_discard: 0",
	)
	nicMustFind(t, fs, "counters.discards", Warn, "rx_prio3_buf_discard 1200")
}

// bnxt_en counts its port's drops as rx_stat_discard: the dump read as
// clean, and a drop finding spoke of mlx5 counters and mlnx_qos. The
// share is the port's drops' alone, and says so beside the 655 M ring
// drops listed with them (it read as if all were 7.45e-06%).
func TestBnxtPortDiscards(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/ethtool-bnxt-en-6.6-ring-stat-discards-12-rings-ethq33.txt")
	f := nicMustFind(t, fs, "counters.discards", Info, "rx_stat_discard 49337", "(rx_stat_discard: 7.45e-06% of rx_total_frames)")
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

// Two header-less `grep prio` excerpts of one port (bytedance/byteps#179)
// form a before/after pair: 136.6 GB moved on priority 0 and none on 3,
// so RoCE runs lossy.
func TestPrioPairAllOnPrio0(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/ethtool-grep-prio-before-after-all-prio0-byteps179.txt")
	f := nicMustFind(t, fs, "counters.pfc.not_on_roce_priority", Warn, "enp178s0f0: all traffic on priority 0; 0.0% on lossless priority 3")
	if !strings.Contains(f.Mechanism, "Counted during the window between the two dumps") || f.Evidence[4].Line != 36 {
		t.Errorf("not judged as a pair: %s %+v", f.Mechanism, f.Evidence)
	}
}

// Healthy or per-queue-only ethtool dumps of other vendors' drivers read
// cleanly and raise nothing.
func TestEthtoolVariantsClean(t *testing.T) {
	for _, rel := range []string{
		"corpus/ethtool/ethtool-bnx2x-per-queue-bracket-prefix-ethq6.txt",
		"corpus/ethtool/ethtool-mlx4-en-trailing-spaces-ethq21.txt",
		"corpus/ethtool/ethtool-mlx5-cx4-ubuntu1804-ethq8.txt",
		"corpus/ethtool/ethtool-be2net-rxq-prefix-ethq7.txt",
	} {
		if fs := diagnoseFiles(t, Options{}, rel); len(fs) != 0 {
			t.Errorf("%s: %v, want no findings", rel, ids(fs))
		}
	}
}

// i40iw's counters read "N/A (no PMA)": the port has no counters, which
// the doctor says instead of treating the file as unreadable or clean.
func TestNoPMACounters(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/hwcounters/hwcounters-i40iw-na-no-pma-nodeexporter966.txt")
	f := find(fs, "counters.unreadable")
	if f == nil || !strings.Contains(f.Title, "i40iw0/1") || !strings.Contains(f.Title, "8 RDMA port counters") {
		t.Fatalf("want counters.unreadable on i40iw0/1 (8 counters): %v", fs)
	}
	if len(fs) != 1 {
		t.Errorf("findings %v, want only counters.unreadable", ids(fs))
	}
}

// An Omni-Path port's hw_counters (hfi1: RcResend, PktDrop ...) hold no
// name any rule reads: the doctor says the port is not judged, where it
// said nothing, as of a clean port. A dump of known names, all zero, and
// one that reads N/A, say nothing of the kind.
func TestUnjudgedHWCounters(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/hwcounters/hw-counters-printf-loop-in-dir-hfi1-omnipath-rcresend-pktdrop-netdata9091.txt")
	f := nicMustFind(t, fs, "counters.unjudged", Info, "hfi1_0 port 1", "36 hw_counters", "not judged")
	if strings.Contains(f.Title, "lifespan") || len(f.Evidence) != 1 || f.Evidence[0].Line != 5 {
		t.Errorf("finding %+v", f)
	}
	for _, rel := range []string{
		"corpus/hwcounters/rdma-statistic-grep-one-line-mlx5-all-zero-ocitutorials.txt",
		"corpus/hwcounters/hwcounters-i40iw-na-no-pma-nodeexporter966.txt",
		"corpus/hwcounters/efa-rdma-statistic-pretty-srd-awsdocs.txt",
	} {
		nicMustNot(t, diagnoseFiles(t, Options{}, rel), "counters.unjudged")
	}
}
