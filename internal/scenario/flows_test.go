package scenario

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"rocelab/examples"
)

// checkedBody parses data and resolves and checks it as decodeRaw does,
// returning the body decodeBody is given.
func checkedBody(t testing.TB, name string, data []byte) ast.Node {
	t.Helper()
	body, err := bodyOf(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// bodyOf is checkedBody's work, an error for a file decodeRaw would
// refuse before decoding.
func bodyOf(name string, data []byte) (ast.Node, error) {
	if err := CheckDepth(name, data); err != nil {
		return nil, err
	}
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, err
	}
	if len(f.Docs) != 1 || f.Docs[0].Body == nil {
		return nil, fmt.Errorf("%s: %d documents", name, len(f.Docs))
	}
	body, errs := resolveAliases(name, f.Docs[0].Body)
	if len(errs) > 0 {
		return nil, errs
	}
	body = dropExtensions(body)
	checkKeys(name, body, reflect.TypeOf(rawScenario{}), "", &errs)
	if len(errs) > 0 {
		return nil, errs
	}
	return body, nil
}

// sameDecode checks that decodeBody gives what go-yaml's NodeToValue of the
// whole body gives: the same error, or each flow field the very node and
// the rest deeply equal. It reports whether decodeFlows took the flows.
func sameDecode(t *testing.T, name string, data []byte) bool {
	t.Helper()
	return sameBodyDecode(t, name, checkedBody(t, name, data))
}

func sameBodyDecode(t *testing.T, name string, body ast.Node) bool {
	t.Helper()
	want, got := &rawScenario{}, &rawScenario{}
	werr := yaml.NodeToValue(body, want, yaml.Strict())
	gerr := decodeBody(body, got)
	if fmt.Sprint(werr) != fmt.Sprint(gerr) {
		t.Fatalf("%s: error %v, go-yaml gives %v", name, gerr, werr)
	}
	_, seq, fast := splitFlows(body)
	if fast {
		_, fast = decodeFlows(seq)
	}
	if werr != nil {
		return fast
	}
	if (want.Traffic == nil) != (got.Traffic == nil) {
		t.Fatalf("%s: traffic %v, go-yaml gives %v", name, got.Traffic, want.Traffic)
	}
	if want.Traffic != nil {
		wf, gf := want.Traffic.Flows, got.Traffic.Flows
		if len(wf) != len(gf) || (wf == nil) != (gf == nil) {
			t.Fatalf("%s: %d flows (nil %v), go-yaml gives %d (nil %v)", name, len(gf), gf == nil, len(wf), wf == nil)
		}
		for i := range wf {
			w, g := reflect.ValueOf(wf[i]).Elem(), reflect.ValueOf(gf[i]).Elem()
			for j := range w.NumField() {
				if w.Field(j).Interface() != g.Field(j).Interface() {
					t.Errorf("%s: flows[%d].%s = %#v, go-yaml gives %#v", name, i, w.Type().Field(j).Name, g.Field(j).Interface(), w.Field(j).Interface())
				}
			}
		}
		want.Traffic.Flows, got.Traffic.Flows = nil, nil
	}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("%s: the rest of the scenario decodes differently", name)
	}
	return fast
}

// TestDecodeFlowsAsGoYAML: every example and every converted scenario
// decodes to the same raw scenario through decodeFlows as through go-yaml
// alone, and those with explicit flows take decodeFlows.
func TestDecodeFlowsAsGoYAML(t *testing.T) {
	names, _ := fs.Glob(examples.FS, "*.yaml")
	files := map[string][]byte{}
	for _, n := range names {
		files[n], _ = examples.FS.ReadFile(n)
	}
	tools, _ := filepath.Glob("../../tools/*/scenarios/*.yaml")
	for _, n := range tools {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		files[n] = data
	}
	if len(names) < 5 || len(tools) < 5 {
		t.Fatalf("found %d examples and %d converted scenarios", len(names), len(tools))
	}
	var fast int
	for n, data := range files {
		if sameDecode(t, n, data) {
			fast++
		}
	}
	if fast < 5 {
		t.Errorf("only %d of %d files took decodeFlows", fast, len(files))
	}
}

