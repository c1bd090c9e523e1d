package wire

import (
	"encoding/binary"
	"net/netip"
	"strconv"

	"github.com/gopacket/gopacket"

	"rocelab/internal/roce"
)

// FrameKind says what a decoded frame carries.
type FrameKind uint8

// Frame kinds.
const (
	// FrameOther is any frame that is neither RoCEv2 nor MAC control.
	FrameOther FrameKind = iota
	// FrameRoCE is a RoCEv2 packet (UDP destination port 4791).
	FrameRoCE
	// FrameMACControl is a PAUSE or PFC frame (EtherType 0x8808).
	FrameMACControl
)

// Ethernet header sizes.
const (
	EthernetLen = 14
	VLANTagLen  = 4
	IPv4Len     = 20
	IPv6Len     = 40
	UDPLen      = 8
)

// Frame is one Ethernet frame decoded by Decode. It is meant to be reused:
// Decode overwrites every field and allocates nothing, so an analysis loop
// keeps one Frame and decodes every packet into it. Slices inside the layer
// fields point into the decoded bytes.
type Frame struct {
	Kind FrameKind

	DstMAC, SrcMAC [6]byte
	// VLAN is set when the frame has an 802.1Q tag; VLANID and PCP are
	// those of the outer tag. PCP is the priority PFC acts on.
	VLAN   bool
	VLANID uint16
	PCP    uint8
	// EtherType is the type after any VLAN tags.
	EtherType uint16
	// L2Len is the Ethernet header length including tags.
	L2Len int

	// IPVersion is 4 or 6 for IP frames, else 0.
	IPVersion uint8
	SrcIP     netip.Addr
	DstIP     netip.Addr
	// TOS is the IPv4 TOS or IPv6 Traffic Class byte (DSCP and ECN).
	TOS uint8
	// IPLen is the IP packet length the IP header states (IPv4 total
	// length, or 40 + IPv6 payload length), whatever was captured.
	IPLen int

	SrcPort, DstPort uint16
	// UDPLength is the UDP length field (header and payload).
	UDPLength int

	// Headers lists the extension headers the opcode calls for; Decoded
	// lists those present in the captured bytes and decoded.
	Headers roce.Headers
	Decoded roce.Headers
	// Truncated is set when the capture ended before the end of the UDP
	// datagram (a short snaplen); the ICRC was then not seen.
	Truncated bool
	// PayloadLen is the RDMA payload length computed from the UDP length:
	// UDP length − 8 − BTH − extension headers − pad − ICRC. It is exact
	// even when the capture was truncated.
	PayloadLen int

	BTH BTH
	ExtHeaders

	MACControl MACControl

	// Tunnel is the encapsulation the frame came in (ERSPAN, GRE, VXLAN),
	// TunnelNone for a frame seen as sent; every other field describes
	// the inner frame.
	Tunnel Tunnel
	// Tap says where the tunnel's mirror session took the copy (zero
	// without a tunnel); MirrorTruncated is set when an ERSPAN header's T
	// bit says the mirror cut the frame short.
	Tap             Tap
	MirrorTruncated bool
	// BareIP is set when the tunnel carried an IP packet without an
	// Ethernet header (Geneve protocol IPv4/IPv6): L2Len, and so WireLen,
	// counts the untagged 14-byte header it is assumed to have had.
	BareIP bool
}

// ExtHeaders holds one of each extension header; which ones are in use
// follows from the BTH opcode.
type ExtHeaders struct {
	DETH         DETH
	RETH         RETH
	AtomicETH    AtomicETH
	AETH         AETH
	AtomicAckETH AtomicAckETH
	ImmDt        ImmDt
	IETH         IETH
	CNP          CNP
}

// layer returns the header for bit h, bound to bth.
func (x *ExtHeaders) layer(h roce.Headers, bth *BTH) gopacket.DecodingLayer {
	var e *ext
	var l gopacket.DecodingLayer
	switch h {
	case roce.HasDETH:
		e, l = &x.DETH.ext, &x.DETH
	case roce.HasRETH:
		e, l = &x.RETH.ext, &x.RETH
	case roce.HasAtomicETH:
		e, l = &x.AtomicETH.ext, &x.AtomicETH
	case roce.HasAETH:
		e, l = &x.AETH.ext, &x.AETH
	case roce.HasAtomicAckETH:
		e, l = &x.AtomicAckETH.ext, &x.AtomicAckETH
	case roce.HasImmDt:
		e, l = &x.ImmDt.ext, &x.ImmDt
	case roce.HasIETH:
		e, l = &x.IETH.ext, &x.IETH
	default:
		e, l = &x.CNP.ext, &x.CNP
	}
	e.bth = bth
	return l
}

