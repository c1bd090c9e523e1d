package wire

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"net/netip"
	"testing"

	"rocelab/internal/roce"
)

// tunnelCases are SYNTHETIC tunnel headers (RFC 2784/2890 GRE, the ERSPAN
// draft), from the GRE header on, and the tap and mirror truncation each
// says; the outer source is added by tunneled.
var tunnelCases = []struct {
	name      string
	outer6    bool
	head      string
	tunnel    Tunnel
	tap       Tap
	truncated bool
}{
	{"gre-checksum-key", false, "a0006558" + "abcd0000" + "0000002a", TunnelGRE, Tap{}, false},
	{"gre-checksum-key-v6", true, "a0006558" + "abcd0000" + "0000002a", TunnelGRE, Tap{}, false},
	{"erspan1-v6", true, "000088be", TunnelERSPAN1, Tap{}, false},
	{"erspan2-key-session-index", false, "300088be" + "00000007" + "0000002a" + "1001" + "0155" + "00012345", TunnelERSPAN2, Tap{Session: 0x155, Index: 0x12345}, false},
	{"erspan2-truncated-v6", true, "100088be0000002a" + "1001" + "0402" + "fff00003", TunnelERSPAN2, Tap{Session: 2, Index: 3}, true},
	{"erspan3-no-subheader-egress", false, "100022eb00000007" + "2001" + "0009" + "12345678" + "00000008", TunnelERSPAN3, Tap{Session: 9, Egress: true}, false},
	{"erspan3-subheader-ingress-v6", true, "100022eb00000007" + "2001" + "0409" + "12345678" + "00000001" + "0000000000000000", TunnelERSPAN3, Tap{Session: 9}, true},
}

// tunneled puts inner inside an outer Ethernet and IPv4 or IPv6 header
// from 192.0.2.1 (2001:db8::1) and the GRE header head.
func tunneled(t testing.TB, outer6 bool, head string, inner []byte) (frame []byte, src netip.Addr) {
	h, err := hex.DecodeString(head)
	if err != nil {
		t.Fatal(err)
	}
	n := len(h) + len(inner)
	var ip []byte
	if outer6 {
		src = netip.MustParseAddr("2001:db8::1")
		ip = make([]byte, IPv6Len)
		ip[0], ip[6], ip[7] = 0x60, ipProtoGRE, 64
		binary.BigEndian.PutUint16(ip[4:6], uint16(n))
		copy(ip[8:24], src.AsSlice())
		copy(ip[24:40], netip.MustParseAddr("2001:db8::2").AsSlice())
	} else {
		src = netip.MustParseAddr("192.0.2.1")
		ip = make([]byte, IPv4Len)
		ip[0], ip[8], ip[9] = 0x45, 64, ipProtoGRE
		binary.BigEndian.PutUint16(ip[2:4], uint16(IPv4Len+n))
		copy(ip[12:16], src.AsSlice())
		copy(ip[16:20], []byte{192, 0, 2, 2})
	}
	eth := []byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00}
	if outer6 {
		eth[12], eth[13] = 0x86, 0xdd
	}
	return bytes.Join([][]byte{eth, ip, h, inner}, nil), src
}

// tunnelInners are RoCE frames other than CNPs: an RDMA WRITE First with
// its RETH and an ACK.
func tunnelInners(t testing.TB) [][]byte {
	var b Builder
	e := testEndpoints(true, false)
	var out [][]byte
	for _, tr := range []Transport{
		{BTH: BTH{Opcode: roce.OpWriteFirst, PKey: 0xffff, DestQP: 0xabc, PSN: 7, AckReq: true},
			ExtHeaders: ExtHeaders{RETH: RETH{VA: 0x10, RKey: 0x20, DMALength: 4096}}, PayloadLen: 256},
		{BTH: BTH{Opcode: roce.OpAcknowledge, PKey: 0xffff, DestQP: 0xdef, PSN: 7},
			ExtHeaders: ExtHeaders{AETH: AETH{MSN: 1}}},
	} {
		frame, _, err := b.RoCE(&e, &tr, 0)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, append([]byte(nil), frame...))
	}
	return out
}

// GRE with its checksum and key, ERSPAN II with a key, ERSPAN III with
// and without its platform subheader, under IPv4 and IPv6: the inner
// RoCE frame decodes, and the tap (outer source, session, index,
// direction) and the T bit (cut by the mirror) are read. With T set the
// inner frame is cut, as the mirror sends it.
func TestTunnelHeaders(t *testing.T) {
	var f Frame
	for _, tc := range tunnelCases {
		for _, inner := range tunnelInners(t) {
			var want Frame
			if err := want.Decode(inner); err != nil {
				t.Fatal(err)
			}
			if tc.truncated {
				inner = inner[:len(inner)-6]
			}
			frame, src := tunneled(t, tc.outer6, tc.head, inner)
			if err := f.Decode(frame); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			tap := tc.tap
			tap.Src = src
			if f.Kind != FrameRoCE || f.Tunnel != tc.tunnel || f.Tap != tap || f.MirrorTruncated != tc.truncated || f.Truncated != tc.truncated ||
				f.SrcIP != want.SrcIP || f.BTH.Opcode != want.BTH.Opcode || f.BTH.DestQP != want.BTH.DestQP || f.PayloadLen != want.PayloadLen {
				t.Errorf("%s: kind %v tunnel %v tap %+v (want %+v) mirror-truncated %v truncated %v src %v op %v qp %#x payload %d",
					tc.name, f.Kind, f.Tunnel, f.Tap, tap, f.MirrorTruncated, f.Truncated, f.SrcIP, f.BTH.Opcode, f.BTH.DestQP, f.PayloadLen)
			}
		}
	}
	if err := f.Decode(tunnelInners(t)[0]); err != nil || f.Tunnel != TunnelNone || f.Tap != (Tap{}) || f.MirrorTruncated {
		t.Errorf("untunneled after tunneled: err %v tunnel %v tap %+v mirror-truncated %v", err, f.Tunnel, f.Tap, f.MirrorTruncated)
	}
}