// TestDecodeFlowsForms: synthetic files in the forms YAML allows: anchors,
// aliases, merge keys, tags, nulls, quoted keys, a shared traffic mapping.
// decodeFlows takes the ones it decodes as go-yaml does and leaves the rest
// to go-yaml, with the same result either way.
func TestDecodeFlowsForms(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		fast       bool
	}{
		{"anchors", `
x-base: &base {bytes: 1MB, start: 0s}
traffic:
  flows:
    - &f0 {src: h0, dst: h1, <<: *base}
    - {src: &s h2, dst: *s, bytes: ~, name: "quoted", rate: !!str 10G, dscp: &z ~}
    - src: h3
      dst: h4
      priority: null
      start:
    - *f0
    - {'src': h1, "dst": h2, <<: [*base, {rate: 10G}]}
    - &solo {src: h5}
`, true},
		{"one pair", "traffic: {flows: [{src: h0, dst: h1}]}", true},
		{"pair items", "traffic: {flows: [src: h0, dst: &n ~, &i name: f]}", true},
		{"empty", "traffic: {flows: []}", true},
		{"shared", "traffic: &t {flows: [{src: h0, dst: h1}]}\ntune: *t\n", true},
		{"null list", "traffic: {flows: ~, generators: []}", false},
		{"tagged item", "traffic: {flows: [!!map {src: h0, dst: h1}]}", false},
		{"tagged list", "traffic: {flows: !!seq [{src: h0, dst: h1}]}", false},
		{"tagged traffic", "traffic: !!map {flows: [{src: h0, dst: h1}]}", false},
	} {
		if got := sameDecode(t, c.name, []byte(c.yaml)); got != c.fast {
			t.Errorf("%s: decodeFlows took it %v, want %v", c.name, got, c.fast)
		}
	}
}

// TestDecodeFlowsAllocs: decoding a flow list costs no allocation per
// flow; go-yaml's NodeToValue made hundreds (synthetic flows).
func TestDecodeFlowsAllocs(t *testing.T) {
	allocs := func(n int) float64 {
		var b strings.Builder
		b.WriteString("topology: {kind: fat-tree, k: 4}\ntraffic:\n  flows:\n")
		for i := range n {
			fmt.Fprintf(&b, "    - {name: f%d, src: h%d, dst: h%d, bytes: 1MB, after: [f%d]}\n", i, i%16, (i+1)%16, i)
		}
		body := checkedBody(t, "many", []byte(b.String()))
		return testing.AllocsPerRun(3, func() {
			if err := decodeBody(body, &rawScenario{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	few, many := allocs(10), allocs(1010)
	if perFlow := (many - few) / 1000; perFlow > 0.01 {
		t.Errorf("decoding the flows costs %.2f allocations a flow, want none", perFlow)
	}
}

// FuzzDecodeFlows: on any file decodeRaw would decode, decodeBody gives
// what go-yaml's NodeToValue gives.
func FuzzDecodeFlows(f *testing.F) {
	f.Add([]byte("x-b: &b {bytes: 1MB}\ntraffic: {flows: [&f {src: h0, dst: h1, <<: *b, start: ~}, *f, {'src': &s h2, dst: *s, rate: !!str 1G, dscp: &n ~}]}"))
	f.Add([]byte("traffic: &t {flows: [{src: h0}]}\ntune: *t"))
	f.Add([]byte("traffic: {flows: [!!map {src: h0}], generators: []}"))
	f.Add([]byte("topology: {kind: fat-tree, k: 4}\ntraffic:\n  flows:\n    - name: a\n      src: h0\n      after: [b]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<14 {
			return
		}
		body, err := bodyOf("fuzz.yaml", data)
		if err != nil {
			return
		}
		sameBodyDecode(t, "fuzz.yaml", body)
	})
}
