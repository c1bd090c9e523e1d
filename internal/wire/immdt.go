package wire

import (
	"encoding/binary"

	"github.com/gopacket/gopacket"

	"rocelab/internal/roce"
)

// ImmDt is the Immediate Data header of the "with immediate" SEND and RDMA
// WRITE opcodes; IETH is the Invalidate header (the R_Key to invalidate) of
// SEND with invalidate. Both are one 32-bit word:
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                 Immediate Data (or R_Key)                     |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
type ImmDt struct {
	ext
	Data uint32
}

// LayerType returns LayerTypeImmDt.
func (i *ImmDt) LayerType() gopacket.LayerType { return LayerTypeImmDt }

// CanDecode returns LayerTypeImmDt.
func (i *ImmDt) CanDecode() gopacket.LayerClass { return LayerTypeImmDt }

// NextLayerType returns the payload.
func (i *ImmDt) NextLayerType() gopacket.LayerType { return i.next(roce.HasImmDt) }

// DecodeFromBytes decodes the 4-byte ImmDt.
func (i *ImmDt) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if err := i.fixed("ImmDt", data, roce.ImmDtLen, df); err != nil {
		return err
	}
	i.Data = binary.BigEndian.Uint32(data)
	return nil
}

// SerializeTo prepends the ImmDt.
func (i *ImmDt) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	return prependWord(b, i.Data)
}

func decodeImmDt(data []byte, p gopacket.PacketBuilder) error {
	return decodeExt(&ImmDt{}, data, p)
}

// IETH is the Invalidate Extended Transport Header (see ImmDt for the
// diagram).
type IETH struct {
	ext
	RKey uint32
}

// LayerType returns LayerTypeIETH.
func (i *IETH) LayerType() gopacket.LayerType { return LayerTypeIETH }

// CanDecode returns LayerTypeIETH.
func (i *IETH) CanDecode() gopacket.LayerClass { return LayerTypeIETH }

// NextLayerType returns the payload.
func (i *IETH) NextLayerType() gopacket.LayerType { return i.next(roce.HasIETH) }

// DecodeFromBytes decodes the 4-byte IETH.
func (i *IETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if err := i.fixed("IETH", data, roce.IETHLen, df); err != nil {
		return err
	}
	i.RKey = binary.BigEndian.Uint32(data)
	return nil
}

// SerializeTo prepends the IETH.
func (i *IETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	return prependWord(b, i.RKey)
}

func decodeIETH(data []byte, p gopacket.PacketBuilder) error {
	return decodeExt(&IETH{}, data, p)
}

func prependWord(b gopacket.SerializeBuffer, v uint32) error {
	p, err := b.PrependBytes(4)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint32(p, v)
	return nil
}
