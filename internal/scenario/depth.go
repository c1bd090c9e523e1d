package scenario

import (
	"fmt"
	"strings"
)

// MaxDepth caps how deeply a YAML file may nest mappings and lists. The
// YAML parser's memory grows with the square of the nesting (a 60 KB file
// of nested brackets took 1.4 GB), while a scenario, a description or a
// tune space nests fewer than ten levels.
const MaxDepth = 64

// CheckDepth refuses YAML that nests deeper than MaxDepth, before it is
// parsed: flow collections ([ and { outside quotes and comments) and block
// levels (indentation, and each "- " that opens a list item) both count.
func CheckDepth(file string, data []byte) error {
	var (
		flow, line, col = 0, 1, 0
		quote           byte
		comment, start  = false, true
		indent          int
		stack           []int // block indentation columns
		// last is the line's last non-blank byte outside quotes (0 at
		// its start): a quote opens a scalar only where a scalar may
		// begin, so the apostrophe of "the job's class" opens none.
		last byte
	)
	deep := func() error {
		if d := flow + len(stack); d > MaxDepth {
			return Errors{{File: file, Line: line, Col: col, Msg: fmt.Sprintf("nested %d levels deep, more than the %d a scenario file may nest", d, MaxDepth)}}
		}
		return nil
	}
	for i := 0; i < len(data); i++ {
		c := data[i]
		col++
		switch {
		case c == '\n':
			line, col, comment, start, indent, last = line+1, 0, false, true, 0, 0
			continue
		case comment:
			continue
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
				col++
			} else if c == quote {
				quote, last = 0, c
			}
			continue
		case start && c == ' ':
			indent++
			continue
		case start && c == '#':
			comment = true
			continue
		case start && c != '\r':
			start = false
			if flow == 0 {
				for len(stack) > 0 && stack[len(stack)-1] >= indent {
					stack = stack[:len(stack)-1]
				}
				stack = append(stack, indent)
				// "- - - x": every list item opened on the line nests.
				for j := i; j+1 < len(data) && data[j] == '-' && (data[j+1] == ' ' || data[j+1] == '\n'); j += 2 {
					for j+2 < len(data) && data[j+2] == ' ' {
						j++
					}
					stack = append(stack, indent+j-i+2)
				}
				if err := deep(); err != nil {
					return err
				}
			}
		}
		prev := last
		if c != ' ' && c != '\t' && c != '\r' {
			last = c
		}
		switch c {
		case '#':
			if i > 0 && (data[i-1] == ' ' || data[i-1] == '\t') {
				comment = true
			}
		case '"', '\'':
			if prev == 0 || strings.IndexByte(":-[{,?", prev) >= 0 {
				quote = c
			}
		case '[', '{':
			flow++
			if err := deep(); err != nil {
				return err
			}
		case ']', '}':
			if flow > 0 {
				flow--
			}
		}
	}
	return nil
}
