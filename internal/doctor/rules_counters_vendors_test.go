package doctor

import (
	"strings"
	"testing"
	"time"

	"rocelab/internal/counters"
	"rocelab/internal/ingest"
)

// Broadcom's bnxt_re prints DCQCN's counters under names of its own
// (tx_cnp_pkts, rx_cnp_pkts, rx_ecn_marked_pkts) beside its RoCE packets
// (rx_roce_only_pkts), and its RDMA responders' missing receive WQEs as
// rx_out_of_buffer: the name mlx5's ethtool -S gives the host rings'
// drops. Before, a bnxt_re port marked on 2.96 % of its RoCE packets gave
// no ECN finding, missing_resp (an implied NAK) was not counted as loss
// recovery, and rx_out_of_buffer was explained as kernel-ring drops that
// RDMA bypasses, with ethtool -G on the RDMA device as the fix.
func TestBnxtREHWCounters(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "synthetic/hwcounters-bnxt-re-ecn-oob-synthetic.txt")
	e := nicMustFind(t, fs, "counters.ecn.heavy_marking", Warn, "bnxt_re0 port 1", "2.96% of received RoCE packets", "rx_ecn_marked_pkts 1240077", "rx_cnp_pkts 1198230")
	if !evidenceHas(e, "rx_roce_only_pkts:41877012") {
		t.Errorf("the marks are not weighed against rx_roce_only_pkts: %+v", e.Evidence)
	}
	r := nicMustFind(t, fs, "counters.retransmission", Warn, "to_retransmits 37", "seq_err_naks_rcvd 412", "missing_resp 9")
	if strings.Contains(r.Fix, "mlnx_qos") || strings.Contains(r.Fix, "np_ecn_marked_roce_packets") || !strings.Contains(r.Fix, "dcb pfc set") {
		t.Errorf("a bnxt_re port's fix speaks mlx5's tools and counters: %s", r.Fix)
	}
	for _, want := range []string{"count oos_drop_count and NAK", "requester (seq_err_naks_rcvd)", "ACK timer fires (to_retransmits)"} {
		if !strings.Contains(r.Mechanism, want) {
			t.Errorf("a bnxt_re port's mechanism names mlx5's counters, not %q: %s", want, r.Mechanism)
		}
	}
	if e := nicFind(fs, "counters.ecn.heavy_marking")[0]; !strings.Contains(e.Mechanism, "send CNPs (tx_cnp_pkts)") || !strings.Contains(e.Mechanism, "(rx_cnp_pkts on their side)") {
		t.Errorf("a bnxt_re port's ECN mechanism names mlx5's CNP counters: %s", e.Mechanism)
	}
	d := nicMustFind(t, fs, "counters.discards", Info, "rx_out_of_buffer 213")
	if !strings.Contains(d.Mechanism, "no posted receive WQE") || strings.Contains(d.Mechanism, "kernel's receive rings") {
		t.Errorf("bnxt_re's rx_out_of_buffer read as the host rings': %s", d.Mechanism)
	}
	if strings.Contains(d.Fix, "ethtool -G") {
		t.Errorf("fix tunes a netdev ring for an RDMA counter: %s", d.Fix)
	}
}

// Linux 6.18 renamed bnxt_re's hw_counters to mlx5's names but one: the
// CNPs it sends are np_cnp_pkts (linux-rdma, Message-ID
// 20250814112555.221665-7-kalesh-anakkur.purayil@broadcom.com). Before,
// np_cnp_pkts was no counter: a SYNTHETIC dump of a port that only sent
// CNPs gave no ECN finding, and its retransmission fix spoke mlx5's tools
// whenever the dump said nothing else of the driver.
func TestBnxtRELinux618Names(t *testing.T) {
	p := "/sys/class/infiniband/bnxt_re0/ports/1/hw_counters/"
	fs := synthFindings(t, Options{},
		p+"local_ack_timeout_err:37",
		p+"np_cnp_pkts:52011",
		p+"out_of_sequence:388",
		p+"packet_seq_err:412",
		p+"rx_roce_only_pkts:41877012")
	e := nicMustFind(t, fs, "counters.ecn.marking", Info, "bnxt_re0 port 1", "np_cnp_pkts 52011")
	if !evidenceHas(e, "np_cnp_pkts:52011") {
		t.Errorf("np_cnp_pkts not in the evidence: %+v", e.Evidence)
	}
	r := nicMustFind(t, fs, "counters.retransmission", Warn, "local_ack_timeout_err 37", "out_of_sequence 388")
	if strings.Contains(r.Fix, "mlnx_qos") || !strings.Contains(r.Fix, "bnxt_re") {
		t.Errorf("a bnxt_re port's fix speaks mlx5's tools: %s", r.Fix)
	}
}

