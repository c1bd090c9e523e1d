// Package fabric models a lossless RoCEv2 Ethernet fabric at packet level:
// links with exact wire overhead, ports that obey and send IEEE 802.1Qbb PFC,
// switches with eight priority queues, ETS/strict scheduling, a shared buffer
// with dynamic thresholds and per-priority-group headroom, RED/ECN marking,
// ECMP hashing, and a PFC watchdog.
//
// Everything on the data path composes through two small interfaces: a Node
// receives packets from its ports, and an Egress hands a port the next packet
// to send. A switch provides both for its ports; a host's NIC provides both
// for its single port (the Endpoint seam), so the RDMA NIC plugs in without
// the fabric knowing what it is.
//
// A network is split into domains (see Domain), each with its own
// scheduler; links between domains carry frames as timestamped messages.
// Time is integer picoseconds. Nothing here reads the wall clock or a
// global random source, and nothing allocates per packet once the packet
// pools are warm.
package fabric

import (
	"rocelab/internal/packet"
	"rocelab/internal/qos"
)

// A Node owns ports and receives the packets that arrive on them. Pause
// frames never reach a node: the receiving port consumes them. A node
// touches only its own state and its domain's: what it does to another
// node travels as a frame over a link.
type Node interface {
	// Name is the node's name in reports, e.g. "leaf0" or "h12".
	Name() string
	// Receive takes ownership of p, which arrived on in.
	Receive(p *packet.Packet, in *Port)
}

// An Egress supplies the packets a port transmits.
type Egress interface {
	// Dequeue returns the next packet to send on pt, never one whose
	// priority bit is set in paused, or nil when there is none now, and
	// whether more is ready to follow it. An egress that returns nil, or
	// reports nothing more, while it still holds data must call pt.Kick
	// when that data becomes sendable.
	Dequeue(pt *Port, paused uint8) (p *packet.Packet, more bool)
}

// An Endpoint is the NIC seam: a host-side node that sources and sinks
// traffic through one port. The RDMA NIC (internal/nic) implements it; the
// fabric's tests use a fake one.
type Endpoint interface {
	Node
	Egress
	// HostID is the endpoint's index among hosts (its address).
	HostID() int32
	// Port is the endpoint's port.
	Port() *Port
}

// Classifier maps a packet's headers to its priority (see package qos).
type Classifier = qos.Classifier
