package scenario

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"rocelab/internal/unit"
)

// An Error is one problem in a scenario file, at a line and column.
type Error struct {
	File      string
	Line, Col int
	// Path is the key path, e.g. "topology.hosts_per_leaf".
	Path string
	Msg  string
}

// Error implements error.
func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Col)
	}
	if e.Path != "" {
		return fmt.Sprintf("%s: %s: %s", loc, e.Path, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}

// Errors is every problem found in a scenario file, in file order.
type Errors []*Error

// Error implements error.
func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// MaxFileSize caps a scenario file. 1 MiB holds about 20,000 explicit
// flows, which the YAML parser takes about a second and 200 MB to read
// (measured); a generator describes more traffic in one line.
const MaxFileSize = 1 * unit.MiB

// parseRaw parses YAML into the raw schema, resolving anchors and aliases
// and rejecting unknown keys with the list of keys expected there.
func parseRaw(file string, data []byte) (*rawScenario, error) {
	if unit.Bytes(len(data)) > MaxFileSize {
		return nil, Errors{{File: file, Msg: fmt.Sprintf("%s, more than the %s a scenario may be; a scenario describes traffic with generators, not flow by flow", human(unit.Bytes(len(data))), human(MaxFileSize))}}
	}
	if err := CheckDepth(file, data); err != nil {
		return nil, err
	}
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, Errors{YAMLError(file, err)}
	}
	raw := &rawScenario{}
	if len(f.Docs) == 0 || f.Docs[0].Body == nil {
		return raw, nil
	}
	if len(f.Docs) > 1 {
		return nil, Errors{{File: file, Line: 1, Col: 1, Msg: "expected one YAML document, found " + strconv.Itoa(len(f.Docs))}}
	}
	return decodeRaw(file, f.Docs[0].Body)
}

// decodeRaw decodes a document's body into the raw schema: it resolves
// anchors and aliases, drops extension keys and rejects unknown keys with
// the list of keys expected there.
func decodeRaw(file string, body ast.Node) (*rawScenario, error) {
	raw := &rawScenario{}
	body, errs := resolveAliases(file, body)
	if len(errs) > 0 {
		return nil, errs
	}
	body = dropExtensions(body)
	checkKeys(file, body, reflect.TypeOf(raw).Elem(), "", &errs)
	if len(errs) > 0 {
		return nil, errs
	}
	if err := yaml.NodeToValue(body, raw, yaml.Strict()); err != nil {
		return nil, Errors{YAMLError(file, err)}
	}
	return raw, nil
}

// YAMLError turns a go-yaml error into an Error with its position.
func YAMLError(file string, err error) *Error {
	var ye yaml.Error
	if errors.As(err, &ye) {
		e := &Error{File: file, Msg: ye.GetMessage()}
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			e.Line, e.Col = tk.Position.Line, tk.Position.Column
		}
		return e
	}
	return &Error{File: file, Msg: err.Error()}
}

var astNodeType = reflect.TypeOf((*ast.Node)(nil)).Elem()

// checkKeys walks node alongside the raw type t and reports keys that t
// does not have, and mappings or lists where the other is expected.
func checkKeys(file string, node ast.Node, t reflect.Type, path string, errs *Errors) {
	node = Unwrap(node)
	if node == nil || t == astNodeType {
		return
	}
	if _, ok := node.(*ast.NullNode); ok {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		pairs, ok := MappingPairs(node)
		if !ok {
			*errs = append(*errs, at(file, node, path, "expected a mapping of keys ("+strings.Join(keysOf(t), ", ")+")"))
			return
		}
		for _, kv := range pairs {
			key := kv.Key.GetToken().Value
			f, ok := fieldByTag(t, key)
			if !ok {
				*errs = append(*errs, at(file, kv.Key, path, fmt.Sprintf("unknown key %q; expected one of: %s%s", key, strings.Join(keysOf(t), ", "), hint(key, keysOf(t)))))
				continue
			}
			checkKeys(file, kv.Value, f.Type, join(path, key), errs)
		}
	case reflect.Slice:
		seq, ok := node.(*ast.SequenceNode)
		if !ok {
			*errs = append(*errs, at(file, node, path, "expected a list"))
			return
		}
		elem := t.Elem()
		for elem.Kind() == reflect.Pointer {
			elem = elem.Elem()
		}
		for i, v := range seq.Values {
			item := fmt.Sprintf("%s[%d]", path, i)
			if _, null := Unwrap(v).(*ast.NullNode); (null || Unwrap(v) == nil) && elem.Kind() == reflect.Struct {
				*errs = append(*errs, at(file, v, item, "empty list item: expected a mapping of keys ("+strings.Join(keysOf(elem), ", ")+")"))
				continue
			}
			checkKeys(file, v, t.Elem(), item, errs)
		}
	}
}

// Unwrap returns the node under any anchors and tags, or nil for a node
// that holds only comments.
func Unwrap(n ast.Node) ast.Node {
	for {
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
		case *ast.TagNode:
			n = v.Value
		case *ast.CommentGroupNode:
			return nil
		default:
			return n
		}
	}
}

// MappingPairs returns the key-value pairs of a mapping node (a single pair
// is a one-entry mapping), and false when n, unwrapped, is not a mapping.
func MappingPairs(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch v := Unwrap(n).(type) {
	case *ast.MappingNode:
		return v.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{v}, true
	}
	return nil, false
}

func fieldByTag(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if strings.Split(f.Tag.Get("yaml"), ",")[0] == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func keysOf(t reflect.Type) []string {
	var ks []string
	for i := 0; i < t.NumField(); i++ {
		ks = append(ks, strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0])
	}
	sort.Strings(ks)
	return ks
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// ErrorAt returns an Error at node n's position (none when n is nil).
func ErrorAt(file string, n ast.Node, path, msg string) *Error { return at(file, n, path, msg) }

func at(file string, n ast.Node, path, msg string) *Error {
	e := &Error{File: file, Path: path, Msg: msg}
	if n != nil {
		if tk := n.GetToken(); tk != nil && tk.Position != nil {
			e.Line, e.Col = tk.Position.Line, tk.Position.Column
		}
	}
	return e
}
