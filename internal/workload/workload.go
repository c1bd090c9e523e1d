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
	// SrcPort is the connection's UDP source port, which ECMP hashes;
	// zero draws one from the dynamic range, as a RoCEv2 NIC does.
	SrcPort uint16
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
	// PostAfter queues m on qp d after now, as After(d) and then Post
	// would: a post the workload decides now and its host makes later
	// (a proxy thread's time to the doorbell), which nothing in between
	// withdraws. The transport may hand it to the NIC at once; among
	// posts due at one NIC at one time, it then goes before one that
	// Post makes at that time.
	PostAfter(d unit.Time, qp QP, m Message)
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

// A Grouper is a transport that orders a workload's equal-time steps by
// the group of hosts they belong to (a server's NICs) before their order
// of arrival, an order that does not depend on which scheduler runs them.
type Grouper interface {
	// Group makes hosts one group, whose completions of o's queue pairs
	// connected from now on are o's steps of that group.
	Group(o Owner, hosts []int)
	// AfterOn is After for a step of a group, named by one of its hosts.
	AfterOn(host int, d unit.Time, w Waker, tag uint64)
}

// A Leader is a workload that decides its posts ahead of their time.
// Lead returns how far after Now every post it makes from now on is at
// least (PostAfter), and whether, until a post it makes from now on could
// complete, it will neither finish, connect nor Post: then the run may
// let the NICs run that far past the workloads (sim.Windows.Lead).
type Leader interface {
	Lead() (unit.Time, bool)
}

// Slots holds values in reusable slots until an event takes them: Add
// returns the slot to name in the event's tag, Take returns the value and
// frees its slot, so that holding one costs no allocation once warm. The
// zero value is ready to use.
type Slots[T any] struct {
	slots []slot[T]
	free  int32 // 1 + the first free slot; 0: none
}

type slot[T any] struct {
	v    T
	next int32
}

// Add keeps v and returns its slot.
func (s *Slots[T]) Add(v T) int32 {
	i := s.free - 1
	if i >= 0 {
		s.free = s.slots[i].next
	} else {
		i = int32(len(s.slots))
		s.slots = append(s.slots, slot[T]{})
	}
	s.slots[i] = slot[T]{v: v}
	return i
}

// Take returns slot i's value and frees the slot.
func (s *Slots[T]) Take(i int32) T {
	v := s.slots[i].v
	s.slots[i] = slot[T]{next: s.free}
	s.free = i + 1
	return v
}

// Wakes holds a transport's pending After calls: Add returns the slot to
// name in the timer's tag, Take empties it when the timer fires.
type Wakes struct{ s Slots[wake] }

type wake struct {
	w   Waker
	tag uint64
}

// Add keeps w and tag and returns their slot.
func (s *Wakes) Add(w Waker, tag uint64) int32 { return s.s.Add(wake{w, tag}) }

// Take returns slot i's waker and tag and frees the slot.
func (s *Wakes) Take(i int32) (Waker, uint64) {
	k := s.s.Take(i)
	return k.w, k.tag
}

// Later makes PostAfter for a transport that hands posts over when they
// are made: it keeps each post in a slot until its After fires. The zero
// value is ready to use.
type Later struct {
	t     Transport
	posts Slots[laterPost]
}

type laterPost struct {
	qp QP
	m  Message
}

// PostAfter posts m on qp through t, d after now.
func (l *Later) PostAfter(t Transport, d unit.Time, qp QP, m Message) {
	l.t = t
	t.After(d, l, uint64(l.posts.Add(laterPost{qp, m})))
}

// Wake implements Waker: the post in slot tag is due.
func (l *Later) Wake(_ unit.Time, tag uint64) {
	p := l.posts.Take(int32(tag))
	l.t.Post(p.qp, p.m)
}
