// Package packet defines the record that flows through the twin, the
// RoCEv2 header sizes that decide its length on the wire, and 24-bit PSN
// arithmetic.
//
// A Packet is a fixed-size value recycled through a Pool, so the data path
// allocates nothing per packet once warm. Its next field links it into one
// intrusive FIFO at a time (an egress queue or a link's in-flight list).
package packet

import (
	"rocelab/internal/roce"
	"rocelab/internal/unit"
)

// Kind is what a packet is at the link layer.
type Kind uint8

// Packet kinds.
const (
	// Data is a RoCEv2 request packet carrying payload (RDMA WRITE/SEND).
	Data Kind = iota
	// Ack is a RoCEv2 ACKNOWLEDGE (also NAK, by its AETH syndrome).
	Ack
	// CNP is a RoCEv2 congestion notification packet (BTH opcode 0x81).
	CNP
	// Pause is an IEEE 802.1Qbb PFC frame (MAC control 0x8808, opcode 0x0101).
	Pause
	// NumKinds is the number of kinds.
	NumKinds
)

// Class is the transport a data packet belongs to.
type Class uint8

// Classes.
const (
	// ClassRoCE is RoCEv2 (UDP 4791): the traffic the lossless class is for.
	ClassRoCE Class = iota
	// ClassTCP is kernel TCP (NCCL's socket transport, background traffic).
	ClassTCP
	// NumClasses is the number of classes.
	NumClasses
)

// String returns the class's name.
func (c Class) String() string {
	if c == ClassTCP {
		return "tcp"
	}
	return "roce"
}

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case Data:
		return "data"
	case Ack:
		return "ack"
	case CNP:
		return "cnp"
	case Pause:
		return "pause"
	}
	return "kind?"
}

// ECN codepoints of the IP header's two low TOS bits.
const (
	NotECT uint8 = 0
	ECT1   uint8 = 1
	ECT0   uint8 = 2
	CE     uint8 = 3
)

// Header sizes in bytes: IEEE 802.3 framing, RFC 791 IPv4, RFC 768 UDP, and
// the RoCEv2 transport headers of the InfiniBand Architecture Specification
// (Annex A17), as the kernel's rxe driver lays them out (rxe_opcode.c).
const (
	PreambleIFG = 20 // preamble 7 + SFD 1 + minimum inter-frame gap 12
	Ethernet    = 14
	VLANTag     = 4
	IPv4        = 20
	UDP         = 8
	BTH         = 12
	RETH        = 16
	AETH        = 4
	ImmDt       = 4
	ICRC        = 4
	FCS         = 4
	// MinFrame is the smallest Ethernet frame, FCS included.
	MinFrame = 64
	// PauseFrame is a PFC frame: 64 bytes with padding, FCS included.
	PauseFrame = 64
	// CNPPayload is the 16 reserved bytes a RoCEv2 CNP carries after its BTH.
	CNPPayload = 16
	// RoCEPort is the RoCEv2 UDP destination port.
	RoCEPort = 4791
)

