package capture

import (
	"encoding/binary"

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

// readable reports whether frames of link type lt are decoded.
func readable(lt layers.LinkType) bool {
	return lt == layers.LinkTypeEthernet || lt == layers.LinkTypeLinuxSLL || lt == layers.LinkTypeLinuxSLL2
}

// uncook rewrites a Linux cooked frame as the Ethernet frame it stands for,
// so that one decoder reads both: the protocol becomes the EtherType, the
// sender's link-layer address (when it is a MAC) the source MAC, and the
// destination MAC, which the cooked header does not keep, is zero. Other
// frames are left alone.
func (r *Reader) uncook(p *Packet) {
	d := p.Data
	var hdr, proto, addr, addrLen int
	switch {
	case p.LinkType == layers.LinkTypeLinuxSLL && len(d) >= sllLen:
		hdr, proto, addr, addrLen = sllLen, 14, 6, int(binary.BigEndian.Uint16(d[4:]))
	case p.LinkType == layers.LinkTypeLinuxSLL2 && len(d) >= sll2Len:
		hdr, proto, addr, addrLen = sll2Len, 0, 12, int(d[11])
	default:
		return
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
	copy(e[12:14], d[proto:proto+2])
	copy(e[14:], d[hdr:])
	p.Data = e
	p.Length += 14 - hdr
	p.LinkType = layers.LinkTypeEthernet
}
