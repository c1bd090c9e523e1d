package roce

import "strconv"

// Opcode is the BTH opcode: the transport in the top three bits and the
// operation in the low five.
type Opcode uint8

// Transports (the opcode's top three bits).
const (
	TransportRC  Opcode = 0x00 // reliable connection
	TransportUC  Opcode = 0x20 // unreliable connection
	TransportRD  Opcode = 0x40 // reliable datagram (not decoded past the BTH)
	TransportUD  Opcode = 0x60 // unreliable datagram
	TransportCNP Opcode = 0x80 // RoCEv2 congestion notification
)

// RC opcodes (kernel ib_pack.h). UC uses the same operations plus 0x20.
const (
	OpSendFirst          Opcode = 0x00
	OpSendMiddle         Opcode = 0x01
	OpSendLast           Opcode = 0x02
	OpSendLastImm        Opcode = 0x03
	OpSendOnly           Opcode = 0x04
	OpSendOnlyImm        Opcode = 0x05
	OpWriteFirst         Opcode = 0x06
	OpWriteMiddle        Opcode = 0x07
	OpWriteLast          Opcode = 0x08
	OpWriteLastImm       Opcode = 0x09
	OpWriteOnly          Opcode = 0x0A
	OpWriteOnlyImm       Opcode = 0x0B
	OpReadRequest        Opcode = 0x0C
	OpReadResponseFirst  Opcode = 0x0D
	OpReadResponseMiddle Opcode = 0x0E
	OpReadResponseLast   Opcode = 0x0F
	OpReadResponseOnly   Opcode = 0x10
	OpAcknowledge        Opcode = 0x11
	OpAtomicAcknowledge  Opcode = 0x12
	OpCompareSwap        Opcode = 0x13
	OpFetchAdd           Opcode = 0x14
	OpSendLastInv        Opcode = 0x16
	OpSendOnlyInv        Opcode = 0x17
	// OpUDSendOnly and OpUDSendOnlyImm are the UD sends.
	OpUDSendOnly    Opcode = 0x64
	OpUDSendOnlyImm Opcode = 0x65
	// OpCNP is the RoCEv2 congestion notification packet.
	OpCNP Opcode = 0x81
)

// Headers is a set of extension headers.
type Headers uint16

// Extension headers, in the order they follow the BTH.
const (
	HasDETH Headers = 1 << iota
	HasRETH
	HasAtomicETH
	HasAETH
	HasAtomicAckETH
	HasImmDt
	HasIETH
	HasCNP
	// Known marks an opcode this package decodes past the BTH.
	Known
	// HasPayload marks an opcode that carries data.
	HasPayload
)

// Extension header lengths.
const (
	BTHLen          = 12
	DETHLen         = 8
	RETHLen         = 16
	AtomicETHLen    = 28
	AETHLen         = 4
	AtomicAckETHLen = 8
	ImmDtLen        = 4
	IETHLen         = 4
	CNPLen          = 16
)

// HeaderOrder lists the extension headers in wire order with their
// lengths.
var HeaderOrder = [...]struct {
	H   Headers
	Len int
}{
	{HasDETH, DETHLen},
	{HasRETH, RETHLen},
	{HasAtomicETH, AtomicETHLen},
	{HasAETH, AETHLen},
	{HasAtomicAckETH, AtomicAckETHLen},
	{HasImmDt, ImmDtLen},
	{HasIETH, IETHLen},
	{HasCNP, CNPLen},
}

type opInfo struct {
	name string
	hdrs Headers
}

