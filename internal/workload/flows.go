package workload

import (
	"fmt"

	"rocelab/internal/unit"
)

// Flow is one transfer of a Flows workload: Bytes from host Src to host
// Dst as one RDMA WRITE with immediate on a connection of its own.
type Flow struct {
	Name     string
	Src, Dst int
	Bytes    int64
	// Start is when the flow starts, or, for a flow with dependencies, how
	// long after the last of them completes.
	Start unit.Time
	// After lists the indices of flows that must complete first.
	After []int
	// AfterCount is how many of After must complete (0: all): the flow
	// starts at the AfterCount-th completion among them, and is cancelled
	// once so many have failed that the count cannot be reached.
	AfterCount int
	Opts       QPOptions
}

// FlowState is what happened to one flow.
type FlowState struct {
	QP      QP
	Started bool
	// Done is set when the requester's completion arrived (Status says
	// how it ended) or when the flow was cancelled because a dependency
	// failed (Cancelled).
	Done, Cancelled bool
	Status          Status
	StartedAt       unit.Time
	// FinishedAt is the requester's completion (the ACK of the last
	// packet); ReceivedAt the responder's (its last byte arrived).
	FinishedAt, ReceivedAt unit.Time
	Received               bool
}

// FCT returns the flow completion time at the requester, or false if the
// flow did not complete successfully.
func (s *FlowState) FCT() (unit.Time, bool) {
	if !s.Done || s.Cancelled || s.Status != Success {
		return 0, false
	}
	return s.FinishedAt - s.StartedAt, true
}

// Flows is a workload of explicit flows with dependencies: the scenario's
// traffic section. Flows with no dependencies start at their Start time;
// a flow starts Start after its last dependency (or its AfterCount-th)
// completes; a flow whose dependency failed is cancelled (with a count,
// once too many have failed to reach it).
type Flows struct {
	flows      []Flow
	st         []FlowState
	dependents [][]int
	// waiting counts the completions each flow still waits for, spare the
	// failures it can still take.
	waiting, spare []int
	left           int
	t              Transport
	byQP           map[QP]int
}

// NewFlows validates flows and returns the workload.
func NewFlows(flows []Flow) (*Flows, error) {
	w := &Flows{flows: flows, st: make([]FlowState, len(flows)), dependents: make([][]int, len(flows)), waiting: make([]int, len(flows)), spare: make([]int, len(flows)), left: len(flows), byQP: map[QP]int{}}
	for i, f := range flows {
		if f.Src == f.Dst || f.Bytes < 0 {
			return nil, fmt.Errorf("flow %d (%s): needs two different hosts and a size that is not negative", i, f.Name)
		}
		for _, d := range f.After {
			if d < 0 || d >= i {
				return nil, fmt.Errorf("flow %d (%s): dependency %d is not an earlier flow", i, f.Name, d)
			}
			w.dependents[d] = append(w.dependents[d], i)
		}
		if f.AfterCount < 0 || f.AfterCount > len(f.After) {
			return nil, fmt.Errorf("flow %d (%s): waits on %d of %d flows", i, f.Name, f.AfterCount, len(f.After))
		}
		w.waiting[i] = len(f.After)
		if f.AfterCount > 0 {
			w.waiting[i] = f.AfterCount
		}
		w.spare[i] = len(f.After) - w.waiting[i]
	}
	return w, nil
}

// Flows returns the flows.
func (w *Flows) Flows() []Flow { return w.flows }

// State returns flow i's state.
func (w *Flows) State(i int) *FlowState { return &w.st[i] }

// Start implements Workload.
func (w *Flows) Start(t Transport) {
	w.t = t
	for i, f := range w.flows {
		if w.waiting[i] == 0 {
			t.After(f.Start, w, uint64(i))
		}
	}
}

// Wake implements Waker: flow tag starts.
func (w *Flows) Wake(now unit.Time, tag uint64) {
	i := int(tag)
	f := &w.flows[i]
	s := &w.st[i]
	s.QP = w.t.Connect(f.Src, f.Dst, f.Opts, w)
	w.byQP[s.QP] = i
	s.Started, s.StartedAt = true, now
	w.t.Post(s.QP, Message{Op: WriteImm, Bytes: f.Bytes, ID: uint64(i)})
}

// Completed implements Owner.
func (w *Flows) Completed(c Completion) {
	if c.Side == Responder {
		// Responder completions carry no work request id: the connection
		// names the flow.
		s := &w.st[w.byQP[c.QP]]
		s.Received, s.ReceivedAt = true, c.At
		return
	}
	i := int(c.ID)
	s := &w.st[i]
	s.Done, s.Status, s.FinishedAt = true, c.Status, c.At
	w.left--
	for _, d := range w.dependents[i] {
		if c.Status != Success {
			w.failed(d)
			continue
		}
		w.waiting[d]--
		if w.waiting[d] == 0 {
			w.t.After(w.flows[d].Start, w, uint64(d))
		}
	}
}

// failed counts a failed dependency of flow i, and cancels i once it
// cannot start.
func (w *Flows) failed(i int) {
	if w.spare[i]--; w.spare[i] < 0 {
		w.cancel(i)
	}
}

// cancel marks a flow done without running it, and counts it failed for
// its dependents.
func (w *Flows) cancel(i int) {
	s := &w.st[i]
	if s.Done {
		return
	}
	s.Done, s.Cancelled = true, true
	w.left--
	for _, d := range w.dependents[i] {
		w.failed(d)
	}
}

// Done implements Workload.
func (w *Flows) Done() bool { return w.left == 0 }

// Lead implements Leader: flows all finished post nothing more, ever;
// any other promise nothing.
func (w *Flows) Lead() (unit.Time, bool) { return unit.MaxTime, w.left == 0 }
