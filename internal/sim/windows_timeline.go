package sim

// A Timeline records how a run's events went over wall time: at the end
// of the first round after each Slice of wall time, the events each part
// and the control side have executed so far, and the rounds. It shows
// whether a run's speed is set at its start, changes midway or wanders
// (docs/engine.md, "Two threads"). Its memory is allocated before the
// run (NewTimeline); when it is full, recording stops. It never affects
// the run's results: the coordinator records it alone between rounds,
// from what the workers left in the parts' states.
type Timeline struct {
	// Clock reads a wall clock in nanoseconds; Slice is the wall time
	// between records.
	Clock func() int64
	Slice int64
	// CPU, when set, reads the CPU time the process has had, in
	// nanoseconds: against the wall time it says whether the workers had
	// their cores through a slice.
	CPU func() int64
	// At holds each record's wall time since the run's first round, CPUs
	// the process's CPU time since then (with CPU), Rounds the rounds run
	// by then, and Events, Stride entries a
	// record, each part's executed events and then the control side's,
	// cumulative.
	At     []int64
	CPUs   []int64
	Rounds []uint64
	Events []uint64
	Stride int

	started               bool
	start, next, cpuStart int64
}

// NewTimeline returns a timeline of parts parts with room for n records
// of slice nanoseconds each, read from clock.
func NewTimeline(clock func() int64, slice int64, parts, n int) *Timeline {
	return &Timeline{
		Clock: clock, Slice: slice, Stride: parts + 1,
		At: make([]int64, 0, n), CPUs: make([]int64, 0, n), Rounds: make([]uint64, 0, n), Events: make([]uint64, 0, n*(parts+1)),
	}
}

// Records returns how many records the timeline holds.
func (t *Timeline) Records() int { return len(t.At) }

// Rate returns the events per second of entry i (a part, or Stride-1 for
// the control side) over record k: since record k-1, or the start.
func (t *Timeline) Rate(k, i int) float64 {
	at, ev := t.At[k], t.Events[k*t.Stride+i]
	if k > 0 {
		at -= t.At[k-1]
		ev -= t.Events[(k-1)*t.Stride+i]
	}
	if at <= 0 {
		return 0
	}
	return float64(ev) * 1e9 / float64(at)
}

// record adds a record if a slice has passed since the last; the
// coordinator calls it after every round, alone.
func (w *Windows) record() {
	t := w.Timeline
	now := t.Clock()
	if !t.started {
		t.started, t.start, t.next = true, now, now+t.Slice
		t.cpuStart = t.cpu()
		return
	}
	if now < t.next || t.Stride != len(w.parts)+1 || len(t.At) == cap(t.At) || len(t.Events)+t.Stride > cap(t.Events) {
		return
	}
	t.next = now + t.Slice
	t.At = append(t.At, now-t.start)
	t.CPUs = append(t.CPUs, t.cpu()-t.cpuStart)
	t.Rounds = append(t.Rounds, w.stats.Windows)
	for i := range w.parts {
		t.Events = append(t.Events, w.stats.PartEvents[i])
	}
	t.Events = append(t.Events, w.stats.ControlEvents)
}

// cpu reads the process's CPU time, or 0 without CPU.
func (t *Timeline) cpu() int64 {
	if t.CPU == nil {
		return 0
	}
	return t.CPU()
}

// Busy returns the CPU time the process had over record k (since record
// k-1, or the start) per wall time: 2 when two workers had a core each
// throughout; 0 without CPU.
func (t *Timeline) Busy(k int) float64 {
	at, cpu := t.At[k], t.CPUs[k]
	if k > 0 {
		at -= t.At[k-1]
		cpu -= t.CPUs[k-1]
	}
	if at <= 0 {
		return 0
	}
	return float64(cpu) / float64(at)
}
