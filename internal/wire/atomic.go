package wire

import (
	"encoding/binary"

	"github.com/gopacket/gopacket"

	"rocelab/internal/roce"
)

// AtomicETH is the Atomic Extended Transport Header of CMP&SWAP and
// FETCH&ADD requests:
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                  Virtual Address (64 bits)                    |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                          Remote Key                           |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|               Swap (or Add) Data (64 bits)                    |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                  Compare Data (64 bits)                       |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
type AtomicETH struct {
	ext
	VA          uint64
	RKey        uint32
	SwapAddData uint64
	CompareData uint64
}

// LayerType returns LayerTypeAtomicETH.
func (a *AtomicETH) LayerType() gopacket.LayerType { return LayerTypeAtomicETH }

// CanDecode returns LayerTypeAtomicETH.
func (a *AtomicETH) CanDecode() gopacket.LayerClass { return LayerTypeAtomicETH }

// NextLayerType returns LayerTypeZero after an atomic request.
func (a *AtomicETH) NextLayerType() gopacket.LayerType { return a.next(roce.HasAtomicETH) }

// DecodeFromBytes decodes the 28-byte AtomicETH.
func (a *AtomicETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if err := a.fixed("AtomicETH", data, roce.AtomicETHLen, df); err != nil {
		return err
	}
	a.VA = binary.BigEndian.Uint64(data[0:8])
	a.RKey = binary.BigEndian.Uint32(data[8:12])
	a.SwapAddData = binary.BigEndian.Uint64(data[12:20])
	a.CompareData = binary.BigEndian.Uint64(data[20:28])
	return nil
}

func (a *AtomicETH) encode(p []byte) {
	binary.BigEndian.PutUint64(p[0:8], a.VA)
	binary.BigEndian.PutUint32(p[8:12], a.RKey)
	binary.BigEndian.PutUint64(p[12:20], a.SwapAddData)
	binary.BigEndian.PutUint64(p[20:28], a.CompareData)
}

// SerializeTo prepends the AtomicETH.
func (a *AtomicETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	p, err := b.PrependBytes(roce.AtomicETHLen)
	if err != nil {
		return err
	}
	a.encode(p)
	return nil
}

func decodeAtomicETH(data []byte, p gopacket.PacketBuilder) error {
	return decodeExt(&AtomicETH{}, data, p)
}

// AtomicAckETH is the Atomic Acknowledge Extended Transport Header that
// follows the AETH of an ATOMIC ACKNOWLEDGE:
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|               Original Remote Data (64 bits)                  |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
type AtomicAckETH struct {
	ext
	OrigRemoteData uint64
}

// LayerType returns LayerTypeAtomicAckETH.
func (a *AtomicAckETH) LayerType() gopacket.LayerType { return LayerTypeAtomicAckETH }

// CanDecode returns LayerTypeAtomicAckETH.
func (a *AtomicAckETH) CanDecode() gopacket.LayerClass { return LayerTypeAtomicAckETH }

// NextLayerType returns LayerTypeZero.
func (a *AtomicAckETH) NextLayerType() gopacket.LayerType { return a.next(roce.HasAtomicAckETH) }

// DecodeFromBytes decodes the 8-byte AtomicAckETH.
func (a *AtomicAckETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if err := a.fixed("AtomicAckETH", data, roce.AtomicAckETHLen, df); err != nil {
		return err
	}
	a.OrigRemoteData = binary.BigEndian.Uint64(data)
	return nil
}

// SerializeTo prepends the AtomicAckETH.
func (a *AtomicAckETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	p, err := b.PrependBytes(roce.AtomicAckETHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint64(p, a.OrigRemoteData)
	return nil
}

func decodeAtomicAckETH(data []byte, p gopacket.PacketBuilder) error {
	return decodeExt(&AtomicAckETH{}, data, p)
}
