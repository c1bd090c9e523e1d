package collective

import (
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// Workload runs a list of calls on a communicator, each as a batch of
// identical iterations, one batch after the other.
type Workload struct {
	comm    *Comm
	calls   []Call
	iters   int
	next    int
	done    bool
	Results []Result
	// Err is the first error: a call NCCL would refuse, or a failed
	// queue pair.
	Err error
}

// NewWorkload returns a workload running each call iters times on c.
func NewWorkload(c *Comm, iters int, calls ...Call) *Workload {
	return &Workload{comm: c, calls: calls, iters: iters}
}

// Start implements workload.Workload.
func (w *Workload) Start(t workload.Transport) {
	w.comm.Open(t, w)
	w.launch()
}

func (w *Workload) launch() {
	if w.next >= len(w.calls) {
		w.done = true
		return
	}
	c := w.calls[w.next]
	w.next++
	if err := w.comm.Run(c, w.iters); err != nil {
		w.Err, w.done = err, true
	}
}

// BatchDone implements Listener.
func (w *Workload) BatchDone(r Result) {
	w.Results = append(w.Results, r)
	if r.Err != nil {
		w.Err, w.done = r.Err, true
		return
	}
	w.launch()
}

// Done implements workload.Workload.
func (w *Workload) Done() bool { return w.done }

// Lead implements workload.Leader (Comm.Lead).
func (w *Workload) Lead() (unit.Time, bool) { return w.comm.Lead() }

// Completed implements workload.Owner; the communicator owns its queue
// pairs, so nothing arrives here.
func (w *Workload) Completed(workload.Completion) {}

// Wake implements workload.Waker; the communicator sets its own timers.
func (w *Workload) Wake(unit.Time, uint64) {}
