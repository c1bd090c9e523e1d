package wire

import (
	"encoding/binary"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"rocelab/internal/roce"
)

// BTH is the InfiniBand Base Transport Header, the first header of every
// RoCEv2 packet (IBTA spec vol. 1 §9.2):
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|    OpCode     |S|M|Pad|  TVer |         Partition Key         |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|F|B|  Resv6    |            Destination QP                     |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|A|   Resv7     |        Packet Sequence Number                 |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// The layer owns the packet's trailer: DecodeFromBytes takes the last four
// bytes of its input as the ICRC and drops PadCount pad bytes before it, so
// the payload holds the extension headers and the data only. It must be
// given the whole UDP payload; Frame.Decode handles truncated captures.
type BTH struct {
	layers.BaseLayer
	Opcode         roce.Opcode
	SolicitedEvent bool
	MigReq         bool
	PadCount       uint8 // 0-3 pad bytes before the ICRC
	TVer           uint8 // transport header version, 0
	PKey           uint16
	FECN           bool
	BECN           bool
	DestQP         uint32 // 24 bits
	AckReq         bool
	PSN            uint32 // 24 bits
	// ICRC is the trailer read little-endian, as Linux rxe and mlx5 store
	// the CRC value (compare with ICRC()).
	ICRC uint32
	// NoTrailer is set when the input was too short to hold the ICRC (a
	// capture cut short); SerializeTo then writes neither pad nor ICRC.
	NoTrailer bool
}

// LayerType returns LayerTypeBTH.
func (b *BTH) LayerType() gopacket.LayerType { return LayerTypeBTH }

// CanDecode returns LayerTypeBTH.
func (b *BTH) CanDecode() gopacket.LayerClass { return LayerTypeBTH }

// NextLayerType returns the first extension header the opcode carries, the
// payload, or LayerTypeZero when nothing follows.
func (b *BTH) NextLayerType() gopacket.LayerType { return nextAfter(b.Opcode, 0) }

// DecodeFromBytes decodes the BTH and strips pad and ICRC from the payload.
func (b *BTH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if err := b.decodeHeader(data); err != nil {
		df.SetTruncated()
		return err
	}
	rest := data[roce.BTHLen:]
	b.NoTrailer = len(rest) < ICRCLen
	if b.NoTrailer {
		b.ICRC = 0
		b.BaseLayer = layers.BaseLayer{Contents: data[:roce.BTHLen], Payload: rest}
		return nil
	}
	b.ICRC = binary.LittleEndian.Uint32(rest[len(rest)-ICRCLen:])
	end := len(rest) - ICRCLen - int(b.PadCount)
	if end < 0 {
		end = 0
	}
	b.BaseLayer = layers.BaseLayer{Contents: data[:roce.BTHLen], Payload: rest[:end]}
	return nil
}

// decodeHeader reads the 12 header bytes only.
func (b *BTH) decodeHeader(data []byte) error {
	if len(data) < roce.BTHLen {
		return short("BTH", roce.BTHLen, len(data))
	}
	b.Opcode = roce.Opcode(data[0])
	b.SolicitedEvent = data[1]&0x80 != 0
	b.MigReq = data[1]&0x40 != 0
	b.PadCount = data[1] >> 4 & 3
	b.TVer = data[1] & 0x0f
	b.PKey = binary.BigEndian.Uint16(data[2:4])
	b.FECN = data[4]&0x80 != 0
	b.BECN = data[4]&0x40 != 0
	b.DestQP = uint32(data[5])<<16 | uint32(data[6])<<8 | uint32(data[7])
	b.AckReq = data[8]&0x80 != 0
	b.PSN = uint32(data[9])<<16 | uint32(data[10])<<8 | uint32(data[11])
	return nil
}

// encode writes the 12 header bytes into p.
func (b *BTH) encode(p []byte) {
	p[0] = byte(b.Opcode)
	p[1] = b.TVer&0x0f | (b.PadCount&3)<<4
	if b.SolicitedEvent {
		p[1] |= 0x80
	}
	if b.MigReq {
		p[1] |= 0x40
	}
	binary.BigEndian.PutUint16(p[2:4], b.PKey)
	p[4] = 0
	if b.FECN {
		p[4] |= 0x80
	}
	if b.BECN {
		p[4] |= 0x40
	}
	put24(p[5:8], b.DestQP)
	p[8] = 0
	if b.AckReq {
		p[8] = 0x80
	}
	put24(p[9:12], b.PSN)
}

