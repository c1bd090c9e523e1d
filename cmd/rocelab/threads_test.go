package main

import "testing"

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
