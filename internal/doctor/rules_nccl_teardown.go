package doctor

import (
	"fmt"
	"strings"
)

// reclaimFailed reports whether a WARN is NCCL's "commReclaim: cleanup
// comm 0x.. rank N failed in destroy/abort, error E" (init.cc): destroying
// or aborting a communicator failed.
func reclaimFailed(msg string) bool {
	return strings.Contains(msg, "commReclaim: cleanup comm") && strings.Contains(msg, "failed in destroy/abort")
}

// teardowns records, per failure group, which of its processes failed
// while destroying or aborting the communicator: the process's next WARN
// after its failure's chain is its own commReclaim WARN, printed by the
// thread that failed. A commReclaim after another WARN of the process, of
// another process, or from another thread (the main thread reclaiming a
// communicator whose proxy thread failed) says nothing about when this
// failure happened.
type teardowns struct {
	procs map[*failureGroup]map[string]bool // a group's processes: torn down or not
	last  map[string]*failureGroup          // the group whose WARN a process printed last, nil after any other WARN
	tid   map[string]int                    // the thread that printed it
}

func newTeardowns() *teardowns {
	return &teardowns{procs: map[*failureGroup]map[string]bool{}, last: map[string]*failureGroup{}, tid: map[string]int{}}
}

// warn reads the next WARN of process proc (pid -1: the line names no
// process) from thread tid: a commReclaim WARN right after the chain of
// proc's failure, from the same thread, marks that process as torn down.
func (t *teardowns) warn(proc string, pid, tid int, msg string) {
	if g := t.last[proc]; g != nil && pid >= 0 && tid == t.tid[proc] && reclaimFailed(msg) {
		t.procs[g][proc] = true
	}
	t.last[proc] = nil
}

// cause records that process proc's failure, printed by thread tid, is
// g's.
func (t *teardowns) cause(proc string, tid int, g *failureGroup) {
	if t.procs[g] == nil {
		t.procs[g] = map[string]bool{}
	}
	t.procs[g][proc] = false
	t.last[proc], t.tid[proc] = g, tid
}

// label tells f that g's failure came at teardown, when it did on some of
// its processes, and returns the words for its title ("" when on none).
func (t *teardowns) label(f *Finding, g *failureGroup) string {
	n, m := 0, len(t.procs[g])
	for _, down := range t.procs[g] {
		if down {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	title, who := " while the communicator was destroyed or aborted (commReclaim)", "The same process then reports"
	if n < m {
		title = fmt.Sprintf(" while the communicator was destroyed or aborted (commReclaim, on %d of %d processes)", n, m)
		who = fmt.Sprintf("%d of the %d failing processes then report, right after it,", n, m)
	}
	f.Mechanism += " " + who + " 'commReclaim: cleanup comm … failed in destroy/abort': the failure came from ncclCommDestroy or ncclCommAbort freeing the communicator's resources (deregistering buffers, unmapping peers' memory), so the collectives before it had run. If the job was aborting after another error, that earlier error, on this or another rank, is the cause; a failure only at teardown fails the process's exit, and when it recurs with one NCCL release it is often that release's fault freeing registered memory."
	if n < m {
		f.Mechanism += " The other processes print no commReclaim after it: theirs may have failed before teardown."
	}
	f.Fix += " Since it happened at destroy or abort: look first for an earlier failure that made the job abort (another rank's WARN, a watchdog timeout); if there is none, try another NCCL release, or disable the buffer registration in use (NCCL_LOCAL_REGISTER=0, flip NCCL_CUMEM_ENABLE from its current value, the framework's symmetric memory off) to confirm."
	return title
}
