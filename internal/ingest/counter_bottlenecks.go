package ingest

import (
	"fmt"
	"strings"

	"rocelab/internal/counters"
	"rocelab/internal/textout"
)

// What a port's counters say about loss and pause, read the same way by the
// doctor's counter rules and by CounterSample.Bottlenecks.

// Nonzero returns the readings of the named counters that are above zero,
// in the order named.
func (s *CounterSample) Nonzero(names ...string) []Reading {
	var out []Reading
	for _, n := range names {
		if r, ok := s.Get(n); ok && r.Value > 0 {
			out = append(out, r)
		}
	}
	return out
}

// Discards are the non-zero drop counters of a port, by where the packet
// was dropped.
type Discards struct {
	// Port holds drops at the physical port for want of receive buffer
	// (mlx5 rx_discards_phy, tx_discards_phy, bnxt and be2net equivalents).
	Port []Reading
	// Prio holds the per-priority share of them (mlx5 rx_prioN_discards).
	Prio []Reading
	// PrioOf is the priority of each Prio reading.
	PrioOf []int
	// Host holds packets for the kernel's receive rings that found no
	// descriptor (rx_out_of_buffer); RoCE bypasses these rings.
	Host []Reading
	// RDMA holds RDMA packets that found no posted receive WQE
	// (hw_counters out_of_buffer).
	RDMA []Reading
	// RoCE holds RoCE packets the NIC's RoCE function discarded, on
	// receive or on transmit (bnxt_re rx/tx_roce_discards).
	RoCE []Reading
}

// Any reports whether any drop counter moved.
func (d Discards) Any() bool {
	return len(d.Port)+len(d.Prio)+len(d.Host)+len(d.RDMA)+len(d.RoCE) > 0
}

// All returns every reading: port, per-priority, host, RDMA, RoCE.
func (d Discards) All() []Reading {
	out := append(append([]Reading{}, d.Port...), d.Prio...)
	return append(append(append(out, d.Host...), d.RDMA...), d.RoCE...)
}

// Discards returns the port's non-zero drop counters.
func (s *CounterSample) Discards() Discards {
	var d Discards
	for _, r := range s.NonzeroConcepts(discardConcepts...) {
		switch s.ConceptOf(r.Name) {
		case counters.OutOfBufferHost:
			d.Host = append(d.Host, r)
		case counters.RespOutOfBuffer:
			d.RDMA = append(d.RDMA, r)
		case counters.RoCEDiscards:
			d.RoCE = append(d.RoCE, r)
		default:
			d.Port = append(d.Port, r)
		}
	}
	for p := 0; p < 8; p++ {
		for _, c := range []counters.Concept{counters.PrioDiscards, counters.PrioBufDiscards, counters.PrioCongDiscards} {
			if r, ok := s.Concept(c, counters.RX, p); ok && r.Value > 0 {
				d.Prio = append(d.Prio, r)
				d.PrioOf = append(d.PrioOf, p)
			}
		}
	}
	return d
}

// PFCMoving reports whether a per-priority PFC frame counter moved.
func (s *CounterSample) PFCMoving() bool {
	for p := 0; p < 8; p++ {
		for _, d := range []Dir{RX, TX} {
			if r, ok := s.PFCFrames(d, p); ok && r.Value > 0 {
				return true
			}
		}
	}
	return false
}

// GlobalPauseFrames returns the non-zero IEEE 802.3x pause counters, TX
// first. mlx5's *_pause_ctrl_phy is left out when PFC counters move, since
// it may count PFC frames too.
func (s *CounterSample) GlobalPauseFrames() []Reading {
	pfc := s.PFCMoving()
	var out []Reading
	for _, d := range []Dir{TX, RX} {
		r, ok := s.GlobalPause(d)
		if !ok || r.Value == 0 || pfc && s.ConceptOf(r.Name) == counters.GlobalPause && strings.HasSuffix(r.Name, "_phy") {
			continue
		}
		out = append(out, r)
	}
	return out
}

// Retransmissions returns the non-zero RC loss-recovery counters.
func (s *CounterSample) Retransmissions() []Reading {
	return s.NonzeroConcepts(retransmissionConcepts...)
}

// PrioTraffic is how a port's bytes spread over the eight priorities.
type PrioTraffic struct {
	Bytes [8]uint64
	Total uint64
	// Readings are the per-priority byte counters, RX and TX.
	Readings []Reading
	// Top is the priority with the most bytes.
	Top int
}

