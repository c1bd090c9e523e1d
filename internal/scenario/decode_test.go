package scenario

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/goccy/go-yaml/parser"
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
