// Package textout writes what rocelab prints: indented JSON and aligned
// text tables. It is a leaf: the twin's reports, the doctor and the capture
// analysis all use it without importing each other.
package textout

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// WriteJSON writes v as indented JSON without HTML escaping, so that
// "<" and "&" in evidence lines stay readable.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// A Table is a left-aligned text table, indented by two spaces.
type Table struct {
	Head []string
	rows [][]string
	// More is how many rows were left out; it is noted under the table.
	More int
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.rows = append(t.rows, cells) }

// Len returns the number of rows added.
func (t *Table) Len() int { return len(t.rows) }

// Write renders the table into b. The last column is not padded.
func (t *Table) Write(b *strings.Builder) {
	w := make([]int, len(t.Head))
	for _, r := range append([][]string{t.Head}, t.rows...) {
		for i, c := range r {
			if i < len(w) && len([]rune(c)) > w[i] {
				w[i] = len([]rune(c))
			}
		}
	}
	line := func(r []string) {
		b.WriteString(" ")
		for i, c := range r {
			if i == len(r)-1 {
				fmt.Fprintf(b, " %s", c)
			} else {
				fmt.Fprintf(b, " %-*s", w[i], c)
			}
		}
		b.WriteString("\n")
	}
	line(t.Head)
	for _, r := range t.rows {
		line(r)
	}
	if t.More > 0 {
		fmt.Fprintf(b, "  … %d more (see --json or --out)\n", t.More)
	}
}

// Count formats n with the singular or plural noun: "1 switch", "2 switches".
func Count(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Article returns word with "a" or "an" before it, by its first letter:
// "an all-to-all", "a permutation".
func Article(word string) string {
	if word != "" && strings.ContainsRune("aeiouAEIOU", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}

// Ints lists numbers separated by commas ("0,3"), or "none".
func Ints(xs []int) string {
	if len(xs) == 0 {
		return "none"
	}
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

// WriteFile creates path and fills it through a buffered writer.
func WriteFile(path string, fill func(w io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := fill(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
