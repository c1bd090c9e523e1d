package wire

import (
	"encoding/binary"

	"github.com/gopacket/gopacket"

	"rocelab/internal/roce"
)

// DETH is the Datagram Extended Transport Header of UD packets:
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                          Queue Key                            |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|   Reserved    |            Source QP                          |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
type DETH struct {
	ext
	QKey  uint32
	SrcQP uint32 // 24 bits
}

// LayerType returns LayerTypeDETH.
func (d *DETH) LayerType() gopacket.LayerType { return LayerTypeDETH }

// CanDecode returns LayerTypeDETH.
func (d *DETH) CanDecode() gopacket.LayerClass { return LayerTypeDETH }

// NextLayerType returns ImmDt on UD SEND ONLY with immediate, else the
// payload.
func (d *DETH) NextLayerType() gopacket.LayerType { return d.next(roce.HasDETH) }

// DecodeFromBytes decodes the 8-byte DETH.
func (d *DETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if err := d.fixed("DETH", data, roce.DETHLen, df); err != nil {
		return err
	}
	d.QKey = binary.BigEndian.Uint32(data[0:4])
	d.SrcQP = get24(data[5:8])
	return nil
}

func (d *DETH) encode(p []byte) {
	binary.BigEndian.PutUint32(p[0:4], d.QKey)
	p[4] = 0
	put24(p[5:8], d.SrcQP)
}

// SerializeTo prepends the DETH.
func (d *DETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	p, err := b.PrependBytes(roce.DETHLen)
	if err != nil {
		return err
	}
	d.encode(p)
	return nil
}

func decodeDETH(data []byte, p gopacket.PacketBuilder) error {
	return decodeExt(&DETH{}, data, p)
}
