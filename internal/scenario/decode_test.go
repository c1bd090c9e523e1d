package scenario

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/goccy/go-yaml/parser"

	"rocelab/examples"
)

// flowsFile is a synthetic scenario of n explicit flows, each after the one
// before, as tools/htsimconv writes its 3968-flow ring.
func flowsFile(n int) []byte {
	var b strings.Builder
	b.WriteString("topology: {kind: single-switch, hosts: 4}\ntraffic:\n  flows:\n")
	for i := range n {
		fmt.Fprintf(&b, "    - {name: f%d, src: h%d, dst: h%d, bytes: 1MB", i, i%4, (i+1)%4)
		if i > 0 {
			fmt.Fprintf(&b, ", after: [f%d]", i-1)
		}
		b.WriteString("}\n")
	}
	return []byte(b.String())
}

// The keys check of a file of explicit flows allocates a bounded amount
// per flow: each struct type's keys are indexed once for the walk, and a
// path is spelled only for an error. Looking each key up by splitting
// every field's tag, and spelling every node's path, allocated 31 times a
// flow on this file.
func TestCheckKeysAllocations(t *testing.T) {
	const flows = 200
	f, err := parser.ParseBytes(flowsFile(flows), 0)
	if err != nil {
		t.Fatal(err)
	}
	body := f.Docs[0].Body
	typ := reflect.TypeOf(rawScenario{})
	var errs Errors
	allocs := testing.AllocsPerRun(5, func() { checkKeys("ring.yaml", body, typ, "", &errs) })
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if perFlow := allocs / flows; perFlow > 1 {
		t.Errorf("checkKeys allocated %.0f times, %.1f a flow; want at most 1 a flow", allocs, perFlow)
	}
}

// An unknown key deep in a list names its full path, the item's index
// included.
func TestCheckKeysPath(t *testing.T) {
	data := strings.Replace(string(flowsFile(3)), "{name: f2,", "{name: f2, sizze: 1,", 1)
	_, err := Load("bad.yaml", []byte(data))
	if err == nil || !strings.Contains(err.Error(), `bad.yaml:6:18: traffic.flows[2]: unknown key "sizze"`) {
		t.Fatalf("got %v", err)
	}
}

// TestParseRawStreamForms: a byte order mark before the stream and a %YAML
// directive before the document are YAML a scenario may be written in
// (synthetic files); each decodes as the plain file does, and a mistake
// after a BOM is still found at its line and column.
func TestParseRawStreamForms(t *testing.T) {
	const plain = "traffic:\n  flows:\n    - {src: h0, dst: h1}\n"
	want, err := parseRaw("plain.yaml", []byte(plain))
	if err != nil {
		t.Fatal(err)
	}
	for _, form := range []string{"\ufeff" + plain, "%YAML 1.2\n---\n" + plain, "\ufeff%YAML 1.2\n---\n" + plain + "...\n"} {
		got, err := parseRaw("form.yaml", []byte(form))
		if err != nil {
			t.Errorf("%q: %v", form, err)
			continue
		}
		if len(got.Traffic.Flows) != 1 || got.Traffic.Flows[0].Src.String() != want.Traffic.Flows[0].Src.String() {
			t.Errorf("%q: flows %v, the plain file gives %v", form, got.Traffic.Flows, want.Traffic.Flows)
		}
	}
	// A variant is a fresh parse of the file: it reads the stream the same way.
	ex, err := examples.FS.ReadFile("gdr.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plainVs, err := Load("gdr.yaml", ex)
	if err != nil {
		t.Fatal(err)
	}
	formVs, err := Load("gdr.yaml", append([]byte("\ufeff%YAML 1.2\n---\n"), ex...))
	if err != nil {
		t.Fatalf("gdr.yaml after a BOM and a directive: %v", err)
	}
	variants := func(s *Scenario) (names []string) {
		for _, v := range s.Variants {
			names = append(names, v.Variant)
		}
		return names
	}
	if len(plainVs.Variants) < 2 || !reflect.DeepEqual(variants(plainVs), variants(formVs)) {
		t.Errorf("gdr.yaml after a BOM and a directive loads variants %q, the plain file %q", variants(formVs), variants(plainVs))
	}
	_, err = parseRaw("bom.yaml", []byte("\ufefftraffic: {flowz: []}\n"))
	if es, ok := err.(Errors); !ok || len(es) != 1 || es[0].Line != 1 || es[0].Col != 11 || !strings.Contains(es[0].Msg, `unknown key "flowz"`) {
		t.Errorf("a mistake after a BOM: %v, want bom.yaml:1:11 unknown key \"flowz\"", err)
	}
	_, err = parseRaw("two.yaml", []byte("%YAML 1.2\n---\na: 1\n---\nb: 2\n"))
	if err == nil || !strings.Contains(err.Error(), "found 2") {
		t.Errorf("two documents after a directive: %v, want found 2", err)
	}
}
