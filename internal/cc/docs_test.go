package cc

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the knob table in docs/cc.md")

const (
	docsPath   = "../../docs/cc.md"
	tableBegin = "<!-- knob table: generated from cc.Knobs() by go test ./internal/cc -update -->"
	tableEnd   = "<!-- end of knob table -->"
)

// knobTable renders Knobs() as the markdown table of docs/cc.md.
func knobTable() string {
	var b strings.Builder
	b.WriteString("| knob | at | unit | range | mlx5 | paper | meaning |\n|---|---|---|---|---|---|---|\n")
	for _, k := range Knobs() {
		name := "`" + k.Name + "`"
		if k.Extension {
			name += " (rocelab)"
		}
		meaning := k.Meaning
		if k.Note != "" {
			meaning += "; " + k.Note
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d..%d | %d | %d | %s |\n",
			name, k.Point, k.Unit, k.Min, k.Max, k.MLX5, k.Paper, strings.ReplaceAll(meaning, "|", "\\|"))
	}
	return b.String()
}

// TestDocsKnobTable keeps the table in docs/cc.md equal to the knob table
// in config.go; run with -update to rewrite it.
func TestDocsKnobTable(t *testing.T) {
	data, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, tableBegin), strings.Index(doc, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no knob table markers", docsPath)
	}
	got := doc[i+len(tableBegin)+1 : j]
	want := knobTable()
	if got == want {
		return
	}
	if !*update {
		t.Fatalf("%s: the knob table differs from Knobs(); run go test ./internal/cc -update", docsPath)
	}
	doc = doc[:i+len(tableBegin)+1] + want + doc[j:]
	if err := os.WriteFile(docsPath, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}
