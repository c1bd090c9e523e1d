package exporter

import (
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	"rocelab/internal/counters"
)

// This file is the exporter's one table from counter names to metrics. A
// name is first looked up in the counters table (internal/counters), which
// knows the names mlx5, bnxt_en and be2net print and what each measures (its
// Concept), direction, priority and unit. The table below then maps each
// Concept to one metric family: the direction and priority become labels,
// microseconds become seconds and 4-byte words become bytes. So
// rx_prio3_pause (mlx5) and rx_pfc_ena_frames_pri3 (bnxt_en) both become
// rocelab_nic_pause_frames_total{direction="rx",priority="3"}.
//
// A name the counters table does not know is not dropped: it is exported
// under its source's generic family with the raw name as a label
// (rocelab_nic_ethtool_stat{stat=...}, rocelab_rdma_hw_stat{counter=...},
// rocelab_rdma_port_stat{counter=...}), as an untyped value, since an
// unknown file may be a gauge (hw_counters/lifespan is one).

// A Family is one exported metric family.
type Family struct {
	// Name is the metric name.
	Name string
	// Help is its HELP text.
	Help string
	// Type is counter, gauge or untyped.
	Type prometheus.ValueType
	// Source is where its values are read.
	Source counters.Source
	// Dir and Prio say whether it has direction and priority labels.
	Dir, Prio bool
	// Generic marks a source's catch-all family for unknown names; its
	// extra label holds the raw name.
	Generic bool

	metric *metric
}

// Labels returns the family's label names, in order.
func (f *Family) Labels() []string {
	var l []string
	switch f.Source {
	case counters.Ethtool:
		l = []string{"netdev", "device", "port"}
	default:
		l = []string{"device", "port"}
	}
	if f.Dir {
		l = append(l, "direction")
	}
	if f.Prio {
		l = append(l, "priority")
	}
	if f.Generic {
		if f.Source == counters.Ethtool {
			l = append(l, "stat")
		} else {
			l = append(l, "counter")
		}
	}
	return l
}

type conceptKey struct {
	s counters.Source
	c counters.Concept
}

// familyRow is one row of the mapping table.
type familyRow struct {
	src     counters.Source
	concept counters.Concept
	name    string
	help    string
}

