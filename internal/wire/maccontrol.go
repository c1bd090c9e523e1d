package wire

import (
	"encoding/binary"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"rocelab/internal/unit"
)

// MAC control opcodes.
const (
	MACControlPause uint16 = 0x0001 // IEEE 802.3x PAUSE (all traffic)
	MACControlPFC   uint16 = 0x0101 // IEEE 802.1Qbb priority-based flow control
)

// MACControlDst is the multicast address MAC control frames go to.
var MACControlDst = [6]byte{0x01, 0x80, 0xc2, 0x00, 0x00, 0x01}

// Lengths of the MAC control bodies before padding.
const (
	PauseLen = 4
	PFCLen   = 20
	// MACControlMinLen is the Ethernet minimum payload the bodies are
	// padded to.
	MACControlMinLen = 46
)

// MACControl is an Ethernet MAC control frame body (EtherType 0x8808):
// 802.3x PAUSE or 802.1Qbb PFC. A pause time is in quanta of 512 bit
// times at the link rate; zero means resume (XON).
//
// PFC (opcode 0x0101):
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|        Opcode 0x0101          |  Reserved     |e7 e6 ... e1 e0|
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|         Time[0]               |          Time[1]              |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|         ...                   |          Time[7]              |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                    Pad to 46 bytes                            |
//
// Bit p of the class-enable vector says Time[p] is valid.
//
// PAUSE (opcode 0x0001):
//
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|        Opcode 0x0001          |          Pause time           |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                    Pad to 46 bytes                            |
type MACControl struct {
	layers.BaseLayer
	Opcode uint16
	// ClassEnable is the PFC class-enable vector (bit p for priority p).
	ClassEnable uint16
	// Quanta holds the PFC pause time per priority.
	Quanta [8]uint16
	// PauseQuanta is the 802.3x PAUSE time.
	PauseQuanta uint16
}

// LayerType returns LayerTypeMACControl.
func (m *MACControl) LayerType() gopacket.LayerType { return LayerTypeMACControl }

// CanDecode returns LayerTypeMACControl.
func (m *MACControl) CanDecode() gopacket.LayerClass { return LayerTypeMACControl }

// NextLayerType returns LayerTypeZero: the rest is padding.
func (m *MACControl) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }

// IsPFC reports whether the frame is a PFC frame.
func (m *MACControl) IsPFC() bool { return m.Opcode == MACControlPFC }

// IsPause reports whether the frame is an 802.3x PAUSE frame.
func (m *MACControl) IsPause() bool { return m.Opcode == MACControlPause }

// DecodeFromBytes decodes a PAUSE or PFC body; other opcodes keep only the
// opcode. Padding goes to the payload.
func (m *MACControl) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < 2 {
		df.SetTruncated()
		return short("MACControl", 2, len(data))
	}
	m.Opcode = binary.BigEndian.Uint16(data)
	m.ClassEnable, m.PauseQuanta, m.Quanta = 0, 0, [8]uint16{}
	n := 2
	switch m.Opcode {
	case MACControlPause:
		n = PauseLen
		if len(data) < n {
			df.SetTruncated()
			return short("PAUSE", n, len(data))
		}
		m.PauseQuanta = binary.BigEndian.Uint16(data[2:4])
	case MACControlPFC:
		n = PFCLen
		if len(data) < n {
			df.SetTruncated()
			return short("PFC", n, len(data))
		}
		m.ClassEnable = binary.BigEndian.Uint16(data[2:4])
		for i := range m.Quanta {
			m.Quanta[i] = binary.BigEndian.Uint16(data[4+2*i:])
		}
	}
	m.BaseLayer = layers.BaseLayer{Contents: data[:n], Payload: data[n:]}
	return nil
}

// encode writes the body, padded with zeros to MACControlMinLen, into p
// and returns the bytes used.
func (m *MACControl) encode(p []byte) int {
	clear(p[:MACControlMinLen])
	binary.BigEndian.PutUint16(p, m.Opcode)
	switch m.Opcode {
	case MACControlPause:
		binary.BigEndian.PutUint16(p[2:], m.PauseQuanta)
	case MACControlPFC:
		binary.BigEndian.PutUint16(p[2:], m.ClassEnable)
		for i, q := range m.Quanta {
			binary.BigEndian.PutUint16(p[4+2*i:], q)
		}
	}
	return MACControlMinLen
}

// SerializeTo prepends the body padded to the 46-byte Ethernet minimum.
func (m *MACControl) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	p, err := b.PrependBytes(MACControlMinLen)
	if err != nil {
		return err
	}
	m.encode(p)
	return nil
}

func decodeMACControl(data []byte, p gopacket.PacketBuilder) error {
	m := &MACControl{}
	if err := m.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(m)
	return nil
}

// QuantumBits is the length of one pause quantum in bit times.
const QuantumBits = 512

// PauseDuration returns how long q pause quanta last at link rate r
// (q·512 bit times; 5.12 ns per quantum at 100G). It returns 0 for an
// unknown (zero) rate.
func PauseDuration(q uint16, r unit.BitRate) unit.Time {
	if r <= 0 {
		return 0
	}
	return r.TxTime(unit.Bytes(q) * QuantumBits / 8)
}
