package fabric

import (
	"unsafe"

	"rocelab/internal/metrics"
	"rocelab/internal/packet"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
)

// A Domain is one partition of a network: a set of switches and their
// hosts with their own scheduler, packet pool, totals, latency histogram
// and sampler. Its nodes write only to it, and talk to other domains only
// through the links between them: a frame sent onto a cut link waits in
// the domain's outbox until the next window, when the receiving domain
// copies it into a packet of its own pool (Receive). A link's propagation
// delay plus its shortest frame is therefore the lookahead that lets
// domains run a window side by side.
type Domain struct {
	// ID is the domain's index in the network.
	ID int
	// Sched is the domain's event scheduler.
	Sched *sim.Scheduler
	// Pool recycles the domain's packets.
	Pool packet.Pool
	// Totals are the domain's share of the network totals.
	Totals Totals
	// Latency holds the one-way latency of data packets the domain's
	// hosts accepted, by priority and class.
	Latency *metrics.Latency
	// INTs holds the in-band telemetry of the domain's packets that carry
	// it.
	INTs packet.INTPool

	net      *Network
	switches []*Switch
	sampler  sampler
	// out holds frames sent onto cut links, by window parity and
	// receiving domain; the receiver takes them at its next window.
	out     [2][][]frameMsg
	window  uint64
	sentMin unit.Time
}

// frameMsg is a frame crossing to another domain: a copy of the packet
// (its INT record, if any, goes with it), the direction of the link it is
// on and its arrival time.
type frameMsg struct {
	at  unit.Time
	dir *linkDir
	pkt packet.Packet
}

// Network returns the network the domain belongs to.
func (d *Domain) Network() *Network { return d.net }

// Switches returns the domain's switches.
func (d *Domain) Switches() []*Switch { return d.switches }

// post queues a frame for another domain and frees the sender's packet.
func (d *Domain) post(dir *linkDir, p *packet.Packet, at unit.Time) {
	to, w := dir.to.dom.ID, d.window&1
	d.out[w][to] = append(d.out[w][to], frameMsg{at: at, dir: dir, pkt: *p})
	if d.sentMin == 0 || at < d.sentMin {
		d.sentMin = at
	}
	p.INT = nil // the record travels with the copy
	d.Pool.Put(p)
}

// Receive starts a window: it takes the frames other domains sent it in
// the last window onto their links, as packets of its own pool, in the
// order each sender sent them, and schedules their arrivals. A domain's
// worker calls it before running the window.
func (d *Domain) Receive() {
	prev := d.window & 1
	d.window++
	d.sentMin = 0
	for _, src := range d.net.Domains {
		msgs := src.out[prev][d.ID]
		for i := range msgs {
			m := &msgs[i]
			p := d.Pool.Get()
			*p = m.pkt
			m.dir.wire.Push(p)
			d.Sched.SendHint(m.at, m.dir.key, m.dir.to, tagArrive, uintptr(unsafe.Pointer(p)))
		}
		clear(msgs)
		src.out[prev][d.ID] = msgs[:0]
	}
}

// Sent returns the earliest arrival of the frames the domain sent to
// other domains in the window it ran last, and false when there were none.
func (d *Domain) Sent() (unit.Time, bool) { return d.sentMin, d.sentMin != 0 }

// SentData books a data packet a host put on the wire; retx says it is a
// retransmission of a PSN sent before.
func (d *Domain) SentData(p *packet.Packet, retx bool) {
	d.Totals.Frames[packet.Data]++
	if retx {
		d.Totals.Retransmitted.add(p)
	} else {
		d.Totals.Sent.add(p)
	}
	if p.Class == packet.ClassRoCE {
		d.Totals.RoCESent.add(p)
	}
}

// SentControl books a control frame (ACK, NAK, CNP) a host put on the
// wire.
func (d *Domain) SentControl(p *packet.Packet) {
	d.Totals.Frames[p.Kind]++
}

// Delivered books a data packet its responder accepted in order, and its
// one-way latency. The caller keeps the packet.
func (d *Domain) Delivered(p *packet.Packet) {
	d.Totals.Delivered.add(p)
	d.Latency.Record(p.Class, p.Prio, d.Sched.Now()-p.SentAt)
}

// Discarded books a data packet its responder received and did not accept
// (out of sequence, or a duplicate). The caller keeps the packet.
func (d *Domain) Discarded(p *packet.Packet) {
	d.Totals.Discarded.add(p)
}

// Drop books a frame discarded at port at (a switch's ingress or egress,
// a link, or a host's receive buffer) and frees it.
func (d *Domain) Drop(p *packet.Packet, reason DropReason, at *Port) {
	at.ctr.Drops[reason]++
	d.Totals.DropsByReason[reason]++
	d.Totals.DroppedByKind[p.Kind]++
	if p.Kind == packet.Data {
		d.Totals.Dropped.add(p)
		if p.Class == packet.ClassRoCE {
			d.Totals.RoCEDropped.add(p)
		}
	}
	d.Free(p)
}

// Free returns a packet a node has consumed to the pool, with its
// telemetry record.
func (d *Domain) Free(p *packet.Packet) {
	if p.INT != nil {
		d.INTs.Put(p.INT)
	}
	d.Pool.Put(p)
}

// Scheduler implements sim.Part.
func (d *Domain) Scheduler() *sim.Scheduler { return d.Sched }
