package ecmp

import "math/bits"

// NS3 is the ECMP of the HPCC ns-3 model's switch
// (alibaba-edu/High-Precision-Congestion-Control, simulation/src/
// point-to-point/model/switch-node.cc at 9f4be2a, GetOutDev and EcmpHash),
// so that a scenario imported from or written for it takes its paths: a
// switch hashes the packet's addresses and ports with 32-bit MurmurHash3,
// seeded with its node id, and takes the next hop at that hash modulo
// their number, in the order its routing lists them (topo.NS3Routes).
//
// ns-3 numbers the hosts from 0 and gives node i the address
// 11.(i/256).(i%256).1 (third.cc node_id_to_ip); the twin's host index is
// that node id, as tools/ns3conv writes the topology, and a switch's node
// id is the number of hosts plus its rank among the switches.
type NS3 struct {
	// DstPort is the flows' UDP destination port in ns-3's flow.txt,
	// which the hash reads beside each flow's source port.
	DstPort uint16
}

// Pick returns which of n next hops the switch of ns-3 node id node
// takes for a packet with key k: a data packet hashes (sip, dip,
// sport | dport<<16); an ACK, NAK or CNP, which ns-3 sends from the
// receiver with the ports swapped, (its sip, its dip, dport | sport<<16).
func (m NS3) Pick(node uint32, k Key, n int) int {
	ports := uint32(k.SrcPort) | uint32(m.DstPort)<<16
	if k.Reply {
		ports = uint32(m.DstPort) | uint32(k.SrcPort)<<16
	}
	return int(murmur3(node, NS3Address(k.Src), NS3Address(k.Dst), ports) % uint32(n))
}

// NS3Address is the IPv4 address ns-3 gives node id (third.cc
// node_id_to_ip), as the 32-bit value its headers carry.
func NS3Address(id int32) uint32 {
	return 0x0b000001 + uint32(id/256)<<16 + uint32(id%256)<<8
}

// murmur3 is MurmurHash3's 32-bit hash of three little-endian words
// (Appleby's x86_32 variant, which EcmpHash is).
func murmur3(seed, a, b, c uint32) uint32 {
	h := seed
	for _, k := range [3]uint32{a, b, c} {
		k *= 0xcc9e2d51
		k = bits.RotateLeft32(k, 15)
		k *= 0x1b873593
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	h ^= 12
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}
