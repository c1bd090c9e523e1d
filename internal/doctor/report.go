package doctor

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"rocelab/internal/textout"
)

// WriteJSON writes the report as indented JSON: one finding per subject,
// never grouped (docs/diagnose.md describes the schema).
func (r *Report) WriteJSON(w io.Writer) error { return textout.WriteJSON(w, r) }

// Caps of the text report; JSON always carries everything.
const (
	// maxEvidenceShown caps the evidence lines printed per entry.
	maxEvidenceShown = 6
	// maxMembersShown caps the member titles printed for a group.
	maxMembersShown = 8
	// maxSubjectsNamed caps the subjects named in one line of a group.
	maxSubjectsNamed = 40
)

// A findingGroup is the findings the text report shows as one entry: like
// findings about different subjects (see Finding.per), or a single one.
type findingGroup struct {
	members   []*Finding
	mechanism string
	fix       string
}

// groupFindings groups like findings, keeping the order of each group's
// first member.
func groupFindings(fs []Finding) []findingGroup {
	var gs []findingGroup
	at := map[string]int{}
	for i := range fs {
		f := &fs[i]
		if f.Subject == "" || f.group == "" {
			gs = append(gs, findingGroup{members: []*Finding{f}, mechanism: f.Mechanism, fix: f.Fix})
			continue
		}
		r := strings.NewReplacer(f.generic...)
		mech, fix := r.Replace(f.Mechanism), r.Replace(f.Fix)
		key := strings.Join([]string{f.Layer.String(), f.Severity.String(), f.ID, f.group, f.noun, mech, fix}, "\x00")
		if j, ok := at[key]; ok {
			gs[j].members = append(gs[j].members, f)
			continue
		}
		at[key] = len(gs)
		gs = append(gs, findingGroup{members: []*Finding{f}, mechanism: mech, fix: fix})
	}
	for i := range gs {
		if len(gs[i].members) == 1 {
			gs[i].mechanism, gs[i].fix = gs[i].members[0].Mechanism, gs[i].members[0].Fix
		}
	}
	return gs
}

// subjects returns the group's subjects in order.
func (g *findingGroup) subjects() []string {
	out := make([]string, len(g.members))
	for i, f := range g.members {
		out[i] = f.Subject
	}
	return out
}

// WriteText writes the report for a terminal: inputs, then findings by
// layer in diagnosis order, each with evidence, mechanism and fix. Like
// findings about several ports, interfaces, runs or files are shown once,
// with each member's title.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString("Inputs\n")
	width := 14
	for _, in := range r.Inputs {
		width = max(width, utf8.RuneCountInString(in.Type))
	}
	for _, in := range r.Inputs {
		t := in.Type
		if len(in.Contains) > 1 {
			t = strings.Join(in.Contains, "+")
		}
		if in.Error != "" {
			t += " (" + in.Error + ")"
		}
		fmt.Fprintf(&b, "  %-*s %s\n", width, t, in.Path)
	}
	counts := map[Severity]int{}
	for _, f := range r.Findings {
		counts[f.Severity]++
	}
	layer := Layer(-1)
	shown := map[Severity]int{}
	for _, g := range groupFindings(r.Findings) {
		f := g.members[0]
		shown[f.Severity]++
		if f.Layer != layer {
			layer = f.Layer
			fmt.Fprintf(&b, "\n%s\n", layer.Question())
		}
		if len(g.members) == 1 {
			fmt.Fprintf(&b, "\n  [%s] %s  (%s)\n", strings.ToUpper(f.Severity.String()), f.Title, f.ID)
			writeEvidence(&b, f.Evidence, len(f.Evidence))
		} else {
			writeGroupHead(&b, &g)
		}
		if g.mechanism != "" {
			fmt.Fprintf(&b, "    why: %s\n", indentRest(g.mechanism, "         "))
		}
		if g.fix != "" {
			fmt.Fprintf(&b, "    fix: %s\n", indentRest(g.fix, "         "))
		}
	}
	switch {
	case r.Unusable() != "":
		b.WriteString("\nNothing diagnosed: no input held an artifact rocelab reads.\n")
	case len(r.Findings) == 0:
		b.WriteString("\nNo findings.\n")
	}
	// The count is of the entries shown; when grouping joined some, the
	// findings they hold (one per subject, as --json lists them) follow.
	fmt.Fprintf(&b, "\n%d error, %d warn, %d info", shown[Error], shown[Warn], shown[Info])
	if shown[Error] != counts[Error] || shown[Warn] != counts[Warn] || shown[Info] != counts[Info] {
		fmt.Fprintf(&b, " (%d findings by subject in --json: %d error, %d warn, %d info)", len(r.Findings), counts[Error], counts[Warn], counts[Info])
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeGroupHead writes a group's title, its members' titles and the
// evidence of its first member.
func writeGroupHead(b *strings.Builder, g *findingGroup) {
	f := g.members[0]
	n := len(g.members)
	subj := g.subjects()
	fmt.Fprintf(b, "\n  [%s] %s: %d %ss (%s)  (%s)\n", strings.ToUpper(f.Severity.String()), f.group, n, f.noun, list(counted(subj), 4), f.ID)
	// Members whose titles are the same (one subject seen in several runs
	// of a paste) are one line with their count.
	titles, times, of := countedTitles(g.members)
	for i, t := range titles {
		if i == maxMembersShown {
			var rest []string
			for j, k := range of {
				if k >= i {
					rest = append(rest, subj[j])
				}
			}
			fmt.Fprintf(b, "      ... and %d more: %s (each in --json)\n", len(rest), list(counted(rest), maxSubjectsNamed))
			break
		}
		if times[i] > 1 {
			t += fmt.Sprintf(" (×%d)", times[i])
		}
		fmt.Fprintf(b, "      %s\n", clip(t, 200))
	}
	total := 0
	for _, m := range g.members {
		total += len(m.Evidence)
	}
	fmt.Fprintf(b, "    evidence (%s):\n", f.Subject)
	writeEvidence(b, f.Evidence, total)
}

// counted lists the distinct names of xs in first-seen order, each
// repeated name with its count: "mlx5_0 ×4".
func counted(xs []string) []string {
	var out []string
	n := map[string]int{}
	for _, x := range xs {
		if n[x] == 0 {
			out = append(out, x)
		}
		n[x]++
	}
	for i, x := range out {
		if n[x] > 1 {
			out[i] = fmt.Sprintf("%s ×%d", x, n[x])
		}
	}
	return out
}

// countedTitles returns the distinct member titles in order, how many
// members have each, and for each member the index of its title.
func countedTitles(ms []*Finding) (titles []string, times, of []int) {
	at := map[string]int{}
	for _, m := range ms {
		i, ok := at[m.Title]
		if !ok {
			i = len(titles)
			at[m.Title] = i
			titles = append(titles, m.Title)
			times = append(times, 0)
		}
		times[i]++
		of = append(of, i)
	}
	return titles, times, of
}

// writeEvidence writes up to maxEvidenceShown lines of ev, and how many of
// total lines were left out.
func writeEvidence(b *strings.Builder, ev []Evidence, total int) {
	for i, e := range ev {
		if i == maxEvidenceShown {
			break
		}
		fmt.Fprintf(b, "      %s\n", clip(e.String(), 200))
	}
	if shown := min(len(ev), maxEvidenceShown); total > shown {
		fmt.Fprintf(b, "      ... %d more evidence lines (see --json)\n", total-shown)
	}
}

// clip cuts s to at most n bytes, at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func indentRest(s, pad string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pad)
}
