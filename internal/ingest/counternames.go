package ingest

import "fmt"

// Typed accessors over the driver-specific counter names that rules use.
// Each accessor tries the mlx5 name first, then bnxt_en, then be2net, so a
// rule reads "PFC frames received on priority 3" without knowing the NIC.

// Dir is a traffic direction on a port.
type Dir int

// Directions.
const (
	RX Dir = iota
	TX
)

// String returns "rx" or "tx".
func (d Dir) String() string {
	if d == TX {
		return "tx"
	}
	return "rx"
}

// firstOf returns the reading of the first of names the dump has.
func (s *CounterSample) firstOf(names ...string) (Reading, bool) {
	for _, n := range names {
		if r, ok := s.Get(n); ok {
			return r, true
		}
	}
	return Reading{}, false
}

// PrioBytes returns the bytes moved on priority p (mlx5 rx_prio3_bytes,
// bnxt rx_bytes_pri3).
func (s *CounterSample) PrioBytes(d Dir, p int) (Reading, bool) {
	return s.firstOf(fmt.Sprintf("%s_prio%d_bytes", d, p), fmt.Sprintf("%s_bytes_pri%d", d, p))
}

// PrioPackets returns the packets moved on priority p (mlx5
// rx_prio3_packets, bnxt rx_packets_pri3).
func (s *CounterSample) PrioPackets(d Dir, p int) (Reading, bool) {
	return s.firstOf(fmt.Sprintf("%s_prio%d_packets", d, p), fmt.Sprintf("%s_packets_pri%d", d, p))
}

// PFCFrames returns the PFC pause frames for priority p (mlx5
// rx_prio3_pause, bnxt rx_pfc_ena_frames_pri3).
func (s *CounterSample) PFCFrames(d Dir, p int) (Reading, bool) {
	return s.firstOf(fmt.Sprintf("%s_prio%d_pause", d, p), fmt.Sprintf("%s_pfc_ena_frames_pri%d", d, p))
}

// PFCDuration returns the time priority p spent paused, in microseconds
// (mlx5 rx_prio3_pause_duration, bnxt pfc_pri3_rx_duration_us).
func (s *CounterSample) PFCDuration(d Dir, p int) (Reading, bool) {
	return s.firstOf(fmt.Sprintf("%s_prio%d_pause_duration", d, p), fmt.Sprintf("pfc_pri%d_%s_duration_us", p, d))
}

// PFCTotal returns PFC frames over all priorities where the NIC counts them
// only as a total (be2net rx_priority_pause_frames, bnxt rx_pfc_frames).
func (s *CounterSample) PFCTotal(d Dir) (Reading, bool) {
	if d == RX {
		return s.firstOf("rx_pfc_frames", "rx_priority_pause_frames")
	}
	return s.firstOf("tx_pfc_frames", "tx_priority_pauseframes")
}

// PFCEnabledByCounters returns the priorities whose PFC counters mlx5
// prints. mlx5 prints rx_prioN_pause only for priorities with PFC enabled
// (and rx_global_pause only when 802.3x pause is on), so on mlx5 this is the
// NIC's PFC configuration; an empty list means PFC is off on every
// priority. ok is false when no pause counter appears and the dump does not
// list the mlx5 per-priority counters of every priority (bytes and packets
// of priorities 0 and 7), as in a paste filtered with grep, where a missing
// pause counter proves nothing; unless it prints rx/tx_global_pause: mlx5
// runs either 802.3x pause or PFC, never both.
func (s *CounterSample) PFCEnabledByCounters() (prios []int, ok bool) {
	full := func(d Dir) bool {
		return s.Has(fmt.Sprintf("%s_prio0_bytes", d)) && s.Has(fmt.Sprintf("%s_prio0_packets", d)) && s.Has(fmt.Sprintf("%s_prio7_bytes", d))
	}
	for p := 0; p < 8; p++ {
		if s.Has(fmt.Sprintf("rx_prio%d_pause", p)) || s.Has(fmt.Sprintf("tx_prio%d_pause", p)) {
			prios = append(prios, p)
		}
	}
	if len(prios) > 0 {
		return prios, true
	}
	global := s.Has("rx_global_pause") || s.Has("tx_global_pause")
	return nil, full(RX) || full(TX) || global && (s.Has("rx_prio0_bytes") || s.Has("tx_prio0_bytes"))
}