// mappingTable is the table: mlx5 names first (the concepts are those of
// mlx5), which bnxt_en and be2net names share through the counters table.
// Per-priority concepts get a priority label, concepts counted in both
// directions a direction label (see familyShape).
func mappingTable() []familyRow {
	const e, hw, pc = counters.Ethtool, counters.HWCounters, counters.PortCounters
	return []familyRow{
		// ethtool -S, physical port (mlx5 *_phy; bnxt rx/tx_total_frames).
		{e, counters.PhyPackets, "rocelab_nic_phy_packets_total", "Frames on the physical port (mlx5 rx/tx_packets_phy)."},
		{e, counters.PhyBytes, "rocelab_nic_phy_bytes_total", "Frame bytes on the physical port (mlx5 rx/tx_bytes_phy)."},
		{e, counters.PhyDiscards, "rocelab_nic_phy_discards_total", "Frames the port dropped for want of buffer (mlx5 rx/tx_discards_phy); must stay 0 on a lossless fabric."},
		{e, counters.PhyCRCErrors, "rocelab_nic_phy_crc_errors_total", "Frames received with a bad FCS (mlx5 rx_crc_errors_phy)."},
		{e, counters.PhyLinkDown, "rocelab_nic_link_down_events_total", "Times the physical link went down (mlx5 link_down_events_phy): a flap loses what is on the wire."},
		{e, counters.PhyRxErrors, "rocelab_nic_phy_rx_errors_total", "Frames received bad: a bad FCS, a wrong length or alignment (the kernel's rx_errors, which drivers such as igb and ixgbe repeat in ethtool -S)."},
		{e, counters.PhySymbolErrors, "rocelab_nic_phy_symbol_errors_total", "Symbols the PHY could not decode while the link was up (the IEEE 802.3 standard statistic eth-phy-SymbolErrorDuringCarrier, mlx5 rx_symbol_err_phy, bnxt_en rx_pcs_symbol_err)."},
		{e, counters.PhyErrors, "rocelab_nic_phy_errors_total", "Frames the port failed to send (mlx5 tx_errors_phy)."},
		{e, counters.OutOfBufferHost, "rocelab_nic_out_of_buffer_total", "Packets dropped because the host's receive queue had no descriptor (mlx5 rx_out_of_buffer)."},
		{e, counters.BufferPassedThreshold, "rocelab_nic_buffer_passed_threshold_total", "Times the port buffer crossed its congestion threshold (mlx5 rx_buffer_passed_thres_phy)."},
		{e, counters.GlobalPause, "rocelab_nic_global_pause_frames_total", "IEEE 802.3x link-level pause frames (mlx5 rx/tx_pause_ctrl_phy, bnxt rx/tx_pause_frames)."},
		{e, counters.GlobalPauseDuration, "rocelab_nic_global_pause_duration_seconds_total", "Time the link was held by 802.3x pause (mlx5 rx/tx_global_pause_duration, microseconds scaled to seconds)."},
		{e, counters.PauseStormWarning, "rocelab_nic_pause_storm_warning_events_total", "Times the NIC saw itself pausing for too long (mlx5 tx_pause_storm_warning_events)."},
		{e, counters.PauseStormError, "rocelab_nic_pause_storm_error_events_total", "Times the NIC's pause-storm watchdog stopped its own pause storm (mlx5 tx_pause_storm_error_events)."},
		{e, counters.RDMAUnicastPackets, "rocelab_nic_rdma_unicast_packets_total", "RoCE packets through the vport (mlx5 rx/tx_vport_rdma_unicast_packets)."},
		{e, counters.RDMAUnicastBytes, "rocelab_nic_rdma_unicast_bytes_total", "RoCE bytes through the vport (mlx5 rx/tx_vport_rdma_unicast_bytes)."},
		{e, counters.VportUnicastPackets, "rocelab_nic_vport_unicast_packets_total", "Unicast packets through the vport, Ethernet and RoCE (mlx5 rx/tx_vport_unicast_packets)."},
		{e, counters.NetdevPackets, "rocelab_nic_netdev_packets_total", "Packets the netdev's rings handled, a software count that RDMA bypasses (rx/tx_packets)."},
		{e, counters.GlobalPauseQoS, "rocelab_nic_global_pause_qos_frames_total", "IEEE 802.3x pause frames as mlx5's QoS group counts them, printed only with 802.3x pause on (mlx5 rx/tx_global_pause)."},
		{e, counters.PFCFramesTotal, "rocelab_nic_pfc_frames_total", "PFC frames over all priorities, where the driver has no per-priority counter (bnxt rx/tx_pfc_frames, be2net)."},
		// ethtool -S, per priority.
		{e, counters.PrioPackets, "rocelab_nic_priority_packets_total", "Frames on one priority (mlx5 rx/tx_prioN_packets, bnxt rx/tx_packets_priN)."},
		{e, counters.PrioBytes, "rocelab_nic_priority_bytes_total", "Frame bytes on one priority (mlx5 rx/tx_prioN_bytes, bnxt rx/tx_bytes_priN)."},
		{e, counters.PrioDiscards, "rocelab_nic_priority_discards_total", "Frames dropped on one priority (mlx5 rx_prioN_discards, bnxt rx_discard_packets_cosN)."},
		{e, counters.PrioBufDiscards, "rocelab_nic_priority_buffer_discards_total", "Unicast frames one priority dropped for want of receive buffer (mlx5 rx_prioN_buf_discard); must stay 0 on a lossless priority."},
		{e, counters.PrioCongDiscards, "rocelab_nic_priority_congestion_discards_total", "Frames one priority dropped by WRED (mlx5 rx_prioN_cong_discard)."},
		{e, counters.PrioHostECNMarked, "rocelab_nic_priority_host_ecn_marked_total", "Frames of one priority the NIC itself marked ECN CE because its host could not drain the receive buffer (mlx5 rx_prioN_marked)."},
		{e, counters.PauseFrames, "rocelab_nic_pause_frames_total", "PFC frames on one priority, XON included (mlx5 rx/tx_prioN_pause, bnxt rx/tx_pfc_ena_frames_priN)."},
		{e, counters.PauseDuration, "rocelab_nic_pause_duration_seconds_total", "Time one priority was paused (mlx5 rx/tx_prioN_pause_duration, bnxt pfc_priN_rx/tx_duration_us; microseconds scaled to seconds). rx: the port was held off; tx: the port held its peer off."},
		{e, counters.PauseTransition, "rocelab_nic_pause_transitions_total", "Pause episodes begun on one priority (mlx5 rx_prioN_pause_transition, bnxt pfc_priN_rx/tx_transitions)."},

		// RDMA hw_counters (mlx5).
		{hw, counters.CNPSent, "rocelab_rdma_cnp_sent_total", "CNPs sent as DCQCN notification point (np_cnp_sent)."},
		{hw, counters.ECNMarkedRoCE, "rocelab_rdma_ecn_marked_packets_total", "RoCE packets received with ECN CE (np_ecn_marked_roce_packets)."},
		{hw, counters.CNPHandled, "rocelab_rdma_cnp_handled_total", "CNPs received that cut a QP's rate (rp_cnp_handled)."},
		{hw, counters.CNPIgnored, "rocelab_rdma_cnp_ignored_total", "CNPs received and ignored (rp_cnp_ignored)."},
		{hw, counters.RDMAUnicastPackets, "rocelab_rdma_roce_packets_total", "RoCE packets the RDMA engine moved, where its driver counts them among the hw_counters (irdma RxUDP/TxUDP, bnxt_re rx/tx_roce_only_pkts, ionic rx/tx_rdma_ucast_pkts, mlx5's optional rdma_rx_packets/rdma_tx_packets; bnxt_re's rx_roce_good_pkts beside them stays in rocelab_rdma_hw_stat)."},
		{hw, counters.RDMAUnicastBytes, "rocelab_rdma_roce_bytes_total", "RoCE bytes the RDMA engine moved, where its driver counts them among the hw_counters (bnxt_re rx/tx_roce_only_bytes, ionic rx/tx_rdma_ucast_bytes, mlx5's optional rdma_rx_bytes/rdma_tx_bytes)."},
		{hw, counters.OutOfSequence, "rocelab_rdma_out_of_sequence_total", "Packets the responder received out of sequence, a sign of loss (out_of_sequence)."},
		{hw, counters.PacketSeqErr, "rocelab_rdma_packet_seq_errors_total", "NAK-sequence errors the requester received (packet_seq_err)."},
		{hw, counters.LocalAckTimeoutErr, "rocelab_rdma_local_ack_timeout_errors_total", "Requester ACK timeouts, each a retransmission (local_ack_timeout_err)."},
		{hw, counters.ImpliedNakSeqErr, "rocelab_rdma_implied_nak_seq_errors_total", "Requester inferred a NAK (implied_nak_seq_err)."},
		{hw, counters.DuplicateRequest, "rocelab_rdma_duplicate_requests_total", "Retransmitted requests the responder received (duplicate_request)."},
		{hw, counters.RNRNakRetryErr, "rocelab_rdma_rnr_nak_retry_errors_total", "RNR NAKs the requester received, each retried within its rnr_retry limit (rnr_nak_retry_err)."},
		{hw, counters.ReqTransportRetriesExceeded, "rocelab_rdma_req_transport_retries_exceeded_total", "Requester QPs that ran out of retry_cnt retransmissions, each an IBV_WC_RETRY_EXC_ERR completion and a broken connection (req_transport_retries_exceeded)."},
		{hw, counters.ReqRNRRetriesExceeded, "rocelab_rdma_req_rnr_retries_exceeded_total", "Requester QPs that ran out of rnr_retry RNR retries (req_rnr_retries_exceeded)."},
		{hw, counters.RespOutOfBuffer, "rocelab_rdma_out_of_buffer_total", "Responder had no receive WQE (out_of_buffer)."},
		{hw, counters.ReqCQEError, "rocelab_rdma_req_cqe_errors_total", "Requester completions with error (req_cqe_error)."},
		{hw, counters.ReqCQEFlushError, "rocelab_rdma_req_cqe_flush_errors_total", "Requester completions flushed (req_cqe_flush_error)."},
		{hw, counters.RespCQEError, "rocelab_rdma_resp_cqe_errors_total", "Responder completions with error (resp_cqe_error)."},
		{hw, counters.RespCQEFlushError, "rocelab_rdma_resp_cqe_flush_errors_total", "Responder completions flushed (resp_cqe_flush_error)."},
		{hw, counters.RxWriteRequests, "rocelab_rdma_rx_write_requests_total", "RDMA WRITE requests received (rx_write_requests; bnxt_re rx_write_req, irdma iwInRdmaWrites or InRdmaWrites)."},
		{hw, counters.RxReadRequests, "rocelab_rdma_rx_read_requests_total", "RDMA READ requests received (rx_read_requests; bnxt_re rx_read_req, irdma iwInRdmaReads or InRdmaReads)."},
		{hw, counters.RxAtomicRequests, "rocelab_rdma_rx_atomic_requests_total", "Atomic requests received (rx_atomic_requests; bnxt_re rx_atomic_req, irdma Rx atomics)."},
		{hw, counters.AdpRetrans, "rocelab_rdma_adaptive_retransmissions_total", "Adaptive retransmissions (roce_adp_retrans)."},
		{hw, counters.AdpRetransTimeout, "rocelab_rdma_adaptive_retransmission_timeouts_total", "Adaptive retransmission timeouts (roce_adp_retrans_to)."},
		{hw, counters.SlowRestart, "rocelab_rdma_slow_restarts_total", "Slow restarts after repeated loss (roce_slow_restart)."},
		{hw, counters.SlowRestartCNPs, "rocelab_rdma_slow_restart_cnps_total", "CNPs during slow restart (roce_slow_restart_cnps)."},
		{hw, counters.SlowRestartTrans, "rocelab_rdma_slow_restart_transitions_total", "Transitions into slow restart (roce_slow_restart_trans)."},
		{hw, counters.ICRCEncapsulated, "rocelab_rdma_icrc_errors_total", "RoCE packets received with a bad ICRC (rx_icrc_encapsulated; irdma CRC errors)."},
		{hw, counters.Retransmitted, "rocelab_rdma_retransmitted_packets_total", "RDMA packets a requester sent again, where its driver counts them (ionic's Pollara tx_rdma_retx_pkts)."},
		{hw, counters.ReqRemoteAccessErr, "rocelab_rdma_req_remote_access_errors_total", "Remote access NAKs the requester received (req_remote_access_errors)."},
		{hw, counters.ReqRemoteInvalidReq, "rocelab_rdma_req_remote_invalid_requests_total", "Remote invalid request NAKs the requester received (req_remote_invalid_request)."},
		{hw, counters.RespLocalLengthErr, "rocelab_rdma_resp_local_length_errors_total", "Incoming messages longer than the receive WQE (resp_local_length_error)."},
		{hw, counters.RespRemoteAccessErrs, "rocelab_rdma_resp_remote_access_errors_total", "Remote accesses the responder refused (resp_remote_access_errors)."},
		{hw, counters.RxDCTConnect, "rocelab_rdma_rx_dct_connects_total", "DCT connect requests received (rx_dct_connect)."},
		{hw, counters.RoCEDiscards, "rocelab_rdma_roce_discards_total", "RoCE packets the NIC's RoCE function discarded, received (rx) or to send (tx): bnxt_re rx/tx_roce_discards, whose driver documents no cause; ionic's (Pollara) rx_rdma_mtu_discard_pkts, received packets discarded for their size against the MTU."},
		{hw, counters.RespSeqErrNakSent, "rocelab_rdma_resp_seq_err_naks_sent_total", "NAK-sequence errors the responder sent for packets that came out of sequence, the requester's packet_seq_err on the other side (ionic resp_tx_pkt_seq_err)."},
		{hw, counters.RespInvalidReqNakSent, "rocelab_rdma_resp_invalid_request_naks_sent_total", "Invalid request NAKs the responder sent, the requester's req_remote_invalid_request on the other side (ionic resp_tx_rmt_inval_req_err)."},
		{hw, counters.RespRemoteOpErrNakSent, "rocelab_rdma_resp_remote_op_error_naks_sent_total", "Remote operational error NAKs the responder sent (ionic resp_tx_rmt_oper_err)."},
		{hw, counters.RoCEErrors, "rocelab_rdma_roce_errors_total", "RoCE packets the NIC's RoCE function received or sent bad (bnxt_re rx/tx_roce_errors)."},

		// RDMA hw_counters (AWS EFA, SRD).
		{hw, counters.EFARxDrops, "rocelab_efa_rx_drops_total", "Packets the EFA device received and dropped (efa rx_drops)."},
		{hw, counters.SRDRetransPackets, "rocelab_efa_srd_retransmitted_packets_total", "SRD packets retransmitted (efa retrans_pkts)."},
		{hw, counters.SRDRetransTimeouts, "rocelab_efa_srd_retransmit_timeouts_total", "SRD retransmit timeouts, each moving traffic to another network path (efa retrans_timeout_events)."},
		{hw, counters.SRDUnresponsiveRemote, "rocelab_efa_srd_unresponsive_remote_total", "SRD remote connections that stopped answering (efa unresponsive_remote_events)."},
		{hw, counters.SRDImpairedRemote, "rocelab_efa_srd_impaired_connections_total", "SRD connections rate-limited as impaired (efa impaired_remote_conn_events)."},
		{hw, counters.EFARDMAReadWRErrors, "rocelab_efa_rdma_read_wr_errors_total", "RDMA READ work requests that failed (efa rdma_read_wr_err)."},
		{hw, counters.EFARDMAWriteWRErrors, "rocelab_efa_rdma_write_wr_errors_total", "RDMA WRITE work requests that failed (efa rdma_write_wr_err)."},

		// IB port counters (counters/).
		{pc, counters.PortXmitData, "rocelab_rdma_port_data_bytes_total", "Data bytes through the port (port_xmit_data/port_rcv_data, 4-byte words scaled to bytes)."},
		{pc, counters.PortXmitPackets, "rocelab_rdma_port_packets_total", "Packets through the port (port_xmit_packets/port_rcv_packets)."},
		{pc, counters.PortXmitDiscard, "rocelab_rdma_port_discards_total", "Packets the port discarded (port_xmit_discards)."},
		{pc, counters.PortRcvErrors, "rocelab_rdma_port_errors_total", "Packets received with errors (port_rcv_errors)."},
		{pc, counters.PortUnicastPackets, "rocelab_rdma_port_unicast_packets_total", "Unicast packets through the port (unicast_xmit/rcv_packets)."},
		{pc, counters.PortMcastPackets, "rocelab_rdma_port_multicast_packets_total", "Multicast packets through the port (multicast_xmit/rcv_packets)."},
		{pc, counters.LinkDowned, "rocelab_rdma_link_downed_total", "Times the link went down (link_downed): link flaps."},
		{pc, counters.LinkErrorRecovery, "rocelab_rdma_link_error_recovery_total", "Times the link retrained after errors (link_error_recovery)."},
		{pc, counters.SymbolError, "rocelab_rdma_symbol_errors_total", "Symbol errors on the wire (symbol_error)."},
		{pc, counters.PortXmitWait, "rocelab_rdma_port_xmit_wait_ticks_total", "Ticks the port had data to send but no credit, e.g. paused (port_xmit_wait)."},
		{pc, counters.PortRcvRemotePhysErrors, "rocelab_rdma_port_remote_physical_errors_total", "Packets received marked bad by the far end (port_rcv_remote_physical_errors)."},
		{pc, counters.LocalLinkIntegrity, "rocelab_rdma_local_link_integrity_errors_total", "Times the port's local physical errors passed their threshold (local_link_integrity_errors)."},
		{pc, counters.ExcessiveBufferOverrun, "rocelab_rdma_excessive_buffer_overrun_errors_total", "Times the port's receive buffer overran in a row (excessive_buffer_overrun_errors)."},
		{pc, counters.VL15Dropped, "rocelab_rdma_vl15_dropped_total", "Subnet management packets the port dropped (VL15_dropped)."},
	}
}

