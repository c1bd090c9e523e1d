// Package ecmp is the ECMP hash every engine of the twin shares: which
// header fields a switch hashes, how they are mixed, and how a hash picks
// one of the equal-cost next hops. The packet fabric hashes each packet's
// fields and the fluid engine each connection's, with the same function,
// so both put a queue pair on the same path.
package ecmp

import (
	"math/bits"

	"rocelab/internal/packet"
)

// Field selects a header field the ECMP hash covers.
type Field uint8

// Hash fields. The RoCEv2 UDP destination port and the IP protocol are
// constant (4791, UDP), so the per-QP UDP source port is the only entropy
// between a pair of hosts.
const (
	SrcIP Field = 1 << iota
	DstIP
	SrcPort
	DstPort
	Proto
	DstQP
)

// FiveTuple is the default hash: addresses, ports and protocol.
const FiveTuple = SrcIP | DstIP | SrcPort | DstPort | Proto

// Key is what the hash may read of a packet: its source and destination
// hosts (the addresses), UDP source port and destination QP number.
type Key struct {
	Src, Dst int32
	SrcPort  uint16
	DstQP    uint32
	// Reply marks an ACK, NAK or CNP, sent from the data's receiver back
	// to its sender: only NS3 reads it.
	Reply bool
}

// FieldsHash mixes the selected fields of k with a multiply-xorshift per
// field. It does not depend on the switch, so a packet carries it from hop
// to hop and each switch only mixes in its seed (Seeded).
func FieldsHash(fields Field, k Key) uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	if fields&SrcIP != 0 {
		h = mix(h, uint64(k.Src)|1<<40)
	}
	if fields&DstIP != 0 {
		h = mix(h, uint64(k.Dst)|2<<40)
	}
	if fields&SrcPort != 0 {
		h = mix(h, uint64(k.SrcPort)|3<<40)
	}
	if fields&DstPort != 0 {
		h = mix(h, packet.RoCEPort|4<<40)
	}
	if fields&Proto != 0 {
		h = mix(h, 17|5<<40)
	}
	if fields&DstQP != 0 {
		h = mix(h, uint64(k.DstQP)|6<<40)
	}
	return h
}

// Seeded avalanches a fields hash with a switch's seed, so neighbouring
// values spread and a different seed reorders choices.
func Seeded(seed, h uint64) uint64 {
	h ^= seed
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// Pick returns which of n candidates a seeded hash selects: the high word
// of h·n, uniform without a division.
func Pick(h uint64, n int) int {
	i, _ := bits.Mul64(h, uint64(n))
	return int(i)
}

// mix folds one field into the hash state.
func mix(h, v uint64) uint64 {
	hi, lo := bits.Mul64(h^v, 0xbf58476d1ce4e5b9)
	return hi ^ lo
}
