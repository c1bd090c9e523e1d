package wire

import (
	"github.com/gopacket/gopacket"

	"rocelab/internal/roce"
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

// Kind returns the syndrome class.
func (a *AETH) Kind() roce.AckKind { return roce.SyndromeKind(a.Syndrome) }

// LayerType returns LayerTypeAETH.
func (a *AETH) LayerType() gopacket.LayerType { return LayerTypeAETH }

// CanDecode returns LayerTypeAETH.
func (a *AETH) CanDecode() gopacket.LayerClass { return LayerTypeAETH }

// NextLayerType returns AtomicAckETH on ATOMIC ACKNOWLEDGE, the payload on
// a READ RESPONSE, or nothing on an ACK.
func (a *AETH) NextLayerType() gopacket.LayerType { return a.next(roce.HasAETH) }

// DecodeFromBytes decodes the 4-byte AETH.
func (a *AETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if err := a.fixed("AETH", data, roce.AETHLen, df); err != nil {
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
	p, err := b.PrependBytes(roce.AETHLen)
	if err != nil {
		return err
	}
	a.encode(p)
	return nil
}

func decodeAETH(data []byte, p gopacket.PacketBuilder) error {
	return decodeExt(&AETH{}, data, p)
}