// Twin concepts share a family with their partner: the rcv half of a port
// counter pair maps to the family of the xmit half.
var conceptAlias = map[counters.Concept]counters.Concept{
	counters.PortRcvData:    counters.PortXmitData,
	counters.PortRcvPackets: counters.PortXmitPackets,
}

// genericFamilies are the catch-all families, one per source, in the
// order Families lists them.
func genericFamilies() []*Family {
	return []*Family{
		{Name: "rocelab_nic_ethtool_stat", Help: "An ethtool -S statistic the counters table does not know, under its raw name.", Type: prometheus.UntypedValue, Source: counters.Ethtool, Generic: true},
		{Name: "rocelab_rdma_hw_stat", Help: "A file under hw_counters/ the counters table does not know, under its raw name.", Type: prometheus.UntypedValue, Source: counters.HWCounters, Generic: true},
		{Name: "rocelab_rdma_port_stat", Help: "A file under counters/ the counters table does not know, under its raw name.", Type: prometheus.UntypedValue, Source: counters.PortCounters, Generic: true},
	}
}

// index is the mapping table, built at its first use: a command that
// exports nothing (rocelab run) never pays for it.
var index = sync.OnceValue(buildIndex)

type mapIndex struct {
	byConcept map[conceptKey]*Family
	generic   map[counters.Source]*Family
	families  []*Family
}

