// Package tune searches a declared parameter space on the twin: each
// candidate is the base scenario with some key paths set to other values,
// run to completion and scored against the health targets by a pluggable
// objective. Candidates are independent and deterministic, so they run in
// parallel and in shards (a Slurm array or a Kubernetes Indexed Job), and
// merging the shards' results gives exactly the unsharded result.
package tune

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"rocelab/internal/scenario"
	"rocelab/internal/unit"
)

// Space is a declared search: parameters with their values, how to search
// them and what to optimise.
type Space struct {
	File string
	// Search is "grid" (every combination) or "random" (Samples draws).
	Search  string
	Samples int
	Seed    uint64
	// Objective names the objective (see Objectives).
	Objective string
	Params    []Param
}

// A Param is one scenario key path and the values it may take: a list, or
// a range drawn from (random search) or stepped through (grid search).
type Param struct {
	Path string
	// Values are the listed values; empty for a range.
	Values []Value
	Range  *Range
	// Line and Col are where the parameter is declared.
	Line, Col int
}

// A Value is one value of a parameter, as YAML data, with its label.
type Value struct {
	Data  any
	Label string
	// Line and Col are where the value is written (0 for generated ones).
	Line, Col int
}

// A Range is a numeric interval: numbers, sizes, durations or rates.
type Range struct {
	Lo, Hi float64
	Steps  int
	Log    bool
	// Kind is "number", "bytes", "time" or "rate": how values are
	// written back.
	Kind string
}

// An Error is a problem in a space, at a line and column: the scenario's
// error, without a key path.
type Error = scenario.Error

// Defaults of a space.
const (
	DefaultSamples = 16
	maxCandidates  = 1 << 20
)

// ParseSpace reads a space file: either a file whose top level is the
// space, or a scenario whose top-level `tune:` key holds it.
func ParseSpace(file string, data []byte) (*Space, error) {
	if err := scenario.CheckDepth(file, data); err != nil {
		return nil, err
	}
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, scenario.YAMLError(file, err)
	}
	if len(f.Docs) != 1 || f.Docs[0].Body == nil {
		return nil, &Error{File: file, Line: 1, Col: 1, Msg: "expected one YAML document with a parameter space"}
	}
	body := f.Docs[0].Body
	pairs, ok := scenario.MappingPairs(body)
	if !ok {
		return nil, errAt(file, body, "expected a mapping (search, samples, seed, objective, params)")
	}
	for _, kv := range pairs {
		if kv.Key.GetToken().Value == "tune" {
			return spaceFrom(file, kv.Value)
		}
	}
	return spaceFrom(file, body)
}

// HasSpace reports whether scenario YAML carries a `tune:` section.
func HasSpace(data []byte) bool {
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "tune:") {
			return true
		}
	}
	return false
}

