// Package fault injects the failures a RoCE fabric meets: random and
// bursty loss on a link, a link going down and up (with the routing change
// that follows), a NIC stuck sending pause frames, and a routing change
// that violates up-down routing and so closes a cycle of lossless buffers
// (the condition for a PFC deadlock). Each fault is a scheduler handler
// that acts on fabric ports and switches at its times, in their domains;
// the scenario package builds them from the scenario's faults section.
package fault

import (
	"rocelab/internal/fabric"
	"rocelab/internal/packet"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
)

// Loss loses frames arriving at a port, by a two-state Gilbert-Elliott
// model: in the good state each frame is lost with probability Good, in
// the bad state with probability Bad; after each frame the state flips
// good→bad with probability ToBad and bad→good with probability ToGood.
// With ToBad = 0 it is Bernoulli loss at rate Good. Only frames between
// Start and End (zero End: forever) are subject to it.
type Loss struct {
	Good, Bad     float64
	ToBad, ToGood float64
	Start, End    unit.Time
	// Kinds limits the loss to frames of these kinds (bit k = packet.Kind
	// k); zero means every kind.
	Kinds uint8

	rng *sim.Rand
	bad bool
	// Lost counts the frames this fault lost.
	Lost int64
}

// NewLoss returns a loss model drawing from rng.
func NewLoss(l Loss, rng *sim.Rand) *Loss {
	l.rng = rng
	return &l
}

// Bernoulli returns the parameters of independent loss at rate p.
func Bernoulli(p float64) Loss { return Loss{Good: p} }

// GilbertElliott returns the parameters of bursty loss: a long-run loss
// rate p in bursts of mean length burst frames in which every frame is
// lost (the bad state loses all, the good state none).
func GilbertElliott(p, burst float64) Loss {
	toGood := 1 / burst
	// Stationary P(bad) = ToBad / (ToBad + ToGood) = p.
	toBad := p * toGood / (1 - p)
	return Loss{Good: 0, Bad: 1, ToBad: toBad, ToGood: toGood}
}

// Lose implements fabric.LossHook.
func (l *Loss) Lose(now unit.Time, p *packet.Packet) bool {
	if now < l.Start || l.End > 0 && now >= l.End || l.Kinds != 0 && l.Kinds&(1<<p.Kind) == 0 {
		return false
	}
	prob := l.Good
	if l.bad {
		prob = l.Bad
	}
	lost := prob > 0 && l.rng.Float64() < prob
	if l.ToBad > 0 || l.ToGood > 0 {
		if l.bad {
			l.bad = l.rng.Float64() >= l.ToGood
		} else {
			l.bad = l.rng.Float64() < l.ToBad
		}
	}
	if lost {
		l.Lost++
	}
	return lost
}

// LinkDown takes a link down at Down and back up at Up (zero: never):
// each end sees the change at that time, in its own domain. Routing that
// reconverges around it is a Routes event per switch, which the scenario
// computes from the links down at the time.
type LinkDown struct {
	Link     *fabric.Link
	Down, Up unit.Time
}

// Schedule arms the fault's events.
func (f *LinkDown) Schedule() {
	f.Link.ScheduleState(f.Down, false)
	if f.Up > 0 {
		f.Link.ScheduleState(f.Up, true)
	}
}

// Routes installs a whole routing table at a switch at a time: routing
// reconverged after a link went down or came back.
type Routes struct {
	Switch *fabric.Switch
	Table  *fabric.RouteTable
	At     unit.Time
}

// Schedule arms the change, in the switch's domain.
func (f *Routes) Schedule() {
	f.Switch.Domain().Sched.At(f.At, f.Switch.Key(), f, tagDown)
}

// Handle installs the routes.
func (f *Routes) Handle(unit.Time, uint64) { f.Switch.InstallRoutes(f.Table) }

// Fault event tags.
const (
	tagDown uint64 = iota
	tagUp
)

// PauseStorm makes a host's NIC pause its switch port on Priority from
// Start, refreshed for as long as it lasts, and release it at End (zero:
// never): a receiver stuck sending pause frames, which the PFC watchdog
// exists for.
type PauseStorm struct {
	Port       *fabric.Port
	Priority   int
	Start, End unit.Time
}

// Schedule arms the storm, in the port's domain.
func (f *PauseStorm) Schedule() {
	s, k := f.Port.Domain().Sched, sim.NodeKey(f.Port.Key().Node(), sim.SrcControl)
	s.At(f.Start, k, f, tagDown)
	if f.End > 0 {
		s.At(f.End, k, f, tagUp)
	}
}

// Handle serves the storm's events.
func (f *PauseStorm) Handle(now unit.Time, tag uint64) {
	if tag == tagDown {
		f.Port.SendXOFF(f.Priority)
	} else {
		f.Port.SendXON(f.Priority)
	}
}

// Route overrides a switch's routes toward some hosts from At until Until
// (zero: for good): a routing change, such as the stale or valley routes a
// control plane installs around a failure, that can break up-down routing
// and close a cycle of buffer dependencies between lossless queues.
type Route struct {
	Switch    *fabric.Switch
	Hosts     []int
	Ports     []int16
	At, Until unit.Time

	saved [][]int16
}

// Schedule arms the override, in the switch's domain.
func (f *Route) Schedule() {
	s := f.Switch.Domain().Sched
	s.At(f.At, f.Switch.Key(), f, tagDown)
	if f.Until > 0 {
		s.At(f.Until, f.Switch.Key(), f, tagUp)
	}
}

// Handle serves the override's events.
func (f *Route) Handle(now unit.Time, tag uint64) {
	if tag == tagDown {
		f.saved = make([][]int16, len(f.Hosts))
		for i, h := range f.Hosts {
			f.saved[i] = f.Switch.Route(h)
			f.Switch.SetRoute(h, f.Ports)
		}
		return
	}
	for i, h := range f.Hosts {
		f.Switch.SetRoute(h, f.saved[i])
	}
}
