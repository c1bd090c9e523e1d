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
// the domain's outbox until the domain's worker hands what it sent to the
// receivers (Flush), and then in the receiving domain's inbox until its
// worker copies it into a packet of its own pool (Receive). A link's
// propagation delay plus its shortest frame is therefore the lookahead
// that lets domains run side by side.
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
	// paused holds each port and priority of the domain that ever
	// received pause, in the order of their first: the pause sampler
	// visits only these.
	paused []portPrio
	// out holds the frames sent onto cut links since the last Flush, by
	// receiving domain; in the frames flushed to the domain, by sending
	// domain, until it takes them; taken the slices it took them in, to swap
	// back for the next. sentMin is the earliest arrival after
	// horizon among the frames sent since Begin, or 0.
	out     [][]frameMsg
	in      []sim.Box[frameMsg]
	sentMin unit.Time
	horizon unit.Time
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
	to := dir.to.dom.ID
	d.out[to] = append(d.out[to], frameMsg{at: at, dir: dir, pkt: *p})
	if at > d.horizon && (d.sentMin == 0 || at < d.sentMin) {
		d.sentMin = at
	}
	p.INT = nil // the record travels with the copy
	d.Pool.Put(p)
}

// Begin implements sim.Part: a round that runs to horizon starts.
func (d *Domain) Begin(horizon unit.Time) {
	d.sentMin, d.horizon = 0, horizon
}

// Flush implements sim.Part: it hands the frames the domain sent since
// the last Flush to their receiving domains' inboxes, in the order it
// sent them.
func (d *Domain) Flush() {
	for to := range d.out {
		d.net.Domains[to].in[d.ID].Put(&d.out[to])
	}
}

// Receive implements sim.Part: it takes the frames other domains have
// flushed to it, as packets of its own pool, in the order each sender sent
// them, and schedules their arrivals.
func (d *Domain) Receive() {
	for src := range d.in {
		msgs := d.in[src].Take()
		for i := range msgs {
			m := &msgs[i]
			p := d.Pool.Get()
			*p = m.pkt
			m.dir.wire.Push(p)
			d.Sched.SendHint(m.at, m.dir.key, (*linkArrival)(m.dir), tagArrive, uintptr(unsafe.Pointer(p)))
		}
	}
}

// Sent implements sim.Part: the earliest arrival after the round's horizon
// of the frames the domain sent since Begin, and false when there were
// none.
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
