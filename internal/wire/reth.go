package wire

import (
	"encoding/binary"

	"github.com/gopacket/gopacket"

	"rocelab/internal/roce"
)

// RETH is the RDMA Extended Transport Header, carried by RDMA WRITE FIRST,
// WRITE ONLY (with or without immediate) and READ REQUEST:
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                  Virtual Address (64 bits)                    |
//	+                                                               +
//	|                                                               |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                          Remote Key                           |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                          DMA Length                           |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
type RETH struct {
	ext
	VA        uint64
	RKey      uint32
	DMALength uint32 // bytes of the whole message (WRITE) or of the read
}

// LayerType returns LayerTypeRETH.
func (r *RETH) LayerType() gopacket.LayerType { return LayerTypeRETH }

// CanDecode returns LayerTypeRETH.
func (r *RETH) CanDecode() gopacket.LayerClass { return LayerTypeRETH }

// NextLayerType returns ImmDt on WRITE ONLY with immediate, else the
// payload (or nothing on a READ REQUEST).
func (r *RETH) NextLayerType() gopacket.LayerType { return r.next(roce.HasRETH) }

// DecodeFromBytes decodes the 16-byte RETH.
func (r *RETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if err := r.fixed("RETH", data, roce.RETHLen, df); err != nil {
		return err
	}
	r.VA = binary.BigEndian.Uint64(data[0:8])
	r.RKey = binary.BigEndian.Uint32(data[8:12])
	r.DMALength = binary.BigEndian.Uint32(data[12:16])
	return nil
}

func (r *RETH) encode(p []byte) {
	binary.BigEndian.PutUint64(p[0:8], r.VA)
	binary.BigEndian.PutUint32(p[8:12], r.RKey)
	binary.BigEndian.PutUint32(p[12:16], r.DMALength)
}

// SerializeTo prepends the RETH.
func (r *RETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	p, err := b.PrependBytes(roce.RETHLen)
	if err != nil {
		return err
	}
	r.encode(p)
	return nil
}

func decodeRETH(data []byte, p gopacket.PacketBuilder) error {
	return decodeExt(&RETH{}, data, p)
}

// decodeExt decodes an extension header met on its own (not after a BTH).
func decodeExt(l interface {
	gopacket.DecodingLayer
	gopacket.Layer
}, data []byte, p gopacket.PacketBuilder) error {
	if err := l.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(l)
	return p.NextDecoder(l.NextLayerType())
}
