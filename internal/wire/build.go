package wire

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"net/netip"

	"rocelab/internal/roce"
)

// Endpoints are the L2-L4 fields of one direction of a RoCEv2 path.
type Endpoints struct {
	SrcMAC, DstMAC [6]byte
	// SrcIP and DstIP must both be IPv4 or both IPv6.
	SrcIP, DstIP netip.Addr
	// SrcPort is the UDP source port, the ECMP entropy of the QP.
	SrcPort uint16
	DSCP    uint8
	ECN     ECN
	// VLAN adds an 802.1Q tag with VLANID and priority PCP.
	VLAN   bool
	VLANID uint16
	PCP    uint8
	// HopLimit is the IPv4 TTL or IPv6 hop limit; 0 means 64.
	HopLimit uint8
	// FlowLabel is the IPv6 flow label (20 bits).
	FlowLabel uint32
}

// Reversed returns the endpoints of the opposite direction (MACs and IPs
// swapped; everything else kept).
func (e Endpoints) Reversed() Endpoints {
	e.SrcMAC, e.DstMAC = e.DstMAC, e.SrcMAC
	e.SrcIP, e.DstIP = e.DstIP, e.SrcIP
	return e
}

// Transport holds the RoCE headers of one packet. The BTH opcode decides
// which of the extension headers are written (Opcode.Headers); the others
// are ignored. BTH.PadCount is computed from PayloadLen.
type Transport struct {
	BTH BTH
	ExtHeaders
	// PayloadLen is the number of data bytes (written as zeros).
	PayloadLen int
}

// A Builder serializes frames into one reusable buffer: after the first
// frames have grown it, building allocates nothing. The returned slice is
// valid until the next call.
type Builder struct {
	// FCS appends the 4-byte Ethernet FCS (captures usually lack it).
	FCS bool
	// NoICRC writes a zero ICRC instead of computing it.
	NoICRC bool
	buf    []byte
	icrc   icrcScratch
}

// Builder errors.
var (
	ErrAddrFamily = errors.New("wire: source and destination IPs must both be valid IPv4 or both IPv6")
	ErrTooLong    = errors.New("wire: packet longer than an IP datagram")
)

// minFrame is the shortest Ethernet frame without FCS; shorter frames are
// padded with zeros.
const minFrame = 60

func (b *Builder) grow(n int) []byte {
	if cap(b.buf) < n {
		b.buf = make([]byte, n+n/4)
	}
	b.buf = b.buf[:n]
	return b.buf
}

// finish appends the FCS when asked, and cuts the frame to snaplen
// (0 = whole frame). It returns the captured bytes and the wire length.
func (b *Builder) finish(n, snaplen int) ([]byte, int) {
	if b.FCS {
		fcs := crc32.ChecksumIEEE(b.buf[:n])
		b.buf = b.buf[:n+4]
		binary.LittleEndian.PutUint32(b.buf[n:], fcs)
		n += 4
	}
	c := n
	if snaplen > 0 && snaplen < c {
		c = snaplen
	}
	return b.buf[:c], n
}

// RoCE builds a RoCEv2 frame: Ethernet, optional 802.1Q tag, IPv4 or IPv6,
// UDP to port 4791 with checksum 0, BTH, the extension headers of the
// opcode, t.PayloadLen zero bytes, pad, ICRC and optional FCS. It returns
// the first snaplen bytes (all when snaplen is 0) and the frame's full
// length on the wire.
func (b *Builder) RoCE(e *Endpoints, t *Transport, snaplen int) (frame []byte, wireLen int, err error) {
	v4 := e.SrcIP.Is4() && e.DstIP.Is4()
	if !v4 && !(e.SrcIP.Is6() && e.DstIP.Is6()) {
		return nil, 0, ErrAddrFamily
	}
	hs := t.BTH.Opcode.Headers()
	pad := (4 - t.PayloadLen%4) % 4
	udpLen := UDPLen + roce.BTHLen + hs.Len() + t.PayloadLen + pad + ICRCLen
	ipHdr := IPv6Len
	if v4 {
		ipHdr = IPv4Len
	}
	if t.PayloadLen < 0 || ipHdr+udpLen > 0xffff {
		return nil, 0, ErrTooLong
	}
	l2 := EthernetLen
	if e.VLAN {
		l2 += VLANTagLen
	}
	n := l2 + ipHdr + udpLen
	p := b.grow(max(n, minFrame) + 4)
	off := writeEthernet(p, e, v4)
	writeIP(p[off:], e, v4, udpLen)
	ipOff := off
	off += ipHdr
	binary.BigEndian.PutUint16(p[off:], e.SrcPort)
	binary.BigEndian.PutUint16(p[off+2:], UDPPort)
	binary.BigEndian.PutUint16(p[off+4:], uint16(udpLen))
	p[off+6], p[off+7] = 0, 0
	off += UDPLen
	bth := t.BTH
	bth.PadCount = uint8(pad)
	bth.encode(p[off:])
	off += roce.BTHLen
	off = t.encodeExt(p, off, hs)
	clear(p[off : n-ICRCLen])
	var crc uint32
	if !b.NoICRC {
		crc = icrc(p[:n], ipOff, &b.icrc)
	}
	binary.LittleEndian.PutUint32(p[n-ICRCLen:], crc)
	if n < minFrame {
		clear(p[n:minFrame])
		n = minFrame
	}
	frame, wireLen = b.finish(n, snaplen)
	return frame, wireLen, nil
}

