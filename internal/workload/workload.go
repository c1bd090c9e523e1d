// Package workload is the seam between traffic and the network that
// carries it. A workload (explicit flows with dependencies, an NCCL
// collective, an nccl-tests sweep, a training iteration) opens reliable
// connections between hosts, posts messages to them and reacts to their
// completions; a Transport carries them. The packet-level twin (the RDMA
// NIC over the fabric) implements Transport, and so will the fluid mode,
// so a workload runs unchanged on either.
//
// Everything happens in simulated time on the transport's clock, from the
// transport's callbacks: a workload never blocks and never reads a wall
// clock.
package workload

import "rocelab/internal/unit"

// QP is a handle to one reliable connection (an RC queue pair and its
// remote peer), dense from 0 in the order Connect returned them.
type QP int32

// Op is a work request's operation.
type Op uint8

// Operations.
const (
	// Write is an RDMA WRITE: completes at the requester when acknowledged;
	// the responder is not notified.
	Write Op = iota
	// WriteImm is an RDMA WRITE with immediate: completes at the requester
	// when acknowledged and at the responder when all its data has arrived
	// in order. NCCL's IB transport moves data this way.
	WriteImm
	// Send is a SEND: like WriteImm for completions.
	Send
	// Read is an RDMA READ: the responder sends the data back; completes
	// at the requester when the last response arrives. (The packet-level
	// NIC does not carry READ yet: it completes a READ with
	// RemoteInvalidRequest.)
	Read
)

// String returns the verb's name.
func (o Op) String() string {
	switch o {
	case Write:
		return "write"
	case WriteImm:
		return "write_imm"
	case Send:
		return "send"
	case Read:
		return "read"
	}
	return "op?"
}

// Message is one work request. Zero bytes is allowed and completes (one
// packet with no payload on the wire).
type Message struct {
	Op    Op
	Bytes int64
	// ID is the caller's work request id, returned in its completions.
	ID uint64
	// Unsignaled asks for no requester completion when the request
	// succeeds, as a work request posted without IBV_SEND_SIGNALED: an
	// engine may leave it out (the fluid engine does), so the owner must
	// not wait for it. A failed request always completes.
	Unsignaled bool
}

// Status is a completion's status, numbered as ibv_wc_status.
type Status uint8

// Statuses (rdma-core verbs.h enum ibv_wc_status).
const (
	Success Status = 0
	// Flushed is IBV_WC_WR_FLUSH_ERR: the QP went to the error state
	// before this request ran.
	Flushed Status = 5
	// RemoteInvalidRequest is IBV_WC_REM_INV_REQ_ERR: the responder
	// refused the request (an operation the transport does not carry).
	RemoteInvalidRequest Status = 9
	// RetryExceeded is IBV_WC_RETRY_EXC_ERR: the transport retry counter
	// ran out (lost packets or ACKs, retry_cnt timeouts in a row).
	RetryExceeded Status = 12
)

// String returns the status as ibv_wc_status_str prints it.
func (s Status) String() string {
	switch s {
	case Success:
		return "success"
	case Flushed:
		return "Work Request Flushed Error"
	case RemoteInvalidRequest:
		return "remote invalid request error"
	case RetryExceeded:
		return "transport retry counter exceeded"
	}
	return "status?"
}

// Side says which end of a connection a completion is for.
type Side uint8

// Sides.
const (
	// Requester: the posting host's send completion.
	Requester Side = iota
	// Responder: the remote host's receive completion (WriteImm, Send).
	Responder
)

// Completion reports a finished work request at one end.
type Completion struct {
	QP     QP
	Side   Side
	Op     Op
	ID     uint64
	Bytes  int64
	Status Status
	At     unit.Time
}

// Class is the kind of transport a connection uses.
type Class uint8

// Classes.
const (
	// RoCE is an RC queue pair over RoCEv2.
	RoCE Class = iota
	// TCP is a kernel TCP socket (NCCL's socket transport, or background
	// traffic): no PFC class of its own, kernel overhead, rate capped.
	TCP
)

// QPOptions configure a connection.
type QPOptions struct {
	Class Class
	// TC, when SetTC, is the IP traffic class (TOS byte) as NCCL_IB_TC
	// gives it; the DSCP is TC>>2. Without SetTC the host's default
	// applies, as a NIC applies its configured traffic class to QPs that
	// set none.
	SetTC bool
	TC    uint8
	// PinPriority queues the connection on Priority, whatever its DSCP
	// maps to (an explicit per-flow priority).
	PinPriority bool
	Priority    uint8
	// RateCap limits the connection's sending rate; zero means none.
	RateCap unit.BitRate
	// Tag is the caller's label for reports (e.g. "ring0/ch3").
	Tag string
	// Timeout is the local ACK timeout exponent (4.096 µs·2^Timeout) and
	// RetryCount the transport retry count, as NCCL_IB_TIMEOUT and
	// NCCL_IB_RETRY_CNT set them on NCCL's queue pairs; a zero Timeout
	// leaves the host's defaults for both.
	Timeout, RetryCount int
}

// An Owner receives the completions of the connections it opened, at both
// ends.
type Owner interface {
	Completed(c Completion)
}

// A Waker is called back by Transport.After.
type Waker interface {
	Wake(now unit.Time, tag uint64)
}

// Transport carries a workload's messages.
type Transport interface {
	// Now returns the current simulated time.
	Now() unit.Time
	// Hosts returns the number of hosts (NIC ports); hosts are 0..Hosts()-1.
	Hosts() int
	// Connect opens a reliable connection from host src to host dst;
	// owner receives its completions. src and dst differ.
	Connect(src, dst int, o QPOptions, owner Owner) QP
	// Post queues m on qp. Messages on one QP complete in order.
	Post(qp QP, m Message)
	// After calls w.Wake(now+d, tag) after d: a local step such as a
	// compute phase or an NVLink copy.
	After(d unit.Time, w Waker, tag uint64)
	// Progress returns the payload bytes qp has delivered in order to its
	// responder and when the last of them arrived.
	Progress(qp QP) (delivered int64, last unit.Time)
}

// A Workload drives traffic over a transport.
type Workload interface {
	Owner
	Waker
	// Start is called once at time zero.
	Start(t Transport)
	// Done reports whether the workload has finished; the run ends when
	// every workload is done.
	Done() bool
}

// Wakes holds a transport's pending After calls in reusable slots, so that
// scheduling one costs no allocation once warm: Add returns the slot to
// name in the timer's tag, Take empties it when the timer fires. The zero
// value is ready to use.
type Wakes struct {
	slots []wakeSlot
	free  int32 // 1 + the first free slot; 0: none
}

type wakeSlot struct {
	w    Waker
	tag  uint64
	next int32
}

// Add keeps w and tag and returns their slot.
func (s *Wakes) Add(w Waker, tag uint64) int32 {
	i := s.free - 1
	if i >= 0 {
		s.free = s.slots[i].next
	} else {
		i = int32(len(s.slots))
		s.slots = append(s.slots, wakeSlot{})
	}
	s.slots[i] = wakeSlot{w: w, tag: tag}
	return i
}

// Take returns slot i's waker and tag and frees the slot.
func (s *Wakes) Take(i int32) (Waker, uint64) {
	sl := s.slots[i]
	s.slots[i] = wakeSlot{next: s.free}
	s.free = i + 1
	return sl.w, sl.tag
}
