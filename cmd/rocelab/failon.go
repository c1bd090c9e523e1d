package main

import (
	"fmt"
	"strings"

	"rocelab/internal/twin"
)

// Conditions --fail-on accepts.
const (
	failTargets    = "targets"
	failIncomplete = "incomplete"
)

// parseFailOn checks the --fail-on values.
func parseFailOn(vals []string) (map[string]bool, error) {
	on := map[string]bool{}
	for _, v := range vals {
		switch v {
		case failTargets, failIncomplete:
			on[v] = true
		default:
			return nil, usageError("--fail-on: expected targets or incomplete (or both: targets,incomplete), got %q", v)
		}
	}
	return on, nil
}

// failures says which --fail-on conditions a run's observation meets: a
// health target that fails, flows that did not complete.
func failures(o *twin.Observation, on map[string]bool) []string {
	var out []string
	if on[failTargets] {
		var names []string
		for _, t := range o.Health.Targets() {
			if !t.Pass && !t.NA {
				names = append(names, t.Name)
			}
		}
		if len(names) > 0 {
			out = append(out, fmt.Sprintf("health targets FAIL: %s", strings.Join(names, ", ")))
		}
	}
	if on[failIncomplete] {
		n := 0
		for _, f := range o.Flows {
			if f.FCTUS == nil {
				n++
			}
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("%d of %d flows did not complete", n, len(o.Flows)))
		}
	}
	return out
}