// buildIndex builds the mapping table. Its families' metrics take the ids
// after the fixed ones (fixedMetrics), all made at package
// initialisation.
func buildIndex() *mapIndex {
	m := &mapIndex{byConcept: map[conceptKey]*Family{}, generic: map[counters.Source]*Family{}}
	tb := counters.Default()
	for _, r := range mappingTable() {
		f := &Family{Name: r.name, Help: r.help, Type: prometheus.CounterValue, Source: r.src}
		f.Dir, f.Prio = familyShape(tb, r.src, r.concept)
		m.byConcept[conceptKey{r.src, r.concept}] = f
		m.families = append(m.families, f)
	}
	for alias, c := range conceptAlias {
		m.byConcept[conceptKey{counters.PortCounters, alias}] = m.byConcept[conceptKey{counters.PortCounters, c}]
	}
	for _, f := range genericFamilies() {
		m.generic[f.Source] = f
		m.families = append(m.families, f)
	}
	for i, f := range m.families {
		f.metric = makeMetric(f.Name, f.Help, f.Type, len(fixedMetrics)+i, f.Labels())
	}
	return m
}

// familyShape derives a family's labels from the counters table: a
// priority label when the concept is per priority, a direction label when
// the concept is counted in both directions (or its port-counter partner
// is). A hw_counters concept counted one way needs none, its names say
// which; one a driver counts both ways (bnxt_re rx/tx_roce_only_pkts,
// irdma RxUDP/TxUDP) has one, or its two names would be one series twice.
func familyShape(tb *counters.Table, src counters.Source, c counters.Concept) (dir, prio bool) {
	dirs := map[counters.Dir]bool{}
	for _, d := range tb.All() {
		if d.Source != src || (d.Concept != c && conceptAlias[d.Concept] != c) {
			continue
		}
		dirs[d.Dir] = true
		prio = prio || d.PerPrio
	}
	dir = dirs[counters.RX] || dirs[counters.TX]
	if src == counters.HWCounters {
		return dirs[counters.RX] && dirs[counters.TX], prio
	}
	if src == counters.Ethtool {
		dir = true // every ethtool counter counts one way; say which
	}
	return dir, prio
}