// encodeExt writes the extension headers in hs at off and returns the
// offset after them.
func (t *ExtHeaders) encodeExt(p []byte, off int, hs roce.Headers) int {
	if hs&roce.HasDETH != 0 {
		t.DETH.encode(p[off:])
		off += roce.DETHLen
	}
	if hs&roce.HasRETH != 0 {
		t.RETH.encode(p[off:])
		off += roce.RETHLen
	}
	if hs&roce.HasAtomicETH != 0 {
		t.AtomicETH.encode(p[off:])
		off += roce.AtomicETHLen
	}
	if hs&roce.HasAETH != 0 {
		t.AETH.encode(p[off:])
		off += roce.AETHLen
	}
	if hs&roce.HasAtomicAckETH != 0 {
		binary.BigEndian.PutUint64(p[off:], t.AtomicAckETH.OrigRemoteData)
		off += roce.AtomicAckETHLen
	}
	if hs&roce.HasImmDt != 0 {
		binary.BigEndian.PutUint32(p[off:], t.ImmDt.Data)
		off += roce.ImmDtLen
	}
	if hs&roce.HasIETH != 0 {
		binary.BigEndian.PutUint32(p[off:], t.IETH.RKey)
		off += roce.IETHLen
	}
	if hs&roce.HasCNP != 0 {
		clear(p[off : off+roce.CNPLen])
		off += roce.CNPLen
	}
	return off
}

// writeEthernet writes the Ethernet header (and VLAN tag when e asks for
// one) and returns its length.
func writeEthernet(p []byte, e *Endpoints, v4 bool) int {
	copy(p[0:6], e.DstMAC[:])
	copy(p[6:12], e.SrcMAC[:])
	off := 12
	if e.VLAN {
		binary.BigEndian.PutUint16(p[12:], 0x8100)
		binary.BigEndian.PutUint16(p[14:], uint16(e.PCP&7)<<13|e.VLANID&0x0fff)
		off = 16
	}
	et := uint16(0x86dd)
	if v4 {
		et = 0x0800
	}
	binary.BigEndian.PutUint16(p[off:], et)
	return off + 2
}

// writeIP writes an IPv4 (with checksum, DF set, ID 0) or IPv6 header for
// a UDP datagram of udpLen bytes.
func writeIP(p []byte, e *Endpoints, v4 bool, udpLen int) {
	hop := e.HopLimit
	if hop == 0 {
		hop = 64
	}
	tos := TOS(e.DSCP, e.ECN)
	if !v4 {
		binary.BigEndian.PutUint32(p[0:], 6<<28|uint32(tos)<<20|e.FlowLabel&0xfffff)
		binary.BigEndian.PutUint16(p[4:], uint16(udpLen))
		p[6], p[7] = 17, hop
		s, d := e.SrcIP.As16(), e.DstIP.As16()
		copy(p[8:24], s[:])
		copy(p[24:40], d[:])
		return
	}
	p[0], p[1] = 0x45, tos
	binary.BigEndian.PutUint16(p[2:], uint16(IPv4Len+udpLen))
	p[4], p[5], p[6], p[7] = 0, 0, 0x40, 0
	p[8], p[9], p[10], p[11] = hop, 17, 0, 0
	s, d := e.SrcIP.As4(), e.DstIP.As4()
	copy(p[12:16], s[:])
	copy(p[16:20], d[:])
	binary.BigEndian.PutUint16(p[10:], ipv4Checksum(p[:IPv4Len]))
}

func ipv4Checksum(h []byte) uint16 {
	var s uint32
	for i := 0; i+1 < len(h); i += 2 {
		s += uint32(h[i])<<8 | uint32(h[i+1])
	}
	for s > 0xffff {
		s = s>>16 + s&0xffff
	}
	return ^uint16(s)
}

// PFC builds an 802.1Qbb PFC frame from src to 01:80:c2:00:00:01 with the
// class-enable vector and per-priority quanta. See RoCE for snaplen and the
// results.
func (b *Builder) PFC(src [6]byte, classEnable uint16, quanta [8]uint16, snaplen int) ([]byte, int) {
	return b.macControl(src, &MACControl{Opcode: MACControlPFC, ClassEnable: classEnable, Quanta: quanta}, snaplen)
}

// Pause builds an 802.3x PAUSE frame from src with one pause time.
func (b *Builder) Pause(src [6]byte, quanta uint16, snaplen int) ([]byte, int) {
	return b.macControl(src, &MACControl{Opcode: MACControlPause, PauseQuanta: quanta}, snaplen)
}

func (b *Builder) macControl(src [6]byte, m *MACControl, snaplen int) ([]byte, int) {
	n := EthernetLen + MACControlMinLen
	p := b.grow(n + 4)
	copy(p[0:6], MACControlDst[:])
	copy(p[6:12], src[:])
	binary.BigEndian.PutUint16(p[12:], uint16(EtherTypeMACControl))
	m.encode(p[EthernetLen:])
	return b.finish(n, snaplen)
}
