package doctor

import (
	"fmt"
	"io"
	"strings"

	"rocelab/internal/textout"
)

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error { return textout.WriteJSON(w, r) }

// maxEvidenceShown caps the evidence lines printed per finding in the text
// report; JSON always carries all of them.
const maxEvidenceShown = 6

// WriteText writes the report for a terminal: inputs, then findings grouped
// by layer in diagnosis order, each with evidence, mechanism and fix.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString("Inputs\n")
	for _, in := range r.Inputs {
		t := in.Type
		if len(in.Contains) > 1 {
			t = strings.Join(in.Contains, "+")
		}
		if in.Error != "" {
			t += " (" + in.Error + ")"
		}
		fmt.Fprintf(&b, "  %-14s %s\n", t, in.Path)
	}
	counts := map[Severity]int{}
	layer := Layer(-1)
	for _, f := range r.Findings {
		counts[f.Severity]++
		if f.Layer != layer {
			layer = f.Layer
			fmt.Fprintf(&b, "\n%s\n", layer.Question())
		}
		fmt.Fprintf(&b, "\n  [%s] %s  (%s)\n", strings.ToUpper(f.Severity.String()), f.Title, f.ID)
		for i, e := range f.Evidence {
			if i == maxEvidenceShown {
				fmt.Fprintf(&b, "      ... %d more evidence lines (see --json)\n", len(f.Evidence)-i)
				break
			}
			fmt.Fprintf(&b, "      %s\n", clip(e.String(), 200))
		}
		if f.Mechanism != "" {
			fmt.Fprintf(&b, "    why: %s\n", indentRest(f.Mechanism, "         "))
		}
		if f.Fix != "" {
			fmt.Fprintf(&b, "    fix: %s\n", indentRest(f.Fix, "         "))
		}
	}
	if len(r.Findings) == 0 {
		b.WriteString("\nNo findings.\n")
	}
	fmt.Fprintf(&b, "\n%d error, %d warn, %d info\n", counts[Error], counts[Warn], counts[Info])
	_, err := io.WriteString(w, b.String())
	return err
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func indentRest(s, pad string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pad)
}
