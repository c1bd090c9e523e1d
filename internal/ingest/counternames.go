package ingest

import "rocelab/internal/counters"

// Typed accessors over the driver-specific counter names rules use. The
// names come from the one table of counter names, internal/counters: an
// accessor asks for a concept and tries every name the table gives it,
// mlx5 first, so a rule reads "PFC frames received on priority 3" without
// knowing the NIC.

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

// counterDir is d in the counters table's terms.
func (d Dir) counterDir() counters.Dir {
	if d == TX {
		return counters.TX
	}
	return counters.RX
}

// counterTable is the table every accessor reads names from.
func counterTable() *counters.Table { return counters.Default() }

// source is where the sample's counters were read, in the counters
// table's terms.
func (s *CounterSample) source() counters.Source {
	if s.Kind == KindHWCounters {
		return counters.HWCounters
	}
	return counters.Ethtool
}

// ConceptOf returns the concept a counter name of this sample measures:
// where drivers of two sources print the name, the one of the sample's
// source (bnxt_re's hw_counters rx_out_of_buffer is its RDMA responders',
// mlx5's ethtool rx_out_of_buffer the host rings').
func (s *CounterSample) ConceptOf(name string) counters.Concept {
	if d, _, ok := counterTable().LookupIn(s.source(), name); ok {
		return d.Concept
	}
	return ""
}

// Concept returns the reading of the first name the table gives concept c
// in direction d for priority prio (ignored unless the counter is per
// priority) at the sample's source that the dump has.
func (s *CounterSample) Concept(c counters.Concept, d counters.Dir, prio int) (Reading, bool) {
	for _, n := range counterTable().NamesIn(s.source(), c, d, prio) {
		if r, ok := s.Get(n); ok {
			return r, true
		}
	}
	return Reading{}, false
}

// NameOf returns the name the sample's driver gives concept c in direction
// d at the sample's source, for a rule that explains a counter in the
// port's own terms: the name the dump prints when it has one, else its
// driver's (Vendor), else mlx5's. A bnxt_re dump of Linux 6.18 or later
// (it prints np_cnp_pkts, a renamed name) takes mlx5's names first, the
// ones that driver prints since, not the earlier ones it no longer does.
func (s *CounterSample) NameOf(c counters.Concept, d counters.Dir) string {
	names := counterTable().NamesIn(s.source(), c, d, 0)
	for _, n := range names {
		if s.Has(n) {
			return n
		}
	}
	v, _ := s.Vendor()
	order := []counters.Vendor{v, counters.MLX5}
	if v == counters.BNXTRE && s.printsRenamed(v) {
		order = []counters.Vendor{counters.MLX5, v}
	}
	for _, v := range order {
		if desc, ok := counterTable().Find(v, s.source(), c, d); ok {
			return desc.Of(0)
		}
	}
	if len(names) > 0 {
		return names[0]
	}
	return string(c)
}

// Counts reports whether the sample's driver counts concept c in
// direction d at the sample's source: the dump prints a name of it, or its
// driver (Vendor; mlx5 when the dump does not say) has one. A rule that
// explains a mechanism by its counter says none rather than borrow mlx5's
// name for a driver that has no such counter (ionic counts no ACK
// timeouts but on the Pollara firmware, whose dumps print the name).
func (s *CounterSample) Counts(c counters.Concept, d counters.Dir) bool {
	for _, n := range counterTable().NamesIn(s.source(), c, d, 0) {
		if s.Has(n) {
			return true
		}
	}
	v, _ := s.Vendor()
	desc, ok := counterTable().Find(v, s.source(), c, d)
	return ok && !desc.Sometimes
}

// printsRenamed reports whether the dump prints a name driver v took for a
// concept in place of an earlier one, at the sample's source.
func (s *CounterSample) printsRenamed(v counters.Vendor) bool {
	if s.After == nil {
		return false
	}
	src := s.source()
	for _, c := range s.After.Counters {
		if d, _, ok := counterTable().LookupIn(src, c.Name); ok && d.Renamed && d.Vendor == v && d.Source == src {
			return true
		}
	}
	return false
}

// NonzeroConcepts returns the readings of every name of the concepts, in
// any direction and (for per-priority counters) any priority, that moved.
func (s *CounterSample) NonzeroConcepts(cs ...counters.Concept) []Reading {
	return s.Nonzero(counterTable().AllNamesIn(s.source(), cs...)...)
}

