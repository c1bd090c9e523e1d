package scenario

import (
	"bytes"
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
	docs, err := parseDocs(data)
	if err != nil {
		return nil, Errors{YAMLError(file, err)}
	}
	raw := &rawScenario{}
	if len(docs) == 0 || docs[0].Body == nil {
		return raw, nil
	}
	if len(docs) > 1 {
		return nil, Errors{{File: file, Line: 1, Col: 1, Msg: "expected one YAML document, found " + strconv.Itoa(len(docs))}}
	}
	return decodeRaw(file, docs[0].Body)
}

// parseDocs parses a scenario file into its YAML documents. YAML allows a
// byte order mark before the stream, as editors on Windows write it, which
// go-yaml would read into the first key; and go-yaml gives a directive
// (%YAML 1.2) as a document of its own, where it belongs to the document
// after it.
func parseDocs(data []byte) ([]*ast.DocumentNode, error) {
	f, err := parser.ParseBytes(bytes.TrimPrefix(data, []byte("\ufeff")), 0)
	if err != nil {
		return nil, err
	}
	docs := f.Docs
	if len(docs) > 1 {
		if _, ok := docs[0].Body.(*ast.DirectiveNode); ok {
			docs = docs[1:]
		}
	}
	return docs, nil
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
	if err := decodeBody(body, raw); err != nil {
		return nil, Errors{YAMLError(file, err)}
	}
	return raw, nil
}

// decodeBody decodes a checked body into raw: the flow list by
// decodeFlows when it can, the rest by go-yaml.
func decodeBody(body ast.Node, raw *rawScenario) error {
	if rest, seq, ok := splitFlows(body); ok {
		if flows, ok := decodeFlows(seq); ok {
			if err := yaml.NodeToValue(rest, raw, yaml.Strict()); err != nil {
				return err
			}
			raw.Traffic.Flows = flows
			return nil
		}
	}
	return yaml.NodeToValue(body, raw, yaml.Strict())
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
	k := keyCheck{file: file, errs: errs, fields: map[reflect.Type]map[string]reflect.Type{}, path: []pathStep{{key: path}}}
	k.walk(node, t)
}

// keyCheck is one checkKeys walk. It indexes each struct type's fields by
// their yaml key once (a file of explicit flows repeats the same few keys
// thousands of times) and keeps the path to the node it is at as steps,
// spelled only for an error.
type keyCheck struct {
	file   string
	errs   *Errors
	fields map[reflect.Type]map[string]reflect.Type
	path   []pathStep
}

// pathStep is a step of a path: a key, or the index of a list's item.
type pathStep struct {
	key   string
	list  bool
	index int
}

// spell spells the path as checkKeys' errors give it, e.g.
// "traffic.flows[3].src".
func (k *keyCheck) spell() string {
	var p string
	for _, s := range k.path {
		if s.list {
			p += "[" + strconv.Itoa(s.index) + "]"
		} else {
			p = join(p, s.key)
		}
	}
	return p
}

func (k *keyCheck) fail(n ast.Node, msg string) {
	*k.errs = append(*k.errs, at(k.file, n, k.spell(), msg))
}

// walk checks node against t, node's path being k.path.
func (k *keyCheck) walk(node ast.Node, t reflect.Type) {
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
			k.fail(node, "expected a mapping of keys ("+strings.Join(keysOf(t), ", ")+")")
			return
		}
		fields := k.fieldsOf(t)
		for _, kv := range pairs {
			key := kv.Key.GetToken().Value
			ft, ok := fields[key]
			if !ok {
				k.fail(kv.Key, fmt.Sprintf("unknown key %q; expected one of: %s%s", key, strings.Join(keysOf(t), ", "), hint(key, keysOf(t))))
				continue
			}
			k.path = append(k.path, pathStep{key: key})
			k.walk(kv.Value, ft)
			k.path = k.path[:len(k.path)-1]
		}
	case reflect.Slice:
		seq, ok := node.(*ast.SequenceNode)
		if !ok {
			k.fail(node, "expected a list")
			return
		}
		elem := t.Elem()
		for elem.Kind() == reflect.Pointer {
			elem = elem.Elem()
		}
		for i, v := range seq.Values {
			k.path = append(k.path, pathStep{list: true, index: i})
			if _, null := Unwrap(v).(*ast.NullNode); (null || Unwrap(v) == nil) && elem.Kind() == reflect.Struct {
				k.fail(v, "empty list item: expected a mapping of keys ("+strings.Join(keysOf(elem), ", ")+")")
			} else {
				k.walk(v, t.Elem())
			}
			k.path = k.path[:len(k.path)-1]
		}
	}
}

// fieldsOf returns struct type t's field types by yaml key, the first
// field of a key winning.
func (k *keyCheck) fieldsOf(t reflect.Type) map[string]reflect.Type {
	if m, ok := k.fields[t]; ok {
		return m
	}
	m := make(map[string]reflect.Type, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if _, dup := m[key]; !dup {
			m[key] = f.Type
		}
	}
	k.fields[t] = m
	return m
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
