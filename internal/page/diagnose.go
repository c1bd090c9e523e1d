package page

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"rocelab/internal/doctor"
)

// Caps of the diagnosis page; the JSON report always holds everything.
const (
	// maxEvidence caps the evidence lines shown per finding.
	maxEvidence = 12
	// maxMembers caps the rows of a group of like findings.
	maxMembers = 60
)

// Diagnosis writes the page of a diagnosis: its findings by layer in the
// doctor's order, each with its severity, evidence lines, mechanism and
// fix; a timeline where the evidence carries times; the subjects the
// findings name; and the inputs.
func Diagnosis(w io.Writer, rep *doctor.Report, version string) error {
	p := newPage("rocelab diagnose")
	usable := 0
	for _, in := range rep.Inputs {
		if in.Usable() {
			usable++
		}
	}
	counts := map[doctor.Severity]int{}
	for _, f := range rep.Findings {
		counts[f.Severity]++
	}
	p.Meta("inputs", fmt.Sprintf("%d (%d usable)", len(rep.Inputs), usable))
	p.Meta("findings", fmt.Sprintf("%d error, %d warn, %d info", counts[doctor.Error], counts[doctor.Warn], counts[doctor.Info]))
	p.Meta("version", version)
	writeFindingSummary(p, rep)
	var layer doctor.Layer = -1
	groups := groupLike(rep.Findings)
	for _, g := range groups {
		if f := g[0]; f.Layer != layer {
			layer = f.Layer
			p.Section(1, layer.Question())
		}
		writeGroup(p, g)
	}
	if len(rep.Findings) == 0 {
		p.Section(1, "Findings")
		p.Para("No findings.")
	}
	writeTimeline(p, rep)
	writeSubjects(p, rep)
	writeInputs(p, rep)
	_, err := p.WriteTo(w)
	return err
}

// writeFindingSummary counts the findings by layer and severity.
func writeFindingSummary(p *Page, rep *doctor.Report) {
	p.Section(1, "Summary")
	t := &Table{Caption: "Findings per layer, in the order the doctor asks", Head: []string{"layer", "error", "warn", "info"}}
	for _, l := range []doctor.Layer{doctor.LayerInput, doctor.LayerRDMA, doctor.LayerFabric, doctor.LayerNCCL} {
		c := map[doctor.Severity]int64{}
		for _, f := range rep.Findings {
			if f.Layer == l {
				c[f.Severity]++
			}
		}
		row := []Cell{text(l.Question())}
		for _, s := range []doctor.Severity{doctor.Error, doctor.Warn, doctor.Info} {
			cell := count(c[s])
			if c[s] > 0 {
				cell.Class += " " + map[doctor.Severity]string{doctor.Error: "fail", doctor.Warn: "warn", doctor.Info: "info"}[s]
			}
			row = append(row, cell)
		}
		t.Add(row...)
	}
	p.Table(t)
}

// groupLike groups consecutive findings of one rule and severity (the
// doctor sorts them so), keeping the order.
func groupLike(fs []doctor.Finding) [][]*doctor.Finding {
	var out [][]*doctor.Finding
	for i := range fs {
		f := &fs[i]
		if n := len(out); n > 0 {
			last := out[n-1][0]
			if last.ID == f.ID && last.Severity == f.Severity && last.Layer == f.Layer && f.Subject != "" && last.Subject != "" {
				out[n-1] = append(out[n-1], f)
				continue
			}
		}
		out = append(out, []*doctor.Finding{f})
	}
	return out
}