// PrioTraffic returns the bytes per priority, and false when the dump has
// no per-priority byte counters or they are all zero.
func (s *CounterSample) PrioTraffic() (PrioTraffic, bool) {
	var t PrioTraffic
	for p := 0; p < 8; p++ {
		for _, d := range []Dir{RX, TX} {
			if r, ok := s.PrioBytes(d, p); ok {
				t.Bytes[p] += r.Value
				t.Total += r.Value
				t.Readings = append(t.Readings, r)
			}
		}
		if t.Bytes[p] > t.Bytes[t.Top] {
			t.Top = p
		}
	}
	return t, t.Total > 0
}

// On returns the bytes on the given priorities.
func (t PrioTraffic) On(prios []int) uint64 {
	var n uint64
	for _, p := range prios {
		if p >= 0 && p < 8 {
			n += t.Bytes[p]
		}
	}
	return n
}

// Of returns the byte readings of the given priorities.
func (t PrioTraffic) Of(prios ...int) []Reading {
	var out []Reading
	for _, r := range t.Readings {
		for _, p := range prios {
			if strings.Contains(r.Name, fmt.Sprintf("prio%d_", p)) || strings.HasSuffix(r.Name, fmt.Sprintf("_pri%d", p)) {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// CarriesRoCE reports whether the counters show RoCE packets on the port,
// and whether they could (known is false when the dump has no RoCE packet
// counter and is not a full mlx5 dump, e.g. a filtered paste).
func (s *CounterSample) CarriesRoCE() (roce, known bool) {
	for _, d := range []Dir{RX, TX} {
		if r, ok := s.RoCEPackets(d); ok {
			known = true
			roce = roce || r.Value > 0
		}
	}
	return roce, known || s.HasVportCounters()
}

// Window is "during the window" for a before/after pair and "since driver
// load" for a single dump.
func (s *CounterSample) Window() string {
	if s.IsDelta() {
		return "during the window"
	}
	return "since driver load"
}

// Bottlenecks reports what the port's counters show holding bandwidth
// down: drops at the port, 802.3x global pause, RC retransmissions, and
// traffic on a priority PFC does not protect (per the mlx5 counters, or all
// of it on priority 0 when they do not say).
func (s *CounterSample) Bottlenecks() []Bottleneck {
	var out []Bottleneck
	add := func(what string, rs []Reading) {
		var ev []Evidence
		for _, r := range rs {
			ev = append(ev, r.Evidence[len(r.Evidence)-1])
		}
		out = append(out, Bottleneck{What: fmt.Sprintf("%s: %s (%s)", s.Name(), what, s.Window()), Device: s.Device, Evidence: ev})
	}
	if d := s.Discards(); len(d.Port) > 0 || len(d.Prio) > 0 {
		rs := append(append([]Reading{}, d.Port...), d.Prio...)
		add("packets dropped at the port: "+ReadingsText(rs), rs)
	}
	if g := s.GlobalPauseFrames(); len(g) > 0 {
		add("802.3x global pause: "+ReadingsText(g), g)
	}
	if r := s.Retransmissions(); len(r) > 0 {
		add("RC retransmissions: "+ReadingsText(r), r)
	}
	if t, ok := s.PrioTraffic(); ok {
		roce, known := s.CarriesRoCE()
		pfc, pfcKnown := s.PFCEnabledByCounters()
		if roce || !known {
			switch {
			case pfcKnown && t.On(pfc)*100 < t.Total:
				add(fmt.Sprintf("%.0f%% of bytes on priority %d, which PFC (on %s) does not protect", 100*float64(t.Bytes[t.Top])/float64(t.Total), t.Top, PrioList(pfc)), t.Of(t.Top))
			case !pfcKnown && t.Bytes[0] == t.Total:
				add("all traffic on priority 0, outside the usual lossless priority 3", t.Of(0))
			}
		}
	}
	return out
}

// ReadingsText formats readings as "name N, name M".
func ReadingsText(rs []Reading) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%s %d", r.Name, r.Value)
	}
	return strings.Join(parts, ", ")
}

// PrioList formats priorities as "3" or "3,4", or "none".
func PrioList(ps []int) string { return textout.Ints(ps) }
