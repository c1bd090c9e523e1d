package wire

import (
	"strconv"

	"github.com/gopacket/gopacket"
)

// AETH is the ACK Extended Transport Header, carried by ACKNOWLEDGE, ATOMIC
// ACKNOWLEDGE and READ RESPONSE FIRST, LAST and ONLY:
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|   Syndrome    |             Message Sequence Number           |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// The syndrome's bits 6-5 say ACK (00), RNR NAK (01), reserved (10) or NAK
// (11); the low five bits are the credit count, the RNR timer or the NAK
// code.
type AETH struct {
	ext
	Syndrome uint8
	MSN      uint32 // 24 bits
}

// AckKind classifies an AETH syndrome.
type AckKind uint8

// Syndrome classes.
const (
	KindACK AckKind = iota
	KindRNRNAK
	KindReserved
	KindNAK
)

// NAK codes (syndrome low five bits when Kind is KindNAK).
const (
	NAKPSNSequenceError   = 0
	NAKInvalidRequest     = 1
	NAKRemoteAccessError  = 2
	NAKRemoteOperationErr = 3
	NAKInvalidRDRequest   = 4
)

// Syndromes as whole bytes, for building and matching.
const (
	SyndromeACKUnlimited      uint8 = 0x1f // ACK, no credit count
	SyndromeRNRNAK            uint8 = 0x20 // | timer
	SyndromePSNSequenceError  uint8 = 0x60
	SyndromeInvalidRequest    uint8 = 0x61
	SyndromeRemoteAccessError uint8 = 0x62
	SyndromeRemoteOpError     uint8 = 0x63
	SyndromeInvalidRDRequest  uint8 = 0x64
)

// Kind returns the syndrome class.
func (a *AETH) Kind() AckKind { return SyndromeKind(a.Syndrome) }

// SyndromeKind returns the class of syndrome s.
func SyndromeKind(s uint8) AckKind { return AckKind(s >> 5 & 3) }

// SyndromeName names a syndrome: "ACK", "RNR NAK", "NAK PSN sequence
// error", "NAK remote access error", ...
func SyndromeName(s uint8) string {
	switch SyndromeKind(s) {
	case KindACK:
		return "ACK"
	case KindRNRNAK:
		return "RNR NAK"
	case KindNAK:
		switch s & 0x1f {
		case NAKPSNSequenceError:
			return "NAK PSN sequence error"
		case NAKInvalidRequest:
			return "NAK invalid request"
		case NAKRemoteAccessError:
			return "NAK remote access error"
		case NAKRemoteOperationErr:
			return "NAK remote operational error"
		case NAKInvalidRDRequest:
			return "NAK invalid RD request"
		}
		return "NAK code " + strconv.Itoa(int(s&0x1f))
	}
	return "reserved syndrome 0x" + strconv.FormatUint(uint64(s), 16)
}

// LayerType returns LayerTypeAETH.
func (a *AETH) LayerType() gopacket.LayerType { return LayerTypeAETH }

// CanDecode returns LayerTypeAETH.
func (a *AETH) CanDecode() gopacket.LayerClass { return LayerTypeAETH }

// NextLayerType returns AtomicAckETH on ATOMIC ACKNOWLEDGE, the payload on
// a READ RESPONSE, or nothing on an ACK.
func (a *AETH) NextLayerType() gopacket.LayerType { return a.next(HasAETH) }

// DecodeFromBytes decodes the 4-byte AETH.
func (a *AETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if err := a.fixed("AETH", data, AETHLen, df); err != nil {
		return err
	}
	a.Syndrome = data[0]
	a.MSN = get24(data[1:4])
	return nil
}

func (a *AETH) encode(p []byte) {
	p[0] = a.Syndrome
	put24(p[1:4], a.MSN)
}

// SerializeTo prepends the AETH.
func (a *AETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	p, err := b.PrependBytes(AETHLen)
	if err != nil {
		return err
	}
	a.encode(p)
	return nil
}

func decodeAETH(data []byte, p gopacket.PacketBuilder) error {
	return decodeExt(&AETH{}, data, p)
}
