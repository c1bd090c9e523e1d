package doctor

import (
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// Real artifacts of kinds diagnose had seen little of (NCCL and RCCL logs
// of recent releases, nccl-tests behind log wrappers, counters of other
// drivers); the headers of the files under testdata/corpus name each
// source. Each test failed before the change it covers.

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

// irdma (E810 RoCE) and bnxt_re (Broadcom) name their hw_counters apart
// from mlx5 (names from linux 6.1's irdma/verbs.c and
// bnxt_re/hw_counters.c); their CNPs, ECN marks and retransmissions went
// unread. SYNTHETIC values in `rdma statistic show` form.
func TestIRDMAAndBNXTRECounters(t *testing.T) {
	fs := synthFindings(t, Options{}, "link irdma0/1 cnpHandled 5120 cnpIgnored 0 cnpSent 77 RxECNMrkd 9031 RxUDP 1200000 TxUDP 1100000")
	nicMustFind(t, fs, "counters.ecn.marking", Info, "0.753% of received RoCE packets", "RxECNMrkd 9031")
	fs = synthFindings(t, Options{}, "link bnxt_re0/1 to_retransmits 4410 seq_err_naks_rcvd 120 rnr_naks_rcvd 0 dup_req 7 oos_drop_count 311 max_retry_exceeded 2")
	nicMustFind(t, fs, "counters.retransmission", Warn, "to_retransmits 4410", "oos_drop_count 311")
	nicMustFind(t, fs, "counters.retry_exceeded", Warn, "max_retry_exceeded")
}

// `rdma link` lines (ROCm/rccl#1423: an IB port DOWN/POLLING, then
// DOWN/LINK_UP, then ACTIVE) were read as hw_counters (lid, sm_lid and lmc
// taken for counters) and reported nothing; no rule looked at port
// states at all, so ibv_devinfo's PORT_DOWN went unsaid too.
func TestPortDownAndFlap(t *testing.T) {
	const file = "corpus/ethtool/rdma-link-ib-port-down-polling-flapping-rccl1423.txt"
	for _, a := range nicReadArtifacts(t, file) {
		if a.Kind() == ingest.KindHWCounters {
			t.Errorf("rdma link read as hw_counters")
		}
	}
	f := nicMustFind(t, diagnoseFiles(t, Options{}, file), "devinfo.port.down", Error, "mlx5_7 port 1 flapped", "DOWN (physical state POLLING)")
	if !strings.Contains(f.Mechanism, "no link partner") || len(f.Evidence) != 3 {
		t.Errorf("mechanism %q, %d evidence lines", f.Mechanism, len(f.Evidence))
	}
	fs := diagnoseFiles(t, Options{}, "corpus/threads/cx4lx-4port-show-counters-req-cqe-error-no-ack-timeouts-notes.txt")
	nicMustFind(t, fs, "devinfo.port.down", Warn, "mlx5_1 port 1 is not up: DOWN")
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
