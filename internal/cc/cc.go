// Package cc holds congestion control as pure state machines: DCQCN's
// reaction point (the sender's rate limiter, one per queue pair) and
// notification point (the receiver's CNP pacer), and None, which keeps line
// rate (PFC only, as Meta runs its 400G clusters).
//
// Nothing here owns a timer. The NIC owns time: it tells a Controller what
// happened and when (a CNP arrived, bytes went out, an ACK came back), asks it
// for the earliest time it must be woken (NextDeadline) and wakes it then
// (OnDeadline). A controller never reads a clock, never schedules, never draws
// a random number and never allocates per event, so it can be tested by
// feeding it timed inputs and printing its rate and α (testdata/*.txt).
//
// Times given to one controller must not decrease. Any input at time t first
// runs the controller's own timers due at or before t, so a timer and an input
// at the same instant resolve as "timer first"; the NIC need not call
// OnDeadline before delivering an input.
//
// The package imports only internal/unit. docs/cc.md describes the model,
// every knob, the sources and the choices made where they disagree.
package cc

import "rocelab/internal/unit"

// Controller is the rate a queue pair may send at, and the events that move
// it. The NIC keeps one per RC queue pair and paces the QP's data packets at
// Rate().
//
// RTT- and INT-based schemes (TIMELY, Swift, HPCC) implement the same
// interface and take their signal from OnAck; DCQCN ignores OnAck, and None
// ignores everything.
type Controller interface {
	// Rate is the QP's current sending rate: never above the line rate given
	// to the constructor, never below the scheme's floor.
	Rate() unit.BitRate
	// OnCNP reports a congestion notification packet for this QP, arrived at
	// the reaction point at now.
	OnCNP(now unit.Time)
	// OnSend reports bytes of data packets the QP put on the wire at now
	// (wire bytes, headers included), for DCQCN's byte counter.
	OnSend(now unit.Time, bytes int)
	// OnAck reports an acknowledgement covering bytes, with its measured
	// round-trip time, for RTT- and INT-based schemes.
	OnAck(now unit.Time, bytes int, rtt unit.Time)
	// NextDeadline is the earliest time OnDeadline must be called, or
	// unit.MaxTime when no timer is armed.
	NextDeadline() unit.Time
	// OnDeadline runs every timer due at or before now. Afterwards
	// NextDeadline() is later than now.
	OnDeadline(now unit.Time)
}

// None is the controller of a QP without congestion control: it always sends
// at line rate and ignores every signal. ROCE_CC_PRIO_MASK selects it for the
// priorities DCQCN does not act on; a fabric run with None everywhere is
// PFC-only.
type None struct {
	line unit.BitRate
}

// NewNone returns a None sending at line.
func NewNone(line unit.BitRate) None { return None{line: line} }

// Rate returns the line rate.
func (n None) Rate() unit.BitRate { return n.line }

// OnCNP ignores the CNP. The NIC counts it as rp_cnp_ignored.
func (None) OnCNP(unit.Time) {}

// OnSend ignores the bytes.
func (None) OnSend(unit.Time, int) {}

// OnAck ignores the acknowledgement.
func (None) OnAck(unit.Time, int, unit.Time) {}

// NextDeadline returns unit.MaxTime: None has no timer.
func (None) NextDeadline() unit.Time { return unit.MaxTime }

// OnDeadline does nothing.
func (None) OnDeadline(unit.Time) {}

// AckDriven is a Controller that takes its signal from each
// acknowledgement's Feedback (TIMELY, HPCC, HPCC-PINT, DCTCP), may hold its
// QP to a window, and says what the QP's packets must carry for it.
type AckDriven interface {
	Controller
	// OnFeedback takes one acknowledgement.
	OnFeedback(now unit.Time, f Feedback)
	// Window is the bytes the QP may have in flight now, 0 for no window.
	// Only OnFeedback changes it, so the NIC reads it after each.
	Window() int64
	// Wire is what the QP's data packets and their ACKs carry for the
	// controller; it does not change over the QP's life.
	Wire() Wire
}

// Wire is what an AckDriven controller needs its QP's packets to carry.
type Wire struct {
	// INT: each data packet collects in-band telemetry at every switch
	// egress, INTBytes more on the wire, and its ACK echoes it (HPCC).
	INT      bool
	INTBytes uint8
	// PINTBytes is the size of the PINT code each data packet and its ACK
	// carry, 0 for none (HPCC-PINT).
	PINTBytes uint8
	// EchoCE: each ACK echoes whether the data packet that triggered it
	// arrived CE-marked (DCTCP).
	EchoCE bool
	// AckEach: every data packet asks for an ACK, as the HPCC ns-3 model
	// ACKs every packet; a coalescing responder would also leave a shrunken
	// window shut.
	AckEach bool
}

// ackDriven gives an AckDriven controller the rest of Controller: no
// timer, and CNPs (counted by the NIC as rp_cnp_ignored), sent bytes and
// bare ACKs ignored; and, unless it says otherwise, no window and nothing
// on the wire.
type ackDriven struct{}

// Window returns 0: no window.
func (ackDriven) Window() int64 { return 0 }

// Wire returns nothing to carry.
func (ackDriven) Wire() Wire { return Wire{} }

// OnCNP ignores the CNP.
func (ackDriven) OnCNP(unit.Time) {}

// OnSend ignores the bytes.
func (ackDriven) OnSend(unit.Time, int) {}

// OnAck ignores an acknowledgement given without its feedback; the NIC
// calls OnFeedback.
func (ackDriven) OnAck(unit.Time, int, unit.Time) {}

// NextDeadline returns unit.MaxTime: no timer.
func (ackDriven) NextDeadline() unit.Time { return unit.MaxTime }

// OnDeadline does nothing.
func (ackDriven) OnDeadline(unit.Time) {}

var (
	_ Controller = None{}
	_ Controller = (*DCQCN)(nil)
	_ AckDriven  = (*Timely)(nil)
	_ AckDriven  = (*HPCC)(nil)
	_ AckDriven  = (*HTSimHPCC)(nil)
	_ AckDriven  = (*PINT)(nil)
	_ AckDriven  = (*DCTCP)(nil)
)