// irdma's GEN3 statistics patch (linux-rdma, Message-ID
// 20250827152545.2056-7-tatyana.e.nikolova@intel.com, irdma/verbs.c:3952
// and :3954 after it) drops the iw prefix: iwInRdmaWrites is InRdmaWrites,
// iwInRdmaReads InRdmaReads, on every irdma device. Before, the new names
// were no counters: a SYNTHETIC GEN3 paste with ECN marks and WRITE
// requests but no RxUDP said the marks could not be weighed at all; now
// they are weighed against the WRITE requests, an upper bound.
func TestIrdmaGen3RenamedRequests(t *testing.T) {
	p := "/sys/class/infiniband/irdma1/ports/1/hw_counters/"
	fs := synthFindings(t, Options{},
		p+"RxECNMrkd:52011",
		p+"cnpSent:51877",
		p+"InRdmaWrites:1200000",
		p+"InRdmaReads:3000",
		p+"Rx atomics:7")
	e := nicMustFind(t, fs, "counters.ecn.marking", Info, "irdma1 port 1", "52011 marks against 1200000 RDMA WRITE requests (4.3%)")
	if !evidenceHas(e, "InRdmaWrites:1200000") {
		t.Errorf("InRdmaWrites not in the evidence: %+v", e.Evidence)
	}
	tb := counters.Default()
	for name, c := range map[string]counters.Concept{"InRdmaReads": counters.RxReadRequests, "InRdmaWrites": counters.RxWriteRequests, "Rx atomics": counters.RxAtomicRequests} {
		if d, _, ok := tb.LookupIn(counters.HWCounters, name); !ok || d.Vendor != counters.IRDMA || d.Concept != c || d.Dir != counters.RX {
			t.Errorf("%s: %+v %v, want irdma %s rx", name, d, ok, c)
		}
	}
	if n := tb.Name(counters.IRDMA, counters.HWCounters, counters.RxWriteRequests, counters.RX, 0); n != "iwInRdmaWrites" {
		t.Errorf("irdma's first name of the WRITE requests is %q", n)
	}
}

// An ice port's rx_dropped is its VSI's drops (GLV_RDPC): packets the
// receive rings had no descriptor for, where rx_dropped.nic counts the
// port's. The real dump of testdata/corpus/ethtool/dmesg-ice-e810-* (Intel
// E810, Linux 6.18) has 7206525 of them and gave no finding before.
func TestIceRxDropped(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "corpus/ethtool/dmesg-ice-e810-amd-vi-io-page-fault-rx-dropped-in-kernel-iwl.txt")
	d := nicMustFind(t, fs, "counters.discards", Info, "eth0", "rx_dropped 7206525")
	if !strings.Contains(d.Mechanism, "receive rings") || strings.Contains(d.Mechanism, "receive buffer was full") {
		t.Errorf("ice's rx_dropped is the host rings' drop: %s", d.Mechanism)
	}
}

