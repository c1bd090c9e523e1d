package fabric

import (
	"math/bits"

	"rocelab/internal/packet"
)

// HashField selects a header field the ECMP hash covers.
type HashField uint8

// Hash fields. The RoCEv2 UDP destination port and the IP protocol are
// constant (4791, UDP), so the per-QP UDP source port is the only entropy
// between a pair of hosts.
const (
	HashSrcIP HashField = 1 << iota
	HashDstIP
	HashSrcPort
	HashDstPort
	HashProto
	HashDstQP
)

// FiveTuple is the default ECMP hash: addresses, ports and protocol.
const FiveTuple = HashSrcIP | HashDstIP | HashSrcPort | HashDstPort | HashProto

// ECMPHash hashes the selected fields of p with a switch's seed: the
// fields' hash (FieldsHash), avalanched with the seed, so neighbouring
// values spread and a different seed reorders choices.
func ECMPHash(seed uint64, fields HashField, p *packet.Packet) uint64 {
	return seeded(seed, FieldsHash(fields, p))
}

// FieldsHash mixes the selected header fields of p with a multiply-xorshift
// per field. It does not depend on the switch, so a packet carries it from
// hop to hop and each switch only mixes in its seed.
func FieldsHash(fields HashField, p *packet.Packet) uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	if fields&HashSrcIP != 0 {
		h = mix(h, uint64(p.Src)|1<<40)
	}
	if fields&HashDstIP != 0 {
		h = mix(h, uint64(p.Dst)|2<<40)
	}
	if fields&HashSrcPort != 0 {
		h = mix(h, uint64(p.SrcPort)|3<<40)
	}
	if fields&HashDstPort != 0 {
		h = mix(h, packet.RoCEPort|4<<40)
	}
	if fields&HashProto != 0 {
		h = mix(h, 17|5<<40)
	}
	if fields&HashDstQP != 0 {
		h = mix(h, uint64(p.DstQP)|6<<40)
	}
	return h
}

// seeded avalanches a fields hash with a switch's seed.
func seeded(seed, h uint64) uint64 {
	h ^= seed
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// mix folds one field into the hash state.
func mix(h, v uint64) uint64 {
	hi, lo := bits.Mul64(h^v, 0xbf58476d1ce4e5b9)
	return hi ^ lo
}
