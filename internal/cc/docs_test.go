package cc

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the knob tables in docs/cc.md")

const docsPath = "../../docs/cc.md"

// docTable is one generated table of docs/cc.md, between its markers.
type docTable struct {
	begin, end string
	render     func() string
}

var docTables = []docTable{
	{"<!-- knob table: generated from cc.Knobs() by go test ./internal/cc -update -->", "<!-- end of knob table -->", knobTable},
	{"<!-- TIMELY knob table: generated from cc.TimelyKnobs by go test ./internal/cc -update -->", "<!-- end of TIMELY knob table -->",
		func() string { return paramTable(TimelyKnobs.Table()) }},
	{"<!-- HPCC knob table: generated from cc.HPCCKnobs by go test ./internal/cc -update -->", "<!-- end of HPCC knob table -->",
		func() string { return paramTable(HPCCKnobs.Table()) }},
	{"<!-- DCTCP knob table: generated from cc.DCTCPKnobs by go test ./internal/cc -update -->", "<!-- end of DCTCP knob table -->",
		func() string { return paramTable(DCTCPKnobs.Table()) }},
	{"<!-- HPCC-PINT knob table: generated from cc.PINTKnobs by go test ./internal/cc -update -->", "<!-- end of HPCC-PINT knob table -->",
		func() string { return paramTable(PINTKnobs.Table()) }},
}

// knobTable renders Knobs() as the DCQCN table of docs/cc.md.
func knobTable() string {
	var b strings.Builder
	b.WriteString("| knob | at | unit | range | mlx5 | paper | meaning |\n|---|---|---|---|---|---|---|\n")
	for _, k := range Knobs() {
		name := "`" + k.Name + "`"
		if k.Extension {
			name += " (rocelab)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d..%d | %d | %d | %s |\n",
			name, k.Point, k.Unit, k.Min, k.Max, k.MLX5, k.Paper, meaning(k.Meaning, k.Note))
	}
	return b.String()
}

// paramTable renders a TIMELY, HPCC, HPCC-PINT or DCTCP knob table.
func paramTable[C any](ps []Param[C]) string {
	var b strings.Builder
	b.WriteString("| knob | unit | range | paper | ns3 | meaning |\n|---|---|---|---|---|---|\n")
	for _, k := range ps {
		fmt.Fprintf(&b, "| `%s` | %s | %d..%d | %d | %d | %s |\n", k.Name, k.Unit, k.Min, k.Max, k.Paper, k.NS3, meaning(k.Meaning, k.Note))
	}
	return b.String()
}

func meaning(m, note string) string {
	if note != "" {
		m += "; " + note
	}
	return strings.ReplaceAll(m, "|", "\\|")
}

// TestDocsKnobTable keeps the tables in docs/cc.md equal to the knob
// tables in the code; run with -update to rewrite them.
func TestDocsKnobTable(t *testing.T) {
	data, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	changed := false
	for _, d := range docTables {
		i, j := strings.Index(doc, d.begin), strings.Index(doc, d.end)
		if i < 0 || j < i {
			t.Fatalf("%s: no markers %q", docsPath, d.begin)
		}
		if want := d.render(); doc[i+len(d.begin)+1:j] != want {
			doc, changed = doc[:i+len(d.begin)+1]+want+doc[j:], true
		}
	}
	if !changed {
		return
	}
	if !*update {
		t.Fatalf("%s: a knob table differs from the code; run go test ./internal/cc -update", docsPath)
	}
	if err := os.WriteFile(docsPath, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}
