package fabric_test

import (
	"math"
	"testing"

	"rocelab/internal/fabric"
	"rocelab/internal/packet"
	"rocelab/internal/unit"
)

// pintStep is one egress utilisation update as the switch's encoder sees
// it: the new average, when, and the bytes then queued on the port.
type pintStep struct {
	u   float64
	now unit.Time
	q   int64
}

// Under a 2-to-1 incast the port's utilisation average takes each
// departure's share of the queue: from one update to the next
//
//	u − u_prev·(T − dt)/T − size/(B·T) = ⌊q/256⌋·256·dt/(B·T²)
//
// with dt the time since the previous frame left (at most T), size that
// frame's wire bytes and u_prev kept to 1/8192 (the ns-3 model). The
// queue grows by a frame per departure here, so the term is most of u at
// the peak: near 1 + q/(B·T), the line's utilisation plus the queue's. A
// switch that left the queue out, or scaled it by T instead of T², fails
// both checks.
func TestPINTQueueTerm(t *testing.T) {
	const T = 8 * unit.Microsecond
	var steps []pintStep
	var sw *fabric.Switch
	var dom *fabric.Domain
	cfg := defaultSwitch()
	cfg.PINT = &fabric.PINTConfig{T: T, Encode: func(u, _ float64) uint16 {
		steps = append(steps, pintStep{u, dom.Sched.Now(), sw.QueueBytes(2, 3)})
		return 0
	}}
	rate := 100 * unit.Gbps
	net, s, hs := star(t, 3, rate, 3*unit.Metre, cfg)
	sw, dom = s, net.Domains[0]
	const payload, frames = 4096, 400
	for _, h := range hs[:2] {
		h.dst, h.payload, h.left, h.pint = 2, payload, frames, 2
		h.port.Kick()
	}
	dom.Sched.Run()
	if len(steps) != 2*frames {
		t.Fatalf("%d updates, want one per data packet, %d", len(steps), 2*frames)
	}
	size := float64(packet.DataFrame(payload, 0, false) + packet.PreambleIFG)
	b := float64(rate) / 8 / 1e9 // bytes per ns
	tn := float64(T) / float64(unit.Nanosecond)
	queued := 0
	for k := 1; k < len(steps); k++ {
		prev, cur := steps[k-1], steps[k]
		dt := min(float64(cur.now-prev.now)/float64(unit.Nanosecond), tn)
		term := cur.u - (tn-dt)*math.Round(prev.u*8192)/8192/tn - size/(b*tn)
		want := dt * float64(cur.q>>8<<8) / (b * tn * tn)
		if math.Abs(term-want) > 1e-9 {
			t.Fatalf("update %d: queue term %.6g, want %.6g (%d B queued, dt %.1f ns)", k, term, want, cur.q, dt)
		}
		if cur.q >= 256 {
			queued++
		}
	}
	if queued < frames {
		t.Fatalf("a queue at only %d of %d updates: the test does not load the term", queued, len(steps))
	}
	// An average of 1 (the line busy) plus q/(B·T) cannot pass the value
	// at the largest queue, and it trails a queue that grows by a frame
	// every dt by T/dt frames, a small share of the peak.
	peak, qmax := 0.0, int64(0)
	for _, st := range steps {
		peak, qmax = max(peak, st.u), max(qmax, st.q)
	}
	if top := 1 + float64(qmax)/(b*tn); peak > top || peak < top/2 {
		t.Errorf("peak utilisation %.3f under a queue of up to %d B, want in (%.3f, %.3f]: 1 + q/(B·T)", peak, qmax, top/2, top)
	}
}
