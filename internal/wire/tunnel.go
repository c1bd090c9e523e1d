package wire

import "encoding/binary"

// Tunnel is the encapsulation a frame was carried in: a switch's mirror
// session (ERSPAN, or plain GRE bridging Ethernet) or a VXLAN overlay. A
// capture taken at a mirror's collector or on an overlay's underlay holds
// the RoCE traffic only inside it.
type Tunnel uint8

// Tunnels.
const (
	TunnelNone Tunnel = iota
	// TunnelGRE is GRE carrying Ethernet (protocol 0x6558, transparent
	// Ethernet bridging), as Linux gretap and some mirror sessions send it.
	TunnelGRE
	// TunnelERSPAN1 is ERSPAN type I: GRE protocol 0x88BE without a
	// sequence number and without an ERSPAN header.
	TunnelERSPAN1
	// TunnelERSPAN2 is ERSPAN type II: GRE protocol 0x88BE with a sequence
	// number, then an 8-byte ERSPAN header.
	TunnelERSPAN2
	// TunnelERSPAN3 is ERSPAN type III: GRE protocol 0x22EB, a 12-byte
	// header and, when its O flag is set, an 8-byte platform subheader.
	TunnelERSPAN3
	// TunnelVXLAN is VXLAN (UDP port 4789): an 8-byte header with the I
	// flag set, then the Ethernet frame.
	TunnelVXLAN
)

// String names the tunnel.
func (t Tunnel) String() string {
	switch t {
	case TunnelGRE:
		return "GRE (Ethernet)"
	case TunnelERSPAN1:
		return "ERSPAN type I"
	case TunnelERSPAN2:
		return "ERSPAN type II"
	case TunnelERSPAN3:
		return "ERSPAN type III"
	case TunnelVXLAN:
		return "VXLAN"
	}
	return "none"
}

// Encapsulation header sizes and numbers.
const (
	greBaseLen     = 4
	erspan2Len     = 8
	erspan3Len     = 12
	erspan3SubLen  = 8
	vxlanLen       = 8
	ipProtoGRE     = 47
	VXLANPort      = 4789
	greTEB         = 0x6558
	greERSPAN12    = 0x88be
	greERSPAN3     = 0x22eb
	greChecksum    = 0x8000
	greRouting     = 0x4000
	greKey         = 0x2000
	greSequence    = 0x1000
	greVersionMask = 0x0007
)

// decap decodes the Ethernet frame a tunnel carries in data[start:end],
// in place of the outer frame, and remembers the tunnel. A tunnel inside
// a tunnel is left undecoded (the frame stays FrameOther).
func (f *Frame) decap(data []byte, start, end int, t Tunnel) error {
	if f.Tunnel != TunnelNone {
		return nil
	}
	if end > len(data) {
		end = len(data)
	}
	if start > end {
		return short(t.String(), start, end)
	}
	f.Tunnel = t
	return f.decodeEthernet(data[start:end])
}

// decodeGRE decodes a GRE packet at off with room bytes of IP payload:
// Ethernet bridged over GRE and ERSPAN types I to III are decapsulated;
// other GRE (another protocol, version 1, source routing) stays
// FrameOther.
func (f *Frame) decodeGRE(data []byte, off, room int) error {
	if len(data) < off+greBaseLen {
		return short("GRE", off+greBaseLen, len(data))
	}
	flags := binary.BigEndian.Uint16(data[off:])
	proto := binary.BigEndian.Uint16(data[off+2:])
	if flags&greVersionMask != 0 || flags&greRouting != 0 {
		return nil
	}
	hl := greBaseLen
	for _, bit := range []uint16{greChecksum, greKey, greSequence} {
		if flags&bit != 0 {
			hl += 4
		}
	}
	start, end := off+hl, off+room
	switch {
	case proto == greTEB:
		return f.decap(data, start, end, TunnelGRE)
	case proto == greERSPAN12 && flags&greSequence == 0:
		return f.decap(data, start, end, TunnelERSPAN1)
	case proto == greERSPAN12:
		return f.decap(data, start+erspan2Len, end, TunnelERSPAN2)
	case proto == greERSPAN3:
		if len(data) < start+erspan3Len {
			return short("ERSPAN type III", start+erspan3Len, len(data))
		}
		n := erspan3Len
		if data[start+erspan3Len-1]&1 != 0 {
			n += erspan3SubLen
		}
		return f.decap(data, start+n, end, TunnelERSPAN3)
	}
	return nil
}

// decodeVXLAN decodes the VXLAN payload of the UDP datagram at off (its
// header's length field says where it ends); a header without the I flag
// is no VXLAN and stays FrameOther.
func (f *Frame) decodeVXLAN(data []byte, off int) error {
	start := off + UDPLen
	if f.UDPLength < UDPLen+vxlanLen {
		return nil
	}
	if len(data) < start+vxlanLen {
		return short("VXLAN", start+vxlanLen, len(data))
	}
	if data[start]&0x08 == 0 {
		return nil
	}
	return f.decap(data, start+vxlanLen, off+f.UDPLength, TunnelVXLAN)
}