// Families returns every metric family the mapping can produce, known
// ones in table order, then the generic ones.
func Families() []*Family { return index().families }

// A Mapped counter is a counter name placed in its family.
type Mapped struct {
	// Name is the counter's name as read.
	Name   string
	Family *Family
	// Dir and Prio are the direction and priority label values ("" when
	// the family has no such label).
	Dir, Prio string
	// Raw is the name as the driver spells it (made valid UTF-8): the
	// extra label of a generic family.
	Raw string
	// Mul and Div convert the counter's unit to the family's: Div 1e6 for
	// microseconds to seconds, Mul 4 for 4-byte words to bytes.
	Mul, Div float64
}

// Value converts a raw counter value to the family's unit.
func (m *Mapped) Value(v uint64) float64 { return float64(v) * m.Mul / m.Div }

// MapName places the counter name read from src in its metric family. It
// never fails: a name the counters table does not know for src lands in
// the source's generic family.
func MapName(src counters.Source, name string) Mapped {
	raw := name
	if !utf8.ValidString(raw) {
		raw = strings.ToValidUTF8(raw, "\uFFFD")
	}
	x := index()
	d, prio, ok := counters.Default().LookupIn(src, name)
	if ok && d.Source == src && !repeats(d) {
		if f := x.byConcept[conceptKey{src, d.Concept}]; f != nil {
			m := Mapped{Name: name, Family: f, Raw: raw, Mul: 1, Div: 1}
			switch d.Unit {
			case counters.Microseconds:
				m.Div = 1e6
			case counters.Words4:
				m.Mul = 4
			}
			if f.Dir {
				m.Dir = d.Dir.String()
			}
			if f.Prio && prio >= 0 {
				m.Prio = strconv.Itoa(prio)
			}
			return m
		}
	}
	f := x.generic[src]
	if f == nil {
		f = x.generic[counters.Ethtool]
	}
	return Mapped{Name: name, Family: f, Raw: raw, Mul: 1, Div: 1}
}

