// Package nic is the host side of the twin: an RDMA NIC as a ConnectX NIC
// is one. It owns RC queue pairs (segmentation to the path MTU, 24-bit
// PSNs, coalesced ACKs, NAK on a sequence gap and go-back-N at the
// requester, duplicate detection, the local ACK timer with retry_cnt and
// the error state), generates CNPs as DCQCN's notification point and
// paces each QP at its congestion controller's rate as the reaction point,
// maps traffic classes to priorities, obeys and sends PFC (a host that
// drains slower than its link pauses its switch port), and counts what it
// does under the mlx5 hw_counters names.
//
// Its egress picks among ready QPs without scanning them: each priority
// has a ring of QPs that may send now and a queue of control frames (ACK,
// NAK, CNP), an ETS scheduler (the switch's) serves the priorities, and
// QPs paced below line rate wait in a calendar until their next send time.
//
// Transport implements workload.Transport over every NIC of a network:
// workloads open connections, post messages and receive completions.
package nic

import (
	"rocelab/internal/cc"
	"rocelab/internal/fabric"
	"rocelab/internal/unit"
)

// Adaptive configures adaptive retransmission (NVIDIA ConnectX): the
// first timeout is drawn at random from [Base, 2·Base), later ones double,
// and none exceeds the QP's configured timeout.
type Adaptive struct {
	Base unit.Time
}

// Config is the configuration every NIC of a scenario shares.
type Config struct {
	// MTU is the RoCE path MTU: the RDMA payload per packet (256..4096).
	MTU int32
	// TCPMSS is the TCP payload per segment for TCP-class connections.
	TCPMSS int32
	// VLAN tags frames with 802.1Q, the PCP set to the priority.
	VLAN bool
	// ECT marks RoCE data packets ECN-capable (ECT(0)).
	ECT bool
	// DSCP is the DSCP of connections that do not set a traffic class.
	DSCP uint8
	// Priority, when 0..7, is the priority every data connection is queued
	// and paused on; -1 takes it from Classifier by the DSCP.
	Priority int
	// Classifier maps DSCP (trust dscp) or PCP (trust pcp) to a priority,
	// for transmission and for receive counters.
	Classifier fabric.Classifier
	// Strict and Weights configure the NIC's ETS scheduler over its
	// priorities.
	Strict  uint8
	Weights [8]int
	// TTL is the IP time to live of packets the NIC sends.
	TTL uint8

	// Timeout is the RC local ACK timeout exponent: 4.096 us × 2^Timeout
	// (NCCL_IB_TIMEOUT). RetryCnt is retry_cnt (NCCL_IB_RETRY_CNT).
	Timeout  uint8
	RetryCnt int
	// Adaptive, when set, shortens and randomises early timeouts.
	Adaptive *Adaptive
	// AckCoalesce is how many in-order packets a responder may receive
	// before it must ACK; packets with AckReq (the last of each message)
	// are ACKed at once.
	AckCoalesce int
	// TCPRTO is the retransmission timeout of TCP-class connections (the
	// Linux minimum RTO, 200 ms).
	TCPRTO unit.Time

	// DCQCN is the congestion control, nil for none (PFC only). Its
	// roce_cc_prio_mask says which priorities it acts on: a QP on another
	// priority keeps line rate and its CNPs count as rp_cnp_ignored, and
	// the NIC sends CNPs only for CE marks on enabled priorities. CNPs go
	// out with cnp_dscp and cnp_802p_prio, paced by min_time_between_cnps
	// per port or per QP (cnp_pacing_scope).
	DCQCN *cc.DCQCNConfig
	// Timely and HPCC are the RTT- and INT-based alternatives, on the
	// priorities in CCPrio (ROCE_CC_PRIO_MASK). HPCC's data packets and
	// the ACKs that echo them carry INT (packet.INTBytes more on the
	// wire), which every switch egress fills in.
	Timely *cc.TimelyConfig
	HPCC   *cc.HPCCConfig
	// DCTCP is the HPCC ns-3 model's rate-based DCTCP, on the priorities
	// in CCPrio: the responder echoes a CE mark on the ACK the marked
	// packet triggers (needs ECT and marking switches).
	DCTCP *cc.DCTCPConfig
	// PINT is HPCC-PINT: its data packets and their ACKs carry a 1- or
	// 2-byte code that the switches write (fabric.PINTConfig).
	PINT   *cc.PINTConfig
	CCPrio uint8

	// Receive is how a responder takes packets that arrive out of order:
	// InOrder (plain RC) or PlaceOutOfOrder. SelectiveRepeat makes the
	// requester resend only the PSNs a NAK names; it needs
	// PlaceOutOfOrder.
	Receive         ReceiveMode
	SelectiveRepeat bool
	// ReorderWindow is how many PSNs past the expected one an
	// out-of-order responder places (its reorder buffer); later ones are
	// dropped as out of sequence. NAKThreshold is how far (in PSNs) the
	// highest placed packet must be past a missing one before the
	// responder NAKs it: 0 NAKs a hole at once, larger values wait out
	// reordering.
	ReorderWindow int
	NAKThreshold  int

	// KeepPendingGap keeps a paced QP's next send where its last send put
	// it when congestion control raises the rate, so the new rate applies
	// from the gap after it: the HPCC ns-3 model's DCQCN, TIMELY and DCTCP
	// assign the rate without moving the QP's next send. Unset, a rise
	// re-times the pending gap at the new rate (a cut, or a QP its window
	// holds, only with RetimeAll).
	KeepPendingGap bool

	// RetimeAll re-times a paced QP's next send at every rate change: one
	// packet time at the new rate after its last send started, later at a
	// cut, and for a QP its window holds as well, as the HPCC ns-3 model's
	// HPCC and HPCC-PINT do (rdma-hw.cc, RdmaHw::ChangeRate moves
	// m_nextAvail by the last packet's time at the new rate less at the
	// old, whatever the window). Unset, a cut never delays the pending
	// packet and a held QP keeps its gap. KeepPendingGap overrides it.
	RetimeAll bool

	// QPOrderByIndex serves a priority's ready QPs in the order the NIC
	// created them, from the one after the last served, as the HPCC ns-3
	// model's NIC does (RdmaEgressQueue::GetNextQindex). Unset, the ready
	// QPs are a FIFO that a QP joins when it becomes ready and rejoins as
	// its packet starts: both serve one packet a turn, and differ in where
	// a QP that becomes ready enters the cycle (two QPs posted at once go
	// A, A, B, A, B in the FIFO, A, B, A, B by index).
	QPOrderByIndex bool

	// AcksFirst sends control frames (ACKs, NAKs, CNPs) ahead of every
	// data packet and even while their priority is paused, as the HPCC
	// ns-3 model's NIC does with ACK_HIGH_PRIO 1 (its ACK queue, index 0,
	// is never paused). Unset, a control frame waits with its priority, as
	// a real NIC holds every frame of a paused priority.
	AcksFirst bool

	// DrainRate, when positive, is how fast the host takes received data
	// from the NIC (a slow PCIe link or host): data packets wait in a
	// receive buffer of RxBuffer bytes, the NIC sends PFC XOFF on the
	// packet's priority (when it is in RxPFC) once more than RxXOFF bytes
	// wait and XON below RxXON, and drops what does not fit.
	DrainRate     unit.BitRate
	RxBuffer      unit.Bytes
	RxXOFF, RxXON unit.Bytes
	RxPFC         uint8
	// PFC is how the NIC's port sends pause frames.
	PFC fabric.PFCConfig
	// SampleQPs is how many rate-limited queue pairs per NIC have their
	// rate and α sampled as time series.
	SampleQPs int
	// CompletionDelay is how long after the NIC writes a completion the
	// workload sees it: the CQE's DMA to host memory and the poll that
	// finds it. It must be positive: it is what lets the workloads and a
	// partitioned fabric run apart.
	CompletionDelay unit.Time
}

