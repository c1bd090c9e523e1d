// Package stalltest is for tests of the parallel engine only: it runs a
// piece of a run and fails the test when the workers stand still, with
// where they stand. It reads the wall clock, which is why it is a
// package of its own and not part of the simulator.
package stalltest

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// Limit is how long a run's workers may stand still (the state that
// sim.Windows.State reads unchanged) before Watch calls it a hang: far
// longer than any round of the tests' short runs takes, even at a load
// of 30 on two cores.
const Limit = 5 * time.Minute

// Watch runs run and fails the test with state() when that has not
// changed for Limit: a hang (a lost wake-up, every worker asleep) then
// says which run it was (label), where each part waited, at which bound
// and whether it slept, instead of ending in the test binary's timeout
// with a goroutine dump that names none of them.
func Watch(t testing.TB, label string, state func() string, run func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		run()
	}()
	tick := time.NewTicker(Limit / 10)
	defer tick.Stop()
	last, since := "", time.Now()
	for {
		select {
		case <-done:
			return
		case now := <-tick.C:
			if st := state(); st != last {
				last, since = st, now
			} else if now.Sub(since) >= Limit {
				fmt.Fprintf(os.Stderr, "%s stalled for %v: %s\n", label, now.Sub(since), st)
				t.Fatalf("%s: the workers stood still for %v: %s", label, now.Sub(since), st)
			}
		}
	}
}