// mlx5Name is the name mlx5's ethtool -S gives a concept.
func mlx5Name(c counters.Concept, d Dir, prio int) string {
	return counterTable().Name(counters.MLX5, counters.Ethtool, c, d.counterDir(), prio)
}

// PrioBytes returns the bytes moved on priority p (mlx5 rx_prio3_bytes,
// bnxt rx_bytes_pri3).
func (s *CounterSample) PrioBytes(d Dir, p int) (Reading, bool) {
	return s.Concept(counters.PrioBytes, d.counterDir(), p)
}

// PrioPackets returns the packets moved on priority p (mlx5
// rx_prio3_packets, bnxt rx_packets_pri3).
func (s *CounterSample) PrioPackets(d Dir, p int) (Reading, bool) {
	return s.Concept(counters.PrioPackets, d.counterDir(), p)
}

// PFCFrames returns the PFC pause frames for priority p (mlx5
// rx_prio3_pause, bnxt rx_pfc_ena_frames_pri3).
func (s *CounterSample) PFCFrames(d Dir, p int) (Reading, bool) {
	return s.Concept(counters.PauseFrames, d.counterDir(), p)
}

// PFCDuration returns the time priority p spent paused, in microseconds
// (mlx5 rx_prio3_pause_duration, bnxt pfc_pri3_rx_duration_us).
func (s *CounterSample) PFCDuration(d Dir, p int) (Reading, bool) {
	return s.Concept(counters.PauseDuration, d.counterDir(), p)
}

// PFCTotal returns PFC frames over all priorities where the NIC counts them
// only as a total (bnxt rx_pfc_frames, be2net rx_priority_pause_frames).
func (s *CounterSample) PFCTotal(d Dir) (Reading, bool) {
	return s.Concept(counters.PFCFramesTotal, d.counterDir(), 0)
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
		return s.Has(mlx5Name(counters.PrioBytes, d, 0)) && s.Has(mlx5Name(counters.PrioPackets, d, 0)) && s.Has(mlx5Name(counters.PrioBytes, d, 7))
	}
	for p := 0; p < 8; p++ {
		if s.Has(mlx5Name(counters.PauseFrames, RX, p)) || s.Has(mlx5Name(counters.PauseFrames, TX, p)) {
			prios = append(prios, p)
		}
	}
	if len(prios) > 0 {
		return prios, true
	}
	global := s.Has(mlx5Name(counters.GlobalPauseQoS, RX, 0)) || s.Has(mlx5Name(counters.GlobalPauseQoS, TX, 0))
	return nil, full(RX) || full(TX) || global && (s.Has(mlx5Name(counters.PrioBytes, RX, 0)) || s.Has(mlx5Name(counters.PrioBytes, TX, 0)))
}

// GlobalPause returns the IEEE 802.3x (link-level, all-priority) pause
// frames: mlx5 tx_global_pause or tx_pause_ctrl_phy, bnxt tx_pause_frames,
// be2net tx_pauseframes.
func (s *CounterSample) GlobalPause(d Dir) (Reading, bool) {
	if r, ok := s.Concept(counters.GlobalPauseQoS, d.counterDir(), 0); ok {
		return r, true
	}
	return s.Concept(counters.GlobalPause, d.counterDir(), 0)
}

// PortRxPackets returns the packets the port received, for ratios: mlx5
// rx_packets_phy, bnxt rx_total_frames, else the netdev's rx_packets.
func (s *CounterSample) PortRxPackets() (Reading, bool) {
	if r, ok := s.Concept(counters.PhyPackets, counters.RX, 0); ok {
		return r, true
	}
	return s.Concept(counters.NetdevPackets, counters.RX, 0)
}

// RoCEPackets returns the RoCE packets the port moved: mlx5 ethtool
// rx_vport_rdma_unicast_packets, be2net rx_roce_frames, RDMA port counters
// port_rcv_packets / port_xmit_packets.
func (s *CounterSample) RoCEPackets(d Dir) (Reading, bool) {
	if r, ok := s.Concept(counters.RDMAUnicastPackets, d.counterDir(), 0); ok {
		return r, true
	}
	if d == RX {
		return s.Concept(counters.PortRcvPackets, counters.RX, 0)
	}
	return s.Concept(counters.PortXmitPackets, counters.TX, 0)
}

