package main

import (
	"testing"

	"rocelab/internal/twin"
)

// run --json prints the same bytes whatever --threads says: the fabric
// splits into domains that run side by side, and nothing of that reaches
// the output (internal/scenario's partition tests do the same for every
// example and for random scenarios, without the command line).
func TestRunJSONSameOnAnyThreads(t *testing.T) {
	for _, ex := range []string{"incast-pfc", "pfc-deadlock"} {
		_, want, stderr := rocelab(t, "run", "--json", "--threads", "1", "--example", ex)
		if want == "" {
			t.Fatalf("%s: no output: %s", ex, stderr)
		}
		for _, th := range []string{"2", "3", "8"} {
			if _, got, _ := rocelab(t, "run", "--json", "--threads", th, "--example", ex); got != want {
				t.Errorf("%s: --threads %s prints other JSON than --threads 1", ex, th)
			}
		}
	}
	if code, _, stderr := rocelab(t, "run", "--threads", "-1", "--example", "single-flow"); code != 2 {
		t.Errorf("--threads -1: exit %d, %s", code, stderr)
	}
}

// A run whose workers waited more than the default count's fall-back rule
// allows (over 1 - 1/N of their time) and never fell back is told so; a
// run that fell back, ran on one thread, or waited less is not.
func TestBusyWorkers(t *testing.T) {
	for _, c := range []struct {
		p    twin.Parallel
		want bool
	}{
		{twin.Parallel{Threads: 2, WaitShare: 0.62}, true},
		{twin.Parallel{Threads: 2, WaitShare: 0.45}, false},
		{twin.Parallel{Threads: 4, WaitShare: 0.70}, false},
		{twin.Parallel{Threads: 4, WaitShare: 0.80}, true},
		{twin.Parallel{Threads: 2, WaitShare: 0.62, Solo: 10}, false},
		{twin.Parallel{Threads: 1, WaitShare: 0.9}, false},
	} {
		if got := busyWorkers(&c.p); got != c.want {
			t.Errorf("threads %d wait %.2f solo %d: busy %v, want %v", c.p.Threads, c.p.WaitShare, c.p.Solo, got, c.want)
		}
	}
}
