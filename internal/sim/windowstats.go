package sim

import "cmp"

// workloadShare is the share of the control side's events in the rounds
// run so far, 0 before any.
func (w *Windows) workloadShare() float64 {
	all := w.stats.ControlEvents
	for _, e := range w.stats.PartEvents {
		all += e
	}
	if all == 0 {
		return 0
	}
	return float64(w.stats.ControlEvents) / float64(all)
}

// WindowStats describe how a windowed run went.
type WindowStats struct {
	// Windows is the number of rounds run, Linked of them linked.
	Windows, Linked uint64
	// PartEvents are the events each part ran; ControlEvents the control
	// side's.
	PartEvents    []uint64
	ControlEvents uint64
	// CriticalEvents is the sum over rounds of the largest number of
	// events one part ran in the round: the events on the critical path
	// if every part had a core of its own and barriers were free.
	CriticalEvents uint64
	// PathEvents is the same with the control side's events: with the
	// control side alone, its events plus the busiest part's; beside the
	// parts, on the core of the least busy part, the busiest part's or the
	// least busy one's plus the control side's, whichever is more. All
	// events over PathEvents is the speedup with a core per part and free
	// barriers, counting every event alike.
	PathEvents uint64
	// RunPathEvents is PathEvents with the control side's events where
	// the run puts them: with a worker per part, in windows and linked
	// rounds, on the coordinator's, which runs part 0 (runRound,
	// stepControl); else as PathEvents. All events over it is the bound
	// of the run as it goes.
	RunPathEvents uint64
	// HomePathEvents is the same with the control side's events in the
	// parts of the hosts they touch (Windows.Homes): each round adds the
	// most events a part and its hosts' workloads ran, or the least plus
	// the events that touched no host, whichever is more, plus the events
	// that touched more than one part (CrossEvents), which would hold
	// the parts. 0 without Homes or with one part.
	HomePathEvents, CrossEvents uint64
	// WorkerNS is the wall time each worker spent running its parts (and
	// the control side beside them), and WaitNS the time it waited at
	// barriers, when Clock is set.
	WorkerNS, WaitNS []int64
	// ControlNS is the wall time the planning of rounds took, alone, with
	// the control side when it ran alone.
	ControlNS int64
	// SlowestNS is the sum over rounds of the longest time a worker ran
	// in the round, and MeanNS of the workers' mean: SlowestNS/MeanNS - 1
	// is what the rounds' imbalance of time (not of events: events differ
	// in cost) adds to the time the workers run.
	SlowestNS, MeanNS int64
	// Solo is how many rounds ran on one worker because the workers
	// waited too long (Windows.Adapt).
	Solo uint64
	// What ended the parts' share of the windows run beside the control
	// side: a frame between parts (ByLookahead), else a reply to a
	// completion of the earliest pending event (ByReply), else the
	// control side's next event (ByControl: a post takes effect at its
	// time); the rest ended at the run's limit or stop. These depend
	// only on the run's events, not on the machine.
	ByControl, ByReply, ByLookahead uint64
	// In linked rounds: ControlSteps is how many times a worker ran the
	// control side, and Held how many times a part with events pending
	// stopped at the control side's published time (its bound), Blocked
	// at another part's published time plus Lookahead. These depend on
	// how the workers met.
	ControlSteps, Held, Blocked uint64
}

// Stats returns the run's statistics so far.
func (w *Windows) Stats() WindowStats {
	s := w.stats
	s.PartEvents = append([]uint64(nil), w.stats.PartEvents...)
	s.WorkerNS = append([]int64(nil), w.stats.WorkerNS...)
	s.WaitNS = append([]int64(nil), w.stats.WaitNS...)
	return s
}

// countTimes books the round's longest and mean worker times.
func (w *Windows) countTimes(workers int) {
	var most, sum int64
	for k := range workers {
		most = max(most, w.parts[k].acct.last)
		sum += w.parts[k].acct.last
	}
	w.stats.SlowestNS += most
	w.stats.MeanNS += sum / int64(workers)
}

