package nvue

import (
	"bytes"
	"errors"
	"fmt"

	"rocelab/internal/pos"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// maxDepth bounds how deep a tree is read: NVUE's QoS tree is eight
// levels deep, the whole configuration about twelve.
const maxDepth = 64

// LooksLikeYAML reports whether YAML text is an NVUE configuration: `nv
// config show -o yaml` and startup.yaml are a list of a header and a set
// ("- header:" ... "- set:"), a bare tree has a top-level qos key beside
// NVUE's others.
func LooksLikeYAML(data []byte) bool {
	lines := bytes.Split(data, []byte("\n"))
	header, set, qos := false, false, false
	for _, l := range lines {
		t := bytes.TrimRight(l, " \r")
		switch {
		case bytes.Equal(t, []byte("- header:")):
			header = true
		case bytes.Equal(t, []byte("- set:")):
			set = true
		case bytes.Equal(bytes.TrimLeft(t, " "), []byte("qos:")):
			qos = true
		case bytes.Contains(t, []byte("nvue-api-version:")):
			header = true
		}
	}
	return set && (header || qos) || qos && header
}

// ParseYAML reads an NVUE configuration tree: `nv config show -o yaml`,
// /etc/nvue.d/startup.yaml (a list of `- header:` and `- set:`), or the
// tree alone (its qos and interface keys at the top, as the REST API and
// the Ansible collection print it).
func ParseYAML(name string, data []byte) (*Config, error) {
	// The YAML parser ends a line at a lone CR too (a classic Mac file):
	// make it a line feed, so that its positions are lines of c.Lines.
	data = loneCRToLF(data)
	c := newConfig(name, FormatYAML, data)
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		var ye yaml.Error
		if errors.As(err, &ye) {
			e := &pos.Error{File: name, Msg: ye.GetMessage()}
			if tk := ye.GetToken(); tk != nil && tk.Position != nil {
				e.Line, e.Col = tk.Position.Line, tk.Position.Column
			}
			return nil, e
		}
		return nil, &pos.Error{File: name, Line: 1, Col: 1, Msg: err.Error()}
	}
	found := false
	for _, doc := range f.Docs {
		body := doc.Body
		if _, comments := body.(*ast.CommentGroupNode); body == nil || comments {
			continue
		}
		if seq, ok := body.(*ast.SequenceNode); ok {
			// nv config show: [{header: ...}, {set: {...}}].
			for _, item := range seq.Values {
				pairs, ok := pairsOf(item)
				if !ok {
					return nil, c.nodeErr(item, "expected `- header:` or `- set:` entries, as `nv config show -o yaml` prints")
				}
				for _, kv := range pairs {
					switch key := kv.Key.GetToken().Value; key {
					case "set":
						found = true
						if err := c.walk(kv.Value, nil, 0); err != nil {
							return nil, err
						}
					case "header":
						if err := c.walk(kv.Value, path{c.keyValue(kv)}, 0); err != nil {
							return nil, err
						}
					default:
						// `unset` and others: NVUE's startup file has
						// only header and set.
						return nil, c.nodeErr(kv.Key, fmt.Sprintf("%q: expected header or set, as `nv config show -o yaml` prints", key))
					}
				}
			}
			continue
		}
		if _, ok := pairsOf(body); !ok {
			return nil, c.nodeErr(body, "expected an NVUE configuration: a list of `- header:` and `- set:`, or a tree with a qos key")
		}
		found = true
		if err := c.walk(body, nil, 0); err != nil {
			return nil, err
		}
	}
	if !found {
		return nil, &pos.Error{File: name, Line: 1, Col: 1, Msg: "no `- set:` entry: expected the configuration NVUE prints with `nv config show -o yaml`"}
	}
	return c, nil
}

// walk turns a tree into paths, one per leaf, and applies each.
func (c *Config) walk(n ast.Node, p path, depth int) error {
	if depth > maxDepth {
		return c.nodeErr(n, fmt.Sprintf("nested deeper than %d levels: not an NVUE configuration", maxDepth))
	}
	switch v := n.(type) {
	case nil, *ast.NullNode, *ast.CommentGroupNode:
		return c.applyEmpty(p)
	case *ast.MappingNode, *ast.MappingValueNode:
		pairs, _ := pairsOf(v)
		if len(pairs) == 0 {
			return c.applyEmpty(p)
		}
		for _, kv := range pairs {
			if err := c.walk(kv.Value, append(p[:len(p):len(p)], c.keyValue(kv)), depth+1); err != nil {
				return err
			}
		}
		return nil
	case *ast.SequenceNode:
		if len(v.Values) == 0 {
			return c.applyEmpty(p)
		}
		return c.nodeErr(v, fmt.Sprintf("%s: a list, where NVUE writes a setting or a map of them", p.words(len(p))))
	case *ast.AliasNode, *ast.AnchorNode, *ast.TagNode:
		return c.nodeErr(v, "an anchor, alias or tag (&name, *name, !tag): NVUE does not write them; give the configuration as `nv config show -o yaml` prints it")
	case ast.ScalarNode:
		tk := v.GetToken()
		return c.apply(append(p[:len(p):len(p)], Value{Text: tk.Value, Line: tk.Position.Line, Col: tk.Position.Column}))
	}
	return c.nodeErr(n, fmt.Sprintf("%s: expected a setting or a map of them", p.words(len(p))))
}

func (c *Config) keyValue(kv *ast.MappingValueNode) Value {
	tk := kv.Key.GetToken()
	return Value{Text: tk.Value, Line: tk.Position.Line, Col: tk.Position.Column}
}

func (c *Config) nodeErr(n ast.Node, msg string) *pos.Error {
	e := &pos.Error{File: c.File, Line: 1, Col: 1, Msg: msg}
	if n != nil {
		if tk := n.GetToken(); tk != nil && tk.Position != nil {
			e.Line, e.Col = tk.Position.Line, tk.Position.Column
		}
	}
	return e
}

// pairsOf returns a mapping's key-value pairs (one pair is a mapping of
// one).
func pairsOf(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch v := n.(type) {
	case *ast.MappingNode:
		return v.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{v}, true
	}
	return nil, false
}

// applyEmpty applies a path that ends in an empty container: a member of
// a collection ("'3': {}" under switch-priority) or a container with
// nothing set, which is not named as unjudged.
func (c *Config) applyEmpty(p path) error {
	c.quiet = true
	defer func() { c.quiet = false }()
	return c.apply(p)
}

// loneCRToLF returns data with each carriage return that no line feed
// follows made a line feed (a copy, when there is one).
func loneCRToLF(data []byte) []byte {
	var out []byte
	for i, b := range data {
		if b == '\r' && (i+1 == len(data) || data[i+1] != '\n') {
			if out == nil {
				out = bytes.Clone(data)
			}
			out[i] = '\n'
		}
	}
	if out == nil {
		return data
	}
	return out
}