// udpTunneled puts inner after an outer Ethernet, IPv4 and UDP header to
// port dport and the overlay header head (hex). SYNTHETIC.
func udpTunneled(t testing.TB, dport uint16, head string, inner []byte) []byte {
	h, err := hex.DecodeString(head)
	if err != nil {
		t.Fatal(err)
	}
	n := UDPLen + len(h) + len(inner)
	ip := make([]byte, IPv4Len)
	ip[0], ip[8], ip[9] = 0x45, 64, 17
	binary.BigEndian.PutUint16(ip[2:4], uint16(IPv4Len+n))
	copy(ip[12:20], []byte{192, 0, 2, 1, 192, 0, 2, 2})
	udp := binary.BigEndian.AppendUint16(nil, 0xc000)
	udp = binary.BigEndian.AppendUint16(udp, dport)
	udp = binary.BigEndian.AppendUint16(udp, uint16(n))
	udp = append(udp, 0, 0)
	eth := []byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00}
	return bytes.Join([][]byte{eth, ip, udp, h, inner}, nil)
}

// overlayCases are SYNTHETIC overlay headers (RFC 7348 VXLAN, RFC 8926
// Geneve): the port, the header, whether the inner frame goes without its
// Ethernet header (Geneve protocol IPv4 or IPv6), and the tunnel read
// (TunnelNone: left as other UDP).
var overlayCases = []struct {
	name   string
	port   uint16
	head   string
	ip     bool
	tunnel Tunnel
}{
	{"vxlan-linux-port", VXLANLinuxPort, "0800000000006400", false, TunnelVXLAN},
	{"geneve-ethernet", GenevePort, "00006558" + "00000a00", false, TunnelGeneve},
	{"geneve-ethernet-critical-option", GenevePort, "01406558" + "00000a00" + "00008000", false, TunnelGeneve},
	{"geneve-control-oam", GenevePort, "01c06558" + "00000a00" + "00008000", false, TunnelNone},
	{"geneve-ipv4-gcp-options", GenevePort, "02000800" + "00000000" + "01320101" + "80000000", true, TunnelGeneve},
	{"geneve-version-1", GenevePort, "40006558" + "00000a00", false, TunnelNone},
	{"geneve-other-protocol", GenevePort, "00008847" + "00000a00", false, TunnelNone},
}

// VXLAN on Linux's port and Geneve with options, carrying Ethernet or a
// bare IPv4 packet: the inner RoCE frame decodes with the outer source as
// tap; its wire length counts an Ethernet header. Another Geneve version
// or protocol, and a Geneve control (OAM) packet, stay other UDP.
func TestOverlayHeaders(t *testing.T) {
	var f Frame
	for _, tc := range overlayCases {
		for _, inner := range tunnelInners(t) {
			var want Frame
			if err := want.Decode(inner); err != nil {
				t.Fatal(err)
			}
			if tc.ip {
				inner = inner[want.L2Len:]
			}
			if err := f.Decode(udpTunneled(t, tc.port, tc.head, inner)); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if tc.tunnel == TunnelNone {
				if f.Kind != FrameOther || f.Tunnel != TunnelNone || f.DstPort != tc.port {
					t.Errorf("%s: kind %v tunnel %v port %d", tc.name, f.Kind, f.Tunnel, f.DstPort)
				}
				continue
			}
			wireLen := want.WireLen()
			if tc.ip {
				wireLen = want.WireLen() - want.L2Len + EthernetLen
			}
			if f.Kind != FrameRoCE || f.Tunnel != tc.tunnel || f.Tap.Src != netip.MustParseAddr("192.0.2.1") || f.SrcIP != want.SrcIP ||
				f.BTH.Opcode != want.BTH.Opcode || f.BTH.DestQP != want.BTH.DestQP || f.PayloadLen != want.PayloadLen || f.WireLen() != wireLen ||
				tc.ip && f.SrcMAC != [6]byte{} {
				t.Errorf("%s: kind %v tunnel %v tap %+v src %v op %v qp %#x payload %d wire %d (want %d) mac %x",
					tc.name, f.Kind, f.Tunnel, f.Tap, f.SrcIP, f.BTH.Opcode, f.BTH.DestQP, f.PayloadLen, f.WireLen(), wireLen, f.SrcMAC)
			}
		}
	}
}
