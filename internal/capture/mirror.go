package capture

import (
	"rocelab/internal/roce"
	"rocelab/internal/wire"
)

// A switch's ERSPAN session can copy one packet at two points (a port's
// ingress and another's egress, both directions of a port, two switches),
// and the collector then receives it twice. Time cannot tell such a copy
// from a retransmission (a ConnectX adaptive retransmission can follow
// within 4 us, inside a copy's delay), nor can the ICRC (it leaves out TTL
// and ECN): the tap can. A packet (its flow, PSN, opcode and ICRC) is
// sent as many times as the tap that saw it most often saw it; a copy from
// another tap that has seen it fewer times is a mirror copy.
const (
	// recentPackets bounds the ERSPAN packets remembered, of all flows: a
	// copy that comes after this many other packets is counted again (8192
	// packets of 1 KiB are 170 us at 400 Gb/s; copies come microseconds
	// apart).
	recentPackets = 8192
	// packetTaps bounds the taps remembered per packet; a packet from a
	// further tap is counted, never merged.
	packetTaps = 4
	// maxTaps bounds the taps numbered: each new outer source, session,
	// index and direction adds one, and a crafted capture can bring a new
	// one with every packet. A packet from a further tap is counted, never
	// merged.
	maxTaps = 1024
)

// packetID is what a copy and a retransmission of a packet share.
type packetID struct {
	flow FlowKey
	psn  uint32
	op   roce.Opcode
	icrc uint32
}

// seenPacket is one packet and the taps that delivered it.
type seenPacket struct {
	id packetID
	// tap[i] (a tap number, 0 for none) delivered it copies[i] times.
	tap    [packetTaps]uint32
	copies [packetTaps]uint32
	// sent is the transmissions counted: the most copies any tap gave.
	sent uint32
	// ce has bit n set once transmission n+1 is counted CE-marked.
	ce uint64
}

// recent holds the recent packets: a ring, and each packet's place in it.
type recent struct {
	at   map[packetID]int
	ring []seenPacket
	next int
}

// mirrorCopy reports whether f, a RoCE packet (any opcode) decoded from an
// ERSPAN tunnel, is a copy of one already counted, and whether that copy
// carries a CE mark the counted packet lacked (a switch marks at egress,
// so the egress copy can be the only one marked). Packets outside ERSPAN
// (GRE and VXLAN carry no mirror copies) and packets whose timestamp
// stepped back are never copies.
func (a *Analysis) mirrorCopy(f *wire.Frame, back bool) (isCopy, ce bool) {
	if !f.Tunnel.ERSPAN() || back {
		return false, false
	}
	tap, ok := a.taps[f.Tap]
	if !ok {
		if a.taps == nil {
			a.taps, a.mirror = map[wire.Tap]uint32{}, &recent{at: map[packetID]int{}}
		}
		if len(a.taps) >= maxTaps {
			a.pastTaps++
			return false, false
		}
		tap = uint32(len(a.taps) + 1)
		a.taps[f.Tap] = tap
	}
	s := a.mirror.find(packetID{
		flow: FlowKey{Src: f.SrcIP, Dst: f.DstIP, QPN: f.BTH.DestQP},
		psn:  f.BTH.PSN, op: f.BTH.Opcode, icrc: f.BTH.ICRC,
	})
	i := 0
	for i < packetTaps && s.tap[i] != 0 && s.tap[i] != tap {
		i++
	}
	if i == packetTaps {
		return false, false
	}
	s.tap[i] = tap
	s.copies[i]++
	n := s.copies[i]
	marked := f.ECN() == wire.CE
	if n > s.sent {
		s.sent = n
		if n > 1 {
			a.tapRepeats++
		}
		s.markCE(n, marked)
		return false, false
	}
	a.MirrorCopies++
	return true, s.markCE(n, marked)
}

// markCE records that transmission n was seen CE-marked and reports
// whether that is news.
func (s *seenPacket) markCE(n uint32, marked bool) bool {
	if !marked || n > 64 || s.ce&(1<<(n-1)) != 0 {
		return false
	}
	s.ce |= 1 << (n - 1)
	return true
}

// find returns the packet id, remembering it (in place of the oldest
// once recentPackets are remembered) when new.
func (r *recent) find(id packetID) *seenPacket {
	if i, ok := r.at[id]; ok {
		return &r.ring[i]
	}
	i := r.next
	if len(r.ring) < recentPackets {
		r.ring = append(r.ring, seenPacket{})
	} else {
		delete(r.at, r.ring[i].id)
	}
	r.ring[i] = seenPacket{id: id}
	r.at[id] = i
	r.next = (i + 1) % recentPackets
	return &r.ring[i]
}