// Intel's ice and Broadcom's bnxt_en print the port's FCS errors, its
// buffer drops and its link flaps under names of their own
// (rx_crc_errors.nic, rx_dropped.nic; rx_fcs_err_frames, link_down_events):
// before, a SYNTHETIC dump of each with 5512 FCS errors gave no finding.
func TestIceBnxtPortCounters(t *testing.T) {
	fs := synthFindings(t, Options{},
		"NIC statistics:",
		"     rx_packets: 901240000",
		"     rx_bytes.nic: 3690000000000",
		"     rx_dropped.nic: 771234",
		"     rx_crc_errors.nic: 5512",
		"     tx_priority_3_xoff.nic: 1300")
	nicMustFind(t, fs, "counters.phy.fcs", Warn, "5512 frames", "rx_crc_errors.nic")
	d := nicMustFind(t, fs, "counters.discards", Info, "rx_dropped.nic 771234", "0.0856% of rx_packets")
	if !strings.Contains(d.Mechanism, "receive buffer was full") {
		t.Errorf("rx_dropped.nic is the port's drop: %s", d.Mechanism)
	}
	fs = synthFindings(t, Options{},
		"NIC statistics:",
		"     rx_total_frames: 901240000",
		"     rx_fcs_err_frames: 5512",
		"     link_down_events: 3")
	nicMustFind(t, fs, "counters.phy.fcs", Warn, "5512 frames", "rx_fcs_err_frames", "of rx_total_frames")
	nicMustFind(t, fs, "counters.phy.link_down", Info, "link_down_events 3")
}

// evidenceHas reports whether a line of f's evidence contains s.
func evidenceHas(f Finding, s string) bool {
	for _, e := range f.Evidence {
		if strings.Contains(e.Text, s) {
			return true
		}
	}
	return false
}

