// Package page writes rocelab's answers as one self-contained HTML page:
// a twin run (and its variants), a diagnosis, a tune search or a capture,
// with tables and inline SVG plots drawn by gonum.org/v1/plot.
//
// The page makes no request of its own: no fonts, scripts or styles from
// elsewhere (a Content-Security-Policy says so to the browser), everything
// inline. It reads as it is with JavaScript off; the one small script only
// sorts tables and shows the values under the pointer on a plot. Light and
// dark colour schemes follow the reader's preference, and printing uses
// the light one.
//
// It reads only plain data: twin.Observation, doctor.Report, tune.Result
// and capture.Analysis, never an engine. Series too long or too many for a
// page are summarised, never dropped silently: the busiest few are drawn
// and the rest as a quantile band, and the figure says so. The same input
// gives the same bytes.
//
// The markup is well-formed XML as well as HTML (void elements closed,
// text escaped, script and style in CDATA sections), so tests read it
// with encoding/xml.
package page

import (
	"fmt"
	"html"
	"io"
	"strings"
	"unicode/utf8"
)

// A Page is built section by section and written once.
type Page struct {
	title string
	// meta are the header's name/value lines.
	meta [][2]string
	body strings.Builder
	toc  []tocEntry
	ids  map[string]int
	open int // sections open (h2 = 1, h3 = 2)
}

type tocEntry struct {
	level     int
	id, title string
}

// newPage starts a page titled title.
func newPage(title string) *Page { return &Page{title: title, ids: map[string]int{}} }

// Meta adds a line to the header.
func (p *Page) Meta(name, value string) { p.meta = append(p.meta, [2]string{name, value}) }

// id returns a unique element id made of s.
func (p *Page) id(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	id := strings.Trim(b.String(), "-")
	if len(id) > 48 {
		id = strings.Trim(id[:48], "-")
	}
	if id == "" {
		id = "s"
	}
	p.ids[id]++
	if n := p.ids[id]; n > 1 {
		id = fmt.Sprintf("%s-%d", id, n)
	}
	return id
}

// Section opens a section (level 1: h2, level 2: h3), closing any open
// at its level or deeper.
func (p *Page) Section(level int, title string) {
	for p.open >= level {
		p.body.WriteString("</section>\n")
		p.open--
	}
	id := p.id(title)
	p.toc = append(p.toc, tocEntry{level, id, title})
	fmt.Fprintf(&p.body, "<section id=\"%s\">\n<h%d>%s</h%d>\n", id, level+1, esc(title), level+1)
	p.open = level
}

// Para writes a paragraph of text.
func (p *Page) Para(text string) { fmt.Fprintf(&p.body, "<p>%s</p>\n", esc(text)) }

// Note writes a paragraph that stands out: what was summarised or left
// out, what the engine does not model.
func (p *Page) Note(text string) { fmt.Fprintf(&p.body, "<p class=\"note\">%s</p>\n", esc(text)) }

// Pre writes preformatted text, folded away under summary when fold is
// set.
func (p *Page) Pre(summary, text string, fold bool) {
	if fold {
		fmt.Fprintf(&p.body, "<details><summary>%s</summary>\n<pre>%s</pre>\n</details>\n", esc(summary), esc(strings.TrimRight(text, "\n")))
		return
	}
	if summary != "" {
		p.Para(summary)
	}
	fmt.Fprintf(&p.body, "<pre>%s</pre>\n", esc(strings.TrimRight(text, "\n")))
}

// List writes a bulleted list.
func (p *Page) List(items []string) {
	p.body.WriteString("<ul>\n")
	for _, it := range items {
		fmt.Fprintf(&p.body, "<li>%s</li>\n", esc(it))
	}
	p.body.WriteString("</ul>\n")
}

// raw writes markup the caller built and escaped.
func (p *Page) raw(s string) { p.body.WriteString(s) }

// WriteTo writes the whole page.
func (p *Page) WriteTo(w io.Writer) (int64, error) {
	for p.open > 0 {
		p.body.WriteString("</section>\n")
		p.open--
	}
	var b strings.Builder
	b.Grow(p.body.Len() + len(style) + len(script) + 4096)
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
	// Nothing from elsewhere: the browser refuses any request the page
	// might make.
	b.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; base-uri 'none'; form-action 'none'\"/>\n")
	b.WriteString("<meta name=\"color-scheme\" content=\"light dark\"/>\n")
	fmt.Fprintf(&b, "<meta name=\"generator\" content=\"rocelab\"/>\n<title>%s</title>\n", esc(p.title))
	b.WriteString("<style>/*<![CDATA[*/\n" + style + "/*]]>*/</style>\n</head>\n<body>\n")
	fmt.Fprintf(&b, "<header>\n<h1>%s</h1>\n<dl class=\"meta\">\n", esc(p.title))
	for _, m := range p.meta {
		fmt.Fprintf(&b, "<dt>%s</dt><dd>%s</dd>\n", esc(m[0]), esc(m[1]))
	}
	b.WriteString("</dl>\n</header>\n")
	p.writeTOC(&b)
	b.WriteString("<main>\n")
	b.WriteString(p.body.String())
	b.WriteString("</main>\n<footer><p>Written by rocelab as one self-contained file: no request leaves it; the script is optional (sorting tables, values under the pointer).</p></footer>\n")
	b.WriteString("<script>//<![CDATA[\n" + script + "//]]>\n</script>\n</body>\n</html>\n")
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// writeTOC writes the table of contents: the sections and their
// subsections.
func (p *Page) writeTOC(b *strings.Builder) {
	if len(p.toc) == 0 {
		return
	}
	b.WriteString("<nav aria-label=\"Contents\">\n<ol>\n")
	level := 1
	for i, e := range p.toc {
		switch {
		case e.level > level:
			b.WriteString("\n<ol>\n")
		case e.level < level:
			b.WriteString("</li>\n</ol>\n</li>\n")
		case i > 0:
			b.WriteString("</li>\n")
		}
		level = e.level
		fmt.Fprintf(b, "<li><a href=\"#%s\">%s</a>", e.id, esc(e.title))
	}
	for ; level > 1; level-- {
		b.WriteString("</li>\n</ol>\n")
	}
	b.WriteString("</li>\n</ol>\n</nav>\n")
}

// esc escapes text for HTML and XML (see clean).
func esc(s string) string { return html.EscapeString(clean(s)) }

// clean replaces what XML forbids, bytes that are not UTF-8 and control
// characters other than tab and line ends, with U+FFFD.
func clean(s string) string {
	ok := func(r rune) bool { return r >= 0x20 && r != 0x7f || r == '\t' || r == '\n' || r == '\r' }
	dirty := !utf8.ValidString(s)
	for _, r := range s {
		dirty = dirty || !ok(r)
	}
	if !dirty {
		return s
	}
	return strings.Map(func(r rune) rune {
		if !ok(r) {
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}
