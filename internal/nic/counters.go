package nic

import (
	"rocelab/internal/counters"
	"rocelab/internal/fabric"
)

// HWCounters are a NIC port's RDMA counters, as mlx5 keeps them in
// /sys/class/infiniband/<dev>/ports/1/hw_counters.
type HWCounters struct {
	// Notification point.
	NPECNMarkedRoCEPackets int64 // RoCE packets received with ECN CE
	NPCNPSent              int64 // CNPs sent
	// Reaction point.
	RPCNPHandled int64 // CNPs received that a QP's congestion control acted on
	RPCNPIgnored int64 // CNPs received for QPs without congestion control
	// Responder.
	OutOfSequence    int64 // data packets received with a PSN after the expected one
	DuplicateRequest int64 // data packets received with a PSN before the expected one
	RxWriteRequests  int64 // RDMA WRITE request packets received
	RxReadRequests   int64 // RDMA READ request packets received
	RxSendRequests   int64 // SEND request packets received (no mlx5 name; not listed)
	// Reordering the fabric caused, at this NIC as a receiver (twin-only,
	// not listed): first transmissions that arrived after a higher PSN of
	// their QP, the largest such distance in PSNs, and the packets an
	// out-of-order responder placed ahead of the expected PSN.
	Reordered, ReorderMax, PlacedOutOfOrder int64
	// Requester.
	PacketSeqErr       int64 // NAK-sequence errors received
	LocalAckTimeoutErr int64 // local ACK timeouts
	ImpliedNakSeqErr   int64 // READ responses with a PSN gap: the requester re-reads from the gap
	ReqCQEError        int64 // completions with error (retry exceeded)
	// ReqTransportRetriesExceeded counts QPs that ran out of retry_cnt.
	ReqTransportRetriesExceeded int64
	ReqCQEFlushError            int64 // completions flushed by a QP in error
	AdpRetrans                  int64 // adaptive retransmission timeouts
	// Retransmitted counts data packets sent again (a twin-only counter).
	Retransmitted int64
}

// List returns the counters under their hw_counters names, in a fixed
// order; Retransmitted, RxSendRequests and the reordering counts, which
// mlx5 does not print, are left out.
func (h *HWCounters) List() []fabric.Counter {
	name := func(c counters.Concept) string { return string(c) }
	return []fabric.Counter{
		{Name: name(counters.CNPSent), Value: h.NPCNPSent},
		{Name: name(counters.ECNMarkedRoCE), Value: h.NPECNMarkedRoCEPackets},
		{Name: name(counters.CNPHandled), Value: h.RPCNPHandled},
		{Name: name(counters.CNPIgnored), Value: h.RPCNPIgnored},
		{Name: name(counters.OutOfSequence), Value: h.OutOfSequence},
		{Name: name(counters.PacketSeqErr), Value: h.PacketSeqErr},
		{Name: name(counters.LocalAckTimeoutErr), Value: h.LocalAckTimeoutErr},
		{Name: name(counters.ImpliedNakSeqErr), Value: h.ImpliedNakSeqErr},
		{Name: name(counters.DuplicateRequest), Value: h.DuplicateRequest},
		{Name: name(counters.ReqCQEError), Value: h.ReqCQEError},
		{Name: name(counters.ReqCQEFlushError), Value: h.ReqCQEFlushError},
		{Name: name(counters.ReqTransportRetriesExceeded), Value: h.ReqTransportRetriesExceeded},
		{Name: name(counters.RxWriteRequests), Value: h.RxWriteRequests},
		{Name: name(counters.RxReadRequests), Value: h.RxReadRequests},
		{Name: name(counters.AdpRetrans), Value: h.AdpRetrans},
	}
}