// AMD Pensando's ionic (the Pollara AI NICs) counts PFC frames over all
// priorities (frames_rx_pripause) and the time each priority was paused
// in microseconds (rx_pripause_3_1us_count). The kernel's own example dump
// (Documentation/.../pensando/ionic.rst) is read as ionic's, every PFC
// counter found; a SYNTHETIC before/after pair 10 s apart whose priority 3
// was paused 0.5 s is judged as mlx5's rx_prio3_pause_duration is. Before,
// ionic's names were no counters: no finding.
func TestIonicPortCounters(t *testing.T) {
	for _, f := range diagnoseFiles(t, Options{}, "corpus/ethtool/ethtool-s-ionic-pensando-port-stats-pripause-1us-kernel-doc.txt") {
		if f.Severity > Info {
			t.Errorf("a healthy ionic dump: %s %s", f.ID, f.Title)
		}
	}
	var e *ingest.EthtoolStats
	for _, a := range nicReadArtifacts(t, "corpus/ethtool/ethtool-s-ionic-pensando-port-stats-pripause-1us-kernel-doc.txt") {
		if x, ok := a.(*ingest.EthtoolStats); ok {
			e = x
		}
	}
	if e == nil || len(e.Samples) != 1 {
		t.Fatalf("ionic dump not read: %+v", e)
	}
	s := &e.Samples[0]
	if v, ok := s.Vendor(); !ok || v != counters.IONIC {
		t.Errorf("vendor %v %v", v, ok)
	}
	if r, ok := s.PFCTotal(ingest.RX); !ok || r.Name != "frames_rx_pripause" {
		t.Errorf("PFC total %+v %v", r, ok)
	}
	if r, ok := s.PFCDuration(ingest.TX, 3); !ok || r.Name != "tx_pripause_3_1us_count" {
		t.Errorf("PFC duration %+v %v", r, ok)
	}
	dump := func(pause string) string {
		return "# synthetic: rocelab test, an ionic ethtool dump\n$ ethtool -S enp181s0\nNIC statistics:\n" +
			"     frames_rx_ok: 915234110\n     frames_rx_pripause: 4000\n     frames_rx_pri_3: 4000\n" +
			"     rx_pripause_3_1us_count: " + pause + "\n"
	}
	fs := Diagnose([]string{"-"}, strings.NewReader(dump("1000000")+dump("1500000")), Options{Interval: 10 * time.Second}).Findings
	f := nicMustFind(t, fs, "counters.pause.ratio", Warn, "5.000% of the 10 s window")
	if !evidenceHas(f, "rx_pripause_3_1us_count") {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// ionic's frames_rx_pri_N and frames_tx_pri_N are the PFC frames received
// and sent on priority N, not the port's data frames of that priority: a
// received PFC frame counts in frames_rx_pripause and in frames_rx_pri_N
// of the priority it pauses (Pensando's SDK, PsymonLi/sw
// nic/sdk/linkmgr/port.cc:1848, which rebuilds frames_rx_pripause as their
// sum; its QoS test, iota/test/iris/testcases/qos/qos_traffic_test.py:256,
// reads "FRAMES RX PRI <cos>" as that class's PFC frames). Before, they
// were read as frames per priority: a SYNTHETIC ionic port paused on
// priority 3 and pausing its switch there gave no PFC frame count in
// either finding's evidence.
func TestIonicPFCFramesPerPriority(t *testing.T) {
	tb := counters.Default()
	for _, name := range []string{"frames_rx_pri_3", "frames_tx_pri_3"} {
		d, p, ok := tb.LookupIn(counters.Ethtool, name)
		if !ok || d.Vendor != counters.IONIC || d.Concept != counters.PauseFrames || p != 3 {
			t.Errorf("%s: %+v prio %d %v, want ionic PFC frames on priority 3", name, d, p, ok)
		}
	}
	dump := func(pfc, rxPause, txPause string) string {
		return "# synthetic: rocelab test, an ionic ethtool dump\n$ ethtool -S enp181s0\nNIC statistics:\n" +
			"     frames_rx_ok: 915234110\n     frames_rx_pripause: " + pfc + "\n     frames_rx_pri_3: " + pfc + "\n" +
			"     frames_tx_pripause: " + pfc + "\n     frames_tx_pri_3: " + pfc + "\n" +
			"     rx_pripause_3_1us_count: " + rxPause + "\n     tx_pripause_3_1us_count: " + txPause + "\n"
	}
	fs := Diagnose([]string{"-"}, strings.NewReader(dump("4000", "1000000", "0")+dump("6000", "1500000", "700000")), Options{Interval: 10 * time.Second}).Findings
	f := nicMustFind(t, fs, "counters.pause.ratio", Warn, "priority 3 paused 5.000%")
	if !evidenceHas(f, "frames_rx_pri_3") {
		t.Errorf("the paused port's PFC frames on priority 3 are not in the evidence: %+v", f.Evidence)
	}
	h := nicMustFind(t, fs, "counters.pause.from_host", Warn, "priority 3 for 7.000%")
	if !evidenceHas(h, "frames_tx_pri_3") {
		t.Errorf("the PFC frames the host sent on priority 3 are not in the evidence: %+v", h.Evidence)
	}
}

// AMD Pensando's ionic RDMA device prints the names its firmware gives it
// (tx_rdma_cnp_pkts, rx_rdma_ecn_pkts, req_rx_pkt_seq_err, the misspelt
// resp_rx_outouf_seq). A SYNTHETIC dump of a port marked on 2.96 % of its
// RoCE packets and recovering loss by go-back-N gives a heavy-marking
// warning and a retransmission finding in ionic's terms, and the ACK timer
// is said to have no ionic counter rather than borrow mlx5's
// local_ack_timeout_err.
func TestIonicHWCounters(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "synthetic/hwcounters-ionic-ecn-retrans-synthetic.txt")
	e := nicMustFind(t, fs, "counters.ecn.heavy_marking", Warn, "ionic_0 port 1", "2.96% of received RoCE packets", "rx_rdma_ecn_pkts 1240077", "tx_rdma_cnp_pkts 1190012")
	if !evidenceHas(e, "rx_rdma_ucast_pkts:41877012") {
		t.Errorf("the marks are not weighed against rx_rdma_ucast_pkts: %+v", e.Evidence)
	}
	r := nicMustFind(t, fs, "counters.retransmission", Info, "resp_rx_outouf_seq 3388", "req_rx_pkt_seq_err 1412", "req_rx_impl_nak_seq_err 93")
	if strings.Contains(r.Mechanism, "local_ack_timeout_err") || !strings.Contains(r.Mechanism, "no ionic counter") {
		t.Errorf("an ionic port's mechanism borrows mlx5's ACK timeout counter: %s", r.Mechanism)
	}
	if strings.Contains(r.Fix, "mlnx_qos") || strings.Contains(r.Fix, "np_ecn_marked_roce_packets") {
		t.Errorf("an ionic port's fix speaks mlx5's tools and counters: %s", r.Fix)
	}
}

// The Pollara AI NICs' firmware gives ionic an ACK timeout counter
// (tx_rdma_ack_timeout, beside the DSC's names; amd/node-scraper's
// fixture of `rdma statistic` on ionic_0..7): its timeouts went unread
// and the mechanism said ionic had none. SYNTHETIC values.
func TestPollaraAckTimeouts(t *testing.T) {
	fs := synthFindings(t, Options{}, "link ionic_3/1 rx_rdma_ucast_pkts 41877012 req_rx_pkt_seq_err 0 resp_rx_outouf_seq 0 tx_rdma_ack_timeout 2211 tx_rdma_retx_pkts 90112 req_tx_retry_excd_err 0")
	r := nicMustFind(t, fs, "counters.retransmission", Warn, "ionic_3 port 1", "tx_rdma_ack_timeout 2211")
	if strings.Contains(r.Mechanism, "no ionic counter") || !strings.Contains(r.Mechanism, "(tx_rdma_ack_timeout)") {
		t.Errorf("mechanism %s", r.Mechanism)
	}
}

// A Pollara port whose requesters resent packets without an ACK timeout
// (the NAKs that asked for them are the peer's to count) showed no RC
// retransmission at all: tx_rdma_retx_pkts went unread. Counts since boot
// with no ACK timeout weigh as info. SYNTHETIC values.
func TestPollaraRetransmittedPackets(t *testing.T) {
	fs := synthFindings(t, Options{}, "link ionic_2/1 tx_rdma_ucast_pkts 51200000 req_rx_pkt_seq_err 0 resp_rx_outouf_seq 0 tx_rdma_ack_timeout 0 tx_rdma_retx_pkts 4096 req_tx_retry_excd_err 0")
	r := nicMustFind(t, fs, "counters.retransmission", Info, "ionic_2 port 1", "tx_rdma_retx_pkts 4096")
	if len(r.Evidence) != 1 {
		t.Errorf("evidence %+v", r.Evidence)
	}
}

// rx_dropped is the receive rings' drops on ice only; ixgbe, igb,
// virtio_net and most drivers count the network stack's drops there too.
// Before, an ixgbe port's rx_dropped was explained as ring descriptors the
// host had none free of, and every host-ring fix read `ethtool -G <if> rx
// 8192`, which ice (at most 8160 descriptors) refuses.
func TestRxDroppedByDriver(t *testing.T) {
	fs := synthFindings(t, Options{},
		"driver: ixgbe",
		"NIC statistics:",
		"     rx_packets: 901240000",
		"     rx_dropped: 5123")
	d := nicMustFind(t, fs, "counters.discards", Info, "rx_dropped 5123")
	if strings.Contains(d.Mechanism, "no free descriptor") || !strings.Contains(d.Mechanism, "network stack's too") {
		t.Errorf("ixgbe's rx_dropped read as the rings' drops alone: %s", d.Mechanism)
	}
	if strings.Contains(d.Fix, "rx 8192") || !strings.Contains(d.Fix, "up to the maximum `ethtool -g <if>` shows") || strings.Contains(d.Fix, "posted no buffer") {
		t.Errorf("fix for ixgbe's rx_dropped: %s", d.Fix)
	}
	fs = nicDiagnose(t, Options{}, "corpus/ethtool/dmesg-ice-e810-amd-vi-io-page-fault-rx-dropped-in-kernel-iwl.txt")
	d = nicMustFind(t, fs, "counters.discards", Info, "eth0", "rx_dropped 7206525")
	if !strings.Contains(d.Mechanism, "no free descriptor") || strings.Contains(d.Mechanism, "network stack's too") {
		t.Errorf("ice's rx_dropped is the rings' drops: %s", d.Mechanism)
	}
	if strings.Contains(d.Fix, "rx 8192") || !strings.Contains(d.Fix, "up to the maximum `ethtool -g") {
		t.Errorf("fix for ice's rx_dropped: %s", d.Fix)
	}
}

// bnxt_re counts the RoCE packets its RoCE function discarded
// (rx_roce_discards, tx_roce_discards: the function's statistics context,
// drivers/infiniband/hw/bnxt_re/hw_counters.c) beside its RC loss
// recovery. Before, they were no counter: a SYNTHETIC port that dropped
// 5120 RoCE packets gave no drop finding, only the retransmissions they
// caused. The fix reads the RoCE class's discards and PFC frames on the
// netdev show_gids maps the device to, in the NIC's own DCB tool.
func TestBnxtRERoCEDiscards(t *testing.T) {
	p := "/sys/class/infiniband/bnxt_re0/ports/1/hw_counters/"
	fs := synthFindings(t, Options{},
		p+"rx_roce_discards:5120",
		p+"tx_roce_discards:0",
		p+"rx_roce_errors:0",
		p+"to_retransmits:211",
		p+"rx_roce_only_pkts:41877012",
		"",
		"DEV	PORT	INDEX	GID					IPv4  		VER	DEV",
		"---	----	-----	---					------------  	---	---",
		"bnxt_re0	1	3	0000:0000:0000:0000:0000:ffff:0a00:0b01	10.0.11.1  	v2	ens1f0np0")
	d := nicMustFind(t, fs, "counters.discards", Info, "bnxt_re0 port 1", "rx_roce_discards 5120")
	if !strings.Contains(d.Mechanism, "RoCE function received and discarded") || strings.Contains(d.Mechanism, "kernel's receive rings") {
		t.Errorf("rx_roce_discards read as another drop: %s", d.Mechanism)
	}
	if !strings.Contains(d.Mechanism, "documents no cause") || strings.Contains(d.Mechanism+d.Fix, "resource") || strings.Contains(d.Mechanism, "on transmit") {
		t.Errorf("rx_roce_discards given a cause or a direction not theirs: %s / %s", d.Mechanism, d.Fix)
	}
	for _, want := range []string{"ethtool -S ens1f0np0", "rx_discard_packets_cosN", "tx_pfc_ena_frames_priN", "dcb pfc set dev ens1f0np0"} {
		if !strings.Contains(d.Fix, want) {
			t.Errorf("fix lacks %q: %s", want, d.Fix)
		}
	}
	if strings.Contains(d.Fix, "mlnx_qos") || strings.Contains(d.Fix, "ethtool -G") {
		t.Errorf("a bnxt_re port's fix speaks mlx5's tools or the kernel rings': %s", d.Fix)
	}
	// tx_roce_discards are packets this NIC was to send, not received
	// ones: no PFC reading of the receive side, no requester resending.
	fs = synthFindings(t, Options{}, p+"rx_roce_discards:0", p+"tx_roce_discards:300", p+"rx_roce_only_pkts:41877012")
	d = nicMustFind(t, fs, "counters.discards", Info, "bnxt_re0 port 1", "tx_roce_discards 300")
	if !strings.Contains(d.Mechanism, "discarded on transmit") || strings.Contains(d.Mechanism, "received and discarded") ||
		!strings.Contains(d.Fix, "transmit discards are this NIC's own") || strings.Contains(d.Fix, "rx_discard_packets_cosN") {
		t.Errorf("tx_roce_discards read as received: %s / %s", d.Mechanism, d.Fix)
	}
}

// The Pollara ionic firmware's rx_rdma_mtu_discard_pkts are RoCE packets
// received and discarded for their size against the MTU, not bnxt_re's
// causeless discards: the finding speaks of the MTUs along the path, not
// of bnxt_re's statistics context, its cos counters or PFC. Before, it
// gave bnxt_re's mechanism and fix. SYNTHETIC.
func TestIonicMTUDiscards(t *testing.T) {
	fs := synthFindings(t, Options{}, "link ionic_0/1 rx_rdma_ucast_pkts 1000000 rx_rdma_mtu_discard_pkts 120 resp_rx_outof_buf 0")
	d := nicMustFind(t, fs, "counters.discards", Info, "ionic_0 port 1", "rx_rdma_mtu_discard_pkts 120")
	if !strings.Contains(d.Mechanism, "for their size against the MTU") || strings.Contains(d.Mechanism+d.Fix, "bnxt") {
		t.Errorf("mechanism %s", d.Mechanism)
	}
	if !strings.Contains(d.Fix, "ibv_devinfo -d ionic_0") || strings.Contains(d.Fix, "rx_discard_packets_cosN") || strings.Contains(d.Fix, "dcb pfc") {
		t.Errorf("fix %s", d.Fix)
	}
}

// AMD Pensando's ionic firmware counts the RNR NAKs a requester received
// as req_rx_rnr_retry_err ("Request Rx receiver not ready retry errors",
// as mlx5's rnr_nak_retry_err; pensando-sw's rdma_stats_hdrs). Before, it
// was no counter: a SYNTHETIC Pollara port with 57 of them gave no RNR
// finding.
func TestIonicRNRNaks(t *testing.T) {
	fs := synthFindings(t, Options{}, "link ionic_2/1 rx_rdma_ucast_pkts 41877012 req_rx_rnr_retry_err 57 resp_rx_outof_buf 0 req_tx_retry_excd_err 0")
	nicMustFind(t, fs, "counters.rnr_nak", Info, "ionic_2 port 1", "57 RNR NAKs received (req_rx_rnr_retry_err)")
}

// bnxt_en counts its PCS's symbol errors as rx_pcs_symbol_err, which it
// reports as the port's standard eth-phy-SymbolErrorDuringCarrier
// (bnxt_get_eth_phy_stats). Before, a SYNTHETIC bnxt_en dump with 4211 of
// them and no FCS error gave no finding, and its standard statistics
// beside the dump were reported as if no driver counter had them.
func TestBnxtPCSSymbolErrors(t *testing.T) {
	driver := []string{
		"$ ethtool -S ens26np0",
		"NIC statistics:",
		"     rx_total_frames: 901240000",
		"     rx_fcs_err_frames: 0",
		"     rx_pcs_symbol_err: 4211"}
	nicMustFind(t, synthFindings(t, Options{}, driver...), "counters.phy.symbol_errors", Warn, "ens26np0: 4211 symbol errors during carrier (rx_pcs_symbol_err)")
	std := []string{"$ ethtool -S ens26np0 --groups eth-phy", "Standard stats for ens26np0:", "eth-phy-SymbolErrorDuringCarrier: 4211"}
	if fs := nicFind(synthFindings(t, Options{}, append(driver, std...)...), "counters.phy.symbol_errors"); len(fs) != 1 || !strings.Contains(fs[0].Title, "(rx_pcs_symbol_err)") {
		t.Errorf("findings %+v, want the driver dump's one", fs)
	}
}

// bnxt_re counts the RoCE packets it received good as rx_roce_good_pkts
// (the IB PMA's port_rcv_packets of "RDMA/bnxt_re: Support Perf management
// counters"), the only count of them Linux 6.1 prints and the one a paste
// grepped for it keeps. Before, a SYNTHETIC grep of a bnxt_re port marked
// on 2.96 % of those packets could not weigh the marks: the ECN finding
// said it had no count of RoCE packets.
func TestBnxtRERoCEGoodPackets(t *testing.T) {
	p := "/sys/class/infiniband/bnxt_re0/ports/1/hw_counters/"
	fs := synthFindings(t, Options{},
		"$ grep . "+p+"{rx_ecn_marked_pkts,tx_cnp_pkts,rx_roce_good_pkts}",
		p+"rx_ecn_marked_pkts:1240077",
		p+"tx_cnp_pkts:1198230",
		p+"rx_roce_good_pkts:41877012")
	e := nicMustFind(t, fs, "counters.ecn.heavy_marking", Warn, "bnxt_re0 port 1", "2.96% of received RoCE packets")
	if !evidenceHas(e, "rx_roce_good_pkts:41877012") {
		t.Errorf("the marks are not weighed against rx_roce_good_pkts: %+v", e.Evidence)
	}
}
