package page

import (
	"fmt"
	"strings"
)

// maxDiffCells bounds the work of a line diff (lines × lines); larger
// texts are compared line by line in order.
const maxDiffCells = 4_000_000

// diffContext is the unchanged lines shown around each change.
const diffContext = 3

// An edit is one line of a diff: kept (' '), removed ('-') or added
// ('+').
type edit struct {
	op   byte
	line string
}

// diffLines returns the shortest edit script turning a into b (a longest
// common subsequence of lines).
func diffLines(a, b []string) []edit {
	n, m := len(a), len(b)
	if n*m > maxDiffCells {
		var out []edit
		for i := 0; i < max(n, m); i++ {
			switch {
			case i < n && i < m && a[i] == b[i]:
				out = append(out, edit{' ', a[i]})
			default:
				if i < n {
					out = append(out, edit{'-', a[i]})
				}
				if i < m {
					out = append(out, edit{'+', b[i]})
				}
			}
		}
		return out
	}
	// lcs[i][j] is the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []edit
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out = append(out, edit{' ', a[i]})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, edit{'-', a[i]})
			i++
		default:
			out = append(out, edit{'+', b[j]})
			j++
		}
	}
	return out
}

// diffHTML writes the unified diff of a and b (hunks with diffContext
// lines around each change) as a preformatted block, removed and added
// lines marked by sign and colour.
func diffHTML(a, b, nameA, nameB string) string {
	split := func(s string) []string { return strings.Split(strings.TrimRight(s, "\n"), "\n") }
	es := diffLines(split(a), split(b))
	var sb strings.Builder
	fmt.Fprintf(&sb, "<pre class=\"diff\" aria-label=\"diff of the scenario\"><span class=\"hunk\">--- %s</span>\n<span class=\"hunk\">+++ %s</span>\n", esc(nameA), esc(nameB))
	show := make([]bool, len(es))
	changed := false
	for k, e := range es {
		if e.op != ' ' {
			changed = true
			for d := max(0, k-diffContext); d <= min(len(es)-1, k+diffContext); d++ {
				show[d] = true
			}
		}
	}
	if !changed {
		sb.WriteString("(no change)</pre>\n")
		return sb.String()
	}
	ai, bi := 1, 1
	for k := 0; k < len(es); {
		if !show[k] {
			if es[k].op != '+' {
				ai++
			}
			if es[k].op != '-' {
				bi++
			}
			k++
			continue
		}
		end := k
		for end < len(es) && show[end] {
			end++
		}
		na, nb := 0, 0
		for _, e := range es[k:end] {
			if e.op != '+' {
				na++
			}
			if e.op != '-' {
				nb++
			}
		}
		fmt.Fprintf(&sb, "<span class=\"hunk\">@@ -%d,%d +%d,%d @@</span>\n", ai, na, bi, nb)
		for _, e := range es[k:end] {
			class := map[byte]string{' ': "", '-': " class=\"del\"", '+': " class=\"add\""}[e.op]
			fmt.Fprintf(&sb, "<span%s>%c %s</span>\n", class, e.op, esc(e.line))
		}
		ai, bi = ai+na, bi+nb
		k = end
	}
	sb.WriteString("</pre>\n")
	return sb.String()
}