// ReceiveMode is how an RC responder handles a packet that arrives ahead of
// the PSN it expects.
type ReceiveMode uint8

// Receive modes.
const (
	// InOrder is plain RC: a packet past the expected PSN is dropped, the
	// first of a gap is NAKed (PSN sequence error) and the requester goes
	// back N. Every reordering in the fabric costs a NAK and a go-back-N
	// episode.
	InOrder ReceiveMode = iota
	// PlaceOutOfOrder places packets within the reorder window directly
	// (out-of-order data placement, MLX5DV_QP_CREATE_OOO_DP on ConnectX-5
	// and later, as Spectrum-X fabrics run it with adaptive routing) and
	// completes messages in order; a hole is NAKed only once NAKThreshold
	// later packets show it is a loss.
	PlaceOutOfOrder
)

// String returns "in-order" or "out-of-order".
func (m ReceiveMode) String() string {
	if m == PlaceOutOfOrder {
		return "out-of-order"
	}
	return "in-order"
}

// ACKTimeout returns the host's default local ACK timeout, 4.096 us ×
// 2^Timeout (IB spec 1.2 §12.7.34).
func (c *Config) ACKTimeout() unit.Time { return ackTimeout(c.Timeout) }

// ackTimeout returns 4.096 us × 2^exp; exponent 0 means no timeout at
// all (armRTO never arms it).
func ackTimeout(exp uint8) unit.Time { return 4096 * unit.Nanosecond << exp }