// rcOps describes the RC/UC operations (low five bits); UC has no READ,
// ACK or atomics.
var rcOps = [32]opInfo{
	0x00: {"SEND FIRST", HasPayload},
	0x01: {"SEND MIDDLE", HasPayload},
	0x02: {"SEND LAST", HasPayload},
	0x03: {"SEND LAST with Immediate", HasPayload | HasImmDt},
	0x04: {"SEND ONLY", HasPayload},
	0x05: {"SEND ONLY with Immediate", HasPayload | HasImmDt},
	0x06: {"RDMA WRITE FIRST", HasPayload | HasRETH},
	0x07: {"RDMA WRITE MIDDLE", HasPayload},
	0x08: {"RDMA WRITE LAST", HasPayload},
	0x09: {"RDMA WRITE LAST with Immediate", HasPayload | HasImmDt},
	0x0A: {"RDMA WRITE ONLY", HasPayload | HasRETH},
	0x0B: {"RDMA WRITE ONLY with Immediate", HasPayload | HasRETH | HasImmDt},
	0x0C: {"RDMA READ REQUEST", HasRETH},
	0x0D: {"RDMA READ RESPONSE FIRST", HasPayload | HasAETH},
	0x0E: {"RDMA READ RESPONSE MIDDLE", HasPayload},
	0x0F: {"RDMA READ RESPONSE LAST", HasPayload | HasAETH},
	0x10: {"RDMA READ RESPONSE ONLY", HasPayload | HasAETH},
	0x11: {"ACKNOWLEDGE", HasAETH},
	0x12: {"ATOMIC ACKNOWLEDGE", HasAETH | HasAtomicAckETH},
	0x13: {"CMP SWAP", HasAtomicETH},
	0x14: {"FETCH ADD", HasAtomicETH},
	0x16: {"SEND LAST with Invalidate", HasPayload | HasIETH},
	0x17: {"SEND ONLY with Invalidate", HasPayload | HasIETH},
}

// Headers returns the extension headers that follow a BTH with this
// opcode. Opcodes this package does not decode (RD, reserved codes) have no
// Known bit.
func (o Opcode) Headers() Headers {
	op := o & 0x1f
	switch o & 0xe0 {
	case TransportRC:
		if i := rcOps[op]; i.name != "" {
			return i.hdrs | Known
		}
	case TransportUC:
		if op <= 0x0B {
			return rcOps[op].hdrs | Known
		}
	case TransportUD:
		switch o {
		case OpUDSendOnly:
			return HasDETH | HasPayload | Known
		case OpUDSendOnlyImm:
			return HasDETH | HasImmDt | HasPayload | Known
		}
	case TransportCNP:
		if o == OpCNP {
			return HasCNP | Known
		}
	}
	return 0
}

// Transport returns the opcode's transport bits (TransportRC, ...).
func (o Opcode) Transport() Opcode { return o & 0xe0 }

// Len returns the total length of the extension headers in h.
func (h Headers) Len() int {
	n := 0
	for _, e := range HeaderOrder {
		if h&e.H != 0 {
			n += e.Len
		}
	}
	return n
}

// String names the opcode as Wireshark does, e.g. "RC RDMA WRITE ONLY",
// "UD SEND ONLY", "CNP", or "Unknown (0x41)".
func (o Opcode) String() string {
	switch o.Transport() {
	case TransportRC:
		if n := rcOps[o&0x1f].name; n != "" {
			return "RC " + n
		}
	case TransportUC:
		if o.Headers()&Known != 0 {
			return "UC " + rcOps[o&0x1f].name
		}
	case TransportUD:
		switch o {
		case OpUDSendOnly:
			return "UD SEND ONLY"
		case OpUDSendOnlyImm:
			return "UD SEND ONLY with Immediate"
		}
	case TransportCNP:
		if o == OpCNP {
			return "CNP"
		}
	}
	return "Unknown (0x" + strconv.FormatUint(uint64(o), 16) + ")"
}

// IsRequest reports whether the opcode is sent by a requester (SEND, WRITE,
// READ REQUEST, atomics), as opposed to a responder's ACK or READ RESPONSE
// or a CNP.
func (o Opcode) IsRequest() bool {
	switch o.Transport() {
	case TransportRC, TransportUC, TransportUD:
	default:
		return false
	}
	op := o & 0x1f
	if o.Transport() == TransportUD {
		return o.Headers()&Known != 0
	}
	return op <= 0x0C || op == 0x13 || op == 0x14 || op == 0x16 || op == 0x17
}

// IsResponse reports whether the opcode is a responder's packet: ACK,
// ATOMIC ACK or a READ RESPONSE.
func (o Opcode) IsResponse() bool {
	if o.Transport() != TransportRC {
		return false
	}
	op := o & 0x1f
	return op >= 0x0D && op <= 0x12
}
