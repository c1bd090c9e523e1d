package wire

import (
	"encoding/binary"
	"net/netip"
)

// Tunnel is the encapsulation a frame was carried in: a switch's mirror
// session (ERSPAN, or plain GRE bridging Ethernet), a VXLAN or Geneve
// overlay, or a cloud's packet mirroring (Geneve). A
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
	// TunnelVXLAN is VXLAN (UDP port 4789, or 8472, the Linux kernel's
	// default): an 8-byte header with the I flag set, then the Ethernet
	// frame.
	TunnelVXLAN
	// TunnelGeneve is Geneve (RFC 8926, UDP port 6081): an 8-byte header,
	// its options, then an Ethernet frame (protocol 0x6558) or, as cloud
	// packet mirroring sends it, an IPv4 or IPv6 packet without one.
	TunnelGeneve
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
	case TunnelGeneve:
		return "Geneve"
	}
	return "none"
}

// Tap says where a mirror session copied a frame: the session's outer IP
// source (the switch), and for ERSPAN its session ID, type II's Index (the
// port or interface the copy was taken at) and type III's D bit (ingress
// or egress). Two copies of one packet with different taps were taken at
// two points; a repeat with the same tap was sent twice. Zero fields are
// those the tunnel does not carry (type I has no ERSPAN header; GRE and
// VXLAN only Src).
type Tap struct {
	Src     netip.Addr
	Session uint16
	Index   uint32
	Egress  bool
}

// ERSPAN reports whether the tunnel is a mirror session's ERSPAN.
func (t Tunnel) ERSPAN() bool { return t >= TunnelERSPAN1 && t <= TunnelERSPAN3 }

// Encapsulation header sizes and numbers.
const (
	greBaseLen     = 4
	erspan2Len     = 8
	erspan3Len     = 12
	erspan3SubLen  = 8
	vxlanLen       = 8
	geneveLen      = 8
	geneveControl  = 0x80 // of the second byte: the O bit
	ipProtoGRE     = 47
	VXLANPort      = 4789
	VXLANLinuxPort = 8472
	GenevePort     = 6081
	greTEB         = 0x6558
	greERSPAN12    = 0x88be
	greERSPAN3     = 0x22eb
	greChecksum    = 0x8000
	greRouting     = 0x4000
	greKey         = 0x2000
	greSequence    = 0x1000
	greVersionMask = 0x0007
	erspanSession  = 0x03ff // of the header's second 16-bit word
	erspanT        = 0x0400 // the frame was truncated by the mirror
	erspan2Index   = 0x000fffff
	erspan3D       = 0x08 // of the last byte: the copy was taken at egress
)

// decapIP decodes the IP packet (EtherType et) a tunnel carries in
// data[start:end] without an Ethernet header, as decap does a frame: its
// MACs are zero and its wire length counts the 14-byte Ethernet header it
// had on its own link.
func (f *Frame) decapIP(data []byte, start, end int, t Tunnel, et uint16) error {
	if f.Tunnel != TunnelNone {
		return nil
	}
	end = min(end, len(data))
	if start > end {
		return short(t.String(), start, end)
	}
	src := f.SrcIP
	f.reset()
	f.Tunnel, f.Tap, f.MirrorTruncated = t, Tap{Src: src}, false
	f.EtherType, f.L2Len, f.BareIP = et, EthernetLen, true
	return f.decodeL3(data[start:end], 0)
}

// decap decodes the Ethernet frame a tunnel carries in data[start:end],
// in place of the outer frame, and remembers the tunnel, its tap (Src is
// the outer source address, decoded before) and whether the mirror cut
// the frame. A tunnel inside a tunnel is left undecoded (the frame stays
// FrameOther).
func (f *Frame) decap(data []byte, start, end int, t Tunnel, tap Tap, cut bool) error {
	if f.Tunnel != TunnelNone {
		return nil
	}
	if end > len(data) {
		end = len(data)
	}
	if start > end {
		return short(t.String(), start, end)
	}
	tap.Src = f.SrcIP
	f.Tunnel, f.Tap, f.MirrorTruncated = t, tap, cut
	return f.decodeEthernet(data[start:end])
}

