package nic

import (
	"rocelab/internal/fabric"
	"rocelab/internal/packet"
	"rocelab/internal/unit"
)

// rxBuffer is the NIC's receive buffer when the host drains slower than
// the link (Config.DrainRate): data packets wait in arrival order and are
// handed to the RDMA engine at the drain rate; the NIC pauses its switch
// port on a packet's priority while too much waits.
type rxBuffer struct {
	q        packet.Queue
	draining bool
	xoff     uint8 // priorities the NIC holds off
}

// buffer queues a received data packet, or drops it when it does not fit.
func (n *NIC) buffer(p *packet.Packet) {
	b := &n.rx
	c := n.cfg
	if b.q.Bytes()+int64(p.Frame) > int64(c.RxBuffer) {
		n.port.CountRxDiscard(p.Prio)
		n.dom.Drop(p, fabric.DropHostOverflow, n.port)
		return
	}
	b.q.Push(p)
	if b.q.Bytes() > int64(c.RxXOFF) && c.RxPFC&(1<<p.Prio) != 0 && b.xoff&(1<<p.Prio) == 0 {
		b.xoff |= 1 << p.Prio
		n.port.SendXOFF(int(p.Prio))
	}
	if !b.draining {
		b.draining = true
		n.dom.Sched.Send(n.dom.Sched.Now()+c.DrainRate.TxTime(unit.Bytes(p.Frame)), n.key, n, tagDrain)
	}
}

// drain hands the oldest buffered packet to the RDMA engine.
func (n *NIC) drain(now unit.Time) {
	b := &n.rx
	p := b.q.Pop()
	n.rxData(p)
	n.dom.Free(p)
	if b.xoff != 0 && b.q.Bytes() <= int64(n.cfg.RxXON) {
		for prio := 0; prio < 8; prio++ {
			if b.xoff&(1<<prio) != 0 {
				n.port.SendXON(prio)
			}
		}
		b.xoff = 0
	}
	if h := b.q.Head(); h != nil {
		n.dom.Sched.Send(now+n.cfg.DrainRate.TxTime(unit.Bytes(h.Frame)), n.key, n, tagDrain)
	} else {
		b.draining = false
	}
}