// HasVportCounters reports whether the dump is a full mlx5 ethtool -S (it
// prints vport counters), in which a missing RDMA vport counter means zero
// RoCE traffic rather than a filtered paste.
func (s *CounterSample) HasVportCounters() bool {
	return s.Has(mlx5Name(counters.VportUnicastPackets, RX, 0)) || s.Has(mlx5Name(counters.VportUnicastPackets, TX, 0)) ||
		s.Has(mlx5Name(counters.RDMAUnicastPackets, RX, 0))
}

// discardConcepts are the concepts of packets a NIC dropped for want of
// buffer: the port buffer full, the host's receive queue empty, the RDMA
// responder without a receive WQE; and the RoCE packets the NIC's RoCE
// function discarded (bnxt_re, no cause documented; ionic, for their size
// against the MTU).
// Per-priority discards are read per priority (PrioDiscards), except
// where a driver counts them per class of service (bnxt).
var discardConcepts = []counters.Concept{counters.PhyDiscards, counters.OutOfBufferHost, counters.RespOutOfBuffer, counters.RoCEDiscards}

// PrioDiscards returns the packets dropped on priority p (mlx5
// rx_prio3_discards, bnxt rx_discard_packets_cos3).
func (s *CounterSample) PrioDiscards(p int) (Reading, bool) {
	return s.Concept(counters.PrioDiscards, counters.RX, p)
}

// retransmissionConcepts are the RDMA hw_counters that count RC loss
// recovery: ACK timeouts (tail loss), PSN gaps seen by the responder,
// NAK-sequence errors and implied NAKs at the requester, retransmitted
// requests received, adaptive retransmissions and their timeouts, slow
// restarts, and the packets a requester sent again where the driver counts
// them (ionic's Pollara firmware). RNR NAKs are not among them: they say the responder had no
// receive posted, not that a packet was lost (RNRNaks).
var retransmissionConcepts = []counters.Concept{
	counters.LocalAckTimeoutErr, counters.OutOfSequence, counters.PacketSeqErr, counters.ImpliedNakSeqErr,
	counters.DuplicateRequest, counters.AdpRetrans, counters.AdpRetransTimeout, counters.SlowRestart,
	counters.Retransmitted,
}

// RNRNaks returns the RNR NAKs the port's requesters received (mlx5
// rnr_nak_retry_err, bnxt_re rnr_naks_rcvd), when any.
func (s *CounterSample) RNRNaks() (Reading, bool) {
	r, ok := s.Concept(counters.RNRNakRetryErr, counters.NoDir, 0)
	return r, ok && r.Value > 0
}

// isEthtoolName reports whether the counters table knows n as a name some
// driver's ethtool -S prints (other than the netdev's generic software
// counters every driver prints, which say nothing alone).
func isEthtoolName(n string) bool {
	d, _, ok := counterTable().Lookup(n)
	return ok && d.Source == counters.Ethtool && d.Concept != counters.NetdevPackets && !d.Common
}

// Vendor returns the driver whose names the sample's counters are: the
// driver `ethtool -i` names beside the dump when the table knows it, else
// the one its names say, read at the sample's source (ethtool or
// hw_counters): another vendor's where any name is only that vendor's,
// mlx5 where the names are mlx5's, and false where no name is known. A
// driver that prints some of mlx5's names among its own (bnxt_re's
// rx_out_of_buffer, and all but one of its hw_counters from Linux 6.18) is
// still told apart; a name many drivers print (Common) says nothing. An
// RDMA device's own name says its driver before any counter name does
// (counters.VendorOfDevice): Broadcom's out-of-tree bnxt_re prints mlx5's
// names alone, and so may a dump cut to a few lines.
func (s *CounterSample) Vendor() (counters.Vendor, bool) {
	if s.After == nil {
		return 0, false
	}
	if v, ok := counters.VendorNamed(s.Driver); ok {
		return v, true
	}
	if v, ok := counters.VendorOfDevice(s.Device); ok && s.Kind == KindHWCounters {
		return v, true
	}
	src, found := s.source(), false
	for _, c := range s.After.Counters {
		d, _, ok := counterTable().LookupIn(src, c.Name)
		if !ok || d.Source != src || d.Vendor == counters.Twin || d.Concept == counters.NetdevPackets || d.Common {
			continue
		}
		if d.Vendor != counters.MLX5 {
			return d.Vendor, true
		}
		found = true
	}
	return counters.MLX5, found
}