// erspanHeader reads the session ID and T bit of the ERSPAN type II or
// III header at start, n bytes long.
func erspanHeader(data []byte, start, n int, t Tunnel) (tap Tap, cut bool, err error) {
	if len(data) < start+n {
		return Tap{}, false, short(t.String(), start+n, len(data))
	}
	w := binary.BigEndian.Uint16(data[start+2:])
	return Tap{Session: w & erspanSession}, w&erspanT != 0, nil
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
		return f.decap(data, start, end, TunnelGRE, Tap{}, false)
	case proto == greERSPAN12 && flags&greSequence == 0:
		return f.decap(data, start, end, TunnelERSPAN1, Tap{}, false)
	case proto == greERSPAN12:
		tap, cut, err := erspanHeader(data, start, erspan2Len, TunnelERSPAN2)
		if err != nil {
			return err
		}
		tap.Index = binary.BigEndian.Uint32(data[start+4:]) & erspan2Index
		return f.decap(data, start+erspan2Len, end, TunnelERSPAN2, tap, cut)
	case proto == greERSPAN3:
		tap, cut, err := erspanHeader(data, start, erspan3Len, TunnelERSPAN3)
		if err != nil {
			return err
		}
		last := data[start+erspan3Len-1]
		tap.Egress = last&erspan3D != 0
		n := erspan3Len
		if last&1 != 0 {
			n += erspan3SubLen
		}
		return f.decap(data, start+n, end, TunnelERSPAN3, tap, cut)
	}
	return nil
}

// overlayHeader returns where the n-byte header of a UDP overlay (tunnel
// t) starts in the UDP datagram at off; ok is false when the datagram is
// too short to hold one (no overlay) or the capture cut it (err says so).
func (f *Frame) overlayHeader(data []byte, off, n int, t Tunnel) (start int, ok bool, err error) {
	start = off + UDPLen
	if f.UDPLength < UDPLen+n {
		return 0, false, nil
	}
	if len(data) < start+n {
		return 0, false, short(t.String(), start+n, len(data))
	}
	return start, true, nil
}

// decodeVXLAN decodes the VXLAN payload of the UDP datagram at off (its
// header's length field says where it ends); a header without the I flag
// is no VXLAN and stays FrameOther.
func (f *Frame) decodeVXLAN(data []byte, off int) error {
	start, ok, err := f.overlayHeader(data, off, vxlanLen, TunnelVXLAN)
	if !ok || data[start]&0x08 == 0 {
		return err
	}
	return f.decap(data, start+vxlanLen, off+f.UDPLength, TunnelVXLAN, Tap{}, false)
}

// decodeGeneve decodes the Geneve payload of the UDP datagram at off: an
// Ethernet frame, or an IPv4 or IPv6 packet, after the options (their
// length, in 4-byte words, is the low 6 bits of the first byte; critical
// options, the C bit, change nothing for a reader that skips them).
// Another version or protocol, and a control packet (the O bit: a message
// between tunnel endpoints, whose payload is never forwarded), stay
// FrameOther.
func (f *Frame) decodeGeneve(data []byte, off int) error {
	start, ok, err := f.overlayHeader(data, off, geneveLen, TunnelGeneve)
	if !ok || data[start]>>6 != 0 || data[start+1]&geneveControl != 0 {
		return err
	}
	inner := start + geneveLen + int(data[start]&0x3f)*4
	end := off + f.UDPLength
	switch proto := binary.BigEndian.Uint16(data[start+2:]); proto {
	case greTEB:
		return f.decap(data, inner, end, TunnelGeneve, Tap{}, false)
	case 0x0800, 0x86dd:
		return f.decapIP(data, inner, end, TunnelGeneve, proto)
	}
	return nil
}
