package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"rocelab/internal/twin"
)

// docCheck is a `<!-- check: ... -->` directive of docs/run-json.md and
// the JSON block under it.
type docCheck struct {
	directive, block string
}

var docCheckRe = regexp.MustCompile("(?s)<!-- check: (.*?) -->\n```json\n(.*?)```")

// docs/run-json.md's examples are real runs: every example block names the
// command it abridges, and it must agree with what the command prints —
// every key it shows exists and holds that value (numbers within 2 %, so
// that a small change of the model does not rewrite the page), objects
// without "..." show every key, and "..." marks what is left out.
func TestRunJSONDocMatchesARun(t *testing.T) {
	data, err := os.ReadFile("../../docs/run-json.md")
	if err != nil {
		t.Fatal(err)
	}
	var checks []docCheck
	for _, m := range docCheckRe.FindAllStringSubmatch(string(data), -1) {
		checks = append(checks, docCheck{m[1], m[2]})
	}
	if len(checks) < 4 {
		t.Fatalf("%d checked examples in docs/run-json.md, want at least 4", len(checks))
	}
	runs := map[string]any{}
	for _, c := range checks {
		cmd, at, _ := strings.Cut(c.directive, "; at ")
		if cmd == "keys of training" {
			var doc map[string]any
			if err := json.Unmarshal([]byte("{"+c.block+"}"), &doc); err != nil {
				t.Fatalf("%s: %v", c.directive, err)
			}
			var want map[string]any
			b, _ := json.Marshal(twin.TrainingResult{Summary: "x"})
			_ = json.Unmarshal(b, &want)
			if got, exp := keys(doc["training"]), keys(want); !reflect.DeepEqual(got, exp) {
				t.Errorf("training keys %v, the type has %v", got, exp)
			}
			continue
		}
		args, ok := strings.CutPrefix(cmd, "run ")
		if !ok {
			t.Fatalf("unknown check %q", c.directive)
		}
		if _, ok := runs[args]; !ok {
			code, out, errOut := rocelab(t, append([]string{"run", "-q"}, strings.Fields(args)...)...)
			if code != 0 {
				t.Fatalf("rocelab run %s: exit %d: %s", args, code, errOut)
			}
			var v any
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatal(err)
			}
			runs[args] = v
		}
		real := runs[args]
		if at != "" {
			for _, step := range strings.Split(at, ".") {
				if i, err := strconv.Atoi(step); err == nil {
					real = real.([]any)[i]
				} else {
					real = real.(map[string]any)[step]
				}
			}
		}
		var doc any
		if err := json.Unmarshal([]byte(c.block), &doc); err != nil {
			t.Fatalf("%s: the example is not JSON: %v", c.directive, err)
		}
		for _, e := range agree(doc, real, "") {
			t.Errorf("docs/run-json.md, %s: %s", c.directive, e)
		}
	}
}

func keys(v any) []string {
	m, _ := v.(map[string]any)
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// agree lists where doc disagrees with real.
func agree(doc, real any, path string) []string {
	bad := func(format string, args ...any) []string {
		return []string{path + ": " + fmt.Sprintf(format, args...)}
	}
	switch d := doc.(type) {
	case map[string]any:
		r, ok := real.(map[string]any)
		if !ok {
			return bad("an object in the example, %T in the run", real)
		}
		var out []string
		_, abridged := d["..."]
		for k, v := range d {
			if k == "..." {
				continue
			}
			rv, ok := r[k]
			if !ok {
				out = append(out, path+"."+k+": in the example, not in the run")
				continue
			}
			out = append(out, agree(v, rv, path+"."+k)...)
		}
		if !abridged {
			for k := range r {
				if _, ok := d[k]; !ok {
					out = append(out, path+"."+k+": in the run, not in the example (add it, or \"...\")")
				}
			}
		}
		sort.Strings(out)
		return out
	case []any:
		r, ok := real.([]any)
		if !ok {
			return bad("an array in the example, %T in the run", real)
		}
		abridged := len(d) > 0 && d[len(d)-1] == "..."
		if abridged {
			d = d[:len(d)-1]
		}
		if len(r) < len(d) || !abridged && len(r) != len(d) {
			return bad("%d elements in the example, %d in the run", len(d), len(r))
		}
		var out []string
		for i := range d {
			out = append(out, agree(d[i], r[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	case string:
		r, ok := real.(string)
		if prefix, cut := strings.CutSuffix(d, "..."); cut && ok && strings.HasPrefix(r, prefix) {
			return nil
		}
		if !ok || r != d {
			return bad("%q in the example, %v in the run", d, real)
		}
	case float64:
		r, ok := real.(float64)
		if !ok || math.Abs(r-d) > 0.02*math.Abs(r) && math.Abs(r-d) > 1e-12 {
			return bad("%v in the example, %v in the run", d, real)
		}
	default:
		if !reflect.DeepEqual(doc, real) {
			return bad("%v in the example, %v in the run", doc, real)
		}
	}
	return nil
}
