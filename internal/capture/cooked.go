package capture

import (
	"encoding/binary"
	"fmt"

	"github.com/gopacket/gopacket/layers"
)

// Linux cooked capture headers ("tcpdump -i any"), from the tcpdump-group
// link-layer header types registry (LINKTYPE_LINUX_SLL, LINKTYPE_LINUX_SLL2):
// SLL is packet type 2, ARPHRD type 2, address length 2, address 8,
// protocol 2 (16 bytes); SLL2 is protocol 2, reserved 2, interface index 4,
// ARPHRD type 2, packet type 1, address length 1, address 8 (20 bytes).
const (
	sllLen  = 16
	sll2Len = 20
)

// Raw IP link types from the same registry: LINKTYPE_RAW (101; the frame
// is an IPv4 or IPv6 packet, its version nibble says which), LINKTYPE_IPV4
// (228) and LINKTYPE_IPV6 (229). A capture on a tun device, a cloud
// collector that strips the link layer, or tcpdump -y RAW writes them.
const (
	linkTypeIPv4 layers.LinkType = 228
	linkTypeIPv6 layers.LinkType = 229
)

// DLT_RAW as some systems wrote it into pcap files before LINKTYPE_RAW:
// 12 on most, 14 on OpenBSD and BSD/OS (libpcap and Wireshark read both as
// raw IP). OpenBSD's 12 is DLT_LOOP, whose 4-byte address family header
// starts with a zero byte: its version nibble is neither 4 nor 6, so such
// frames are left alone.
const (
	linkTypeDLTRaw    layers.LinkType = 12
	linkTypeDLTRawBSD layers.LinkType = 14
)

// rawIP reports whether lt is a raw IP link type whose frames' version
// nibble says IPv4 or IPv6.
func rawIP(lt layers.LinkType) bool {
	return lt == layers.LinkTypeRaw || lt == linkTypeDLTRaw || lt == linkTypeDLTRawBSD
}

// InfiniBand link types: LINKTYPE_IPOIB (242, IP over InfiniBand, as
// tcpdump writes a capture on an ib0 netdev) and LINKTYPE_INFINIBAND (247,
// native packets from an IB port's sniffer). A capture of either was taken
// on an InfiniBand fabric, where no RoCE runs.
const (
	linkTypeIPoIB      layers.LinkType = 242
	linkTypeInfiniBand layers.LinkType = 247
)

// linkTypeName names link type lt, with what it says about the fabric
// for those read as not RoCE.
func linkTypeName(lt layers.LinkType) string {
	switch lt {
	case linkTypeIPoIB:
		return fmt.Sprintf("link type %d (IP over InfiniBand: captured on an IPoIB netdev of an InfiniBand fabric, which carries no RoCE)", lt)
	case linkTypeInfiniBand:
		return fmt.Sprintf("link type %d (native InfiniBand: captured on an InfiniBand port, which carries no RoCE)", lt)
	case linkTypeDLTRaw, linkTypeDLTRawBSD:
		return fmt.Sprintf("link type %d (raw IP, DLT_RAW)", lt)
	}
	return fmt.Sprintf("link type %d (%s)", lt, lt)
}