// ECN returns the IP header's ECN field.
func (f *Frame) ECN() ECN { return ECN(f.TOS & 3) }

// DSCP returns the IP header's DSCP.
func (f *Frame) DSCP() uint8 { return f.TOS >> 2 }

// WireLen returns the frame's length on the wire without FCS, from the
// headers rather than the captured length: the Ethernet header and tags
// plus the IP length for IP frames, and the 60-byte minimum frame for MAC
// control. It is 0 for other frames.
func (f *Frame) WireLen() int {
	switch {
	case f.IPVersion != 0:
		n := f.L2Len + f.IPLen
		if n < 60 {
			n = 60
		}
		return n
	case f.Kind == FrameMACControl:
		return f.L2Len + MACControlMinLen
	}
	return 0
}

// noFeedback discards truncation feedback from the layer decoders.
type noFeedback struct{}

// SetTruncated implements gopacket.DecodeFeedback.
func (noFeedback) SetTruncated() {}

// Decode decodes an Ethernet frame. A frame that is not RoCEv2 or MAC
// control decodes without error as FrameOther; an error means a header was
// cut short or contradicts itself (*DecodeError). A frame a tunnel carries
// (ERSPAN, GRE, VXLAN: Tunnel) is decoded in place of the tunnel's.
func (f *Frame) Decode(data []byte) error {
	f.Tunnel, f.Tap, f.MirrorTruncated = TunnelNone, Tap{}, false
	return f.decodeEthernet(data)
}

// decodeEthernet decodes an Ethernet frame into every field but Tunnel.
func (f *Frame) decodeEthernet(data []byte) error {
	f.reset()
	if len(data) < EthernetLen {
		return short("Ethernet", EthernetLen, len(data))
	}
	copy(f.DstMAC[:], data[0:6])
	copy(f.SrcMAC[:], data[6:12])
	et := binary.BigEndian.Uint16(data[12:14])
	off := EthernetLen
	for tags := 0; (et == 0x8100 || et == 0x88a8) && tags < 2; tags++ {
		if len(data) < off+VLANTagLen {
			return short("Dot1Q", off+VLANTagLen, len(data))
		}
		if !f.VLAN {
			tci := binary.BigEndian.Uint16(data[off:])
			f.VLAN, f.PCP, f.VLANID = true, uint8(tci>>13), tci&0x0fff
		}
		et = binary.BigEndian.Uint16(data[off+2:])
		off += VLANTagLen
	}
	f.EtherType, f.L2Len = et, off
	return f.decodeL3(data, off)
}

// reset clears every field Decode sets but the tunnel's.
func (f *Frame) reset() {
	f.Kind, f.VLAN, f.VLANID, f.PCP = FrameOther, false, 0, 0
	f.DstMAC, f.SrcMAC, f.EtherType, f.L2Len = [6]byte{}, [6]byte{}, 0, 0
	f.IPVersion, f.SrcIP, f.DstIP, f.TOS, f.IPLen = 0, netip.Addr{}, netip.Addr{}, 0, 0
	f.SrcPort, f.DstPort, f.UDPLength = 0, 0, 0
	f.Headers, f.Decoded, f.Truncated, f.PayloadLen, f.BareIP = 0, 0, false, 0, false
}

// decodeL3 decodes what follows the Ethernet header at off, by f.EtherType.
func (f *Frame) decodeL3(data []byte, off int) error {
	switch f.EtherType {
	case uint16(EtherTypeMACControl):
		if err := f.MACControl.DecodeFromBytes(data[off:], noFeedback{}); err != nil {
			return err
		}
		f.Kind = FrameMACControl
		return nil
	case 0x0800:
		return f.decodeIPv4(data, off)
	case 0x86dd:
		return f.decodeIPv6(data, off)
	}
	return nil
}

