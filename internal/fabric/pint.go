package fabric

import (
	"math"

	"rocelab/internal/packet"
	"rocelab/internal/unit"
)

// PINTConfig has a switch write HPCC-PINT's telemetry (the HPCC ns-3
// model's CC_MODE 10, switch-node.cc): each egress port keeps an average
// of its utilisation over T, and writes its code into every data packet
// that carries PINT, if above the packet's.
type PINTConfig struct {
	// T is the average's period, the fabric's longest unloaded RTT (ns-3's
	// MaxRtt).
	T unit.Time
	// Encode returns the code of utilisation u; draw is uniform in [0, 1)
	// for its random rounding (cc.PINTCode.Encode).
	Encode func(u, draw float64) uint16
}

// pintPort is one egress port's PINT state: the utilisation average, and
// when its last frame left and its wire bytes.
type pintPort struct {
	u    float64
	last unit.Time
	size int64
}

// pintDeparted updates out's utilisation as p leaves it, and writes the
// code into p if p carries PINT. The average over T moves by the time dt
// since the last frame left (at most T):
//
//	u ← u·(T − dt)/T + qlen·dt/(B·T²) + last frame's bytes/(B·T)
//
// with qlen the bytes still queued on the port in units of 256 and u kept
// to 1/8192, as ns-3 computes it (its logarithm tables are exact to far
// below either). Every frame moves the clock and the last size; only data
// packets with PINT move u.
func (s *Switch) pintDeparted(p *packet.Packet, out *Port) {
	st := &s.pint[out.index]
	now := s.dom.Sched.Now()
	if p.PINTBytes > 0 && p.Kind == packet.Data {
		ns := float64(unit.Nanosecond)
		t := float64(s.cfg.PINT.T) / ns
		dt := min(float64(now-st.last)/ns, t)
		b := float64(out.rate) / 8 / 1e9 // bytes per ns
		q := s.queued(out)
		var u float64
		if q>>8 > 0 {
			u += dt * float64(q>>8<<8) / (b * t * t)
		}
		if st.size > 0 {
			u += float64(st.size) / (b * t)
		}
		if t > dt && st.u > 0 {
			u += (t - dt) * math.Round(st.u*8192) / 8192 / t
		}
		if c := s.cfg.PINT.Encode(u, s.pintRNG.Float64()); c > p.PINT {
			p.PINT = c
		}
		st.u = u
	}
	st.size, st.last = int64(p.Wire()), now
}