// infiniBandCapture returns the refusal of a capture of link type lt with
// what it is, when lt is an InfiniBand one: an InfiniBand fabric, where
// the RoCE rules (UDP 4791, DSCP, ECN, PFC) do not apply.
func infiniBandCapture(lt layers.LinkType) *FormatError {
	const ib = "For the RDMA traffic of an InfiniBand port, capture on the HCA itself (NVIDIA ibdump -d mlx5_0, or tcpdump -i mlx5_0 " +
		"with an RDMA-capable libpcap, which writes link type 247) and read it in Wireshark (InfiniBand dissector); judge the fabric by " +
		"its port counters (perfquery, ibdiagnet, or the ports' hw_counters, which diagnose reads). If this port was meant to run RoCE, " +
		"its link layer is InfiniBand (ibstat: Link layer: InfiniBand): on a VPI card set it to Ethernet (mlxconfig -d <dev> set LINK_TYPE_P1=2, then reset the card)."
	switch lt {
	case linkTypeIPoIB:
		return &FormatError{
			What: "an IP over InfiniBand capture (link type 242, tcpdump on an ib0 netdev), not RoCE",
			Why: "An IPoIB netdev carries the kernel's IP traffic over an InfiniBand fabric: tcpdump on it sees IP over InfiniBand, " +
				"never the RDMA traffic, and an InfiniBand fabric has no RoCE (no UDP 4791, DSCP-classed PFC or ECN-marked IP), so no capture rule applies to it.",
			Fix: ib,
		}
	case linkTypeInfiniBand:
		return &FormatError{
			What: "a native InfiniBand capture (link type 247: LRH, BTH), not RoCE",
			Why: "The packets were captured on an InfiniBand port: they carry the IB link layer (LRH, credit-based flow control, FECN/BECN), " +
				"not RoCE over Ethernet (UDP 4791, PFC, ECN), which is what rocelab's capture rules judge.",
			Fix: ib,
		}
	}
	return &FormatError{}
}

// readable reports whether frames of link type lt are decoded.
func readable(lt layers.LinkType) bool {
	switch lt {
	case layers.LinkTypeEthernet, layers.LinkTypeLinuxSLL, layers.LinkTypeLinuxSLL2, linkTypeIPv4, linkTypeIPv6:
		return true
	}
	return rawIP(lt)
}

// rawEtherType returns the EtherType of a raw IP frame of link type lt,
// or 0 when the frame is not one (or its version nibble is neither 4 nor
// 6).
func rawEtherType(lt layers.LinkType, d []byte) uint16 {
	switch {
	case lt == linkTypeIPv4:
		return 0x0800
	case lt == linkTypeIPv6:
		return 0x86dd
	case !rawIP(lt) || len(d) == 0:
		return 0
	case d[0]>>4 == 4:
		return 0x0800
	case d[0]>>4 == 6:
		return 0x86dd
	}
	return 0
}

// uncook rewrites a Linux cooked or raw IP frame as the Ethernet frame it
// stands for, so that one decoder reads them all: the protocol (for raw
// IP, the IP version's) becomes the EtherType, the sender's link-layer
// address (when the cooked header gives a MAC) the source MAC, and the
// MACs the header does not keep are zero. Wire lengths then count the
// 14-byte Ethernet header the packet had on a RoCE link. Other frames, and
// raw frames that are not IP, are left alone.
func (r *Reader) uncook(p *Packet) {
	d := p.Data
	var hdr, addr, addrLen int
	var proto uint16
	switch {
	case p.LinkType == layers.LinkTypeLinuxSLL && len(d) >= sllLen:
		hdr, proto, addr, addrLen = sllLen, binary.BigEndian.Uint16(d[14:]), 6, int(binary.BigEndian.Uint16(d[4:]))
	case p.LinkType == layers.LinkTypeLinuxSLL2 && len(d) >= sll2Len:
		hdr, proto, addr, addrLen = sll2Len, binary.BigEndian.Uint16(d), 12, int(d[11])
	default:
		if proto = rawEtherType(p.LinkType, d); proto == 0 {
			return
		}
		p.RawIP = true
	}
	n := 14 + len(d) - hdr
	if cap(r.cooked) < n {
		r.cooked = make([]byte, n+n/4)
	}
	e := r.cooked[:n]
	clear(e[:12])
	if addrLen == 6 {
		copy(e[6:12], d[addr:addr+6])
	}
	binary.BigEndian.PutUint16(e[12:14], proto)
	copy(e[14:], d[hdr:])
	p.Data = e
	p.Length += 14 - hdr
	p.LinkType = layers.LinkTypeEthernet
}