func (f *Frame) decodeIPv4(data []byte, off int) error {
	h := data[off:]
	if len(h) < IPv4Len {
		return short("IPv4", IPv4Len, len(h))
	}
	if h[0]>>4 != 4 {
		return &DecodeError{Layer: "IPv4", Msg: "version is not 4"}
	}
	ihl := int(h[0]&0x0f) * 4
	total := int(binary.BigEndian.Uint16(h[2:4]))
	if ihl < IPv4Len || total < ihl {
		return &DecodeError{Layer: "IPv4", Msg: "bad header or total length"}
	}
	if len(h) < ihl {
		return short("IPv4", ihl, len(h))
	}
	f.IPVersion, f.TOS, f.IPLen = 4, h[1], total
	f.SrcIP = netip.AddrFrom4([4]byte(h[12:16]))
	f.DstIP = netip.AddrFrom4([4]byte(h[16:20]))
	switch {
	case binary.BigEndian.Uint16(h[6:8])&0x3fff != 0:
		return nil // a fragment: RoCEv2 is never fragmented
	case h[9] == ipProtoGRE:
		return f.decodeGRE(data, off+ihl, total-ihl)
	case h[9] != 17:
		return nil
	}
	return f.decodeUDP(data, off+ihl, total-ihl)
}

func (f *Frame) decodeIPv6(data []byte, off int) error {
	h := data[off:]
	if len(h) < IPv6Len {
		return short("IPv6", IPv6Len, len(h))
	}
	if h[0]>>4 != 6 {
		return &DecodeError{Layer: "IPv6", Msg: "version is not 6"}
	}
	plen := int(binary.BigEndian.Uint16(h[4:6]))
	f.IPVersion, f.TOS, f.IPLen = 6, uint8(binary.BigEndian.Uint16(h[0:2])>>4), IPv6Len+plen
	f.SrcIP = netip.AddrFrom16([16]byte(h[8:24]))
	f.DstIP = netip.AddrFrom16([16]byte(h[24:40]))
	switch h[6] {
	case ipProtoGRE:
		return f.decodeGRE(data, off+IPv6Len, plen)
	case 17:
		return f.decodeUDP(data, off+IPv6Len, plen)
	}
	return nil
}

// decodeUDP decodes the UDP header at off, where the IP header says room
// bytes of payload follow, and the RoCEv2 headers inside.
func (f *Frame) decodeUDP(data []byte, off, room int) error {
	if len(data) < off+UDPLen {
		return short("UDP", off+UDPLen, len(data))
	}
	u := data[off:]
	f.SrcPort = binary.BigEndian.Uint16(u[0:2])
	f.DstPort = binary.BigEndian.Uint16(u[2:4])
	f.UDPLength = int(binary.BigEndian.Uint16(u[4:6]))
	switch f.DstPort {
	case VXLANPort, VXLANLinuxPort:
		return f.decodeVXLAN(data, off)
	case GenevePort:
		return f.decodeGeneve(data, off)
	}
	if f.DstPort != UDPPort {
		return nil
	}
	if f.UDPLength < UDPLen+roce.BTHLen+ICRCLen || f.UDPLength > room {
		return &DecodeError{Layer: "UDP", Msg: "length " + strconv.Itoa(f.UDPLength) + " does not fit a RoCEv2 packet in an IP payload of " + strconv.Itoa(room)}
	}
	f.Kind = FrameRoCE
	start, end := off+UDPLen, off+f.UDPLength
	if end > len(data) {
		f.Truncated = true
		end = len(data)
	}
	body := data[start:end]
	b := &f.BTH
	if err := b.decodeHeader(body); err != nil {
		return err
	}
	hs := b.Opcode.Headers()
	f.Headers = hs
	f.PayloadLen = f.UDPLength - UDPLen - roce.BTHLen - hs.Len() - int(b.PadCount) - ICRCLen
	if f.PayloadLen < 0 {
		return &DecodeError{Layer: "BTH", Msg: "UDP length " + strconv.Itoa(f.UDPLength) + " too short for " + b.Opcode.String()}
	}
	rest := body[roce.BTHLen:]
	if f.Truncated {
		b.NoTrailer, b.ICRC = true, 0
	} else {
		b.NoTrailer = false
		b.ICRC = binary.LittleEndian.Uint32(rest[len(rest)-ICRCLen:])
		rest = rest[:len(rest)-ICRCLen-int(b.PadCount)]
	}
	b.BaseLayer.Contents, b.BaseLayer.Payload = body[:roce.BTHLen], rest
	if hs&roce.Known == 0 {
		return nil
	}
	return f.decodeExt(hs, rest)
}

// decodeExt decodes the extension headers in hs from p, in wire order,
// stopping quietly where a truncated capture ends.
func (f *Frame) decodeExt(hs roce.Headers, p []byte) error {
	for _, e := range headerOrder {
		if hs&e.h == 0 {
			continue
		}
		l := f.layer(e.h, &f.BTH)
		if err := l.DecodeFromBytes(p, noFeedback{}); err != nil {
			if f.Truncated {
				return nil
			}
			return err
		}
		f.Decoded |= e.h
		p = l.LayerPayload()
	}
	return nil
}
