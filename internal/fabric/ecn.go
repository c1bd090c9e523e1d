package fabric

import "rocelab/internal/sim"

// RED is a RED/ECN marking profile for one egress queue: no mark at or
// below Kmin bytes, probability rising linearly to Pmax at Kmax, and every
// ECN-capable packet marked above Kmax: the congestion point of DCQCN (Zhu
// et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM
// 2015).
type RED struct {
	Kmin, Kmax int64
	Pmax       float64
}

// Enabled reports whether the profile marks at all.
func (r RED) Enabled() bool { return r.Kmax > 0 }

// Probability returns the marking probability at queue length q bytes.
func (r RED) Probability(q int64) float64 {
	switch {
	case !r.Enabled() || q <= r.Kmin:
		return 0
	case q > r.Kmax:
		return 1
	case r.Kmax == r.Kmin:
		return r.Pmax
	}
	return r.Pmax * float64(q-r.Kmin) / float64(r.Kmax-r.Kmin)
}

// Mark decides whether to mark a packet seeing queue length q.
func (r RED) Mark(q int64, rng *sim.Rand) bool {
	p := r.Probability(q)
	switch {
	case p <= 0:
		return false
	case p >= 1:
		return true
	}
	return rng.Float64() < p
}