// Adapt's measures: over each adaptEpoch of wall time, the workers'
// share of it spent waiting; when it is so high that the N workers run
// less than one worker's time between them (above 1 - 1/N), the parts run
// on one worker for soloFirst, then on all again for an epoch; each spell
// that ends with the workers still waiting too long doubles the next, up
// to soloMost.
const (
	adaptEpoch = 20_000_000    // ns
	soloFirst  = 100_000_000   // ns
	soloMost   = 3_200_000_000 // ns
)

// adapt decides, at the end of a round at wall time now, whether the
// parts go on with another number of workers (Adapt), and reports
// whether it changed them.
func (w *Windows) adapt(now int64) bool {
	n := min(w.Workers, len(w.Parts))
	if !w.Adapt || w.Clock == nil || n < 2 {
		return false
	}
	switch {
	case w.solo && now < w.soloUntil, !w.solo && w.soloFor > 0 && now-w.epoch < adaptEpoch:
		return false
	}
	run, wait := w.workTotals()
	dRun, dWait := run-w.epRun, wait-w.epWait
	measured := !w.solo && w.soloFor > 0 // an epoch on all the workers ends
	w.epoch, w.epRun, w.epWait = now, run, wait
	switch {
	case w.solo: // the spell ends: all the workers again
		w.solo = false
		return true
	case measured && float64(dWait) > cmp.Or(w.waitLimit, 1-1/float64(n))*float64(dRun+dWait):
		w.solo, w.soloUntil = true, now+w.soloFor
		w.soloFor = min(2*w.soloFor, soloMost)
		return true
	}
	w.soloFor = soloFirst // the first epoch begins, or the workers did well
	return false
}

// workTotals returns the wall time the workers have run and waited in
// the whole run so far.
func (w *Windows) workTotals() (run, wait int64) {
	for k := range w.stats.WorkerNS {
		a := &w.parts[k].acct
		run += w.stats.WorkerNS[k] + a.runNS
		wait += w.stats.WaitNS[k] + a.waitNS
	}
	return run, wait
}

// count books a round's events: the parts' and ctl of the control side,
// which ran alone, beside the parts or, with first, beside part 0 on its
// worker.
func (w *Windows) count(ctl uint64, alone, first bool) {
	w.stats.Windows++
	if w.linked {
		w.stats.Linked++
	}
	w.stats.ControlEvents += ctl
	most, least := uint64(0), ^uint64(0)
	for i := range w.parts {
		ps := &w.parts[i]
		d := ps.executed - ps.before
		w.stats.PartEvents[i] += d
		if ps.held|ps.blocked != 0 { // else the part's line stays in its worker's core
			w.stats.Held += ps.held
			w.stats.Blocked += ps.blocked
			ps.held, ps.blocked = 0, 0
		}
		most, least = max(most, d), min(least, d)
	}
	w.stats.CriticalEvents += most
	w.countHomes(ctl)
	path := max(most, least+ctl)
	if alone {
		path = ctl + most
	}
	w.stats.PathEvents += path
	if first {
		path = max(most, w.parts[0].executed-w.parts[0].before+ctl)
	}
	w.stats.RunPathEvents += path
}

// countHomes books the round's path with its ctl control events in the
// parts of the hosts they touched (Windows.Homes); those Homes did not
// see hold the parts. A run of one part, the serial engine, skips it.
func (w *Windows) countHomes(ctl uint64) {
	if w.Homes == nil || len(w.parts) < 2 {
		return
	}
	clear(w.homes)
	free, cross := w.Homes(w.homes)
	seen := free + cross
	most, least := uint64(0), ^uint64(0)
	for i := range w.parts {
		seen += w.homes[i]
		d := w.parts[i].executed - w.parts[i].before + w.homes[i]
		most, least = max(most, d), min(least, d)
	}
	cross += ctl - min(seen, ctl)
	w.stats.HomePathEvents += max(most, least+free) + cross
	w.stats.CrossEvents += cross
}