// writeGroup writes one finding, or a group of like findings about
// several subjects as one entry with a row per subject.
func writeGroup(p *Page, g []*doctor.Finding) {
	f := g[0]
	sev := f.Severity.String()
	b := &p.body
	fmt.Fprintf(b, "<article class=\"finding %s\" id=\"%s\">\n", sev, p.id("f-"+f.ID))
	title := f.Title
	if len(g) > 1 {
		title = fmt.Sprintf("%s, and %d more like it", f.Title, len(g)-1)
	}
	fmt.Fprintf(b, "<h3><span class=\"sev %s\">%s</span> %s <span class=\"id\">(%s)</span></h3>\n", sev, strings.ToUpper(sev), esc(title), esc(f.ID))
	if len(g) == 1 {
		if f.Subject != "" {
			fmt.Fprintf(b, "<p><span class=\"label\">Subject:</span> %s</p>\n", esc(f.Subject))
		}
		writeEvidence(p, f.Evidence)
	} else {
		t := &Table{Caption: fmt.Sprintf("%d findings of this rule, one per subject", len(g)), Head: []string{"subject", "finding", "first evidence"}}
		for i, m := range g {
			if i == maxMembers {
				t.More = fmt.Sprintf("Summarised: %d more subjects; every one is in diagnose --json.", len(g)-i)
				break
			}
			ev := ""
			if len(m.Evidence) > 0 {
				ev = m.Evidence[0].String()
			}
			t.Add(text(m.Subject), text(m.Title), Cell{Text: ev, Class: "code"})
		}
		p.Table(t)
		fmt.Fprintf(b, "<p class=\"label\">Evidence of %s</p>\n", esc(f.Subject))
		writeEvidence(p, f.Evidence)
	}
	mech, fix := f.Mechanism, f.Fix
	same := true
	for _, m := range g[1:] {
		same = same && m.Mechanism == mech && m.Fix == fix
	}
	if !same {
		fmt.Fprintf(b, "<p class=\"more\">Why and fix of %s; the others say the same of their own subjects.</p>\n", esc(f.Subject))
	}
	if mech != "" {
		fmt.Fprintf(b, "<p><span class=\"label\">Why:</span> %s</p>\n", withCode(mech))
	}
	if fix != "" {
		fmt.Fprintf(b, "<p><span class=\"label\">Fix:</span> %s</p>\n", withCode(fix))
	}
	b.WriteString("</article>\n")
}

// writeEvidence lists evidence lines as file:line: text.
func writeEvidence(p *Page, ev []doctor.Evidence) {
	if len(ev) == 0 {
		return
	}
	b := &p.body
	b.WriteString("<ol class=\"evidence\">\n")
	for i, e := range ev {
		if i == maxEvidence {
			break
		}
		fmt.Fprintf(b, "<li><code>%s</code></li>\n", esc(e.String()))
	}
	b.WriteString("</ol>\n")
	if len(ev) > maxEvidence {
		fmt.Fprintf(b, "<p class=\"more\">%d more evidence lines in diagnose --json.</p>\n", len(ev)-maxEvidence)
	}
}

// withCode escapes s and sets `quoted` spans as code.
func withCode(s string) string {
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 {
		return esc(s)
	}
	var b strings.Builder
	for i, part := range parts {
		if i%2 == 1 {
			b.WriteString("<code>" + esc(part) + "</code>")
		} else {
			b.WriteString(esc(part))
		}
	}
	return b.String()
}

// writeSubjects lists what the findings name (hosts, devices, switch
// ports, files) with the findings about each, the most serious first.
func writeSubjects(p *Page, rep *doctor.Report) {
	type subject struct {
		name  string
		worst doctor.Severity
		ids   []string
	}
	at := map[string]*subject{}
	var subs []*subject
	for _, f := range rep.Findings {
		if f.Subject == "" {
			continue
		}
		s, ok := at[f.Subject]
		if !ok {
			s = &subject{name: f.Subject, worst: f.Severity}
			at[f.Subject] = s
			subs = append(subs, s)
		}
		s.worst = max(s.worst, f.Severity)
		s.ids = append(s.ids, f.Severity.String()+" "+f.ID)
	}
	p.Section(1, "Hosts, devices and ports named")
	if len(subs) == 0 {
		p.Para("No finding names a host, device, port or file of its own: each is about the incident as a whole.")
		return
	}
	sort.SliceStable(subs, func(i, j int) bool {
		if subs[i].worst != subs[j].worst {
			return subs[i].worst > subs[j].worst
		}
		return subs[i].name < subs[j].name
	})
	t := &Table{Caption: "What the findings are about, the most serious first", Head: []string{"subject", "worst", "findings"}, Sortable: true}
	for _, s := range subs {
		t.Add(text(s.name), Cell{Text: s.worst.String(), Class: map[doctor.Severity]string{doctor.Error: "fail", doctor.Warn: "warn", doctor.Info: "info"}[s.worst]},
			text(strings.Join(s.ids, "; ")))
	}
	p.Table(t)
}

// writeInputs lists the inputs and what each held.
func writeInputs(p *Page, rep *doctor.Report) {
	p.Section(1, "Inputs")
	t := &Table{Caption: "Every input and what the doctor recognised in it", Head: []string{"path", "kind", "note"}, Sortable: true}
	for _, in := range rep.Inputs {
		kind := in.Type
		if len(in.Contains) > 1 {
			kind = strings.Join(in.Contains, "+")
		}
		note := in.Error
		if in.InArchive != "" {
			note = strings.TrimSpace(note + " (in " + in.InArchive + ")")
		}
		cell := text(kind)
		if !in.Usable() {
			cell.Class = "warn"
		}
		t.Add(Cell{Text: in.Path, Class: "code"}, cell, text(note))
	}
	p.Table(t)
}
