package tune

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"

	"rocelab/internal/scenario"
)

// A Candidate is one point of the space: a value per parameter. Candidate
// 0 is always the base scenario unchanged.
type Candidate struct {
	Index int
	// Values are the values by parameter, in the space's order; nil for
	// the base.
	Values []Value
}

// Key identifies the candidate's values.
func (c Candidate) Key() string {
	labels := make([]string, len(c.Values))
	for i, v := range c.Values {
		labels[i] = v.Label
	}
	return strings.Join(labels, "\x00")
}

// Candidates lists the base and the space's points: every combination for
// grid search (the last parameter varies fastest), or Samples distinct
// draws for random search from the space's seed.
func (sp *Space) Candidates() []Candidate {
	out := []Candidate{{Index: 0}}
	seen := map[string]bool{}
	add := func(vals []Value) {
		c := Candidate{Index: len(out), Values: vals}
		if !seen[c.Key()] {
			seen[c.Key()] = true
			out = append(out, c)
		}
	}
	if sp.Search == "grid" {
		grids := make([][]Value, len(sp.Params))
		for i := range sp.Params {
			grids[i] = sp.Params[i].gridValues()
		}
		idx := make([]int, len(grids))
		for {
			vals := make([]Value, len(grids))
			for i, g := range grids {
				vals[i] = g[idx[i]]
			}
			add(vals)
			i := len(idx) - 1
			for ; i >= 0; i-- {
				idx[i]++
				if idx[i] < len(grids[i]) {
					break
				}
				idx[i] = 0
			}
			if i < 0 {
				return out
			}
		}
	}
	rng := rand.New(rand.NewPCG(sp.Seed, 0x74756e65)) // "tune"
	for tries := 0; len(out) <= sp.Samples && tries < 100*sp.Samples; tries++ {
		vals := make([]Value, len(sp.Params))
		for i := range sp.Params {
			p := &sp.Params[i]
			if p.Range != nil {
				vals[i] = p.Range.At(rng.Float64())
			} else {
				vals[i] = p.Values[rng.IntN(len(p.Values))]
			}
		}
		add(vals)
	}
	return out
}

// Base is a scenario file's YAML, kept as ordered data so that key paths
// can be set and the result loaded as a scenario.
type Base struct {
	File string
	doc  yaml.MapSlice
}

// NewBase reads scenario YAML; a `tune:` section is dropped.
func NewBase(file string, data []byte) (*Base, error) {
	if err := scenario.CheckDepth(file, data); err != nil {
		return nil, err
	}
	var v any
	if err := yaml.UnmarshalWithOptions(data, &v, yaml.UseOrderedMap()); err != nil {
		return nil, scenario.YAMLError(file, err)
	}
	doc, ok := v.(yaml.MapSlice)
	if !ok {
		return nil, &Error{File: file, Line: 1, Col: 1, Msg: "expected a scenario (a mapping of keys)"}
	}
	var kept yaml.MapSlice
	for _, it := range doc {
		if it.Key != "tune" {
			kept = append(kept, it)
		}
	}
	return &Base{File: file, doc: kept}, nil
}

// Scenario returns the base with the candidate's values set, loaded and
// validated.
func (b *Base) Scenario(sp *Space, c Candidate) (*scenario.Scenario, []byte, error) {
	doc := b.doc
	for i, v := range c.Values {
		doc = set(doc, strings.Split(sp.Params[i].Path, "."), v.Data)
	}
	data, err := yaml.Marshal(doc)
	if err != nil {
		return nil, nil, err
	}
	name := b.File
	if c.Index > 0 {
		name = fmt.Sprintf("%s#candidate-%d", b.File, c.Index)
	}
	s, err := scenario.Load(name, data)
	return s, data, err
}

// set returns doc with the value at path replaced (or added), copying
// what it changes so that doc itself is unchanged. A segment "name[i]"
// steps into item i of a list.
func set(doc yaml.MapSlice, path []string, v any) yaml.MapSlice {
	key, idx := splitIndex(path[0])
	out := make(yaml.MapSlice, 0, len(doc)+1)
	found := false
	for _, it := range doc {
		if it.Key == key {
			found = true
			it.Value = setIn(it.Value, idx, path[1:], v)
		}
		out = append(out, it)
	}
	if !found {
		out = append(out, yaml.MapItem{Key: key, Value: setIn(nil, idx, path[1:], v)})
	}
	return out
}

// setIn sets the value below one mapping entry: in list item idx (when
// idx ≥ 0), then along rest.
func setIn(cur any, idx int, rest []string, v any) any {
	if idx >= 0 {
		list, _ := cur.([]any)
		cp := append([]any(nil), list...)
		for len(cp) <= idx {
			cp = append(cp, yaml.MapSlice{})
		}
		cp[idx] = setIn(cp[idx], -1, rest, v)
		return cp
	}
	if len(rest) == 0 {
		return v
	}
	sub, _ := cur.(yaml.MapSlice)
	return set(sub, rest, v)
}

// splitIndex splits "generators[2]" into "generators" and 2; -1 when the
// segment has no index.
func splitIndex(seg string) (string, int) {
	i := strings.IndexByte(seg, '[')
	if i <= 0 || !strings.HasSuffix(seg, "]") {
		return seg, -1
	}
	n, err := strconv.Atoi(seg[i+1 : len(seg)-1])
	if err != nil || n < 0 {
		return seg, -1
	}
	return seg[:i], n
}

// Check loads every value of every parameter on its own, so that a value
// the scenario rejects is reported at its place in the space file.
func (b *Base) Check(sp *Space) error {
	if _, _, err := b.Scenario(sp, Candidate{}); err != nil {
		return err
	}
	for i := range sp.Params {
		p := &sp.Params[i]
		vals := p.Values
		if p.Range != nil {
			vals = []Value{p.Range.At(0), p.Range.At(1)}
		}
		for _, v := range vals {
			one := &Space{Params: []Param{*p}}
			if _, _, err := b.Scenario(one, Candidate{Index: 1, Values: []Value{v}}); err != nil {
				line, col := v.Line, v.Col
				if line == 0 {
					line, col = p.Line, p.Col
				}
				msg := err.Error()
				if se, ok := err.(scenario.Errors); ok && len(se) > 0 {
					msg = se[0].Path + ": " + se[0].Msg
				}
				return &Error{File: sp.File, Line: line, Col: col, Msg: fmt.Sprintf("params.%s = %s: the scenario rejects it: %s", p.Path, v.Label, msg)}
			}
		}
	}
	return nil
}
