package page

import (
	"fmt"
	"strings"
)

// A Table is an HTML table: a caption, a header row, and rows whose first
// cell heads the row.
type Table struct {
	Caption string
	Head    []string
	Rows    [][]Cell
	// More says what the table leaves out, and where to find it.
	More string
	// Sortable lets the (optional) script sort it by a column.
	Sortable bool
}

// A Cell is one table cell.
type Cell struct {
	Text string
	// Class styles the cell: "num" (right-aligned), "pass", "fail",
	// "warn", "info", "code".
	Class string
	// Sort is the cell's sort key when it is not its text (numbers).
	Sort string
}

// text is a cell of plain text.
func text(s string) Cell { return Cell{Text: s} }

// number is a right-aligned cell of a number, sorted by its value.
func number(format string, v float64) Cell {
	return Cell{Text: fmt.Sprintf(format, v), Class: "num", Sort: fmt.Sprintf("%.6g", v)}
}

// count is a right-aligned cell of an integer.
func count(v int64) Cell { return Cell{Text: fmt.Sprint(v), Class: "num", Sort: fmt.Sprint(v)} }

// Add adds a row.
func (t *Table) Add(cells ...Cell) { t.Rows = append(t.Rows, cells) }

// Table writes t.
func (p *Page) Table(t *Table) {
	b := &p.body
	class := ""
	if t.Sortable {
		class = " class=\"sortable\""
	}
	fmt.Fprintf(b, "<div class=\"scroll\"><table%s>\n", class)
	if t.Caption != "" {
		fmt.Fprintf(b, "<caption>%s</caption>\n", esc(t.Caption))
	}
	b.WriteString("<thead><tr>")
	for _, h := range t.Head {
		fmt.Fprintf(b, "<th scope=\"col\">%s</th>", esc(h))
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range t.Rows {
		b.WriteString("<tr>")
		for i, c := range r {
			tag := "td"
			if i == 0 {
				tag = "th scope=\"row\""
			}
			var attrs strings.Builder
			if c.Class != "" {
				fmt.Fprintf(&attrs, " class=\"%s\"", c.Class)
			}
			if c.Sort != "" {
				fmt.Fprintf(&attrs, " data-sort=\"%s\"", esc(c.Sort))
			}
			txt := esc(c.Text)
			if c.Class == "code" {
				txt = "<code>" + txt + "</code>"
			}
			fmt.Fprintf(b, "<%s%s>%s</%s>", tag, attrs.String(), txt, strings.Fields(tag)[0])
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table></div>\n")
	if t.More != "" {
		fmt.Fprintf(b, "<p class=\"more\">%s</p>\n", esc(t.More))
	}
}
