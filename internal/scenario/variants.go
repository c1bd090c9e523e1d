package scenario

import (
	"fmt"

	"github.com/goccy/go-yaml/ast"
)

// Variants run one scenario several ways and compare them, e.g. a
// cluster as found and as tuned:
//
//	variants:
//	  - name: as-found
//	    description: ECN thresholds below one frame, ROCE_CC_PRIO_MASK 0xFF
//	    set:
//	      switch: {ecn: {kmin: 1KB, kmax: 2KB, pmax: 1.0}}
//	  - name: tuned
//	    set: {nccl: {NCCL_IB_TIMEOUT: 22}}
//
// Each variant is the file with the variant's set merged in: mappings
// merge key by key, anything else (a scalar, a list) replaces what was
// there. Errors in a variant point at the line of the value at fault,
// in the base or in the variant.
type rawVariant struct {
	Name        ast.Node `yaml:"name"`
	Description ast.Node `yaml:"description"`
	Set         ast.Node `yaml:"set"`
}

// loadVariants loads every variant of the file.
func loadVariants(file string, data []byte, rv []*rawVariant, description bool) ([]*Scenario, error) {
	var out []*Scenario
	c := &conv{file: file}
	names := map[string]bool{}
	for i, v := range rv {
		path := fmt.Sprintf("variants[%d]", i)
		if v == nil {
			c.fail(nil, path, "empty variant: expected name and set")
			continue
		}
		name := c.text(v.Name, path+".name", "")
		if name == "" {
			c.fail(v.Name, path+".name", "missing: every variant needs a name")
			continue
		}
		if names[name] {
			c.fail(v.Name, path+".name", "variant name %s is used twice", quote(name))
			continue
		}
		names[name] = true
		// A fresh parse for each variant: the merge changes the tree.
		docs, err := parseDocs(data)
		if err != nil {
			return nil, Errors{YAMLError(file, err)}
		}
		body := docs[0].Body
		pairs, _ := MappingPairs(body)
		var set ast.Node
		var kept []*ast.MappingValueNode
		for _, kv := range pairs {
			if kv.Key.GetToken().Value != "variants" {
				kept = append(kept, kv)
				continue
			}
			items, _ := c.list(kv.Value, "variants")
			if i < len(items) {
				if vp, ok := MappingPairs(items[i]); ok {
					for _, x := range vp {
						if x.Key.GetToken().Value == "set" {
							set = x.Value
						}
					}
				}
			}
		}
		base := ast.Node(ast.Mapping(body.GetToken(), false, kept...))
		if set != nil && Unwrap(set) != nil {
			if _, ok := MappingPairs(set); !ok {
				c.fail(set, path+".set", "expected a mapping of scenario keys to override")
				continue
			}
			base = merge(base, set)
		}
		raw, err := decodeRaw(file, base)
		if err != nil {
			return nil, err
		}
		s, err := convert(file, raw, description)
		if err != nil {
			return nil, err
		}
		s.Variant = name
		s.Description = c.text(v.Description, path+".description", s.Description)
		out = append(out, s)
	}
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	return out, nil
}

// merge merges over into base: mappings key by key, anything else
// replaced.
func merge(base, over ast.Node) ast.Node {
	bp, bok := MappingPairs(base)
	op, ook := MappingPairs(over)
	if !bok || !ook {
		return over
	}
	out := append([]*ast.MappingValueNode(nil), bp...)
	for _, o := range op {
		key := o.Key.GetToken().Value
		found := false
		for i, b := range out {
			if b.Key.GetToken().Value == key {
				nb := *b
				nb.Value = merge(b.Value, o.Value)
				out[i] = &nb
				found = true
				break
			}
		}
		if !found {
			out = append(out, o)
		}
	}
	return ast.Mapping(Unwrap(base).GetToken(), false, out...)
}