// Packet is one frame in the twin. Sizes are int32: a frame is at most a
// jumbo frame, and the record stays small. The fields a switch reads come
// first, so that forwarding a packet touches one cache line of it: pools
// hand packets out of arrays, 128 bytes apart.
type Packet struct {
	next *Packet
	// INT is the packet's in-band telemetry (HPCC), nil for none. A data
	// packet collects one hop per switch egress; the ACK it triggers
	// carries the record back.
	INT *INTRecord
	// FieldsHash caches the ECMP hash of the header fields HashFields
	// selects (fabric.FieldsHash), computed at the first switch.
	FieldsHash uint64

	// Src and Dst are host indices.
	Src, Dst int32
	// Payload is the RDMA payload in bytes.
	Payload int32
	// Frame is the Ethernet frame length including FCS, excluding
	// preamble and inter-frame gap.
	Frame int32
	// DstQP is the destination queue pair number (24 bits).
	DstQP uint32
	// SrcPort is the UDP source port, the per-QP ECMP entropy.
	SrcPort uint16
	// InPort is the ingress port at the current switch, whose priority
	// group the packet is charged to.
	InPort int16

	Kind  Kind
	Class Class
	// Prio is the priority the current node queues the packet on. Each
	// node sets it on receipt from its own classification.
	Prio uint8
	// TTL is the IP time to live; a switch drops a packet whose TTL runs
	// out (a routing loop).
	TTL uint8
	// DSCP is the IP DSCP the sender set.
	DSCP uint8
	// ECN is the IP ECN codepoint.
	ECN uint8
	// PCP is the 802.1Q priority, meaningful only when VLAN is set.
	PCP uint8
	// VLAN says whether the frame carries an 802.1Q tag.
	VLAN       bool
	HashFields uint8
	Opcode     roce.Opcode
	// Syndrome is an ACK's AETH syndrome (ACK, or NAK with its code).
	Syndrome uint8
	// AckReq is the BTH AckReq bit.
	AckReq bool
	// Resent marks a data packet sent again (go-back-N or selective
	// repeat): twin bookkeeping, so that a receiver tells the network's
	// reordering from the late arrival of a retransmission.
	Resent bool
	// ECNEcho is, on an ACK, that the data packet which made the responder
	// send it arrived CE-marked: the HPCC ns-3 model's ACK flag that its
	// DCTCP counts (twin bookkeeping; RoCE's ACKs carry no such bit).
	ECNEcho bool
	// ClassVector is a PFC frame's class-enable vector (bit p = priority p).
	ClassVector uint8

	// SentAt is when the first bit left the sending host, for one-way
	// latency.
	SentAt unit.Time
	// Echo is, on an ACK, the SentAt of the data packet that made the
	// responder send it: the timestamp RTT-based congestion control (TIMELY)
	// measures the round trip with.
	Echo unit.Time
	// PSN is the 24-bit packet sequence number.
	PSN uint32
	// MSN is an ACK's message sequence number (24 bits).
	MSN uint32
	// DMALen is the RETH DMA length of the first packet of an RDMA WRITE:
	// the message's length (modulo 2^32, as the 32-bit field holds it).
	DMALen uint32
	// NAKFrom and NAKEnd are, on a NAK of an out-of-order responder, the
	// missing PSNs it asks for, NAKFrom..NAKEnd-1 (PSN stays the expected
	// one, acknowledging everything before it). Equal means a plain NAK.
	NAKFrom, NAKEnd uint32
	// Quanta holds a PFC frame's eight pause times, in 512-bit-time quanta.
	Quanta [8]uint16

	// PINT is, on a data packet of an HPCC-PINT QP and the ACK that
	// echoes it, that telemetry: the largest code a hop wrote; PINTBytes
	// the bytes it adds on the wire (0: none).
	PINT      uint16
	PINTBytes uint8

	_ [9]byte // to 128 bytes: two cache lines
}

// Wire returns the bytes the packet occupies on the wire, preamble and
// inter-frame gap included.
func (p *Packet) Wire() int32 { return p.Frame + PreambleIFG }

// DataFrame returns the frame length of a RoCEv2 packet with the given
// payload and extension headers (ext bytes: RETH 16, ImmDt 4, AETH 4, the
// CNP's 16 reserved bytes) over IPv4, with an optional VLAN tag. The payload
// is padded to a multiple of 4 bytes, as the BTH pad count says.
func DataFrame(payload, ext int32, vlan bool) int32 {
	n := int32(Ethernet+IPv4+UDP+BTH+ICRC+FCS) + ext + payload + Pad(payload)
	if vlan {
		n += VLANTag
	}
	return max(n, MinFrame)
}

// TCP framing (kernel sockets): Ethernet, IPv4, TCP with the timestamp
// option (32 bytes), FCS.
const (
	TCPHeader = 32
	// TCPOverhead is a TCP segment's frame bytes besides its payload.
	TCPOverhead = Ethernet + IPv4 + TCPHeader + FCS
)

// TCPFrame returns the frame length of a TCP segment with the given
// payload, with an optional VLAN tag.
func TCPFrame(payload int32, vlan bool) int32 {
	n := TCPOverhead + payload
	if vlan {
		n += VLANTag
	}
	return max(n, MinFrame)
}

