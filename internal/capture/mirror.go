package capture

import (
	"rocelab/internal/roce"
	"rocelab/internal/unit"
	"rocelab/internal/wire"
)

// minACKTimeout is the shortest RC ACK timeout a requester can wait
// before it retransmits: 4.096 us * 2^timeout with timeout at least 1. A
// retransmitted request comes at least this long after the packet it
// repeats (an RNR NAK's wait is longer still).
const minACKTimeout = 8192 * unit.Nanosecond

// mirrorCopy is a request or READ response as a mirror session carried
// it: a session that copies a packet at two points (ingress and egress,
// or both directions of two ports) delivers it twice.
type mirrorCopy struct {
	psn  uint32
	op   roce.Opcode
	icrc uint32
	at   unit.Time
}

// mirrorCopy reports whether f, a RoCE packet decoded from inside a
// tunnel, is a second copy of its flow's previous request or READ
// response: the same PSN, opcode and ICRC, sooner than any retransmission
// could follow. Other packets (ACKs, NAKs, CNPs, whose repeats are the
// protocol's) and untunneled ones are never copies; each request or READ
// response seen in a tunnel is remembered for the next.
func (a *Analysis) mirrorCopy(f *wire.Frame, t unit.Time) bool {
	op := f.BTH.Opcode
	if f.Tunnel == wire.TunnelNone || !op.IsRequest() && !(op >= roce.OpReadResponseFirst && op <= roce.OpReadResponseOnly) {
		return false
	}
	k := FlowKey{Src: f.SrcIP, Dst: f.DstIP, QPN: f.BTH.DestQP}
	now := mirrorCopy{psn: f.BTH.PSN, op: op, icrc: f.BTH.ICRC, at: t}
	if m, ok := a.mirrored[k]; ok && m.psn == now.psn && m.op == now.op && m.icrc == now.icrc && t-m.at < minACKTimeout {
		return true
	}
	if a.mirrored == nil {
		a.mirrored = map[FlowKey]mirrorCopy{}
	}
	a.mirrored[k] = now
	return false
}