// GlobalPause returns the IEEE 802.3x (link-level, all-priority) pause
// frames: mlx5 tx_global_pause or tx_pause_ctrl_phy, bnxt tx_pause_frames,
// be2net tx_pauseframes.
func (s *CounterSample) GlobalPause(d Dir) (Reading, bool) {
	if d == RX {
		return s.firstOf("rx_global_pause", "rx_pause_ctrl_phy", "rx_pause_frames")
	}
	return s.firstOf("tx_global_pause", "tx_pause_ctrl_phy", "tx_pause_frames", "tx_pauseframes")
}

// PortRxPackets returns the packets the port received, for ratios: mlx5
// rx_packets_phy, bnxt rx_total_frames, else rx_packets.
func (s *CounterSample) PortRxPackets() (Reading, bool) {
	return s.firstOf("rx_packets_phy", "rx_total_frames", "rx_packets")
}

// RoCEPackets returns the RoCE packets the port moved: mlx5 ethtool
// rx_vport_rdma_unicast_packets, RDMA port counters port_rcv_packets /
// port_xmit_packets, be2net rx_roce_frames.
func (s *CounterSample) RoCEPackets(d Dir) (Reading, bool) {
	if d == RX {
		return s.firstOf("rx_vport_rdma_unicast_packets", "port_rcv_packets", "rx_roce_frames")
	}
	return s.firstOf("tx_vport_rdma_unicast_packets", "port_xmit_packets")
}

// HasVportCounters reports whether the dump is a full mlx5 ethtool -S (it
// prints vport counters), in which a missing RDMA vport counter means zero
// RoCE traffic rather than a filtered paste.
func (s *CounterSample) HasVportCounters() bool {
	return s.Has("rx_vport_unicast_packets") || s.Has("tx_vport_unicast_packets") || s.Has("rx_vport_rdma_unicast_packets")
}

// DiscardNames lists the counters of packets a NIC dropped for want of
// buffer, per driver. rx_prioN_discards are added per priority.
var DiscardNames = []string{
	// mlx5: port buffer full (physical port), and host receive queue empty.
	"rx_discards_phy", "tx_discards_phy", "rx_out_of_buffer",
	// RDMA hw_counters: responder had no receive WQE.
	"out_of_buffer",
	// bnxt_en per-CoS discards.
	"rx_discard_packets_cos0", "rx_discard_packets_cos1", "rx_discard_packets_cos2", "rx_discard_packets_cos3",
	"rx_discard_packets_cos4", "rx_discard_packets_cos5", "rx_discard_packets_cos6", "rx_discard_packets_cos7",
	// be2net.
	"rx_drops_no_pbuf", "rx_drops_no_erx_descr", "rxpp_fifo_overflow_drop", "rx_input_fifo_overflow_drop", "pmem_fifo_overflow_drop",
}

// PrioDiscards returns the packets dropped on priority p (mlx5
// rx_prio3_discards).
func (s *CounterSample) PrioDiscards(p int) (Reading, bool) {
	return s.Get(fmt.Sprintf("rx_prio%d_discards", p))
}

// RetransmissionNames lists RDMA hw_counters that count RC loss recovery.
var RetransmissionNames = []string{
	"local_ack_timeout_err", // requester ACK timeout: tail loss, retransmit after the timer
	"out_of_sequence",       // responder saw a PSN gap: a packet was lost
	"packet_seq_err",        // requester received a NAK-sequence error
	"implied_nak_seq_err",   // requester inferred a NAK from a later read response / ack
	"duplicate_request",     // responder received a retransmitted request
	"roce_adp_retrans",      // adaptive retransmission fired
	"roce_adp_retrans_to",   // adaptive retransmission timed out
	"roce_slow_restart",     // rate cut to restart after repeated loss
	"rnr_nak_retry_err",     // receiver-not-ready NAK retries exhausted
}

// ECN and CNP counters in RDMA hw_counters.
const (
	NPECNMarked  = "np_ecn_marked_roce_packets" // received RoCE packets with ECN CE
	NPCNPSent    = "np_cnp_sent"                // CNPs this NIC sent back as notification point
	RPCNPHandled = "rp_cnp_handled"             // CNPs this NIC received and slowed down for
	RPCNPIgnored = "rp_cnp_ignored"             // CNPs this NIC received but ignored
)
