package fabric

import (
	"rocelab/internal/packet"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
)

// A pipeline is a switch's forwarding latency: the time between a frame's
// arrival, when the switch routes it and charges it to its ingress
// priority group (so PFC sees it at once), and the moment it joins its
// egress queue, where ECN, INT and the scheduler see it. Every frame takes
// the same time, so frames leave in the order they came: one FIFO and at
// most one pending event per switch. PFC frames bypass it: the MAC acts on
// them.
type pipeline struct {
	latency unit.Time
	frames  sim.Ring[inPipe]
}

// inPipe is a frame in the pipeline: when it reaches its egress, and which.
type inPipe struct {
	at  unit.Time
	p   *packet.Packet
	out int32
}

// enterPipeline sends an admitted frame through the switch's forwarding
// latency toward egress port out.
func (s *Switch) enterPipeline(p *packet.Packet, out *Port) {
	t := s.dom.Sched.Now() + s.pipe.latency
	s.pipe.frames.Push(inPipe{at: t, p: p, out: int32(out.index)})
	if s.pipe.frames.Len() == 1 {
		s.dom.Sched.Send(t, sim.NodeKey(s.id, sim.SrcSelf), s, 0)
	}
}

// Handle moves the frames due now from the pipeline to their egress
// queues: the switch's only event.
func (s *Switch) Handle(now unit.Time, _ uint64) {
	f := &s.pipe.frames
	for f.Len() > 0 && f.Front().at <= now {
		e := *f.Front()
		f.PopFront()
		out, eg := &s.port[e.out], &s.egress[e.out]
		if s.ecnAtEnqueue && markable(e.p) {
			s.markECN(e.p, eg, out, eg.cls[e.p.Prio].q.Bytes())
		}
		eg.push(e.p, int(e.p.Prio))
		if out.stormed(int(e.p.Prio)) {
			// The PFC watchdog flushed the queue while the frame was on its
			// way and drops what still comes: this frame too.
			eg.Flush(out, int(e.p.Prio), DropWatchdog)
			continue
		}
		out.Kick()
	}
	if f.Len() > 0 {
		s.dom.Sched.Send(f.Front().at, sim.NodeKey(s.id, sim.SrcSelf), s, 0)
	}
}

// eachPiped calls f for every frame in the pipeline.
func (s *Switch) eachPiped(f func(p *packet.Packet)) {
	for i := 0; i < s.pipe.frames.Len(); i++ {
		f(s.pipe.frames.At(i).p)
	}
}