// Pad returns the BTH pad count of a payload: the bytes that bring it to a
// multiple of 4. (-payload)&3 is (4 - payload%4) % 4 for every int32, in
// two instructions where Go's signed remainders took ten.
func Pad(payload int32) int32 { return -payload & 3 }

// Overhead is the per-packet wire overhead of a RoCEv2 data packet over
// IPv4 without extension headers: preamble and IFG, Ethernet, IPv4, UDP,
// BTH, ICRC and FCS (82 bytes, 86 with a VLAN tag).
func Overhead(vlan bool) int32 {
	n := int32(PreambleIFG + Ethernet + IPv4 + UDP + BTH + ICRC + FCS)
	if vlan {
		n += VLANTag
	}
	return n
}

// A List is an intrusive FIFO of packets, two pointers and no counts:
// what a link's frames in flight need, in the line a frame's send and
// arrival read. The list is empty when head is nil; tail, and the next
// link of a packet popped, may then be stale: Push sets both before
// anything reads them, and a popped packet's link is read by no one (its
// next Push or the pool's Put writes it), so that Pop clears neither.
type List struct {
	head, tail *Packet
}

// Head returns the first packet without removing it, or nil.
func (l *List) Head() *Packet { return l.head }

// Push appends p.
func (l *List) Push(p *Packet) {
	p.next = nil
	if l.head == nil {
		l.head = p
	} else {
		l.tail.next = p
	}
	l.tail = p
}

// Pop removes and returns the first packet, or nil when empty. It is
// small enough to inline: a link's frames, which Pop serves, are each
// fetched ahead by their own arrival event.
func (l *List) Pop() *Packet {
	p := l.head
	if p == nil {
		return nil
	}
	l.head = p.next
	return p
}

// Each calls f for every listed packet, head first.
func (l *List) Each(f func(p *Packet)) {
	for p := l.head; p != nil; p = p.next {
		f(p)
	}
}

// A Queue is a List that also counts its packets and their bytes.
type Queue struct {
	List
	n     int32
	bytes int64
}

// Len returns the number of packets queued.
func (q *Queue) Len() int { return int(q.n) }

// Bytes returns the sum of the queued packets' frame lengths.
func (q *Queue) Bytes() int64 { return q.bytes }

// Push appends p.
func (q *Queue) Push(p *Packet) {
	q.List.Push(p)
	q.n++
	q.bytes += int64(p.Frame)
}

// Pop removes and returns the first packet, or nil when empty.
func (q *Queue) Pop() *Packet {
	p := q.List.Pop()
	if p != nil {
		q.n--
		q.bytes -= int64(p.Frame)
	}
	return p
}

// A Pool recycles packets. It belongs to one simulation.
type Pool struct {
	free  *Packet
	live  int
	alloc int
}

// PoolChunk is how many packets a pool allocates at once, side by side:
// 64 KiB. Go starts an array of more than 32 KiB on a page, so each
// packet's two lines are its own (TestPoolLines); a smaller array that
// holds pointers starts 8 bytes into a line, after Go's type header, and
// the first 64 bytes of every packet, all a switch's hop reads, straddled
// two lines. A pool holds its most packets live rounded up to a chunk,
// which the scenario's memory estimate counts.
const PoolChunk = 512

// Get returns a zeroed packet.
func (pl *Pool) Get() *Packet {
	p := pl.free
	if p == nil {
		chunk := make([]Packet, PoolChunk)
		for i := 1; i < len(chunk); i++ {
			chunk[i].next = pl.free
			pl.free = &chunk[i]
		}
		pl.alloc += len(chunk)
		p = &chunk[0]
	} else {
		pl.free = p.next
		*p = Packet{}
	}
	pl.live++
	return p
}

// Put returns p to the pool. p must not be used afterwards.
func (pl *Pool) Put(p *Packet) {
	p.next = pl.free
	pl.free = p
	pl.live--
}

// Live returns the number of packets handed out and not yet returned.
func (pl *Pool) Live() int { return pl.live }

// Allocated returns how many packets the pool has ever allocated.
func (pl *Pool) Allocated() int { return pl.alloc }
