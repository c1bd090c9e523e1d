package main

import (
	"fmt"
	"reflect"
	"strings"

	"rocelab/internal/metrics"
	"rocelab/internal/report"
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

// failures says which --fail-on conditions the run meets: a health target
// that fails, flows that did not complete.
func failures(r *report.Run, on map[string]bool) []string {
	var out []string
	if on[failTargets] {
		if names := failedTargets(r.Health); len(names) > 0 {
			out = append(out, fmt.Sprintf("health targets FAIL: %s", strings.Join(names, ", ")))
		}
	}
	if on[failIncomplete] {
		n := 0
		for _, f := range r.Flows {
			if f.FCTUS == nil {
				n++
			}
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("%d of %d flows did not complete", n, len(r.Flows)))
		}
	}
	return out
}

// failedTargets names the health targets that fail, by their JSON names,
// for every metrics.Target the health table holds.
func failedTargets(h metrics.Health) []string {
	var names []string
	v := reflect.ValueOf(h)
	for i := 0; i < v.NumField(); i++ {
		t, ok := v.Field(i).Interface().(metrics.Target)
		if ok && !t.Pass {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			names = append(names, name)
		}
	}
	return names
}
