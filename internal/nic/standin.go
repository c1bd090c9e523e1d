// Package nic holds the host side of the twin: what sits behind a host's
// fabric port. Today that is the Standin, a sender of RoCEv2-framed RDMA
// WRITE packets at a configured rate that obeys PFC; the RDMA NIC with RC
// transport and DCQCN replaces it behind the same fabric.Endpoint seam.
package nic

import (
	"rocelab/internal/fabric"
	"rocelab/internal/packet"
	"rocelab/internal/roce"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
)

// Config is a host NIC's configuration.
type Config struct {
	// MTU is the RoCE path MTU: the RDMA payload per packet (256..4096).
	MTU int32
	// VLAN tags frames with 802.1Q, the PCP set to the flow's priority.
	VLAN bool
	// ECT marks packets ECN-capable (ECT(0)), as a DCQCN-enabled NIC does.
	ECT bool
	// DSCPToPrio is the NIC's receive classification (trust dscp).
	DSCPToPrio [64]uint8
	// Trust says whether received frames are classified by DSCP or PCP.
	Trust fabric.Trust
}

// flowState is the sending state of one active flow.
type flowState struct {
	f    *fabric.Flow
	next unit.Time // earliest time the flow may send again (pacing)
	psn  uint32
	off  int64
}

// Standin is the host stand-in: it segments each flow into path-MTU RDMA
// WRITE packets (FIRST with RETH, MIDDLE, LAST; ONLY for one packet),
// serves active flows round robin, paces each flow at its rate, and never
// sends a priority its port has been paused on. It sends no ACKs: loss is
// counted, not recovered.
type Standin struct {
	net    *fabric.Network
	id     int32
	name   string
	port   *fabric.Port
	cfg    Config
	active []flowState
	rr     int
	wake   sim.Alarm

	storm stormFault
}

// Event tags.
const (
	tagWake uint64 = iota
	tagStormStart
	tagStormEnd
)

// NewStandin creates host id with one port.
func NewStandin(n *fabric.Network, id int32, name string, cfg Config) *Standin {
	h := &Standin{net: n, id: id, name: name, cfg: cfg}
	h.port = n.NewPort(h, 0)
	h.port.SetEgress(h)
	return h
}

// Name implements fabric.Node.
func (h *Standin) Name() string { return h.name }

// HostID implements fabric.Endpoint.
func (h *Standin) HostID() int32 { return h.id }

// Port implements fabric.Endpoint.
func (h *Standin) Port() *fabric.Port { return h.port }

// StartFlow implements fabric.Endpoint.
func (h *Standin) StartFlow(f *fabric.Flow) {
	if f.Bytes <= 0 {
		return
	}
	h.active = append(h.active, flowState{f: f, next: h.net.Sched.Now()})
	h.port.Kick()
}

// Dequeue implements fabric.Egress.
func (h *Standin) Dequeue(pt *fabric.Port, paused uint8) *packet.Packet {
	n := len(h.active)
	if n == 0 {
		return nil
	}
	now := h.net.Sched.Now()
	earliest := unit.MaxTime
	for i := 0; i < n; i++ {
		k := (h.rr + i) % n
		st := &h.active[k]
		if paused&(1<<st.f.Prio) != 0 {
			continue
		}
		if st.next > now {
			earliest = min(earliest, st.next)
			continue
		}
		p := h.segment(st, now)
		if st.off == st.f.Bytes {
			h.active = append(h.active[:k], h.active[k+1:]...)
			h.rr = k
		} else {
			h.rr = k + 1
		}
		if len(h.active) > 0 {
			h.rr %= len(h.active)
		} else {
			h.rr = 0
		}
		h.net.Sent(p)
		return p
	}
	if earliest != unit.MaxTime {
		h.wake.ArmBy(h.net.Sched, earliest, h, tagWake)
	}
	return nil
}

// segment builds the flow's next packet.
func (h *Standin) segment(st *flowState, now unit.Time) *packet.Packet {
	f := st.f
	payload := int32(min(int64(h.cfg.MTU), f.Bytes-st.off))
	first, last := st.off == 0, st.off+int64(payload) == f.Bytes
	p := h.net.Pool.Get()
	p.Kind = packet.Data
	switch {
	case first && last:
		p.Opcode = roce.OpWriteOnly
	case first:
		p.Opcode = roce.OpWriteFirst
	case last:
		p.Opcode = roce.OpWriteLast
	default:
		p.Opcode = roce.OpWriteMiddle
	}
	p.Flow, p.Src, p.Dst = f.ID, f.Src, f.Dst
	p.Payload = payload
	p.Frame = packet.DataFrame(payload, h.cfg.VLAN, first)
	p.PSN = st.psn
	p.DstQP = f.DstQP
	p.SrcPort = f.SrcPort
	p.DSCP = f.DSCP
	p.Prio = f.Prio
	p.PCP = f.Prio
	p.VLAN = h.cfg.VLAN
	p.AckReq = last
	if h.cfg.ECT {
		p.ECN = packet.ECT0
	}
	p.SentAt = now
	st.psn = roce.PSNAdd(st.psn, 1)
	st.off += int64(payload)
	if f.Rate > 0 {
		st.next = now + f.Rate.TxTime(unit.Bytes(p.Wire()))
	}
	return p
}

// Handle serves the stand-in's events.
func (h *Standin) Handle(now unit.Time, tag uint64) {
	switch tag {
	case tagWake:
		h.wake.Fired()
		h.port.Kick()
	case tagStormStart:
		h.port.SendXOFF(h.storm.prio)
	case tagStormEnd:
		h.port.SendXON(h.storm.prio)
	}
}

// Receive implements fabric.Node: the destination books the packet.
func (h *Standin) Receive(p *packet.Packet, in *fabric.Port) {
	if h.cfg.Trust == fabric.TrustPCP {
		p.Prio = 0
		if p.VLAN {
			p.Prio = p.PCP & 7
		}
	} else {
		p.Prio = h.cfg.DSCPToPrio[p.DSCP&63]
	}
	in.Counters.CountRx(p)
	h.net.Delivered(p)
}

// stormFault is a malfunctioning NIC that keeps pausing its switch port.
type stormFault struct {
	prio int
}

// PauseStorm makes the host send XOFF on priority prio from start, refreshed
// for as long as it lasts, and XON at end (never, when end is zero): the
// stuck-receiver pause storm the PFC watchdog exists for.
func (h *Standin) PauseStorm(prio int, start, end unit.Time, pfc fabric.PFCConfig) {
	h.storm = stormFault{prio: prio}
	h.port.SetPFC(pfc)
	h.net.Sched.At(start, h, tagStormStart)
	if end > 0 {
		h.net.Sched.At(end, h, tagStormEnd)
	}
}
