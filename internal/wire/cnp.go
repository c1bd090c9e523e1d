package wire

import (
	"rocelab/internal/roce"

	"github.com/gopacket/gopacket"
)

// CNP is the body of a RoCEv2 Congestion Notification Packet (IBTA RoCEv2
// Annex A17): a BTH with opcode 0x81, then 16 reserved bytes, then the ICRC.
// The notification point sends it to the reaction point (the data sender)
// on receiving ECN-CE marked packets; its BTH DestQP is the sender's QP.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                     Reserved (16 bytes)                       |
//	+                                                               +
//	|                                                               |
//	+                                                               +
//	|                                                               |
//	+                                                               +
//	|                                                               |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
type CNP struct {
	ext
	Reserved [roce.CNPLen]byte
}

// LayerType returns LayerTypeCNP.
func (c *CNP) LayerType() gopacket.LayerType { return LayerTypeCNP }

// CanDecode returns LayerTypeCNP.
func (c *CNP) CanDecode() gopacket.LayerClass { return LayerTypeCNP }

// NextLayerType returns LayerTypeZero when after a BTH.
func (c *CNP) NextLayerType() gopacket.LayerType { return c.next(roce.HasCNP) }

// DecodeFromBytes decodes the 16 reserved bytes.
func (c *CNP) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if err := c.fixed("CNP", data, roce.CNPLen, df); err != nil {
		return err
	}
	copy(c.Reserved[:], data)
	return nil
}

// SerializeTo prepends the 16 reserved bytes.
func (c *CNP) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	p, err := b.PrependBytes(roce.CNPLen)
	if err != nil {
		return err
	}
	copy(p, c.Reserved[:])
	return nil
}

func decodeCNP(data []byte, p gopacket.PacketBuilder) error {
	return decodeExt(&CNP{}, data, p)
}