func spaceFrom(file string, n ast.Node) (*Space, error) {
	sp := &Space{File: file, Search: "grid", Samples: DefaultSamples, Seed: 1, Objective: "targets"}
	pairs, ok := scenario.MappingPairs(n)
	if !ok {
		return nil, errAt(file, n, "expected a mapping (search, samples, seed, objective, params)")
	}
	var params ast.Node
	for _, kv := range pairs {
		key, v := kv.Key.GetToken().Value, kv.Value
		text := scalarText(v)
		switch key {
		case "search":
			if text != "grid" && text != "random" {
				return nil, errAt(file, v, "search: expected grid or random, got %q", text)
			}
			sp.Search = text
		case "samples":
			n, err := strconv.Atoi(text)
			if err != nil || n < 1 || n > maxCandidates {
				return nil, errAt(file, v, "samples: expected a whole number from 1 to %d, got %q", maxCandidates, text)
			}
			sp.Samples = n
		case "seed":
			s, err := strconv.ParseUint(text, 10, 64)
			if err != nil {
				return nil, errAt(file, v, "seed: expected a whole number, got %q", text)
			}
			sp.Seed = s
		case "objective":
			if _, ok := objectives[text]; !ok {
				return nil, errAt(file, v, "objective: expected one of %s, got %q", strings.Join(ObjectiveNames(), ", "), text)
			}
			sp.Objective = text
		case "params":
			params = v
		default:
			return nil, errAt(file, kv.Key, "unknown key %q; expected one of: objective, params, samples, search, seed", key)
		}
	}
	pp, ok := scenario.MappingPairs(params)
	if !ok || len(pp) == 0 {
		return nil, errAt(file, n, "params: expected a mapping of scenario key paths to values, e.g. switch.ecn.kmin: [50KB, 100KB]")
	}
	seen := map[string]bool{}
	for _, kv := range pp {
		path := kv.Key.GetToken().Value
		if seen[path] {
			return nil, errAt(file, kv.Key, "params: %s given twice", path)
		}
		seen[path] = true
		if !validPath(path) {
			return nil, errAt(file, kv.Key, "params: %q is not a key path such as switch.ecn.kmin or traffic.generators[0].qps", path)
		}
		p, err := param(file, path, kv)
		if err != nil {
			return nil, err
		}
		sp.Params = append(sp.Params, p)
	}
	if sp.Search == "grid" {
		if n := sp.gridSize(); n > maxCandidates {
			return nil, errAt(file, params, "params: the grid has %d combinations, more than %d; use search: random", n, maxCandidates)
		}
	}
	return sp, nil
}

func param(file, path string, kv *ast.MappingValueNode) (Param, error) {
	tk := kv.Key.GetToken()
	p := Param{Path: path, Line: tk.Position.Line, Col: tk.Position.Column}
	v := scenario.Unwrap(kv.Value)
	switch x := v.(type) {
	case *ast.SequenceNode:
		if len(x.Values) == 0 {
			return p, errAt(file, v, "params.%s: expected at least one value", path)
		}
		for _, item := range x.Values {
			val, err := valueOf(file, item)
			if err != nil {
				return p, err
			}
			p.Values = append(p.Values, val)
		}
	case *ast.MappingNode, *ast.MappingValueNode:
		r, err := rangeOf(file, path, v)
		if err != nil {
			return p, err
		}
		p.Range = r
	default:
		return p, errAt(file, v, "params.%s: expected a list of values [a, b, ...] or a range {range: [lo, hi], steps: N, scale: log}", path)
	}
	return p, nil
}

func valueOf(file string, n ast.Node) (Value, error) {
	var data any
	if err := yaml.NodeToValue(n, &data, yaml.UseOrderedMap()); err != nil {
		return Value{}, errAt(file, n, "%v", err)
	}
	tk := n.GetToken()
	return Value{Data: data, Label: label(data), Line: tk.Position.Line, Col: tk.Position.Column}, nil
}

// label writes a value compactly: scalars as written, lists and mappings
// in flow style.
func label(data any) string {
	switch data.(type) {
	case nil:
		return "null"
	case string, int, int64, uint64, float64, bool:
		return fmt.Sprint(data)
	}
	out, err := yaml.MarshalWithOptions(data, yaml.Flow(true))
	if err != nil {
		return fmt.Sprint(data)
	}
	return strings.TrimSpace(string(out))
}

