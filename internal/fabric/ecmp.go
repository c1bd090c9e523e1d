package fabric

import (
	"rocelab/internal/ecmp"
	"rocelab/internal/packet"
)

// HashField selects a header field the ECMP hash covers (see package ecmp,
// which the fluid engine shares).
type HashField = ecmp.Field

// Hash fields.
const (
	HashSrcIP   = ecmp.SrcIP
	HashDstIP   = ecmp.DstIP
	HashSrcPort = ecmp.SrcPort
	HashDstPort = ecmp.DstPort
	HashProto   = ecmp.Proto
	HashDstQP   = ecmp.DstQP
)

// FiveTuple is the default ECMP hash: addresses, ports and protocol.
const FiveTuple = ecmp.FiveTuple

// ECMPHash hashes the selected fields of p with a switch's seed.
func ECMPHash(seed uint64, fields HashField, p *packet.Packet) uint64 {
	return ecmp.Seeded(seed, FieldsHash(fields, p))
}

// FieldsHash hashes the selected header fields of p (ecmp.FieldsHash).
func FieldsHash(fields HashField, p *packet.Packet) uint64 {
	return ecmp.FieldsHash(fields, ecmp.Key{Src: p.Src, Dst: p.Dst, SrcPort: p.SrcPort, DstQP: p.DstQP})
}