// repeats reports whether d is a second name its driver prints for a
// concept beside the first, whose series it would repeat: bnxt_re's
// rx_roce_good_pkts beside rx_roce_only_pkts (Also), mlx5's optional
// cc_rx_ce_pkts beside np_ecn_marked_roce_packets once enabled. It stays
// in the generic family under its raw name. An optional counter of a
// concept the driver has no other name for (rdma_rx_packets) is mapped.
func repeats(d *counters.Desc) bool {
	if !d.Also && !d.Optional {
		return false
	}
	first, ok := counters.Default().Find(d.Vendor, d.Source, d.Concept, d.Dir)
	return ok && first.Name != d.Name
}

// emitMapped sends the sample of a mapped counter: the base labels, then
// the direction, priority and raw name its family has, in Family.Labels
// order, without building a slice on the heap.
func (s *Scrape) emitMapped(m *Mapped, v uint64, base ...string) {
	var lv [6]string
	n := copy(lv[:3], base)
	if m.Family.Dir {
		lv[n] = m.Dir
		n++
	}
	if m.Family.Prio {
		lv[n] = m.Prio
		n++
	}
	if m.Family.Generic {
		lv[n] = m.Raw
		n++
	}
	s.emit(m.Family.metric, m.Value(v), lv[:n]...)
}