// SerializeTo prepends the BTH and appends pad and ICRC to the extension
// headers and data already in buf. With FixLengths, PadCount is set so the
// data is a multiple of four bytes. The ICRC written is the ICRC field; the
// frame builder computes the real one over the finished frame.
func (b *BTH) SerializeTo(buf gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	if opts.FixLengths {
		data := len(buf.Bytes()) - b.Opcode.Headers().Len()
		if data < 0 {
			data = 0
		}
		b.PadCount = uint8((4 - data%4) % 4)
	}
	if !b.NoTrailer {
		tail, err := buf.AppendBytes(int(b.PadCount) + ICRCLen)
		if err != nil {
			return err
		}
		clear(tail[:b.PadCount])
		binary.LittleEndian.PutUint32(tail[b.PadCount:], b.ICRC)
	}
	p, err := buf.PrependBytes(roce.BTHLen)
	if err != nil {
		return err
	}
	b.encode(p)
	return nil
}

func put24(p []byte, v uint32) {
	p[0] = byte(v >> 16)
	p[1] = byte(v >> 8)
	p[2] = byte(v)
}

func get24(p []byte) uint32 { return uint32(p[0])<<16 | uint32(p[1])<<8 | uint32(p[2]) }

// headerOrder lists the extension headers in wire order with their layer
// types.
var headerOrder = [...]struct {
	h   roce.Headers
	lt  *gopacket.LayerType
	len int
}{
	{roce.HasDETH, &LayerTypeDETH, roce.DETHLen},
	{roce.HasRETH, &LayerTypeRETH, roce.RETHLen},
	{roce.HasAtomicETH, &LayerTypeAtomicETH, roce.AtomicETHLen},
	{roce.HasAETH, &LayerTypeAETH, roce.AETHLen},
	{roce.HasAtomicAckETH, &LayerTypeAtomicAckETH, roce.AtomicAckETHLen},
	{roce.HasImmDt, &LayerTypeImmDt, roce.ImmDtLen},
	{roce.HasIETH, &LayerTypeIETH, roce.IETHLen},
	{roce.HasCNP, &LayerTypeCNP, roce.CNPLen},
}

// nextAfter returns the layer that follows header after in a packet with
// opcode op (after = 0 means after the BTH).
func nextAfter(op roce.Opcode, after roce.Headers) gopacket.LayerType {
	hs := op.Headers()
	if hs&roce.Known == 0 {
		return gopacket.LayerTypePayload
	}
	seen := after == 0
	for _, e := range headerOrder {
		if seen && hs&e.h != 0 {
			return *e.lt
		}
		if e.h == after {
			seen = true
		}
	}
	if hs&roce.HasPayload != 0 {
		return gopacket.LayerTypePayload
	}
	return gopacket.LayerTypeZero
}

// decodeBTH is the gopacket decoder for UDP port 4791. It decodes the BTH
// and the extension headers its opcode names, then hands the data to the
// payload decoder.
func decodeBTH(data []byte, p gopacket.PacketBuilder) error {
	b := &BTH{}
	if err := b.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(b)
	rest := b.Payload
	next := b.NextLayerType()
	for next != gopacket.LayerTypePayload && next != gopacket.LayerTypeZero {
		l := newExtLayer(next, b)
		if err := l.DecodeFromBytes(rest, p); err != nil {
			return err
		}
		p.AddLayer(l.(gopacket.Layer))
		rest = l.LayerPayload()
		next = l.NextLayerType()
	}
	if next == gopacket.LayerTypeZero {
		return nil
	}
	return p.NextDecoder(gopacket.LayerTypePayload)
}

// newExtLayer returns a fresh extension header layer of type t bound to b.
func newExtLayer(t gopacket.LayerType, b *BTH) gopacket.DecodingLayer {
	for _, e := range headerOrder {
		if *e.lt == t {
			return new(ExtHeaders).layer(e.h, b)
		}
	}
	return nil
}

// ext is what every extension header shares: the base layer and the BTH it
// follows, whose opcode decides what comes next. A header decoded on its
// own (no BTH) is followed by the payload.
type ext struct {
	layers.BaseLayer
	bth *BTH
}

func (e *ext) next(h roce.Headers) gopacket.LayerType {
	if e.bth == nil {
		return gopacket.LayerTypePayload
	}
	return nextAfter(e.bth.Opcode, h)
}

// fixed decodes a fixed-length header of n bytes.
func (e *ext) fixed(name string, data []byte, n int, df gopacket.DecodeFeedback) error {
	if len(data) < n {
		df.SetTruncated()
		return short(name, n, len(data))
	}
	e.BaseLayer = layers.BaseLayer{Contents: data[:n], Payload: data[n:]}
	return nil
}

// NewDecodingLayers returns a BTH and every extension header, wired so that
// each header's NextLayerType follows the BTH's opcode, ready for
// gopacket.NewDecodingLayerParser (add Ethernet, Dot1Q, IPv4, IPv6 and UDP
// before them).
func NewDecodingLayers() (*BTH, []gopacket.DecodingLayer) {
	b := &BTH{}
	ls := []gopacket.DecodingLayer{b}
	for _, e := range headerOrder {
		ls = append(ls, newExtLayer(*e.lt, b))
	}
	return b, ls
}
