package scenario

import (
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// maxAliasExpansion caps the values aliases may add to a scenario, so that a
// few lines of nested aliases ("billion laughs") cannot make the loader walk
// billions of nodes.
const maxAliasExpansion = 1 << 20

// extensionPrefix marks top-level keys the loader ignores: a place to define
// anchors (x-profiles: {lossless: &lossless {...}}), as Compose files do.
const extensionPrefix = "x-"

// aliases resolves YAML anchors, aliases and merge keys in place, so that
// the schema sees plain mappings, lists and scalars. An alias is replaced by
// the node its anchor names (shared, not copied), so a value keeps the
// position of the text that holds it: an error in an anchored profile
// points into the profile. A merge key (<<: *a, or <<: [*a, *b]) adds the
// merged mappings' keys that the mapping does not set itself, earlier
// sources first, as the YAML merge-key convention specifies.
type aliases struct {
	file    string
	anchors map[string]ast.Node
	open    map[string]bool // anchors whose value is being resolved
	size    map[ast.Node]int
	added   int
	errs    Errors
}

// resolveAliases resolves body; the errors say where an alias is unknown,
// recursive, merges something that is not a mapping, or expands too far.
func resolveAliases(file string, body ast.Node) (ast.Node, Errors) {
	a := &aliases{file: file, anchors: map[string]ast.Node{}, open: map[string]bool{}, size: map[ast.Node]int{}}
	body = a.node(body)
	return body, a.errs
}

func (a *aliases) fail(n ast.Node, msg string) {
	a.errs = append(a.errs, at(a.file, n, "", msg))
}

// node resolves n's children and returns what stands in n's place.
func (a *aliases) node(n ast.Node) ast.Node {
	if len(a.errs) > 0 || n == nil {
		return n
	}
	switch v := n.(type) {
	case *ast.AnchorNode:
		name := v.Name.GetToken().Value
		a.open[name] = true
		v.Value = a.node(v.Value)
		delete(a.open, name)
		a.anchors[name] = v.Value
		return v
	case *ast.AliasNode:
		name := v.Value.GetToken().Value
		target, ok := a.anchors[name]
		switch {
		case a.open[name]:
			a.fail(v, "alias *"+name+" is inside its own anchor &"+name+": a recursive value cannot be a scenario")
			return v
		case !ok:
			a.fail(v, "unknown alias *"+name+": no anchor &"+name+" before it")
			return v
		}
		if a.added += a.count(target); a.added > maxAliasExpansion {
			a.fail(v, "aliases expand the scenario to more than 1048576 values; write the repeated parts out or use fewer levels of aliases")
		}
		return target
	case *ast.TagNode:
		v.Value = a.node(v.Value)
		return v
	case *ast.SequenceNode:
		for i := range v.Values {
			v.Values[i] = a.node(v.Values[i])
		}
		return v
	case *ast.MappingValueNode:
		m := ast.Mapping(v.GetToken(), v.IsFlowStyle, v)
		if out := a.mapping(m); len(out.Values) != 1 || out.Values[0] != v {
			return out
		}
		return v
	case *ast.MappingNode:
		return a.mapping(v)
	}
	return n
}

// mapping resolves m's keys and values and expands its merge keys.
func (a *aliases) mapping(m *ast.MappingNode) *ast.MappingNode {
	var merged []*ast.MappingValueNode
	own := make([]*ast.MappingValueNode, 0, len(m.Values))
	for _, kv := range m.Values {
		key := a.node(kv.Key)
		if an, ok := key.(*ast.AnchorNode); ok {
			key = an.Value
		}
		if k, ok := key.(ast.MapKeyNode); ok {
			kv.Key = k
		} else {
			a.fail(kv.Key, "expected a single value as a key")
		}
		kv.Value = a.node(kv.Value)
		if _, ok := kv.Key.(*ast.MergeKeyNode); !ok {
			own = append(own, kv)
			continue
		}
		srcs := []ast.Node{kv.Value}
		if seq, ok := Unwrap(kv.Value).(*ast.SequenceNode); ok {
			srcs = seq.Values
		}
		for _, src := range srcs {
			pairs, ok := MappingPairs(src)
			if !ok {
				a.fail(src, "a merge key (<<) takes a mapping or a list of mappings, such as <<: *profile")
				continue
			}
			merged = append(merged, pairs...)
		}
	}
	if merged == nil {
		m.Values = own
		return m
	}
	seen := map[string]bool{}
	for _, kv := range own {
		seen[keyText(kv)] = true
	}
	for _, kv := range merged {
		if k := keyText(kv); !seen[k] {
			seen[k] = true
			own = append(own, kv)
		}
	}
	m.Values = own
	return m
}

// count returns the number of nodes under n, aliases counted as what they
// stand for (they are resolved before their anchor is used).
func (a *aliases) count(n ast.Node) int {
	if n == nil {
		return 0
	}
	if c, ok := a.size[n]; ok {
		return c
	}
	c := 1
	switch v := n.(type) {
	case *ast.AnchorNode:
		c = a.count(v.Value)
	case *ast.TagNode:
		c = a.count(v.Value)
	case *ast.SequenceNode:
		for _, x := range v.Values {
			c += a.count(x)
		}
	case *ast.MappingNode:
		for _, kv := range v.Values {
			c += a.count(kv.Value)
		}
	case *ast.MappingValueNode:
		c += a.count(v.Value)
	}
	c = min(c, maxAliasExpansion+1)
	a.size[n] = c
	return c
}

func keyText(kv *ast.MappingValueNode) string { return kv.Key.GetToken().Value }

// dropExtensions removes the top-level keys that start with x-.
func dropExtensions(body ast.Node) ast.Node {
	m, ok := Unwrap(body).(*ast.MappingNode)
	if !ok {
		if kv, ok := Unwrap(body).(*ast.MappingValueNode); ok && strings.HasPrefix(keyText(kv), extensionPrefix) {
			return ast.Mapping(kv.GetToken(), kv.IsFlowStyle)
		}
		return body
	}
	kept := m.Values[:0]
	for _, kv := range m.Values {
		if !strings.HasPrefix(keyText(kv), extensionPrefix) {
			kept = append(kept, kv)
		}
	}
	m.Values = kept
	return body
}