func rangeOf(file, path string, n ast.Node) (*Range, error) {
	pairs, _ := scenario.MappingPairs(n)
	r := &Range{Steps: 5}
	var ends ast.Node
	for _, kv := range pairs {
		key, v := kv.Key.GetToken().Value, kv.Value
		switch key {
		case "range":
			ends = v
		case "steps":
			s, err := strconv.Atoi(scalarText(v))
			if err != nil || s < 2 || s > 10000 {
				return nil, errAt(file, v, "params.%s.steps: expected a whole number from 2 to 10000", path)
			}
			r.Steps = s
		case "scale":
			switch scalarText(v) {
			case "log":
				r.Log = true
			case "linear":
			default:
				return nil, errAt(file, v, "params.%s.scale: expected linear or log", path)
			}
		default:
			return nil, errAt(file, kv.Key, "params.%s: unknown key %q; expected range, steps, scale", path, key)
		}
	}
	seq, ok := scenario.Unwrap(ends).(*ast.SequenceNode)
	if !ok || len(seq.Values) != 2 {
		return nil, errAt(file, n, "params.%s: expected range: [lo, hi]", path)
	}
	lo, hi := scalarText(seq.Values[0]), scalarText(seq.Values[1])
	for _, k := range []struct {
		kind  string
		parse func(string) (float64, error)
	}{
		{"number", func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }},
		{"bytes", func(s string) (float64, error) { b, err := unit.ParseBytes(s); return float64(b), err }},
		{"time", func(s string) (float64, error) { t, err := unit.ParseTime(s); return float64(t), err }},
		{"rate", func(s string) (float64, error) { t, err := unit.ParseRate(s); return float64(t), err }},
	} {
		a, e1 := k.parse(lo)
		b, e2 := k.parse(hi)
		if e1 == nil && e2 == nil {
			if !(a < b) || math.IsNaN(a) || math.IsInf(b, 0) {
				return nil, errAt(file, seq, "params.%s: expected lo < hi, got %s and %s", path, lo, hi)
			}
			if r.Log && a <= 0 {
				return nil, errAt(file, seq, "params.%s: a log scale needs lo > 0", path)
			}
			r.Lo, r.Hi, r.Kind = a, b, k.kind
			return r, nil
		}
	}
	return nil, errAt(file, seq, "params.%s: expected two numbers, sizes, durations or rates of one kind, got %s and %s", path, lo, hi)
}

// At returns the value at fraction f in [0, 1] of the range.
func (r *Range) At(f float64) Value {
	x := r.Lo + f*(r.Hi-r.Lo)
	if r.Log {
		x = math.Exp(math.Log(r.Lo) + f*(math.Log(r.Hi)-math.Log(r.Lo)))
	}
	var data any
	switch r.Kind {
	case "bytes":
		data = unit.Bytes(math.Round(roundSig3(x))).String()
	case "time":
		data = unit.Time(math.Round(roundSig3(x))).String()
	case "rate":
		data = unit.BitRate(math.Round(roundSig3(x))).String()
	default:
		data = roundSig(x)
	}
	return Value{Data: data, Label: label(data)}
}

// roundSig rounds to 6 significant digits, so that grid values print
// cleanly (0.125, not 0.12500000000000003).
func roundSig(x float64) float64 {
	if x == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 6, 64), 64)
	return v
}

// roundSig3 rounds to 3 significant digits, so that sizes, durations and
// rates drawn from a range print as 176KB, not 176301B.
func roundSig3(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 3, 64), 64)
	return v
}

// gridValues are the values a parameter takes in a grid search.
func (p *Param) gridValues() []Value {
	if p.Range == nil {
		return p.Values
	}
	out := make([]Value, p.Range.Steps)
	for i := range out {
		out[i] = p.Range.At(float64(i) / float64(p.Range.Steps-1))
	}
	return out
}

func (sp *Space) gridSize() int {
	n := 1
	for i := range sp.Params {
		n *= len(sp.Params[i].gridValues())
		if n > maxCandidates {
			return n
		}
	}
	return n
}

// validPath accepts key paths such as switch.ecn.kmin and
// traffic.generators[0].qps.
func validPath(p string) bool {
	for _, seg := range strings.Split(p, ".") {
		key, idx := splitIndex(seg)
		if idx < 0 && strings.ContainsAny(seg, "[]") || key == "" || len(key) > 64 {
			return false
		}
		for _, c := range key {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
				return false
			}
		}
	}
	return true
}

func scalarText(n ast.Node) string {
	n = scenario.Unwrap(n)
	if n == nil {
		return ""
	}
	switch n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode, *ast.SequenceNode:
		return ""
	}
	if tk := n.GetToken(); tk != nil {
		return tk.Value
	}
	return ""
}

func errAt(file string, n ast.Node, format string, args ...any) *Error {
	return scenario.ErrorAt(file, n, "", fmt.Sprintf(format, args...))
}
